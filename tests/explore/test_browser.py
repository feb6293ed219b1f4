"""The explorer in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) loads the
page, moves a λ slider, picks a user, switches a reranker and exports the TOML; the test reads what the page
shows, and `recdiv run` of the exported TOML reproduces the numbers on the page."""

from __future__ import annotations

import shutil
import socket
import time
import tomllib

import pandas as pd
import pytest

from recdiv.experiment.plan.systems import plan_systems
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.explore.server import serve
from tests.explore.conftest import synthetic_state

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def explorer(synthetic_catalog):
    served = serve(synthetic_catalog, synthetic_state(), port=free_port(), background=True, open_browser=False)
    yield served
    served.stop()


@pytest.fixture(scope="module")
def page(explorer):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 400" not in m.text
              else None)  # 400: the bad value the test enters on purpose
        pg.errors = errors
        yield pg
        browser.close()


def counter(pg, name: str = "ready") -> int:
    """The page's counter of finished updates (data-ready) or drawn curves (data-curve); read as an attribute:
    the page's policy forbids evaluating strings (Playwright's wait_for_function would)."""
    return int(pg.locator("body").get_attribute(f"data-{name}") or 0)


def wait_update(pg, before: int, name: str = "ready", timeout: float = 60.0) -> None:
    t0 = time.monotonic()
    while counter(pg, name) <= before:
        assert time.monotonic() - t0 < timeout, f"the page did not update ({name})"
        pg.wait_for_timeout(50)


def ready(pg) -> int:
    return counter(pg)


def cell(pg, measure: str, column: int) -> str:
    return pg.locator("#measures-table tbody tr", has_text=measure).locator("td").nth(column).locator(".mean") \
        .inner_text()


def test_explore_in_a_browser(explorer, page, tmp_path):
    pg = page
    pg.goto(explorer.url)
    wait_update(pg, 0)
    assert pg.locator("#measures-table tbody tr").count() == 4
    assert "A: MMR(lambda=0.5) over genres" in pg.locator("#measures-table thead").inner_text()
    assert pg.locator(".list").count() == 3 and pg.locator(".list[data-system=A] li").count() == 10
    assert "rel " in pg.locator(".list[data-system=A] .terms").first.inner_text()  # MMR's terms
    wait_update(pg, 0, "curve")
    assert pg.locator("#curve svg.main-svg").count() >= 1
    assert "more diverse" in pg.locator("#curve").inner_text()

    # move A's λ slider: lists and measures change, the URL follows
    ild_before = cell(pg, "ILD@10", 1)
    n = ready(pg)
    pg.locator("#a-params input[type=range]").fill("0.1")
    wait_update(pg, n)
    assert "a.lambda=0.1" in pg.url
    assert "A: MMR(lambda=0.1) over genres" in pg.locator("#measures-table thead").inner_text()
    assert float(cell(pg, "ILD@10", 1)) > float(ild_before)  # more weight on diversity

    # pick a user
    second = pg.locator("#user-select option").nth(1).get_attribute("value")
    n = ready(pg)
    pg.locator("#user-select").select_option(second)
    wait_update(pg, n)
    assert f"user={second}" in pg.url
    assert pg.locator("#user-select").input_value() == second

    # switch configuration B's reranker
    n = ready(pg)
    pg.locator("#b").select_option("IASelect")
    wait_update(pg, n)
    assert "B: IASelect over genres" in pg.locator("#measures-table thead").inner_text()
    assert pg.locator(".list[data-system=B] .terms").first.inner_text().startswith("f ")  # no additive split

    # FA*IR: its protected group is a choice among the genres, the least exposed by default (kept to the export)
    n = ready(pg)
    pg.locator("#b").select_option("FAIR")
    wait_update(pg, n)
    assert "B: FAIR(group=Documentary)" in pg.locator("#measures-table thead").inner_text()
    assert "b.group=Documentary" in pg.url
    assert pg.locator("#b-params select[aria-label=group]").input_value() == "Documentary"

    # a bad value: a clear message in the page, no stack trace
    pg.locator("#n").fill("5")
    pg.locator("#n").dispatch_event("change")
    pg.wait_for_selector("#error:not([hidden])", timeout=30_000)
    assert "k = 10 is larger than the candidate depth n = 5" in pg.locator("#error").inner_text()
    n = ready(pg)
    pg.locator("#n").fill("50")
    pg.locator("#n").dispatch_event("change")
    wait_update(pg, n)
    assert pg.locator("#error").is_hidden()

    # export the TOML: recdiv run reproduces the numbers on the page
    href = pg.locator("#export-toml").get_attribute("href")
    toml = pg.request.get(explorer.url.split("?")[0] + href).text()
    config = validate(tomllib.loads(toml), "experiment.toml")
    run_experiment(config, tmp_path / "out", progress=False, report=False)
    scores = pd.read_parquet(tmp_path / "out" / "scores.parquet")
    names = [s.name for s in plan_systems(config)]
    for column, system in enumerate(names):
        for measure in ("nDCG@10", "ILD@10"):
            mean = scores[(scores["system"] == system) & (scores["measure"] == measure)]["value"].mean()
            assert cell(pg, measure, column) == f"{mean:.4f}", (system, measure)
    assert pg.errors == []


def test_restoring_a_link(explorer, page):
    pg = page
    pg.goto(explorer.url.replace("a.lambda=0.5", "a.lambda=0.25") + "&user=7")
    wait_update(pg, 0)
    assert "A: MMR(lambda=0.25) over genres" in pg.locator("#measures-table thead").inner_text()
    assert pg.locator("#user-select").input_value() == "7"
    assert pg.locator("#a-params output").first.inner_text() == "0.25"
