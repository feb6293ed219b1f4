"""ranx users' route to recdiv: their `Run`/`Qrels` objects evaluated by recdiv, per-query arrays out, the paired
tests of `Results.compare`.

Oracle: ranx 0.3 itself, where it defines the same thing under the same settings — relevant ⇔ grade ≥ 1, every
query of the qrels averaged (ranx's `make_comparable=True`: a query without a list scores 0), runs without score
ties (ranx and trec_eval order ties differently): per-query values of P@5, Recall@10, nDCG@10 (linear gains),
nDCG with exponential gains (ranx's ndcg_burges), RR, AP, HitRate@5 and R-precision equal to 1e-12, and ranx's
paired Student t-test (`compare(stat_test="student")`, scipy's ttest_rel) p-values equal to recdiv's
`compare(test="t", correction="none")` on recdiv's per-query values.
"""

from __future__ import annotations

import numpy as np
import pytest
from ranx import Qrels, Run, compare, evaluate

import recdiv
from recdiv.eval.io import evaluate_files

from .test_ir_measures import write_case

SAME = {"precision@5": "P@5", "recall@10": "Recall@10", "ndcg@10": "nDCG@10", "ndcg_burges@10": "nDCG(gain=exp)@10",
        "mrr": "RR", "map": "AP", "hit_rate@5": "HitRate@5", "r-precision": "Rprec"}


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    paths = write_case(tmp_path_factory.mktemp("ranx"), 61, ties=False)
    qrels = Qrels.from_file(str(paths["qrels"]), kind="trec")
    runs = {n: Run.from_file(str(paths[n]), kind="trec", name=n) for n in ("run", "base")}
    ev = recdiv.evaluate_files(qrels, runs, list(SAME.values()), threshold=1, population="judged")
    return paths, qrels, runs, ev


def test_per_query_arrays_equal_ranx(case):
    _, qrels, runs, ev = case
    users = [str(u) for u in ev.users]
    for name, run in runs.items():
        evaluate(qrels, run, list(SAME), make_comparable=True)  # per-query values saved in run.scores
        for metric, ours in SAME.items():
            theirs = dict(run.scores[metric])
            assert sorted(theirs) == sorted(users)  # the same queries: every query of the qrels
            expected = np.array([theirs[u] for u in users])
            np.testing.assert_allclose(ev.user_values(name, ours), expected, rtol=0, atol=1e-12,
                                       err_msg=f"{name} {ours}")
            assert ev.value(name, ours) == pytest.approx(float(np.mean(expected)), abs=1e-12)
        assert np.count_nonzero(ev.user_values(name, "nDCG@10")) > 5  # not a trivial case


def test_ranx_objects_give_the_numbers_of_the_trec_files(case):
    paths, _, _, ev = case
    files = evaluate_files(paths["qrels"], [paths["run"], paths["base"]], list(SAME.values()), threshold=1,
                           population="judged")
    for name in ("run", "base"):
        for m in SAME.values():
            assert ev.user_values(name, m).tolist() == files.user_values(name, m).tolist(), (name, m)


def test_paired_t_test_equals_ranx(case):
    _, qrels, runs, ev = case
    report = compare(qrels, list(runs.values()), list(SAME), stat_test="student", make_comparable=True)
    cmp = recdiv.Results.from_evaluation(ev).compare(test="t", correction="none", measures=list(SAME.values()))
    checked = 0
    for metric, ours in SAME.items():
        theirs = report.comparisons[frozenset(["run", "base"])][metric]["p_value"]
        pair = next(pc for pc in cmp.pairs if pc.measure == ours)
        if np.isfinite(theirs):
            assert pair.p_value == pytest.approx(theirs, rel=1e-9), ours
            checked += 1
    assert checked >= 6


def test_the_ranx_door_frame_is_to_dataframe(case):
    """The door converts through `to_dict()` (`recdiv.data.doors.ranx_frame`), about 3× faster than
    `to_dataframe()`: the same rows, in the same order, with the same dtypes and values, for runs (float scores)
    and qrels (integer grades), and for an empty run."""
    import pandas as pd

    from recdiv.data.doors import ranx_frame

    _, qrels, runs, _ = case
    for obj in (qrels, *runs.values(), Run.from_dict({"q1": {"d1": 0.5, "d2": 0.5, "d3": 1.0}, "q2": {"d1": 2.0}})):
        pd.testing.assert_frame_equal(ranx_frame(obj), obj.to_dataframe(), check_exact=True)
    assert ranx_frame(qrels)["score"].dtype == np.int64 and ranx_frame(runs["run"])["score"].dtype == np.float64
    assert ranx_frame(Run()).columns.tolist() == ["q_id", "doc_id", "score"] and len(ranx_frame(Run())) == 0
