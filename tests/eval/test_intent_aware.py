"""Intent-aware metrics on the worked Example C of METRICS.md §C (values checked with ndeval / by hand)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects import AspectSpace
from recdiv.data import Interactions, Qrels, Rankings, Vocab
from recdiv.errors import ConfigError
from recdiv.eval import EvalContext, parse_measure
from recdiv.eval.context import RunView


def build_case(qrels_rows, run_rows, aspect_rows, train_rows=None, scale=(1.0, 5.0), threshold=4.0):
    """Recdiv objects from plain rows: qrels (user, item, grade), run (user, item, score),
    aspects (item, aspect), train (user, item, rating)."""
    all_items = [r[1] for r in qrels_rows] + [r[1] for r in run_rows] + [r[0] for r in aspect_rows]
    all_users = [r[0] for r in qrels_rows] + [r[0] for r in run_rows]
    if train_rows:
        all_items += [r[1] for r in train_rows]
        all_users += [r[0] for r in train_rows]
    items, users = Vocab.from_values(all_items), Vocab.from_values(all_users)
    space = AspectSpace.from_frame(pd.DataFrame(aspect_rows, columns=["item", "aspect"]), items)
    qrels = Qrels.from_frame(pd.DataFrame(qrels_rows, columns=["user", "item", "grade"]), users, items)
    run = Rankings.from_frame(pd.DataFrame(run_rows, columns=["user", "item", "score"]), users, items)
    train = None
    if train_rows:
        train = Interactions.from_frame(pd.DataFrame(train_rows, columns=["user", "item", "value"]),
                                        users=users, items=items, scale=scale)
    return run, qrels, EvalContext(threshold=threshold, train=train, aspects=space, scale=scale)


def example_c():
    aspects = [("p1", "A"), ("p2", "A"), ("p2", "C"), ("p3", "D"), ("i1", "A"), ("i1", "C"), ("i2", "A"),
               ("i3", "D"), ("i4", "C"), ("i5", "D"), ("i6", "A"), ("x", "C")]
    train = [("u", "p1", 5.0), ("u", "p2", 4.0), ("u", "p3", 2.0)]
    qrels = [("u", i, g) for i, g in zip(["i1", "i2", "i3", "i4", "i5", "i6"], [5.0, 4, 2, 4, 5, 5])]
    run = [("u", i, s) for i, s in zip(["i2", "i1", "x", "i5", "i3"], [5.0, 4, 3, 2, 1])]
    return build_case(qrels, run, aspects, train)


EXAMPLE_C = {
    "alpha-nDCG@5": 0.744468,  # ndeval
    "alpha-nDCG@4": 0.767721,
    "alpha-DCG(norm=ndeval)@5": 0.521810,  # ndeval's alpha-DCG@5 column
    "ERR-IA@5": 0.544678,  # RankSys style, profile weights
    "ERR-IA(variant=ndeval)@5": 0.484115,
    "nERR-IA@5": 0.703812,
    "nDCG-IA@5": 0.5871,
    "nDCG-IA(weights=uniform)@5": 0.5276,
    "P-IA(weights=uniform)@5": 0.266667,
    "P-IA@5": 0.3000,
    "S-recall@2": 2 / 3,
    "S-recall@5": 1.0,
    "S-RR@5": 0.25,
    "NRBP(alpha=0.5,beta=0.5)": 0.468750,
    "nNRBP(alpha=0.5,beta=0.5)": 0.693642,
    "NRBP": 0.357933,  # defaults α = .25, β = .9
    "nNRBP": 0.746953,
    "RBU@5": 0.007195,
    "RBU(p=0.8,e=0.03)@5": 0.131487,
    "EU@5": 0.011163,
    "MAP-IA": 0.388889,  # ndeval (METRICS.md §C.12)
    "MAP-IA@5": 0.388889,
    # by hand, profile weights (A .5, C .25, D .25): AP(A) = (1/1 + 2/2)/3, AP(C) = (1/2)/2, AP(D) = (1/4)/1
    "MAP-IA(weights=profile)": 0.5 * 2 / 3 + 0.25 * 0.25 + 0.25 * 0.25,
    "MAP-IA@1": (1 / 3) / 3,  # only i2 (A) at rank 1: AP(A) = 1/3, over |A_u^rel| = 3
}


@pytest.mark.parametrize("name", list(EXAMPLE_C))
def test_example_c(name):
    run, qrels, ctx = example_c()
    got = parse_measure(name).per_user(run, qrels, ctx)
    assert got.shape == (1,)
    decimals = len(f"{EXAMPLE_C[name]}".split(".")[1]) if name.startswith("nDCG-IA") else 6
    assert got[0] == pytest.approx(EXAMPLE_C[name], abs=0.6 * 10**-min(decimals, 6) + 1e-7)


def test_example_c_nrbp_exact():
    run, qrels, ctx = example_c()
    assert parse_measure("NRBP(alpha=0.5,beta=0.5)").per_user(run, qrels, ctx)[0] == pytest.approx(0.46875, abs=1e-12)


def test_graded_alpha_ndcg_by_hand():
    """§C.2: ĝ = r/5 in the gain and in the redundancy count; greedy ideal with the same gain."""
    run, qrels, ctx = example_c()
    a = 0.5
    # run (i2 .8 {A}, i1 1 {A,C}, x 0, i5 1 {D}, i3 0)
    g = [0.8, 1 * (1 - a) ** 0.8 + 1, 0, 1, 0]
    dcg = sum(gk / np.log2(k + 2) for k, gk in enumerate(g))
    # ideal: i1 (2), i5 (1), i6 (.5 > i2 .8·.5, i4 .8·.5), i4 (.4 > i2 .8·.25), i2 (.2)
    ig = [2, 1, 0.5, 0.8 * (1 - a), 0.8 * (1 - a) ** 2]
    idcg = sum(gk / np.log2(k + 2) for k, gk in enumerate(ig))
    got = parse_measure("alpha-nDCG(gain=graded)@5").per_user(run, qrels, ctx)[0]
    assert got == pytest.approx(dcg / idcg, rel=1e-12)


def test_alpha_zero_single_aspect_equals_binary_ndcg():
    """G.6: α-nDCG(α=0) = binary nDCG when every item has exactly one aspect."""
    aspects = [(f"d{i}", "A") for i in range(8)]
    qrels = [("u", "d1", 5.0), ("u", "d3", 4.0), ("u", "d5", 2.0), ("u", "d6", 5.0)]
    run = [("u", f"d{i}", 10.0 - i) for i in range(8)]
    r, q, ctx = build_case(qrels, run, aspects)
    got = parse_measure("alpha-nDCG(alpha=0)@5").per_user(r, q, ctx)[0]
    dcg = 1 / np.log2(3) + 1 / np.log2(5)
    idcg = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert got == pytest.approx(dcg / idcg, rel=1e-12)


def test_profile_weights_need_train():
    run, qrels, ctx = example_c()
    ctx = EvalContext(aspects=ctx.aspects, scale=ctx.scale)
    with pytest.raises(ConfigError, match="train"):
        parse_measure("ERR-IA@5").per_user(run, qrels, ctx)
    # uniform weights and ndeval-style metrics need no training data
    assert parse_measure("P-IA(weights=uniform)@5").per_user(run, qrels, ctx)[0] == pytest.approx(0.266667, abs=1e-6)
    with pytest.raises(ConfigError, match="aspects"):
        parse_measure("alpha-nDCG@5").per_user(run, qrels, EvalContext())


def test_bad_parameters():
    for bad in ["ERR-IA(weights=foo)@5", "alpha-nDCG(gain=exp)@5", "nERR-IA(ideal_ties=first)@5",
                "S-recall(rel=any)@5", "RBU(grade=exp)@5"]:
        with pytest.raises(ConfigError):
            parse_measure(bad)


def test_canonical_names_round_trip():
    for s in ["alpha-nDCG@20", "alpha-nDCG(alpha=0.25,gain=graded)@100", "ERR-IA(variant=ndeval)@10",
              "NRBP", "nNRBP(alpha=0.5,beta=0.5)", "S-recall(rel=judged)@10", "EU@10", "RBU(p=0.8,e=0.03)@10",
              "alpha-DCG(norm=ndeval)@5", "nDCG-IA(weights=uniform)@10", "P-IA@10", "S-RR@100", "nERR-IA@30"]:
        assert str(parse_measure(s)) == s


def test_ideal_ties_option():
    """§0.6: among equal marginal gains the largest external id (string order) wins; min_id the smallest."""
    # d3 {A,B} first (gain 2); then d1 {A}, d2 {B}, d4 {A} tie at 0.5
    aspects = [("d1", "A"), ("d2", "B"), ("d3", "A"), ("d3", "B"), ("d4", "A")]
    qrels = [("u", d, 5.0) for d in ["d1", "d2", "d3", "d4"]]
    run = [("u", "d1", 3.0), ("u", "d2", 2.0)]
    r, q, ctx = build_case(qrels, run, aspects)
    hi = parse_measure("alpha-nDCG@4").per_user(r, q, ctx)[0]
    lo = parse_measure("alpha-nDCG(ideal_ties=min_id)@4").per_user(r, q, ctx)[0]
    assert hi > 0 and lo > 0
    from recdiv.eval.metrics.intents import alpha_ideal_lists

    v = RunView.of(ctx, r, q)
    items_hi, g_hi = alpha_ideal_lists(v, 0.5, False, "max_id", 4)
    items_lo, g_lo = alpha_ideal_lists(v, 0.5, False, "min_id", 4)
    assert list(q.items.id_of(items_hi[0])) == ["d3", "d4", "d2", "d1"]
    assert list(q.items.id_of(items_lo[0])) == ["d3", "d1", "d2", "d4"]
    assert g_hi[0] == pytest.approx([2, 0.5, 0.5, 0.25]) and g_lo[0] == pytest.approx([2, 0.5, 0.5, 0.25])


def test_empty_list_and_missing_user_score_zero():
    aspects = [("d1", "A"), ("d2", "B")]
    qrels = [("u", "d1", 5.0), ("v", "d2", 5.0)]
    run = [("u", "d2", 1.0)]  # v has no list; u's list is non-relevant
    r, q, ctx = build_case(qrels, run, aspects, train_rows=[("u", "d1", 5.0)])
    for name in ["alpha-nDCG@5", "ERR-IA@5", "nERR-IA@5", "nDCG-IA@5", "P-IA@5", "S-recall@5", "S-RR@5",
                 "NRBP", "nNRBP", "ab-nDCG@5"]:
        assert np.all(parse_measure(name).per_user(r, q, ctx) == 0), name
    # EU and RBU charge the reading cost of u's one inspected item, and nothing for v's empty list
    eu = parse_measure("EU@5").per_user(r, q, ctx)
    assert eu[0] == pytest.approx(-0.01 * 0.05) and eu[1] == 0


def test_cutoff_beyond_20_and_list_longer_than_judged():
    """Any cutoff works (ndeval stops at 20); α-nDCG@K is monotone in nothing but must stay finite."""
    aspects = [(f"d{i:03d}", "A" if i % 3 else "B") for i in range(150)]
    qrels = [("u", f"d{i:03d}", 5.0 if i % 4 == 0 else 2.0) for i in range(0, 150, 2)]
    run = [("u", f"d{i:03d}", 200.0 - i) for i in range(150)]
    r, q, ctx = build_case(qrels, run, aspects)
    vals = [parse_measure(f"alpha-nDCG@{k}").per_user(r, q, ctx)[0] for k in (20, 50, 100, 150)]
    assert all(0 < v <= 1 + 1e-12 for v in vals)
    assert parse_measure("S-recall@100").per_user(r, q, ctx)[0] == 1.0
