"""`recdiv eval`: file loading into one vocabulary, output formats, errors (one line, exit 2)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from recdiv.cli import main
from recdiv.eval.io import load_inputs, run_names

QRELS = "u 0 a 5\nu 0 b 4\nu 0 c 3\nu 0 d 2\nu 0 e 4\nv 0 a 1\nw 0 z 5\n"
RUN = "u Q0 x 1 5 t\nu Q0 a 2 4 t\nu Q0 c 3 3 t\nu Q0 b 4 2 t\nu Q0 y 5 1 t\nv Q0 a 1 1 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r1.run").write_text(RUN)
    (tmp_path / "r2.run").write_text("u Q0 a 1 1 t\nu Q0 b 2 1 t\nw Q0 z 1 3 t\n")  # tie: b before a
    return tmp_path


def _run(capsys, *argv):
    rc = main(["eval", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_output_and_population(files, capsys):
    rc, out, _ = _run(capsys, files / "q.txt", files / "r1.run", files / "r2.run", "-m", "P@5", "AP", "RR",
                      "--format", "json", "--per-user")
    assert rc == 0
    data = json.loads(out)
    # population: users with ≥ 1 relevant item (u, w); w is absent from r1 and scores 0
    assert data["runs"]["r1"] == {"P@5": pytest.approx(0.2), "AP": pytest.approx(1 / 6), "RR": pytest.approx(0.25)}
    assert data["per_user"]["r1"]["AP"] == {"u": pytest.approx(1 / 3), "w": 0.0}
    assert data["per_user"]["r2"]["RR"] == {"u": 1.0, "w": 1.0}  # b (4) ranked before a on the tie
    assert data["runs"]["r2"]["P@5"] == pytest.approx((2 / 5 + 1 / 5) / 2)


def test_judged_population_and_threshold(files, capsys):
    _, out, _ = _run(capsys, files / "q.txt", files / "r1.run", "-m", "P@5", "--population", "judged",
                      "--rel-threshold", "1", "--format", "json", "--per-user")
    data = json.loads(out)
    assert data["per_user"]["r1"]["P@5"] == {"u": pytest.approx(0.6), "v": pytest.approx(0.2), "w": 0.0}


def test_csv_and_table(files, capsys):
    rc, out, _ = _run(capsys, files / "q.txt", files / "r1.run", "-m", "nDCG@5", "HLU_breese", "--format", "csv",
                      "--per-user")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0] == {"run": "r1", "measure": "nDCG@5", "user": "", "value": repr(0.5502722417667023 / 2)}
    assert {r["measure"] for r in rows if r["user"]} == {"nDCG@5"}  # system-level measures: no per-user rows
    rc, out, _ = _run(capsys, files / "q.txt", files / "r1.run", "-m", "nDCG@5", "Spearman")
    assert rc == 0 and out.splitlines()[1].split() == ["r1", "0.275136", "0.500000"]


def test_spearman_nan_is_null_in_json(files, capsys):
    _, out, _ = _run(capsys, files / "q.txt", files / "r1.run", "-m", "Spearman", "--format", "json", "--per-user")
    data = json.loads(out)
    assert data["per_user"]["r1"]["Spearman"]["w"] is None


@pytest.mark.parametrize(("content", "message"), [
    ("u Q0 a 1 x t\n", "score must be a number"),
    ("u Q0 a 1\n", "expected 6 columns"),
    ("u Q0 a 1 1 t\nu Q0 a 2 0.5 t\n", "duplicate item"),
])
def test_bad_run_files(files, capsys, content, message):
    (files / "bad.run").write_text(content)
    rc, out, err = _run(capsys, files / "q.txt", files / "bad.run")
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and "bad.run:" in err


def test_bad_qrels_and_measures(files, capsys):
    (files / "bad.txt").write_text("u 0 a five\n")
    rc, _, err = _run(capsys, files / "bad.txt", files / "r1.run")
    assert rc == 2 and "bad.txt:1: grade must be a number" in err
    rc, _, err = _run(capsys, files / "q.txt", files / "r1.run", "-m", "nDCG@10", "Bogus@3")
    assert rc == 2 and "unknown measure 'Bogus'" in err
    rc, _, err = _run(capsys, files / "q.txt")
    assert rc == 2 and "at least one run" in err
    rc, _, err = _run(capsys, files / "q.txt", files / "missing.run")
    assert rc == 2 and "file not found" in err


def test_list(capsys):
    rc, out, _ = _run(capsys, "--list")
    assert rc == 0
    assert out.startswith("accuracy (docs/metrics.md):")
    assert "nDCG(gain=rating, disc=log, b=2)[@K]" in out and "Koren & Sill" in out


def test_context_files_share_the_vocabulary(files):
    (files / "train.tsv").write_text("u\tq\t5\nu2\tz\t3\n")
    (files / "aspects.tsv").write_text("a\tdrama\nq\tcomedy\tnone\n".replace("\tnone", ""))
    (files / "prev.run").write_text("u Q0 q 1 1 t\n")
    inputs = load_inputs(files / "q.txt", [files / "r1.run"], train=files / "train.tsv",
                         aspects=files / "aspects.tsv", previous=files / "prev.run", threshold=3)
    ctx = inputs.context
    assert ctx.threshold == 3
    assert ctx.train.items is inputs.qrels.items and ctx.train.users is inputs.qrels.users
    assert ctx.aspects.items is inputs.qrels.items
    assert ctx.previous.item_vocab is inputs.qrels.items
    assert {"q", "z", "x", "y"} <= set(inputs.qrels.items.ids)
    assert ctx.train.matrix.sum() == 8


def test_run_names():
    assert run_names(["a/x.run", "b/y.txt"]) == ["x", "y"]
    assert run_names(["a/x.run", "b/x.run"]) == ["a/x.run", "b/x.run"]


def test_evaluate_itemlists():
    from lenskit.data import ItemList, ItemListCollection

    from recdiv.eval import evaluate_itemlists

    recs = ItemListCollection.empty(["user_id"])
    recs.add(ItemList(item_ids=["x", "a", "c", "b", "y"], scores=[5, 4, 3, 2, 1], ordered=True), user_id="u")
    test = ItemListCollection.empty(["user_id"])
    test.add(ItemList(item_ids=list("abcde"), rating=[5.0, 4, 3, 2, 4]), user_id="u")
    test.add(ItemList(item_ids=["q"], rating=[5.0]), user_id="w")
    res = evaluate_itemlists(recs, test, ["P@5", "nDCG@5", "HLU_breese"])
    assert res.value("recs", "P@5") == pytest.approx(0.2)
    assert res.table().loc["recs", "nDCG@5"] == pytest.approx(0.5502722417667023 / 2)
    frame = res.user_table("recs")
    assert list(frame.columns) == ["P@5", "nDCG@5"] and frame.loc["u", "P@5"] == pytest.approx(0.4)
