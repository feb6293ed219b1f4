"""`recdiv data export`: a split as train.tsv, test.qrels, aspects.tsv and README.txt, read back by the readers
every other command uses."""

from __future__ import annotations

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
