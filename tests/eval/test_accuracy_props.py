"""Property tests (METRICS.md §G.6) for the accuracy measures trec_eval lacks, and rank effectiveness
against scipy.stats per user."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recdiv.eval import EvalContext, parse_measure
from tests.eval._acc_helpers import build

ITEMS = [f"i{j}" for j in range(12)]
BOUNDED = ["P@3", "P@10", "Recall@5", "AP", "AP@4", "nDCG", "nDCG@3", "nDCG(gain=binary)@5", "nDCG(gain=exp)@5",
           "nDCG(gain=ranksys)", "nDCG(disc=jk)@5", "nDCG(disc=jk,b=3)", "RR", "RR@2", "Rprec", "bpref", "bpref@3",
           "infAP", "infAP(variant=valcarce)@5", "RBP", "RBP(p=0.5,gain=graded)@4", "ERR", "ERR@3", "HLU",
           "HLU(d=2,alpha=3)@4", "F1@5", "HitRate@3"]


@st.composite
def cases(draw):
    qrels, run = {}, {}
    for u in range(draw(st.integers(1, 4))):
        items = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=10, unique=True))
        qrels[f"u{u}"] = {i: draw(st.sampled_from([1, 2, 3, 3.5, 4, 4.5, 5])) for i in items}
        if draw(st.booleans()):
            ranked = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=12, unique=True))
            run[f"u{u}"] = {i: draw(st.floats(0, 1, width=16)) for i in ranked}
    return qrels, run


@settings(max_examples=50, deadline=None)
@given(cases())
def test_bounds(case):
    qrels, run = case
    if not run:
        run = {"zz": {"i0": 1.0}}
    r, q = build(qrels, run)
    ctx = EvalContext(population="judged")
    for name in BOUNDED:
        v = parse_measure(name).per_user(r, q, ctx)
        assert np.all((v >= 0) & (v <= 1 + 1e-12)), name


@settings(max_examples=40, deadline=None)
@given(cases())
def test_ideal_ranking_scores_one(case):
    qrels, _ = case
    assume(any(g >= 4 for d in qrels.values() for g in d.values()))
    # rank every judged item by grade (ties broken by the id rule): the ideal list of every measure
    run = {u: {i: float(g) for i, g in d.items()} for u, d in qrels.items()}
    r, q = build(qrels, run)
    for name in ["nDCG", "nDCG@3", "nDCG(gain=exp)@5", "nDCG(gain=ranksys)", "nDCG(disc=jk)@4", "HLU", "HLU@2",
                 "AP", "Rprec", "bpref", "RR", "nDCG(gain=binary)"]:
        v = parse_measure(name).per_user(r, q)
        np.testing.assert_allclose(v, 1.0, rtol=0, atol=1e-12, err_msg=name)
    assert parse_measure("HLU_breese").value(r, q) == pytest.approx(100.0)
    # infAP's ε (1e−5, trec_eval) keeps the ideal just below 1
    np.testing.assert_allclose(parse_measure("infAP").per_user(r, q), 1.0, rtol=0, atol=1e-5)
    k = 3
    rel = np.array([sum(g >= 4 for g in d.values()) for u, d in sorted(qrels.items()) if max(d.values()) >= 4])
    np.testing.assert_allclose(parse_measure(f"Recall@{k}").per_user(r, q), np.minimum(rel, k) / rel)


def _scipy_per_user(qrels, run, fn):
    out = []
    for u in sorted(qrels):
        if not any(g >= 4 for g in qrels[u].values()):
            continue
        common = [i for i in run.get(u, {}) if i in qrels[u]]
        x = [run[u][i] for i in common]
        y = [qrels[u][i] for i in common]
        if len(common) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
            out.append(np.nan)
        else:
            out.append(fn(x, y).statistic)
    return np.array(out)


@settings(max_examples=50, deadline=None)
@given(cases())
def test_rank_effectiveness_matches_scipy(case):
    qrels, run = case
    run = run or {"zz": {"i0": 1.0}}
    r, q = build(qrels, run)
    for name, fn in [("Spearman", scipy.stats.spearmanr), ("Kendall", scipy.stats.kendalltau)]:
        np.testing.assert_allclose(parse_measure(name).per_user(r, q), _scipy_per_user(qrels, run, fn),
                                   rtol=0, atol=1e-12, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(cases())
def test_fcp_matches_a_pair_loop(case):
    qrels, run = case
    run = run or {"zz": {"i0": 1.0}}
    r, q = build(qrels, run)
    nc_all = nd_all = 0
    expected = []
    for u in sorted(qrels):
        if not any(g >= 4 for g in qrels[u].values()):
            continue
        pts = [(run[u][i], qrels[u][i]) for i in run.get(u, {}) if i in qrels[u]]
        nc = sum(1 for s0, r0 in pts for s1, r1 in pts if s0 > s1 and r0 > r1)  # Surprise accuracy.fcp
        nd = sum(1 for s0, r0 in pts for s1, r1 in pts if s0 >= s1 and r0 < r1)
        nc_all, nd_all = nc_all + nc, nd_all + nd
        expected.append(nc / (nc + nd) if nc + nd else np.nan)
    fcp = parse_measure("FCP")
    np.testing.assert_allclose(fcp.per_user(r, q), expected, rtol=0, atol=1e-15)
    total = fcp.value(r, q)
    assert (np.isnan(total) and nc_all + nd_all == 0) or total == pytest.approx(nc_all / (nc_all + nd_all))
