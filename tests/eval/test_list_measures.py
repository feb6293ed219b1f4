"""Popularity bias (ARP, APLT, ACLT, PopRSP, PopREO), miscalibration, rank-biased entropy and ILS: hand-worked
examples, LensKit 2025.8 (rank-biased entropy, entropy) and independent per-user loops of the published formulas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects.space import AspectSpace
from recdiv.data import Interactions, Qrels, Rankings, Vocab
from recdiv.eval import EvalContext, parse_measure
from recdiv.eval.context import RunView
from recdiv.models.novelty import short_head
from recdiv.testing.examples import example_e

# Popularity example. Training: u1 {a, b, c}, u2 {a}, u3 {a, b, d}, u4 {a, b, c} ⇒ φ = a 4, b 3, c 2, d 1, e 0,
# T = 10. Head (80 %): a (0 above), b (4 above), c (7 above < 8) ⇒ Φ = {a, b, c}; Γ = {d, e} (d: 9 above ≥ 8).
# Test (τ = 4): u1 d 5, e 4; u2 b 5, d 4, e 2. Lists: u1 (a, d, b), u2 (d, e, c); at K = 2: (a, d), (d, e).
ITEMS = Vocab(["a", "b", "c", "d", "e"])
USERS = Vocab(["u1", "u2", "u3", "u4"])


def popularity_case():
    train = [("u1", i) for i in "abc"] + [("u2", "a")] + [("u3", i) for i in "abd"] + [("u4", i) for i in "abc"]
    train = Interactions.from_frame(pd.DataFrame([(u, i, 1.0) for u, i in train], columns=["user", "item", "value"]),
                                    users=USERS, items=ITEMS)
    qrels = Qrels.from_frame(pd.DataFrame([("u1", "d", 5.0), ("u1", "e", 4.0), ("u2", "b", 5.0), ("u2", "d", 4.0),
                                           ("u2", "e", 2.0)], columns=["user", "item", "grade"]), USERS, ITEMS)
    run = Rankings.from_frame(pd.DataFrame([("u1", "a", 3.0), ("u1", "d", 2.0), ("u1", "b", 1.0), ("u2", "d", 3.0),
                                            ("u2", "e", 2.0), ("u2", "c", 1.0)], columns=["user", "item", "score"]),
                              USERS, ITEMS)
    return run, qrels, EvalContext(train=train)


def test_short_head_80_20():
    _, _, ctx = popularity_case()
    assert short_head(ctx.train).tolist() == [True, True, True, False, False]
    assert short_head(ctx.train, 0.5).tolist() == [True, True, False, False, False]  # c: 7 above ≥ 5


@pytest.mark.parametrize(("name", "per_user", "value"), [
    ("ARP@2", [(4 + 1) / 2, (1 + 0) / 2], 1.5),
    ("APLT@2", [1 / 2, 2 / 2], 0.75),
    ("ACLT@2", [1, 2], 1.5),
    ("ARP", [(4 + 1 + 3) / 3, (1 + 0 + 2) / 3], 11 / 6),
    ("APLT(head=0.5)@3", [1 / 3, 1.0], 2 / 3),  # head {a, b}: c joins the tail
])
def test_popularity_by_hand(name, per_user, value):
    run, qrels, ctx = popularity_case()
    m = parse_measure(name)
    np.testing.assert_allclose(m.per_user(run, qrels, ctx), per_user, rtol=1e-15)
    assert m.value(run, qrels, ctx) == pytest.approx(value, rel=1e-15)


def test_group_disparities_by_hand():
    """PopRSP@2: P(head) = (1 + 0) / (|Φ \\ P_u1| 0 + |Φ \\ P_u2| 2) = .5, P(tail) = (1 + 2) / (2 + 2) = .75 ⇒
    |.5 − .75| / (.5 + .75) = 0.2. PopREO@2: relevant recommended head items 0 of |{b}| = 1, tail 2 of
    |{d, e}| + |{d}| = 3 ⇒ P = (0, 2/3) ⇒ std/mean = 1."""
    run, qrels, ctx = popularity_case()
    assert parse_measure("PopRSP@2").value(run, qrels, ctx) == pytest.approx(0.2, rel=1e-15)
    assert parse_measure("PopREO@2").value(run, qrels, ctx) == pytest.approx(1.0, rel=1e-15)
    assert parse_measure("PopRSP@2").KIND == "system"


def test_popularity_against_per_user_loops():
    """Random data: ARP/APLT/ACLT/PopRSP/PopREO equal plain loops of the Elliot / Zhu et al. formulas (popularity
    levels distinct, so that the head boundary does not depend on a tie rule)."""
    rng = np.random.default_rng(0)
    n_users, n_items = 30, 25
    items, users = Vocab([f"i{j:02d}" for j in range(n_items)]), Vocab([f"u{j:02d}" for j in range(n_users)])
    pop = rng.permutation(n_items)  # item j is in pop[j] training profiles: distinct levels
    prof = {u: set() for u in range(n_users)}
    for j in range(n_items):
        for u in rng.choice(n_users, size=pop[j], replace=False):
            prof[u].add(j)
    train = Interactions.from_frame(pd.DataFrame([(users.ids[u], items.ids[j], 1.0) for u in prof for j in prof[u]],
                                                 columns=["user", "item", "value"]), users=users, items=items)
    q, r = [], []
    for u in range(n_users):
        for j in rng.choice(n_items, size=4, replace=False):
            q.append((users.ids[u], items.ids[j], float(rng.integers(1, 6))))
        for k, j in enumerate(rng.choice(n_items, size=8, replace=False)):
            r.append((users.ids[u], items.ids[j], 10.0 - k))
    qrels = Qrels.from_frame(pd.DataFrame(q, columns=["user", "item", "grade"]), users, items)
    run = Rankings.from_frame(pd.DataFrame(r, columns=["user", "item", "score"]), users, items)
    ctx = EvalContext(train=train)
    order = sorted(range(n_items), key=lambda j: -pop[j])  # Elliot's short head: accumulate up to 80 % of T
    head, left = set(), 0.8 * pop.sum()
    for j in order:
        head.add(j)
        left -= pop[j]
        if left <= 0:
            break
    view = RunView.of(ctx, run, qrels)
    lists = {u: [j for j in view.items[n][:5] if j >= 0] for n, u in enumerate(view.users)}
    rel = {u: set(np.flatnonzero(qrels.matrix[u].toarray()[0] >= 4)) for u in view.users}
    want = {"ARP@5": [np.mean([pop[j] for j in lists[u]]) for u in view.users],
            "APLT@5": [np.mean([j not in head for j in lists[u]]) for u in view.users],
            "ACLT@5": [sum(j not in head for j in lists[u]) for u in view.users]}
    for name, values in want.items():
        np.testing.assert_allclose(parse_measure(name).per_user(run, qrels, ctx), values, rtol=1e-12, err_msg=name)
    tail = set(range(n_items)) - head

    def disparity(num, den):
        p = np.array(num) / np.array(den)
        return np.std(p) / np.mean(p)

    rsp = disparity([sum(len(set(lists[u]) & g) for u in view.users) for g in (head, tail)],
                    [sum(len(g - prof[u]) for u in view.users) for g in (head, tail)])
    reo = disparity([sum(len(set(lists[u]) & g & rel[u]) for u in view.users) for g in (head, tail)],
                    [sum(len(g & rel[u] - prof[u]) for u in view.users) for g in (head, tail)])
    assert parse_measure("PopRSP@5").value(run, qrels, ctx) == pytest.approx(rsp, rel=1e-12)
    assert parse_measure("PopREO@5").value(run, qrels, ctx) == pytest.approx(reo, rel=1e-12)


def _example_e_eval(lst):
    """User u of Example E with the list `lst`, and u's training profile (p1 A, p2 AC, p3 D)."""
    cands, rctx = example_e()
    frame = pd.DataFrame([("u", i, 10.0 - k) for k, i in enumerate(lst)], columns=["user", "item", "score"])
    run = Rankings.from_frame(frame, cands.user_vocab, cands.item_vocab)
    qrels = Qrels.from_frame(pd.DataFrame({"user": ["u"], "item": ["c1"], "grade": [5.0]}), cands.user_vocab,
                             cands.item_vocab)
    return run, qrels, EvalContext(train=rctx.train, aspects=rctx.aspects)


def test_miscalibration_example_e():
    """METRICS.md §E.8: p(g|u) = (A .5, C 1/6, D 1/3); (c1, c2, c3) has C_KL 1.2778, (c4, c5, c1) 0 (q = p)."""
    p = np.array([0.5, 1 / 6, 1 / 3])
    got = parse_measure("Miscalibration@3").value(*_example_e_eval(("c1", "c2", "c3")))
    q = np.array([2 / 3, 1 / 3, 0.0])
    assert got == pytest.approx(1.2778, abs=1e-4)
    assert got == pytest.approx(float(np.sum(p * np.log(p / (0.99 * q + 0.01 * p)))), rel=1e-13)
    assert parse_measure("Miscalibration@3").value(*_example_e_eval(("c4", "c5", "c1"))) == pytest.approx(0, abs=1e-15)
    one = parse_measure("Miscalibration@1").value(*_example_e_eval(("c1", "c2", "c3")))  # (c1): q = (1, 0, 0)
    assert one == pytest.approx(float(np.sum(p * np.log(p / (0.99 * np.array([1.0, 0, 0]) + 0.01 * p)))), rel=1e-13)
    # Steck's α: with α = .5 the same list is closer to p
    half = parse_measure("Miscalibration(alpha=0.5)@3").value(*_example_e_eval(("c1", "c2", "c3")))
    assert half == pytest.approx(float(np.sum(p * np.log(p / (0.5 * q + 0.5 * p)))), rel=1e-13)


def _aspect_case():
    """Items with categories (f has none); lists of lengths 5, 1 and 0."""
    items = Vocab(["a", "b", "c", "d", "e", "f"])
    users = Vocab(["u", "v", "w"])
    cats = {"a": "XY", "b": "X", "c": "Z", "d": "XZ", "e": "Y", "f": ""}
    space = AspectSpace.from_frame(pd.DataFrame([(i, g) for i, gs in cats.items() for g in gs],
                                                columns=["item", "aspect"]), items)
    lists = {"u": ["a", "b", "f", "c", "d"], "v": ["e"]}
    run = Rankings.from_frame(pd.DataFrame([(u, i, 9.0 - k) for u, lst in lists.items() for k, i in enumerate(lst)],
                                           columns=["user", "item", "score"]), users, items)
    qrels = Qrels.from_frame(pd.DataFrame({"user": ["u", "v", "w"], "item": "a", "grade": 5.0}), users, items)
    return run, qrels, EvalContext(aspects=space), space, lists, cats


@pytest.mark.parametrize(("k", "p"), [(5, 0.85), (3, 0.5), (None, 0.85), (4, 1.0)])
def test_rank_biased_entropy_equals_lenskit(k, p):
    """LensKit 2025.8 `rank_biased_entropy` (geometric weights p^{k−1}) and, with p = 1, `entropy`, on the binary
    category matrix of the list: equal with smoothing = 1e-6 (LensKit 2025.8 adds 10⁻⁶ to every category)."""
    from lenskit.data import ItemList
    from lenskit.metrics import GeometricRankWeight, entropy, rank_biased_entropy

    run, qrels, ctx, space, lists, _ = _aspect_case()
    dense = space.dense()
    for smoothing, tol in ((1e-6, 1e-15), (0.0, 1e-4)):
        name = f"RankBiasedEntropy(p={p},smoothing={smoothing})" + (f"@{k}" if k else "")
        got = parse_measure(name).per_user(run, qrels, ctx)
        for row, u in enumerate(["u", "v"]):
            lst = lists[u]
            il = ItemList(item_ids=lst)
            cat = dense[space.items.lookup(lst)]
            want = entropy(il, cat, n=k) if p == 1.0 else rank_biased_entropy(il, cat, weight=GeometricRankWeight(p),
                                                                               n=k)
            assert got[row] == pytest.approx(want, rel=tol, abs=tol), (name, u)
        assert got[2] == 0.0  # no list


def test_rank_biased_entropy_by_hand():
    """u's top 3 (a XY, b X, f –), p = .5: c = X 1 + .5, Y 1 ⇒ π = (.6, .4) ⇒ H = −.6 log2 .6 − .4 log2 .4."""
    run, qrels, ctx, *_ = _aspect_case()
    got = parse_measure("RankBiasedEntropy(p=0.5)@3").per_user(run, qrels, ctx)[0]
    assert got == pytest.approx(-(0.6 * np.log2(0.6) + 0.4 * np.log2(0.4)), rel=1e-14)


def test_ils_lenskit_definition():
    """LensKit's ILS: the mean over pairs of the cosine of unit-normalised category vectors (a featureless item is a
    zero vector), 1 for a single item. By hand for u@4 (a XY, b X, f –, c Z): cos(a,b) = 1/√2, every other pair 0
    ⇒ (1/√2) / 6. Against a plain loop at every cutoff, and ILS = 1 − ILD(undefined=one) for n ≥ 2."""
    run, qrels, ctx, _, lists, cats = _aspect_case()
    assert parse_measure("ILS@4").per_user(run, qrels, ctx)[0] == pytest.approx((1 / np.sqrt(2)) / 6, rel=1e-14)

    def lenskit_ils(lst):
        vec = np.array([[g in cats[i] for g in "XYZ"] for i in lst], dtype=float)
        norm = np.linalg.norm(vec, axis=1, keepdims=True)
        vec = np.divide(vec, norm, out=np.zeros_like(vec), where=norm > 0)
        n = len(lst)
        return 1.0 if n == 1 else float(np.sum(np.triu(vec @ vec.T, 1)) / (n * (n - 1) / 2))

    for k in (1, 2, 3, 5):
        got = parse_measure(f"ILS@{k}").per_user(run, qrels, ctx)
        assert got[0] == pytest.approx(lenskit_ils(lists["u"][:k]), rel=1e-14)
        assert got[1] == 1.0 and got[2] == 0.0  # one item; no list
        if k >= 2:
            ild = parse_measure(f"ILD(undefined=one)@{k}").per_user(run, qrels, ctx)[0]
            assert got[0] == pytest.approx(1.0 - ild, rel=1e-14)
