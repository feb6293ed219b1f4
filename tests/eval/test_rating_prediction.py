"""RMSE and MAE of rating predictions (`recdiv eval QRELS --predictions FILE`, `recdiv recommend --predict`):
per user and over all pairs, against LensKit 2025.8's `RMSE` / `MAE` (missing scores ignored)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.eval import parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.io import load_inputs


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(8)
    q, p = [], []
    for u in range(25):
        for i in rng.choice(40, size=rng.integers(1, 12), replace=False):
            g = int(rng.integers(1, 6)) if u % 5 else int(rng.integers(1, 4))  # every 5th user: nothing ≥ 4
            q.append((f"u{u}", f"i{i}", g))
            if rng.random() < 0.85:  # some test ratings have no prediction
                p.append((f"u{u}", f"i{i}", g + rng.normal(0, 1)))
        p += [(f"u{u}", f"x{j}", 3.0) for j in range(2)]  # predictions for items outside the test set: ignored
    (tmp_path / "qrels").write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in q))
    (tmp_path / "pred").write_text("".join(f"{u}\t{i}\t{s!r}\n" for u, i, s in p))
    return tmp_path / "qrels", tmp_path / "pred", pd.DataFrame(q, columns=["user", "item", "rating"]), \
        pd.DataFrame(p, columns=["user", "item", "score"])


def test_rmse_mae_equal_lenskit(files):
    from lenskit.data import ItemList
    from lenskit.metrics import MAE, RMSE

    qrels, pred, truth, scores = files
    inputs = load_inputs(qrels, [], predictions=[pred], population="judged")
    r, q, ctx = inputs.runs["pred"], inputs.qrels, inputs.context
    users = [str(u) for u in q.users.id_of(RunView.of(ctx, r, q).users)]
    assert len(users) == 25
    for ours, theirs in (("RMSE", RMSE(missing_scores="ignore", missing_truth="ignore")),
                         ("MAE", MAE(missing_scores="ignore", missing_truth="ignore"))):
        got = parse_measure(ours).per_user(r, q, ctx)
        for k, u in enumerate(users):
            t, s = truth[truth.user == u], scores[scores.user == u]
            pl = ItemList(item_ids=s.item.to_numpy(), scores=s.score.to_numpy())
            tl = ItemList(item_ids=t.item.to_numpy(), rating=t.rating.to_numpy(np.float64))
            want = theirs.measure_list(pl, tl)
            if np.isnan(want):
                assert np.isnan(got[k])
            else:
                assert got[k] == pytest.approx(want, rel=1e-6), (ours, u)  # LensKit keeps scores in float32
        # the system value over all pairs (LensKit's global aggregate divides by the aligned pairs *including* those
        # without a score when missing_scores="ignore", so it is checked on the merged pairs instead)
        merged = truth.merge(scores, on=["user", "item"])
        err = merged.score.to_numpy() - merged.rating.to_numpy()
        exact = np.sqrt(np.mean(err**2)) if ours == "RMSE" else np.mean(np.abs(err))
        assert parse_measure(ours).value(r, q, ctx) == pytest.approx(exact, rel=1e-13)


def test_predictions_from_the_command_line(files, capsys):
    qrels, pred, truth, scores = files
    assert main(["eval", str(qrels), "--predictions", str(pred), "-m", "RMSE", "MAE", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    merged = truth.merge(scores, on=["user", "item"])
    rmse = float(np.sqrt(np.mean((merged.score - merged.rating) ** 2)))
    assert f'"RMSE": {rmse!r}'[:20] in out  # every user counts: the default population is judged here
    missing = len(truth) - len(merged)
    assert f"pred: {missing} of {len(truth)} evaluated test ratings have none" in err
    bad = qrels.parent / "bad"
    bad.write_text("u1\ti1\t3.5\nu1\ti1\t4\n")
    assert main(["eval", str(qrels), "--predictions", str(bad), "-m", "RMSE"]) == 2
    assert capsys.readouterr().err.strip() == (f"recdiv: error: {bad}:2: duplicate prediction (user 'u1', "
                                               "item 'i1')")
    bad.write_text("u1\ti1\tx\n")
    assert main(["eval", str(qrels), "--predictions", str(bad), "-m", "RMSE"]) == 2
    assert capsys.readouterr().err.strip() == f"recdiv: error: {bad}:1: prediction must be a number, got 'x'"


@pytest.mark.realdata
def test_recommend_predict_writes_every_scorable_test_pair(ml100k_dir, tmp_path, capsys):
    """`recdiv recommend --predict` (avg-rating, ML-100K u1): one prediction per test rating; RMSE from the files
    by hand equals `recdiv eval --predictions`."""
    out = tmp_path / "avg.pred"
    assert main(["recommend", "--dataset", "ml-100k", "--data-dir", str(ml100k_dir.parent), "--split", "u1",
                 "--algo", "avg-rating", "--predict", "-o", str(out)]) == 0
    assert "20000 of 20000 test ratings predicted" in capsys.readouterr().err
    test = pd.read_csv(ml100k_dir / "u1.test", sep="\t", names=["user", "item", "rating", "ts"])
    preds = pd.read_csv(out, sep="\t", names=["user", "item", "score"])
    merged = test.merge(preds, on=["user", "item"])
    assert len(merged) == len(test) == len(preds)
    (tmp_path / "qrels").write_text("".join(f"{u} 0 {i} {r}\n" for u, i, r in zip(test.user, test.item, test.rating)))
    inputs = load_inputs(tmp_path / "qrels", [], predictions=[out], population="judged")
    got = parse_measure("RMSE").value(inputs.runs["avg"], inputs.qrels, inputs.context)
    assert got == pytest.approx(float(np.sqrt(np.mean((merged.score - merged.rating) ** 2))), rel=1e-12)
