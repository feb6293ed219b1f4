"""`top_k` (partial selection kernel) against a full-lexsort reference: ties, NaN, ±inf, exclusions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from recdiv.data import Vocab, top_k


def reference(scores: np.ndarray, k: int, tb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row by row with a full lexsort: the k-th largest value v_k (NaN as -inf) is found by a full sort; finite
    entries >= v_k are ordered by (score desc, tiebreak desc, column asc) and the first k kept."""
    n, m = scores.shape
    k = min(k, m)
    out_i = np.full((n, k), -1, dtype=np.int64)
    out_s = np.full((n, k), np.nan)
    for r in range(n):
        s = np.where(np.isnan(scores[r]), -np.inf, scores[r])
        if k == 0:
            continue
        kth = np.sort(s)[::-1][k - 1]
        cols = np.flatnonzero((s >= kth) & np.isfinite(s))
        order = np.lexsort((cols, -tb[cols], -s[cols]))[:k]
        out_i[r, : len(order)] = cols[order]
        out_s[r, : len(order)] = s[cols[order]]
    return out_i, out_s


values = st.sampled_from([0.0, -0.0, 1.0, 1.0, 2.0, 2.5, -1.0, np.nan, -np.inf, np.inf, 1e300])


@settings(max_examples=150, deadline=None)
@given(
    scores=hnp.arrays(np.float64, st.tuples(st.integers(0, 6), st.integers(0, 12)), elements=values),
    k=st.integers(0, 14),
    tb_seed=st.integers(0, 3),
    chunk=st.integers(1, 5),
)
def test_top_k_matches_full_lexsort(scores, k, tb_seed, chunk):
    m = scores.shape[1]
    rng = np.random.default_rng(tb_seed)
    # tiebreak with duplicates (tb_seed 3: none given -> column index)
    tb = None if tb_seed == 3 else rng.integers(0, max(1, m // 2) + 1, m)
    got_i, got_s = top_k(scores, k, tb, chunk=chunk)
    exp_i, exp_s = reference(scores, k, np.arange(m) if tb is None else tb)
    np.testing.assert_array_equal(got_i, exp_i)
    np.testing.assert_array_equal(got_s, exp_s)  # NaN padding in the same places


@settings(max_examples=100, deadline=None)
@given(
    scores=hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 30)),
                      elements=st.sampled_from([0.0, 1.0, 2.0, 3.0, np.nan, -np.inf])),
    k=st.integers(1, 31),
)
def test_top_k_is_the_best_k_by_score_then_string_id(scores, k):
    """Without +inf: exactly the first k finite entries of the full (score desc, string id desc) order."""
    m = scores.shape[1]
    vocab = Vocab([str(x) for x in range(100, 100 - m, -1)] if m % 2 else list(range(m)))
    tb = vocab.string_rank
    got_i, _ = top_k(scores, k, tb)
    for r in range(len(scores)):
        finite = np.flatnonzero(np.isfinite(scores[r]))
        expect = sorted(finite, key=lambda j: (-scores[r, j], -tb[j]))[:k]
        row = got_i[r]
        assert row[row >= 0].tolist() == expect
        assert (row[len(expect):] == -1).all()


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("k", [1, 37, 500, 1000])
def test_top_k_large_block_with_exclusions_and_ties(k, parallel, monkeypatch):
    """Rows wide enough (> 1024 columns) for the sampled pre-filter of the selection, with heavy ties; the serial
    and the parallel version of the kernel (recdiv.jit.per_user_kernel)."""
    import functools

    from recdiv.data import rankings_kernels

    monkeypatch.setattr(rankings_kernels, "top_k_rows", functools.partial(rankings_kernels.top_k_rows,
                                                                         parallel=parallel))
    rng = np.random.default_rng(k)
    s = rng.integers(0, 40, size=(120, 1500)).astype(float)
    s[rng.random(s.shape) < 0.05] = -np.inf  # excluded items
    s[rng.random(s.shape) < 0.05] = np.nan  # unscorable items
    s[0] = 7.0  # a constant row
    s[1, :1400] = -np.inf  # fewer than k rankable items
    s[2] = rng.random(1500)  # no ties
    s[3, rng.random(1500) < 0.5] = np.nan
    tb = rng.permutation(1500)
    got = top_k(s, k, tb, chunk=50)
    exp = reference(s, k, tb)
    np.testing.assert_array_equal(got[0], exp[0])
    np.testing.assert_array_equal(got[1], exp[1])
