"""numba kernels of COVER (`cover.py`): its lazy greedy loop, one user at a time.

`cover_greedy` takes the candidate types and their similarities that `cover.candidate_types` computes for a block
(any item similarity); `cover_greedy_masks` finds them itself for 0/1 aspect masks, per user in cache
(`blocks_kernels.mask_types`, then the set similarities of the user's T distinct aspect sets), instead of the
block's users × T × T array. Both run `_lazy_cover`, which repeats the arithmetic of `COVER.objective` and selects
with the template's rule, so their lists equal the template's (tests/diversifiers/test_new_rerankers.py).
"""

from __future__ import annotations

import numba
import numpy as np

from recdiv.diversifiers.blocks_kernels import _set_sim, mask_types, type_best, type_order, type_scratch


@numba.njit(inline="always")
def _concave(x: float, gamma: float) -> float:
    """x^γ as `COVER.concave` computes it (√x for γ = ½, x for γ = 1)."""
    if gamma == 1.0:
        return x
    if gamma == 0.5:
        return np.sqrt(x)
    return x**gamma


@numba.njit(inline="always")
def _cover_gain(t, c, gc, sv, counts, nz, nnz, gamma, additive):
    """Σ_j counts_j·(g(cov(c_j, S_tj)) − g(c_j)) in type order over the j with S_tj > 0 (the other terms are exactly
    0, and adding 0.0 leaves a sum unchanged); row t of S is given by its nonzeros: S_tj = sv[t, x], j = nz[t, x]."""
    acc = 0.0
    for x in range(nnz[t]):
        j = nz[t, x]
        cov = c[j] + sv[t, x] if additive else max(c[j], sv[t, x])
        acc += counts[j] * (_concave(cov, gamma) - gc[j])
    return acc


@numba.njit(inline="always")
def _bound(g: float) -> float:
    """A stale gain raised by a relative margin of 1e−12: a bound (rounding cannot make the fresh gain exceed it)."""
    return g + 1e-12 * (abs(g) + 1.0)


@numba.njit(cache=True, nogil=True)
def _lazy_cover(rel, order, ptr, end, counts, sv, nz, nnz, T, k, w, gamma, additive, out, work, fresh, keyq, recent,
                taken):
    """One user's COVER selection: f(i) = rel(i) + w·gain(type(i)), gain(t) = Σ_j counts_j·(g(cov(c_j, S_tj)) −
    g(c_j)) summed in type order as `COVER.objective`; after the pick, c_j ← cov(c_j, S_{t*,j}). The members of type
    t are order[ptr[t]:end[t]] (rel descending, then position; `blocks_kernels.type_best` gives its best remaining
    one); row t of S is given by its nonzeros (`_nonzero`). Lazy (Minoux 1978): gains only shrink as S grows, so a
    stale gain (`_bound`) bounds the current one; the type with the largest value (ties: earliest candidate) is
    taken once its gain is fresh — the template's choice. If every value is NaN (rel undefined), the earliest
    remaining candidate, as the template. The values compared are kept in `key` and changed only where a gain, a
    type's best member or its staleness changes. work (4, T) float scratch: c, g(c), gain, key; fresh, keyq (T,),
    recent (T + 1,) int and taken (N,) bool scratch."""
    c, gc, gain, key = work[0], work[1], work[2], work[3]
    N = len(rel)
    taken[:] = False
    for j in range(T):
        c[j] = 0.0
        gc[j] = _concave(0.0, gamma)
    for t in range(T):
        fresh[t] = 0
        gain[t] = _cover_gain(t, c, gc, sv, counts, nz, nnz, gamma, additive) if ptr[t] < end[t] else 0.0
        key[t], keyq[t] = type_best(rel, order, ptr, end, taken, t, w * gain[t])
    n_recent = 0
    for step in range(k):
        while True:
            best, bv, bq = -1, -np.inf, N
            for t in range(T):
                v = key[t]
                if v > bv or (v == bv and keyq[t] < bq):
                    best, bv, bq = t, v, keyq[t]
            if best < 0:  # every value NaN: the earliest remaining candidate
                for t in range(T):
                    if ptr[t] < end[t] and keyq[t] < bq:
                        best, bq = t, keyq[t]
                break
            if fresh[best] == step:
                break
            gain[best] = _cover_gain(best, c, gc, sv, counts, nz, nnz, gamma, additive)
            fresh[best] = step
            key[best], keyq[best] = type_best(rel, order, ptr, end, taken, best, w * gain[best])
            recent[n_recent] = best
            n_recent += 1
        out[step] = bq
        taken[bq] = True
        recent[n_recent] = best
        n_recent += 1
        for x in range(T if step == 0 else n_recent):  # the gains fresh at this step are stale at the next
            t = x if step == 0 else recent[x]
            key[t], keyq[t] = type_best(rel, order, ptr, end, taken, t, w * _bound(gain[t]))
        n_recent = 0
        for x in range(nnz[best]):
            j = nz[best, x]
            c[j] = c[j] + sv[best, x] if additive else max(c[j], sv[best, x])
            gc[j] = _concave(c[j], gamma)


@numba.njit(inline="always")
def _nonzero(t, j, s, nz, sv, nnz):
    """Record S_tj = s⁺ = max(s, 0) (NaN: 0) among row t's nonzeros nz[t, :nnz[t]] (j ascending), values sv."""
    nz[t, nnz[t]] = j
    sv[t, nnz[t]] = s
    nnz[t] += s > 0  # branch-free: a zero is overwritten by the next entry


@numba.njit(cache=True, nogil=True)
def cover_greedy(rel, types, order, counts, S, weight, gamma, additive, valid, out):
    """COVER over `cover.candidate_types`: `order` (n, N) sorts every user's candidates by type, then rel
    descending, then position (padding last); weight_u = (1 − λ)/|C_u|."""
    n, N = valid.shape
    T = counts.shape[1]
    work = np.zeros((4, T))
    fresh, keyq, recent = np.empty(T, dtype=np.int64), np.empty(T, dtype=np.int64), np.empty(T + 1, dtype=np.int64)
    ptr = np.empty(T, dtype=np.int64)
    end = np.empty(T, dtype=np.int64)
    nz = np.empty((T, T + 1), dtype=np.int64)
    sv = np.empty((T, T + 1))
    nnz = np.zeros(T, dtype=np.int64)
    row = np.empty(out.shape[1], dtype=np.int64)
    taken = np.zeros(N, dtype=np.bool_)
    for u in range(n):
        m = 0
        for j in range(N):
            m += valid[u, j]
        if m == 0:
            continue
        ptr[:] = N
        end[:] = N
        for j in range(N):  # members of every type: consecutive in `order`
            q = order[u, j]
            if valid[u, q]:
                t = types[u, q]
                if ptr[t] == N:
                    ptr[t] = j
                end[t] = j + 1
        for t in range(T):
            nnz[t] = 0
            for j in range(T):
                _nonzero(t, j, S[u, t, j], nz, sv, nnz)
        kk = min(out.shape[1], m)
        _lazy_cover(rel[u], order[u], ptr, end, counts[u], sv, nz, nnz, T, kk, weight[u], gamma, additive,
                    row, work, fresh, keyq, recent, taken)
        out[u, :kk] = row[:kk]


@numba.njit(cache=True, nogil=True)
def cover_greedy_masks(rel, masks, inv, size, defined, cosine, weight, gamma, additive, valid, out):
    """COVER over 0/1 aspect masks (`blocks.BitmaskSlicer`'s arrays): per user, the types are the distinct masks of
    the valid candidates numbered by first appearance (as `cover.candidate_types`), S_tj = max(sim(rep_t, rep_j), 0)
    between their first members (`blocks_kernels.set_similarity_pairs`' arithmetic; 0 when undefined), then
    `_lazy_cover`."""
    n, N = valid.shape
    k = out.shape[1]
    slots, types, reps, counts = type_scratch(N)
    sv = np.empty((N, N + 1))
    nz = np.empty((N, N + 1), dtype=np.int64)
    nnz = np.zeros(N, dtype=np.int64)
    work = np.zeros((4, N))
    scratch = np.empty((6, N + 1), dtype=np.int64)
    fresh, keyq, recent, ptr, end, order = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5]
    taken = np.zeros(N, dtype=np.bool_)
    row = np.empty(k, dtype=np.int64)
    for u in range(n):
        T, m = mask_types(masks[u], valid[u], u, slots, types, reps, counts)
        if m == 0:
            continue
        for t in range(T):
            p = reps[t]
            nnz[t] = 0
            if not defined[u, p]:  # no features: S_tj undefined, i.e. 0
                continue
            for j in range(T):
                q = reps[j]
                s = _set_sim(masks[u, q], masks[u, p], inv[u, q], inv[u, p], size[u, q], size[u, p], defined[u, q],
                             cosine)
                _nonzero(t, j, s, nz, sv, nnz)
        type_order(rel[u], types, T, order, ptr, end)
        kk = min(k, m)
        _lazy_cover(rel[u], order, ptr, end, counts, sv, nz, nnz, T, kk, weight[u], gamma, additive, row, work,
                    fresh, keyq, recent, taken)
        out[u, :kk] = row[:kk]
