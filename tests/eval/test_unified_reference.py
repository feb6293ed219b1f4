"""αβ-nDCG against an independent per-user reference written from Parapar & Radlinski (2021) eq. 4–16 and
METRICS.md §C.11 (plain Python dictionaries and loops, no recdiv code), on random multi-user cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.eval import parse_measure
from recdiv.eval.context import RunView
from tests.eval.test_intent_aware import build_case


def reference_ab_ndcg(run, qrels, aspects, train, all_aspects, k, alpha=0.005, beta=0.5, r_max=5.0,
                      threshold=4.0, nonrel_to_zero=False):
    """One user. run: item ids best first; qrels: {item: grade}; aspects: {item: set}; train: {item: rating}."""
    # eq. 9: γ_a = Σ_{i∈I_u, a∈A(i)} r(u,i) / Σ_φ Σ_{i∈I_u, φ∈A(i)} r(u,i); uniform without a profile
    mass = {a: sum(r for i, r in train.items() if a in aspects.get(i, ())) for a in all_aspects}
    total = sum(mass.values())
    gamma = {a: (mass[a] / total if total > 0 else 1.0 / len(all_aspects)) for a in all_aspects}

    def p_item(i):  # eq. 5–6: P(a|u,i) for a ∈ A(i)
        if i not in qrels:
            return alpha
        r = qrels[i]
        if nonrel_to_zero and r < threshold:
            r = 0.0
        return beta * r / r_max

    def gain(i, shown):  # eq. 7, 12, 13: G = 1 − Π_a (1 − P(a|u,i)·γ_a Π_{j∈S}(1 − P(a|u,j)))
        miss = 1.0
        for a in aspects.get(i, ()):
            left = gamma[a]
            for j in shown:
                if a in aspects.get(j, ()):
                    left *= 1.0 - p_item(j)
            miss *= 1.0 - p_item(i) * left
        return 1.0 - miss

    def dcg(gains):  # eq. 15
        return sum(g / math.log2(1 + pos) for pos, g in enumerate(gains, start=1))

    gains = [gain(i, run[:pos]) for pos, i in enumerate(run[:k])]
    # eq. 16: greedy ideal over the judged items; ties → largest external id (METRICS.md §0.6)
    pool, ideal, igains = set(qrels), [], []
    while pool and len(ideal) < k:
        best = max(pool, key=lambda i: (round(gain(i, ideal), 12), i))
        igains.append(gain(best, ideal))
        ideal.append(best)
        pool.discard(best)
    idcg = dcg(igains)
    return dcg(gains) / idcg if idcg > 0 else 0.0


def random_users(rng, n_users):
    """Rows for build_case plus the per-user dictionaries for the reference."""
    n_aspects = int(rng.integers(1, 5))
    all_aspects = [f"A{a}" for a in range(n_aspects)]
    items = [f"i{j:02d}" for j in range(int(rng.integers(4, 14)))]
    aspects = {}
    for it in items:
        size = int(rng.integers(0, min(3, n_aspects) + 1))
        aspects[it] = set(rng.choice(all_aspects, size=size, replace=False).tolist())
    aspects[items[0]] = {all_aspects[0]}  # every aspect name appears in the space
    for a in all_aspects:
        aspects.setdefault(f"t_{a}", {a})
    train_items = [f"t_{a}" for a in all_aspects] + items
    users = {}
    for u in range(n_users):
        name = f"u{u}"
        order = [str(x) for x in rng.permutation(items)[: int(rng.integers(1, len(items) + 1))]]
        judged = {str(x): float(rng.integers(1, 6)) for x in rng.choice(items, size=int(rng.integers(1, len(items))),
                                                                         replace=False)}
        train = {} if rng.random() < 0.2 else {
            str(x): float(rng.integers(1, 6)) for x in rng.choice(train_items, size=int(rng.integers(1, 4)),
                                                                  replace=False) if str(x) not in judged}
        if not train and u == 0:
            train = {f"t_{all_aspects[0]}": 3.0}
        users[name] = (order, judged, train)
    return users, aspects, all_aspects


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.sampled_from([1, 3, 5, 10]),
       params=st.sampled_from([(0.005, 0.5, False), (0.1, 0.9, False), (0.005, 0.5, True), (0.3, 0.2, False)]))
def test_ab_ndcg_matches_reference(seed, k, params):
    alpha, beta, nonrel = params
    rng = np.random.default_rng(seed)
    users, aspects, all_aspects = random_users(rng, int(rng.integers(1, 5)))
    run_rows = [(u, it, float(len(order) - pos)) for u, (order, _, _) in users.items()
                for pos, it in enumerate(order)]
    qrels_rows = [(u, it, g) for u, (_, judged, _) in users.items() for it, g in judged.items()]
    train_rows = [(u, it, r) for u, (_, _, train) in users.items() for it, r in train.items()]
    aspect_rows = [(it, a) for it, s in aspects.items() for a in sorted(s)]
    run, qrels, ctx = build_case(qrels_rows, run_rows, aspect_rows, train_rows)
    m = parse_measure(f"ab-nDCG(alpha={alpha},beta={beta},nonrel_to_zero={str(nonrel).lower()})@{k}")
    got = m.per_user(run, qrels, ctx)
    view = RunView.of(ctx, run, qrels)
    for row, uidx in enumerate(view.users):
        order, judged, train = users[qrels.users.id_of(int(uidx))]
        want = reference_ab_ndcg(order, judged, aspects, train, all_aspects, k, alpha, beta,
                                 nonrel_to_zero=nonrel)
        assert got[row] == pytest.approx(want, rel=1e-9, abs=1e-12), (seed, qrels.users.id_of(int(uidx)))


def test_reference_reproduces_example_c():
    """The reference itself on METRICS.md §C.11 Example C (0.8045)."""
    aspects = {"p1": {"A"}, "p2": {"A", "C"}, "p3": {"D"}, "i1": {"A", "C"}, "i2": {"A"}, "i3": {"D"},
               "i4": {"C"}, "i5": {"D"}, "i6": {"A"}, "x": {"C"}}
    qrels = dict(zip(["i1", "i2", "i3", "i4", "i5", "i6"], [5.0, 4, 2, 4, 5, 5]))
    got = reference_ab_ndcg(["i2", "i1", "x", "i5", "i3"], qrels, aspects, {"p1": 5.0, "p2": 4.0, "p3": 2.0},
                            ["A", "C", "D"], 5)
    assert got == pytest.approx(0.8045, abs=5e-5)
