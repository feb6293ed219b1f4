"""The numba kernels of αβ-nDCG (`recdiv.eval.metrics.unified_kernels`) against the implementation they replaced.

The former code is kept here as the slow reference: the vectorised greedy of
`recdiv.eval.metrics.greedy_ideal.ab_ideal` over padded candidate tables (ideal lists), and the run gains as
exclusive group sums of logarithms over (user, aspect, position) pairs. The ideal lists and their gains must be
identical (ties included, METRICS.md §0.6); run gains and values agree to 1e-12 (the former gains went
through log/exp of a cumulative sum over all users, so they carried rounding noise of that order).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.eval import parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.metrics import intents as ia
from recdiv.eval.metrics import unified
from recdiv.eval.metrics import unified_kernels as kernels
from recdiv.eval.metrics.greedy_ideal import GREEDY_CHUNK_ELEMS, ab_ideal, chunks_by_width, padded_rows, tie_keys
from recdiv.models.discount import LogDiscount
from tests.eval.test_intent_aware import build_case

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARAMS = [(0.005, 0.5, False), (0.005, 0.5, True), (0.1, 0.9, False), (0.0, 1.0, False), (0.3, 1.0, True),
          (0.5, 0.0, False)]


@st.composite
def cases(draw):
    """Few aspects and grades (many exact ties), items without aspects, unjudged ranked items, users without a
    list, without a training profile (uniform γ) or without judged items having aspects."""
    n_items = draw(st.integers(2, 20))
    n_asp = draw(st.integers(1, 4))
    ids = list(dict.fromkeys(f"d{draw(st.integers(0, 300))}" for _ in range(n_items)))
    aspects = [(d, f"s{a}") for d in ids for a in sorted(draw(st.sets(st.integers(0, n_asp - 1), max_size=n_asp)))]
    if not aspects:
        aspects = [(ids[0], "s0")]
    grades = st.sampled_from([1.0, 2.0, 3.0, 4.0, 4.5, 5.0])
    qrels, run, train = [], [], []
    for u in [f"u{k}" for k in range(draw(st.integers(1, 5)))]:
        judged = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
        qrels += [(u, d, draw(grades)) for d in judged]
        if draw(st.booleans()):
            ranked = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
            run += [(u, d, float(100 - k)) for k, d in enumerate(ranked)]
        if draw(st.booleans()):
            profile = draw(st.lists(st.sampled_from(ids), unique=True, min_size=1, max_size=4))
            train += [(u, d, draw(grades)) for d in profile]
    if not run:
        run = [("u0", ids[0], 1.0)]
    if not qrels:
        qrels = [("u0", ids[-1], 5.0)]
    if not train:
        train = [("u0", ids[0], 3.0)]
    return qrels, run, aspects, train


def former_gains(view, m, items, grades, gamma):
    """The former `unified.ab_gains`: running products as exclusive group sums of logarithms."""
    space = ia.aspect_space(view)
    probs = m._probs(view, items, grades)
    n, k = items.shape
    u, pos, a, gstart = ia.aspect_pairs(items, probs > 0, ia.aspect_index(view), space.n_aspects)
    p = probs[u, pos]
    log_keep = np.log(np.maximum(1.0 - p, 1e-300))
    left = gamma[u, a] * np.exp(ia.exclusive_group_sum(log_keep, gstart))
    miss = np.bincount(u * k + pos, weights=np.log(np.maximum(1.0 - p * left, 1e-300)), minlength=n * k)
    return 1.0 - np.exp(miss).reshape(n, k)


def former_ideal(view, m, gamma, steps):
    """The former `AlphaBetaNDCG.ideal` (without its cache): padded candidates and `greedy_ideal.ab_ideal`."""
    space = ia.aspect_space(view)
    table = ia.aspect_index(view)
    cand, cgrades = padded_rows(view.qrels.matrix, view.users, keep_cols=space.has_aspects)
    widths = (cand >= 0).sum(axis=1)
    width = max(int(widths.max()) if len(widths) else 0, 1)
    length = min(steps, width)
    out_i = np.full((len(cand), length), -1, dtype=np.int64)
    out_g = np.zeros((len(cand), length))
    for idx in chunks_by_width(widths, table.shape[1], GREEDY_CHUNK_ELEMS):
        wc = max(int(widths[idx].max()), 1)
        c_items = cand[idx, :wc]
        probs = m._probs(view, c_items, cgrades[idx, :wc])
        asp = np.where((c_items >= 0)[:, :, None], table[np.maximum(c_items, 0)], space.n_aspects)
        steps_c = min(length, wc)
        keys = tie_keys(view.qrels.items, c_items, m.ideal_ties)
        chosen, g = ab_ideal(asp, probs, gamma[idx], keys, steps_c)
        out_i[idx, :steps_c] = np.where(chosen >= 0, np.take_along_axis(c_items, np.maximum(chosen, 0), 1), -1)
        out_g[idx, :steps_c] = g
    return out_i, out_g


def former_value(view, m, k):
    gamma = unified.gamma_weights(view, m.gamma_source)
    items, grades = ia.run_arrays(view, k)
    disc = LogDiscount().positions(k)
    dcg = former_gains(view, m, items, grades, gamma) @ disc
    ig = former_ideal(view, m, gamma, k)[1]
    idcg = ig @ disc[: ig.shape[1]]
    return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


def _measure(params, source, ties, k):
    alpha, beta, nonrel = params
    return parse_measure(f"ab-nDCG(alpha={alpha},beta={beta},gamma_source={source},"
                         f"nonrel_to_zero={str(nonrel).lower()},ideal_ties={ties})@{k}")


@SETTINGS
@given(case=cases(), k=st.sampled_from([1, 2, 4, 10, 40]), params=st.sampled_from(PARAMS),
       source=st.sampled_from(["train", "test"]), ties=st.sampled_from(["max_id", "min_id"]))
def test_kernels_equal_former_implementation(case, k, params, source, ties):
    run, qrels, ctx = build_case(*case)
    ctx.cache.clear()
    view = RunView.of(ctx, run, qrels)
    m = _measure(params, source, ties, k)
    gamma = unified.gamma_weights(view, source)
    # ideal lists and gains: identical, ties included
    want_i, want_g = former_ideal(view, m, gamma, k)
    got_i, got_g = m.ideal(view, gamma, k)
    np.testing.assert_array_equal(got_i, want_i)
    np.testing.assert_array_equal(got_g, want_g)
    # run gains: fused kernel (P from the qrels rows) = list kernel on the aligned arrays ≈ former log/exp gains
    items, grades = ia.run_arrays(view, k)
    fused = m.run_gains(view, k, gamma)
    np.testing.assert_array_equal(fused, m.gains(view, items, grades, gamma))
    np.testing.assert_allclose(fused, former_gains(view, m, items, grades, gamma), rtol=1e-12, atol=1e-15)
    # the run of the ideal list gets the ideal gains (same products) wherever the ideal had no near-tie choice
    ideal_grades = qrels.lookup(view.users, np.maximum(got_i, 0))
    on_ideal = m.gains(view, got_i, np.where(got_i >= 0, ideal_grades, np.nan), gamma)
    np.testing.assert_allclose(on_ideal, got_g, rtol=1e-9, atol=1e-15)
    # whole measure
    ctx.cache.clear()
    np.testing.assert_allclose(m.per_user(run, qrels, ctx), former_value(view, m, k), rtol=1e-12, atol=1e-15)


@SETTINGS
@given(case=cases(), params=st.sampled_from(PARAMS))
def test_parallel_kernels_equal_serial(case, params):
    run, qrels, ctx = build_case(*case)
    view = RunView.of(ctx, run, qrels)
    m = _measure(params, "train", "max_id", 10)
    space = ia.aspect_space(view)
    gamma = unified.gamma_weights(view, "train")
    users = view.users.astype(np.int64)
    q = ia.qrels_csr(view)
    table = ia.aspect_table(view)
    keys = np.ascontiguousarray(qrels.items.string_rank, dtype=np.int64)
    common = (table, space.n_aspects, gamma, keys, m.beta, view.max_grade, view.threshold, m.nonrel_to_zero, 10)
    serial = kernels.greedy_ab_ideal(users, *q, *common, parallel=False)
    par = kernels.greedy_ab_ideal(users, *q, *common, parallel=True)
    for a, b in zip(serial, par):
        np.testing.assert_array_equal(a, b)
    items = np.ascontiguousarray(run.items, dtype=np.int64)
    args = (items, ia.run_rows(view), 10, users, *q, table, space.n_aspects, gamma, m.alpha, m.beta, view.max_grade,
            view.threshold, m.nonrel_to_zero)
    np.testing.assert_array_equal(kernels.run_gains(*args, parallel=False), kernels.run_gains(*args, parallel=True))


def test_exact_ties_go_to_the_largest_id_and_cached_prefix_is_reused():
    # three 5-star items with the same single aspect: all tie at every step → "c" > "b" > "a" (string order)
    aspects = [("a", "A"), ("b", "A"), ("c", "A"), ("z", "B")]
    qrels = [("u", "a", 5.0), ("u", "b", 5.0), ("u", "c", 5.0), ("u", "z", 1.0), ("v", "z", 4.0)]
    run = [("u", "a", 3.0), ("u", "z", 2.0), ("v", "a", 1.0)]
    r, q, ctx = build_case(qrels, run, aspects)  # no training data: use γ from the test items
    view = RunView.of(ctx, r, q)
    m = parse_measure("ab-nDCG(gamma_source=test)@4")
    gamma = unified.gamma_weights(view, "test")
    ctx.cache.clear()
    items, gains = m.ideal(view, gamma, 2)
    assert [q.items.id_of(i) for i in items[0]] == ["c", "b"]
    full_i, full_g = m.ideal(view, gamma, 4)
    assert [q.items.id_of(i) for i in full_i[0]] == ["c", "b", "a", "z"]
    np.testing.assert_array_equal(full_i[:, :2], items)
    ga, gb = 15 / 16, 1 / 16
    assert gains[0, 0] == pytest.approx(0.5 * ga)
    assert full_g[0, 3] == pytest.approx(0.1 * gb)
    assert list(q.items.id_of(full_i[1][full_i[1] >= 0])) == ["z"]
    lo = parse_measure("ab-nDCG(gamma_source=test,ideal_ties=min_id)@4")
    ctx.cache.clear()
    assert [q.items.id_of(i) for i in lo.ideal(view, gamma, 3)[0][0]] == ["a", "b", "c"]
