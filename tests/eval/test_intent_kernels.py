"""The numba kernels of the intent-aware metrics (`recdiv.eval.metrics.intents_kernels`) against independent references.

- greedy α-ideal lists: the vectorised greedy of `recdiv.eval.metrics.greedy_ideal.alpha_ideal` (the implementation
  the kernel replaced) — items and gains must be identical, ties included (METRICS.md §0.6);
- run gains G(k), A_u^rel and whole measures: straightforward per-user Python loops written from §C.1–C.3.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.eval import parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.metrics import intents as ia
from recdiv.eval.metrics.greedy_ideal import alpha_ideal, padded_rows, tie_keys
from tests.eval.test_intent_aware import build_case

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cases(draw):
    n_items = draw(st.integers(2, 25))
    n_asp = draw(st.integers(1, 6))
    ids = list(dict.fromkeys(f"d{draw(st.integers(0, 300))}" for _ in range(n_items)))
    aspects = [(d, f"s{a}") for d in ids for a in sorted(draw(st.sets(st.integers(0, n_asp - 1), max_size=n_asp)))]
    if not aspects:
        aspects = [(ids[0], "s0")]
    qrels, run = [], []
    for u in [f"u{k}" for k in range(draw(st.integers(1, 5)))]:
        for d in draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids))):
            # half-integer grades too: graded gains are then not exact binary fractions
            qrels.append((u, d, draw(st.sampled_from([1.0, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0]))))
        if draw(st.booleans()):
            ranked = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
            run += [(u, d, float(100 - k)) for k, d in enumerate(ranked)]
    if not run:
        run = [("u0", ids[0], 1.0)]
    if not qrels:
        qrels = [("u0", ids[-1], 5.0)]
    return qrels, run, aspects


def _view(case):
    run, qrels, ctx = build_case(*case)
    return RunView.of(ctx, run, qrels)


def vectorised_ideal(view, alpha, graded, ties, steps):
    """The former `alpha_ideal_lists` body: padded candidates and `greedy_ideal.alpha_ideal`."""
    space = ia.aspect_space(view)
    table = ia.aspect_index(view)
    cand, grades = padded_rows(view.qrels.matrix, view.users, keep_cols=space.has_aspects, threshold=view.threshold)
    width = max(int((cand >= 0).sum(axis=1).max(initial=0)), 1)
    length = width if steps is None else min(steps, width)
    g = ia.relevance_weights(grades, view.threshold, graded, view.max_grade)
    asp = np.where((cand >= 0)[:, :, None], table[np.maximum(cand, 0)], space.n_aspects)
    chosen, gains = alpha_ideal(asp, g, alpha, tie_keys(view.qrels.items, cand, ties), min(length, width),
                                space.n_aspects)
    items = np.where(chosen >= 0, np.take_along_axis(cand, np.maximum(chosen, 0), axis=1), -1)
    return items[:, :length], gains[:, :length]


@SETTINGS
@given(cases(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.booleans(), st.sampled_from(["max_id", "min_id"]),
       st.sampled_from([None, 1, 3, 20]))
def test_ideal_kernel_equals_vectorised_greedy(case, alpha, graded, ties, steps):
    view = _view(case)
    view.context.cache.clear()
    got_i, got_g = ia.alpha_ideal_lists(view, alpha, graded, ties, steps)
    want_i, want_g = vectorised_ideal(view, alpha, graded, ties, steps)
    np.testing.assert_array_equal(got_i, want_i)
    np.testing.assert_array_equal(got_g, want_g)


def reference_gains(view, items, alpha, graded, weights=None):
    """Per user and position: G(k) = Σ_{a∈A(i_k)} w_a ĝ_k (1−α)^{Σ_{l<k} ĝ_l [a∈A(i_l)]} (§C.1/C.2/C.8)."""
    space = ia.aspect_space(view)
    ind = space.dense(dtype=bool)
    out = np.zeros(items.shape)
    for r, u in enumerate(view.users):
        row = view.qrels.matrix.getrow(u)
        grade = dict(zip(row.indices.tolist(), row.data.tolist()))
        count = np.zeros(space.n_aspects)
        for k, i in enumerate(items[r]):
            if i < 0 or grade.get(i, -np.inf) < view.threshold:
                continue
            g = grade[i] / view.max_grade if graded else 1.0
            for a in np.flatnonzero(ind[i]):
                w = 1.0 if weights is None else weights[r, a]
                out[r, k] += w * g * (1.0 - alpha) ** count[a]
                count[a] += g
    return out


@SETTINGS
@given(cases(), st.sampled_from([0.0, 0.3, 0.5, 1.0]), st.booleans(), st.booleans(), st.sampled_from([1, 4, 30]))
def test_run_gains_kernel_equals_reference(case, alpha, graded, weighted, k):
    view = _view(case)
    w = ia.intent_weights(view, "uniform") if weighted else None
    got = ia.alpha_run_gains(view, k, alpha, graded, w)
    items = view.at(view.items, k, fill=-1)
    np.testing.assert_allclose(got, reference_gains(view, items, alpha, graded, w), rtol=1e-12, atol=1e-15)
    g = ia.relevance_weights(view.at(view.grades, k, fill=np.nan), view.threshold, graded, view.max_grade)
    np.testing.assert_allclose(ia.alpha_gains(view, items, g, alpha, w, graded), got,
                               rtol=1e-12, atol=1e-15)


@SETTINGS
@given(cases(), st.booleans())
def test_relevant_aspects_kernel(case, judged):
    view = _view(case)
    space = ia.aspect_space(view)
    m = view.qrels.matrix[view.users].tocsr()
    keep = (m.data >= view.threshold) | judged
    want = np.zeros((len(view.users), space.n_aspects), dtype=bool)
    dense = space.dense(dtype=bool)
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    for r, i in zip(rows[keep], m.indices[keep]):
        want[r] |= dense[i]
    np.testing.assert_array_equal(ia.relevant_aspects(view, judged=judged), want)
    if not judged:  # |A_u^rel|: own kernel, then the by-product of the greedy ideal (cached with it)
        view.context.cache.clear()
        np.testing.assert_array_equal(ia.n_relevant_aspects(view), want.sum(axis=1))
        ia.alpha_ideal_lists(view, 0.5, False, "max_id", 2)
        np.testing.assert_array_equal(ia.n_relevant_aspects(view), want.sum(axis=1))


def reference_measures(view, k, alpha=0.5):
    """α-nDCG@K and ERR-IA(ndeval)@K per user from the reference gains and a plain greedy ideal (max_id ties)."""
    space = ia.aspect_space(view)
    ind = space.dense(dtype=bool)
    rank = view.qrels.items.string_rank
    gains = reference_gains(view, view.at(view.items, k, fill=-1), alpha, False)
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    ndcg, err = np.zeros(len(view.users)), np.zeros(len(view.users))
    for r, u in enumerate(view.users):
        row = view.qrels.matrix.getrow(u)
        rel = [i for i, g in zip(row.indices, row.data) if g >= view.threshold]
        pool = [i for i in rel if ind[i].any()]
        count, ideal = np.zeros(space.n_aspects), []
        while pool and len(ideal) < k:
            gain = {i: sum((1 - alpha) ** count[a] for a in np.flatnonzero(ind[i])) for i in pool}
            best = max(gain.values())
            pick = max((i for i in pool if gain[i] >= best - 1e-10 * abs(best)), key=lambda i: rank[i])
            ideal.append(best)
            count[ind[pick]] += 1
            pool.remove(pick)
        idcg = float(np.dot(ideal, disc[: len(ideal)]))
        ndcg[r] = gains[r] @ disc / idcg if idcg > 0 else 0.0
        n_asp = int(np.any(ind[rel], axis=0).sum()) if rel else 0
        ii = n_asp * sum((1 - alpha) ** j / (j + 1) for j in range(k))
        err[r] = gains[r] @ (1.0 / np.arange(1, k + 1)) / ii if ii > 0 else 0.0
    return ndcg, err


@SETTINGS
@given(cases(), st.sampled_from([2, 5, 20]))
def test_alpha_ndcg_and_err_ia_against_reference(case, k):
    run, qrels, ctx = build_case(*case)
    view = RunView.of(ctx, run, qrels)
    ndcg, err = reference_measures(view, k)
    np.testing.assert_allclose(parse_measure(f"alpha-nDCG@{k}").per_user(run, qrels, ctx), ndcg, rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_allclose(parse_measure(f"ERR-IA(variant=ndeval)@{k}").per_user(run, qrels, ctx), err,
                               rtol=1e-12, atol=1e-15)


def test_cached_gains_are_shared_and_read_only():
    case = ([("u", "a", 5.0), ("u", "b", 4.0)], [("u", "a", 2.0), ("u", "b", 1.0)], [("a", "X"), ("b", "X")])
    view = _view(case)
    g1 = ia.alpha_run_gains(view, 2, 0.5)
    assert ia.alpha_run_gains(view, 2, 0.5) is g1 and not g1.flags.writeable
    assert g1.tolist() == [[1.0, 0.5]]
    with pytest.raises(ValueError):
        g1[0, 0] = 2.0


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from([0.25, 0.5]), st.booleans())
def test_parallel_blocks_equal_serial(case, alpha, graded):
    """The prange path (used from `PARALLEL_USERS` users on) gives the same numbers as the serial one."""
    view = _view(case)
    space = ia.aspect_space(view)
    users = view.users.astype(np.int64)
    q = ia.qrels_csr(view)
    atab, keys = ia.aspect_table(view), view.qrels.items.string_rank
    for cap in (-1, 3):
        serial = ia.greedy_alpha_ideal(users, *q, 4.0, graded, 5.0, atab, space.n_aspects, keys, alpha, cap,
                                       parallel=False)
        par = ia.greedy_alpha_ideal(users, *q, 4.0, graded, 5.0, atab, space.n_aspects, keys, alpha, cap,
                                    parallel=True)
        for a, b in zip(serial, par):
            np.testing.assert_array_equal(a, b)
    args = (np.ascontiguousarray(view.rankings.items), ia.run_rows(view), 7, users, *q, atab, space.n_aspects, 4.0,
            alpha, graded, 5.0, ia._NO_WEIGHTS, False, ia._powers(alpha, 7))
    np.testing.assert_array_equal(ia.run_gains(*args, parallel=False), ia.run_gains(*args, parallel=True))
