"""The explorer's HTTP API: what it answers, and that hostile requests get a clear message — never a file outside
the catalog, an imported module, a stack trace or a server error page."""

from __future__ import annotations

import sys

import pytest
from starlette.testclient import TestClient

from recdiv.explore.app import App, host_name
from recdiv.explore.engine import Engine
from recdiv.explore.state import to_query
from tests.explore.conftest import synthetic_state

STATE = synthetic_state()
Q = to_query(STATE)


@pytest.fixture(scope="module")
def client(synthetic_catalog):
    app = App(Engine(synthetic_catalog), STATE)
    with TestClient(app, base_url="http://127.0.0.1:8765") as c:
        yield c
    app.close()


def test_page_and_static_files(client):
    r = client.get("/?" + Q)
    assert r.status_code == 200 and "recdiv explore" in r.text
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert 'data-state="dataset=synthetic%3Asmall' in r.text  # the state, attribute-escaped
    for name, needle in [("explore.js", "use strict"), ("explore.css", ".layout"), ("plotly.min.js", "plotly")]:
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and needle in r.text[:5000]


def test_view_shows_lists_and_population(client):
    r = client.get("/api/view?" + Q)
    body = r.json()
    queue, compute = (float(part.split(";dur=")[1]) for part in r.headers["server-timing"].split(", "))
    assert r.headers["server-timing"].startswith("queue;dur=") and queue >= 0 and compute > 0
    assert set(body["labels"]) == {"baseline", "A", "B"}
    assert body["labels"]["A"] == "A: MMR(lambda=0.5) over genres"
    lists = body["user"]["lists"]
    assert [len(lists[s]) for s in ("baseline", "A", "B")] == [10, 10, 10]
    assert all({"item", "title", "aspects", "relevant"} <= set(e) for e in lists["A"])
    assert all("relevance" in e and "diversity" in e for e in lists["A"])  # MMR's terms at each step
    rows = {(r["system"], r["measure"]): r for r in body["population"]["rows"]}
    assert len(rows) == 12
    a = rows[("A", "ILD@10")]
    assert a["ci"][0] <= a["mean"] <= a["ci"][1] and a["diff_ci"][0] <= a["diff"] <= a["diff_ci"][1]
    assert 0 <= a["p_adjusted"] <= 1 and body["population"]["test"] == "wilcoxon"
    assert body["users"][0][0] == body["user"]["id"]


def test_curve_and_exports(client):
    body = client.get("/api/curve?" + Q).json()
    assert (body["x"], body["y"]) == ("nDCG@10", "ILD@10")
    assert len(body["points"]["A"]) == 11 and len(body["points"]["B"]) == 11
    assert "more diverse" in body["figure"]["layout"]["yaxis"]["title"]["text"]
    first = client.get("/api/curve?" + Q + "&only=A").json()  # the page draws A's curve first, then both
    assert set(first["points"]) == {"baseline", "A"} and not first["complete"] and body["complete"]
    assert first["points"]["A"] == body["points"]["A"] and first["points"]["baseline"] == body["points"]["baseline"]
    bad = client.get("/api/curve?" + Q + "&only=C")
    assert bad.status_code == 400 and "the configurations shown are A, B" in bad.json()["error"]
    toml = client.get("/api/experiment.toml?" + Q)
    assert toml.status_code == 200 and 'name = "MMR"' in toml.text and "attachment" in \
        toml.headers["content-disposition"]
    run = client.get("/api/run.trec?" + Q + "&system=A").text.splitlines()
    assert len(run) % 10 == 0 and run[0].split()[1] == "Q0" and run[0].endswith(" MMR")


def test_fair_protects_a_group_of_the_datasets_genres(client):
    """FA*IR gets the dataset's genres as item groups (the experiment's `item_groups`), its protected group a choice
    among them, by default the least exposed; its lists hold at least as many protected items as the baseline's."""
    fair = next(r for r in client.get("/api/options?" + Q).json()["rerankers"] if r["name"] == "FAIR")
    group = next(c for c in fair["controls"] if c["name"] == "group")
    assert group["kind"] == "choice" and group["default"] == "Documentary" and "Drama" in group["choices"]
    body = client.get("/api/view?" + Q.replace("b=xQuAD&b.lambda=0.5", "b=FAIR&b.p=0.7")).json()
    assert "b.group=Documentary" in body["state"] and body["labels"]["B"].startswith("B: FAIR(p=0.7,group=Documentary")
    lists = body["user"]["lists"]
    count = {s: sum("Documentary" in e["aspects"] for e in lists[s]) for s in ("baseline", "B")}
    assert count["B"] >= count["baseline"] and len(lists["B"]) == 10
    drama = client.get("/api/view?" + Q.replace("b=xQuAD&b.lambda=0.5", "b=FAIR&b.group=Drama&b.p=0.9")).json()
    assert sum("Drama" in e["aspects"] for e in drama["user"]["lists"]["B"]) >= 7  # m(10) at p = 0.9
    toml = client.get("/api/experiment.toml?" + Q.replace("b=xQuAD&b.lambda=0.5", "b=FAIR")).text
    assert 'item_groups = "genres"' in toml and 'group = "Documentary"' in toml


HOSTILE = [
    ("/static/../../pyproject.toml", 404, "no such page"),
    ("/static/..%2F..%2Fpyproject.toml", 404, "no such page"),
    ("/static/%2e%2e", 404, "no static file"),
    ("/api/view?" + Q.replace("synthetic%3Asmall", "%2Fetc"), 400, "is not offered by this explorer"),
    ("/api/view?" + Q.replace("synthetic%3Asmall", "..%2F..%2Fshared%2Fdata%2Fml-100k"), 400, "not offered"),
    ("/api/view?" + Q.replace("rec=pop", "rec=os%3Asystem"), 400, "plugins (module:Class) are named when"),
    ("/api/view?" + Q.replace("a=MMR", "a=recdiv_explore_probe%3AX"), 400, "plugins (module:Class) are named"),
    ("/api/view?" + Q.replace("m=nDCG%4010", "m=recdiv_explore_probe%3ADHits%4010"), 400, "registered name"),
    ("/api/view?" + Q.replace("m=nDCG%4010", "m=nDCG%4099999"), 400, "measure"),
    ("/api/view?" + Q.replace("a=MMR&a.lambda=0.5", "a=FAIR&a.group=Nope"), 400,
     "A: FAIR: group 'Nope' is not one of the genres offered as item groups (Action, Adventure,"),
    ("/api/view?" + Q.replace("a.lambda=0.5", "a.lambda=nan"), 400, "A: lambda"),
    ("/api/view?" + Q.replace("a.lambda=0.5", "a.lambda=7"), 400, "A: lambda: Input should be less than or equal"),
    ("/api/view?" + Q.replace("a.lambda=0.5", "a.colour=red"), 400, "A: colour: unknown key"),
    ("/api/view?" + Q.replace("n=50", "n=5"), 400, "k = 10 is larger than the candidate depth n = 5"),
    ("/api/view?" + Q.replace("split=holdout%3A0.2", "split=kfold%3A2%3A9"), 400, "kfold needs"),
    ("/api/view?" + Q.replace("split=holdout%3A0.2", "split=u1"), 400, "unknown split spec 'u1'"),
    ("/api/view?" + Q + "&user=nobody", 400, "user 'nobody' is not one of the"),
    ("/api/view?" + Q + "&aspects.a=%2Fetc%2Fpasswd", 400, "aspect space '/etc/passwd' is not one of"),
    ("/api/view?" + Q + "&token=x&colour=1", 400, "unknown key 'colour'"),
    ("/api/view?" + Q + "&user=%1b%5B2J", 400, "control characters"),
    ("/api/run.trec?" + Q + "&system=..%2Fx", 400, "system '../x'"),
    ("/api/curve?" + Q + "&x=P%4010", 400, "not one of the chosen measures"),
    ("/nowhere", 404, "no such page"),
]


@pytest.mark.parametrize(("url", "status", "message"), HOSTILE, ids=[h[0][:60] for h in HOSTILE])
def test_hostile_requests_get_a_clear_message(client, url, status, message):
    r = client.get(url)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert message in r.json()["error"]
    assert "Traceback" not in r.text
    assert "recdiv_explore_probe" not in sys.modules  # no request imports a module


def test_other_methods_and_hosts_are_refused(client):
    r = client.post("/api/view?" + Q, content=b"x")
    assert r.status_code == 405 and "GET" in r.json()["error"]
    r = client.get("/?" + Q, headers={"host": "attacker.example:8765"})
    assert r.status_code == 403 and "127.0.0.1 or localhost only" in r.json()["error"]
    assert client.get("/api/jobs", headers={"host": "localhost:8765"}).status_code == 200
    assert client.get("/api/jobs", headers={"host": "[::1]:8765"}).status_code == 200


def test_a_bad_link_still_opens_the_page_with_the_message(client):
    r = client.get("/?" + Q.replace("n=50", "n=abc"))
    assert r.status_code == 200
    assert "n: Input should be a valid integer" in r.text


def test_a_token_is_required_on_every_request(synthetic_catalog):
    app = App(Engine(synthetic_catalog), STATE, token="s3cret-token")
    with TestClient(app, base_url="http://10.1.2.3:8765") as c:
        for url in ("/?" + Q, "/static/explore.js", "/api/view?" + Q, "/api/jobs"):
            r = c.get(url)
            assert r.status_code == 403 and "access token" in r.json()["error"]
        assert c.get("/api/jobs?token=wrong").status_code == 403
        assert c.get("/api/jobs", headers={"x-recdiv-token": "s3cret-token"}).status_code == 200
        page = c.get("/?" + Q + "&token=s3cret-token")  # the printed link: sets the cookie the page then uses
        assert page.status_code == 200 and "recdiv_token" in page.headers["set-cookie"]
        assert c.get("/static/explore.css").status_code == 200
    app.close()


def test_host_name():
    assert host_name("127.0.0.1:8765") == "127.0.0.1"
    assert host_name("[::1]:8765") == "[::1]"
    assert host_name("localhost") == "localhost"
    assert host_name("evil.com:80") == "evil.com"


PLUGIN = "tests.explore.plugin_reranker:LongTail"


def test_a_plugin_named_at_start_is_offered_and_used(synthetic_catalog):
    from dataclasses import replace

    catalog = replace(synthetic_catalog, plugins=(PLUGIN,))
    app = App(Engine(catalog), STATE)
    with TestClient(app, base_url="http://127.0.0.1:8765") as c:
        options = c.get("/api/options?" + Q).json()
        mine = next(r for r in options["rerankers"] if r["name"] == PLUGIN)
        assert mine["tradeoff"] == "lambda" and mine["controls"][0]["kind"] == "slider"
        assert "weight of the long-tail bonus" in mine["controls"][0]["description"]
        q = Q.replace("a=MMR&a.lambda=0.5", "a=tests.explore.plugin_reranker%3ALongTail&a.lambda=0.7")
        body = c.get("/api/view?" + q).json()
        assert body["labels"]["A"] == f"A: {PLUGIN}(lambda=0.7)"
        first = body["user"]["lists"]["A"][0]
        assert first["relevance"] + first["diversity"] == pytest.approx(first["objective"])
        assert 'name = "tests.explore.plugin_reranker:LongTail"' in c.get("/api/experiment.toml?" + q).text
    app.close()
    with TestClient(App(Engine(synthetic_catalog), STATE), base_url="http://127.0.0.1:8765") as c:
        r = c.get("/api/view?" + q)  # the same request to an explorer started without the plugin
        assert r.status_code == 400 and "plugins (module:Class) are named when the explorer starts" in r.json()["error"]
