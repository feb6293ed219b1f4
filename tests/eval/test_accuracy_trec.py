"""Every trec_eval-backed accuracy metric against pytrec_eval, per user, to 1e-12, on hypothesis-generated
qrels and runs: users missing from the run, users without relevant items, score ties, runs shorter than the
cutoff, grades below the threshold.

Population alignment: trec_eval averages over queries with qrels; without `-c` it drops queries that have
no ranked item — recdiv scores those users 0, so a user absent from pytrec_eval's output is compared with 0.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.eval import EvalContext, parse_measure
from recdiv.eval.context import RunView
from tests.eval._acc_helpers import build

ITEMS = ["a", "b", "B", "c1", "c10", "c2", "d", "e", "f", "g", "h9"]
USERS = ["u1", "u2", "u3", "u4", "u5"]
CUTOFFS = (1, 3, 5, 20)


@st.composite
def cases(draw):
    qrels, run = {}, {}
    for u in draw(st.lists(st.sampled_from(USERS), min_size=1, max_size=5, unique=True)):
        items = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8, unique=True))
        qrels[u] = {i: draw(st.integers(0, 5)) for i in items}
    for u in draw(st.lists(st.sampled_from(USERS), min_size=1, max_size=5, unique=True)):
        items = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=9, unique=True))
        run[u] = {i: draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0])) for i in items}  # many ties
    threshold = draw(st.sampled_from([1, 3, 4]))
    return qrels, run, threshold


# recdiv measure → trec_eval measure
def _pairs():
    out = {"AP": "map", "RR": "recip_rank", "Rprec": "Rprec", "bpref": "bpref", "infAP": "infAP", "nDCG": "ndcg"}
    for k in CUTOFFS:
        out |= {f"P@{k}": f"P_{k}", f"Recall@{k}": f"recall_{k}", f"AP@{k}": f"map_cut_{k}",
                f"nDCG@{k}": f"ndcg_cut_{k}"}
    return out


PAIRS = _pairs()
TREC_MEASURES = {"map", "recip_rank", "Rprec", "bpref", "infAP", "ndcg",
                 *(f"{m}.{','.join(map(str, CUTOFFS))}" for m in ("P", "recall", "map_cut", "ndcg_cut"))}


def _trec(qrels, run, threshold, measures=TREC_MEASURES):
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=int(threshold))
    return ev.evaluate({u: {i: float(s) for i, s in d.items()} for u, d in run.items()})


def _compare(ours, users, trec, trec_name):
    expected = np.array([trec.get(u, {}).get(trec_name, 0.0) for u in users])
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12, err_msg=trec_name)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(["judged", "relevant"]))
def test_matches_trec_eval(case, population):
    qrels, run, threshold = case
    r, q = build(qrels, run)
    ctx = EvalContext(threshold=threshold, population=population)
    users = q.users.id_of(RunView.of(ctx, r, q).users)
    expected_users = [u for u, d in qrels.items()
                      if population == "judged" or any(g >= threshold for g in d.values())]
    assert sorted(users) == sorted(expected_users)
    trec = _trec(qrels, run, threshold)
    for ours, theirs in PAIRS.items():
        _compare(parse_measure(ours).per_user(r, q, ctx), users, trec, theirs)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_binary_ndcg_matches_trec_eval_on_binarised_qrels(case):
    qrels, run, threshold = case
    r, q = build(qrels, run)
    ctx = EvalContext(threshold=threshold, population="judged")
    users = q.users.id_of(RunView.of(ctx, r, q).users)
    binary = {u: {i: int(g >= threshold) for i, g in d.items()} for u, d in qrels.items()}
    trec = _trec(binary, run, 1, {"ndcg", "ndcg_cut.1,3,5,20"})
    _compare(parse_measure("nDCG(gain=binary)").per_user(r, q, ctx), users, trec, "ndcg")
    for k in CUTOFFS:
        _compare(parse_measure(f"nDCG(gain=binary)@{k}").per_user(r, q, ctx), users, trec, f"ndcg_cut_{k}")


def test_score_ties_follow_trec_eval():
    # METRICS.md §0.5: three items tied at 2.0 are ranked x, c, a (descending string order)
    qrels = {"u": {"a": 4}}
    run = {"u": {"a": 2.0, "c": 2.0, "x": 2.0}}
    r, q = build(qrels, run)
    assert parse_measure("RR").value(r, q) == pytest.approx(1 / 3)
    assert _trec(qrels, run, 4)["u"]["recip_rank"] == pytest.approx(1 / 3)
