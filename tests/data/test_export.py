"""`recdiv data export`: a split as train.tsv, test.qrels, aspects.tsv and README.txt, read back by the readers
every other command uses."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.data.export import relevance_threshold
from recdiv.data.load import load_dataset
from recdiv.data.splits import make_split
from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv, read_trec_qrels


def _pairs(frame: pd.DataFrame, cols: list[str]) -> set:
    return set(zip(*(frame[c].astype(str) for c in cols)))


def test_export_synthetic_round_trip(tmp_path, capsys):
    out = tmp_path / "x"
    assert main(["data", "export", "synthetic:tiny", "--split", "holdout:0.2", "--seed", "3", "-o", str(out)]) == 0
    assert "relevant: grade ≥ 4" in capsys.readouterr().err
    ds = load_dataset("synthetic:tiny")
    split = make_split(ds, "holdout:0.2", seed=3)
    train, test = split.train.to_frame(), split.test.to_frame()
    got = read_interactions_tsv(out / "train.tsv")
    assert _pairs(got, ["user", "item"]) == _pairs(train, ["user", "item"])
    np.testing.assert_array_equal(got.sort_values(["user", "item"])["value"].to_numpy(),
                                  train.astype({"user": str, "item": str}).sort_values(["user", "item"])["value"])
    q = read_trec_qrels(out / "test.qrels")
    assert len(q) == len(test) and _pairs(q, ["user", "item", "grade"]) == {
        (str(u), str(i), str(float(v))) for u, i, v in zip(test["user"], test["item"], test["value"])}
    asp = read_item_aspects_tsv(out / "aspects.tsv")
    g = ds.attributes["genres"].matrix.tocoo()
    want = {(str(ds.items.id_of(np.array([r]))[0]), str(ds.attributes["genres"].names.id_of(np.array([c]))[0]))
            for r, c in zip(g.row, g.col)}
    assert _pairs(asp, ["item", "aspect"]) == want
    readme = (out / "README.txt").read_text(encoding="utf-8")
    for name in ("train.tsv", "test.qrels", "aspects.tsv", "--rel-threshold 4", "trec_eval -l 4",
                 "rating (1–5)", "split holdout:0.2 (seed 3)"):
        assert name in readme, name


def test_export_refuses_to_overwrite_and_checks_options(tmp_path, capsys):
    out = tmp_path / "x"
    args = ["data", "export", "synthetic:tiny", "--split", "holdout:0.2", "-o", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()}
    assert main(args) == 0  # the same export again (README, then the walkthrough): nothing written, success
    assert f"-> {out}/ (already there, unchanged)" in capsys.readouterr().err
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()} == before
    # written by another recdiv (its README.txt names another commit): the data is the same, README.txt is rewritten
    readme = out / "README.txt"
    readme.write_text(readme.read_text("utf-8").replace("recdiv", "recdiv-older"), "utf-8")
    assert main(args) == 0
    assert f"-> {out}/ (data already there, unchanged; README.txt rewritten)" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {n: b for n, (b, _) in before.items()}
    readme.write_bytes(before["README.txt"][0])
    assert main([*args[:-2], "--seed", "4", "-o", str(out)]) == 2  # another export: refused, files kept
    assert "already holds train.tsv" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {n: b for n, (b, _) in before.items()}
    assert main([*args, "--force"]) == 0
    assert main([*args, "--force", "--aspects", "tags"]) == 2
    assert "has no such attribute (it has: genres)" in capsys.readouterr().err
    assert main([*args, "--force", "--aspects", "none", "--top", "2"]) == 2
    assert "need --aspects" in capsys.readouterr().err
    assert main(["data", "export", "synthetic:tiny", "--split", "nonsense", "-o", str(tmp_path / "y")]) == 2
    assert "unknown split spec" in capsys.readouterr().err


@pytest.mark.realdata
def test_export_ml100k_u1(tmp_path, data_root, capsys):
    out = tmp_path / "u1"
    assert main(["data", "export", "ml-100k", "--data-dir", str(data_root), "--split", "u1", "-o", str(out)]) == 0
    assert sum(1 for _ in open(out / "train.tsv")) == 80_000
    q = read_trec_qrels(out / "test.qrels")
    raw = pd.read_csv(data_root / "ml-100k" / "u1.test", sep="\t", names=["user", "item", "rating", "ts"])
    assert _pairs(q, ["user", "item"]) == _pairs(raw, ["user", "item"])
    assert (q["grade"].to_numpy() >= 1).all() and len(q) == 20_000
    assert len(read_item_aspects_tsv(out / "aspects.tsv")) == 2893  # ML-100K's (movie, genre) flags


@pytest.mark.realdata
def test_export_lastfm_tags_keep_their_spaces(tmp_path, data_root):
    out = tmp_path / "lfm"
    assert main(["data", "export", "hetrec2011-lastfm-2k", "--data-dir", str(data_root), "--split", "holdout:0.2",
                 "--min-weight", "5", "--top", "3", "-o", str(out)]) == 0
    asp = read_item_aspects_tsv(out / "aspects.tsv")
    assert asp["aspect"].str.contains(" ").any()  # e.g. "hip hop", "hard rock"
    assert asp.groupby("item").size().max() <= 3 and (asp["weight"] >= 5).all()
    q = read_trec_qrels(out / "test.qrels")
    assert (q["grade"] == 1).all()  # implicit feedback: every test interaction is relevant
    assert "--rel-threshold 1" in (out / "README.txt").read_text(encoding="utf-8")


def test_relevance_threshold_per_scale():
    ds = load_dataset("synthetic:tiny")
    split = make_split(ds, "holdout:0.2")
    assert relevance_threshold(split) == 4.0
    implicit = type(split)(split.train.with_values(split.train.values, kind="implicit"),
                           split.test.with_values(split.test.values, kind="implicit"))
    assert relevance_threshold(implicit) == 1.0
    ten = type(split)(split.train.with_values(split.train.values * 2, scale=(2.0, 10.0)),
                      split.test.with_values(split.test.values * 2, scale=(2.0, 10.0)))
    assert relevance_threshold(ten) == 8.0


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_export_qrels_as_a_table(tmp_path, capsys, fmt):
    """--qrels-format parquet|arrow: test.parquet / test.arrow hold the judgments of test.qrels (columns user, item,
    grade); the folder loads as the same dataset, its record keeps the threshold, and eval gives the same values."""
    text, table = tmp_path / "text", tmp_path / fmt
    base = ["data", "export", "synthetic:tiny", "--split", "holdout:0.2", "--seed", "3"]
    assert main([*base, "-o", str(text)]) == 0
    assert main([*base, "-o", str(table), "--qrels-format", fmt]) == 0
    capsys.readouterr()
    qrels = table / f"test.{fmt}"
    assert not (table / "test.qrels").exists() and qrels.is_file()
    from recdiv.data.export_record import recorded_threshold
    from recdiv.data.formats import read_qrels

    got = read_qrels(qrels).frame()
    assert list(got.columns[:3]) == ["user", "item", "grade"]
    assert _pairs(got, ["user", "item", "grade"]) == _pairs(read_trec_qrels(text / "test.qrels"),
                                                            ["user", "item", "grade"])
    assert recorded_threshold(qrels)[0] == 4.0
    readme = (table / "README.txt").read_text(encoding="utf-8")
    assert f"test.{fmt}" in readme and "columns user, item, grade" in readme and "trec_eval -l" not in readme
    a, b = load_dataset(str(text)), load_dataset(str(table))
    assert a.splits["export"].test.to_frame().equals(b.splits["export"].test.to_frame())
    run = tmp_path / "pop.run"
    assert main(["recommend", "--train", str(table / "train.tsv"), "--qrels", str(qrels), "--algo", "pop",
                 "-o", str(run)]) == 0
    values = []
    for q in (text / "test.qrels", qrels):
        capsys.readouterr()
        assert main(["eval", str(q), str(run), "-m", "nDCG@5", "-m", "P@5", "--format", "json"]) == 0
        values.append(json.loads(capsys.readouterr().out)["runs"])
    assert values[0] == values[1] and values[0]["pop"]["P@5"] > 0
    # --force in the other format replaces the judgments: one qrels file, never two that could disagree
    assert main([*base, "-o", str(table), "--force"]) == 0
    assert (table / "test.qrels").is_file() and not qrels.exists()
