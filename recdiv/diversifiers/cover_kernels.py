"""numba kernels of COVER (`cover.py`): its lazy greedy loop, one user at a time.

`cover_greedy` takes the candidate types and their similarities that `cover.candidate_types` computes for a block
(any item similarity); `cover_greedy_masks` finds them itself for 0/1 aspect masks, per user in cache (a hash of the
masks, then the set similarities of the user's T distinct aspect sets), instead of the block's users × T × T array.
Both run `_lazy_cover`, which repeats the arithmetic of `COVER.objective` and selects with the template's rule, so
their lists equal the template's (tests/diversifiers/test_new_rerankers.py).
"""

from __future__ import annotations

import numba
import numpy as np

from recdiv.diversifiers.blocks_kernels import _set_sim


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
def _key(rel, order, ptr, gain, t, w, stale):
    """The value the selection compares for type t: rel of its best remaining member + w·gain, the gain raised by a
    relative margin of 1e−12 while it is stale (a bound: rounding cannot make the fresh gain exceed it)."""
    g = gain[t] + 1e-12 * (abs(gain[t]) + 1.0) if stale else gain[t]
    return rel[order[ptr[t]]] + w * g


@numba.njit(cache=True, nogil=True)
def _lazy_cover(rel, order, ptr, end, counts, sv, nz, nnz, T, k, w, gamma, additive, out, work, fresh, keyq, recent):
    """One user's COVER selection: f(i) = rel(i) + w·gain(type(i)), gain(t) = Σ_j counts_j·(g(cov(c_j, S_tj)) −
    g(c_j)) summed in type order as `COVER.objective`; after the pick, c_j ← cov(c_j, S_{t*,j}). The members of type
    t are order[ptr[t]:end[t]] (rel descending, then position), so its best remaining candidate is order[ptr[t]];
    row t of S is given by its nonzeros (`_nonzero`).
    Lazy (Minoux 1978): gains only shrink as S grows, so a stale gain (plus a margin) bounds the current one; the type
    with the largest value (ties: earliest candidate) is taken once its gain is fresh — the template's choice. If
    every value is NaN (rel undefined), the earliest remaining candidate, as the template. The values compared are
    kept in `key` and changed only where a gain, a type's best member or its staleness changes.
    work (4, T) float scratch: c, g(c), gain, key; fresh, keyq (T,) and recent (T + 1,) int scratch."""
    c, gc, gain, key = work[0], work[1], work[2], work[3]
    N = len(rel)
    for j in range(T):
        c[j] = 0.0
        gc[j] = _concave(0.0, gamma)
    for t in range(T):
        fresh[t] = 0
        if ptr[t] < end[t]:
            gain[t] = _cover_gain(t, c, gc, sv, counts, nz, nnz, gamma, additive)
            key[t] = _key(rel, order, ptr, gain, t, w, False)
            keyq[t] = order[ptr[t]]
        else:
            key[t] = -np.inf
            keyq[t] = N  # never chosen: every live type's candidate is earlier
    n_recent = 0
    for step in range(k):
        while True:
            best, bv, bp = -1, -np.inf, N
            for t in range(T):
                v = key[t]
                if v > bv or (v == bv and keyq[t] < bp):
                    best, bv, bp = t, v, keyq[t]
            if best < 0:  # every value NaN: the earliest remaining candidate
                for t in range(T):
                    if ptr[t] < end[t] and keyq[t] < bp:
                        best, bp = t, keyq[t]
                break
            if fresh[best] == step:
                break
            gain[best] = _cover_gain(best, c, gc, sv, counts, nz, nnz, gamma, additive)
            fresh[best] = step
            key[best] = _key(rel, order, ptr, gain, best, w, False)
            recent[n_recent] = best
            n_recent += 1
        out[step] = bp
        ptr[best] += 1
        keyq[best] = order[ptr[best]] if ptr[best] < end[best] else N
        recent[n_recent] = best
        n_recent += 1
        for x in range(T if step == 0 else n_recent):  # the gains fresh at this step are stale at the next
            t = x if step == 0 else recent[x]
            key[t] = _key(rel, order, ptr, gain, t, w, True) if ptr[t] < end[t] else -np.inf
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
                    row, work, fresh, keyq, recent)
        out[u, :kk] = row[:kk]


@numba.njit(cache=True, nogil=True)
def cover_greedy_masks(rel, masks, inv, size, defined, cosine, weight, gamma, additive, valid, out):
    """COVER over 0/1 aspect masks (`blocks.BitmaskSlicer`'s arrays): per user, the types are the distinct masks of
    the valid candidates numbered by first appearance (as `cover.candidate_types`), S_tj = max(sim(rep_t, rep_j), 0)
    between their first members (`blocks_kernels.set_similarity_pairs`' arithmetic; 0 when undefined), then
    `_lazy_cover`."""
    n, N = valid.shape
    k = out.shape[1]
    H = 1
    while H < 2 * N:
        H *= 2
    slot_key = np.empty(H, dtype=np.int64)
    slot_type = np.empty(H, dtype=np.int64)
    slot_user = np.full(H, -1, dtype=np.int64)
    types = np.empty(N, dtype=np.int64)
    reps = np.empty(N, dtype=np.int64)
    counts = np.zeros(N)
    sv = np.empty((N, N + 1))
    nz = np.empty((N, N + 1), dtype=np.int64)
    nnz = np.zeros(N, dtype=np.int64)
    work = np.zeros((4, N))
    scratch = np.empty((5, N + 1), dtype=np.int64)
    fresh, keyq, recent, ptr, end = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    order = np.empty(N, dtype=np.int64)
    neg = np.empty(N)
    row = np.empty(k, dtype=np.int64)
    for u in range(n):
        T, m = 0, 0
        for c in range(N):
            if not valid[u, c]:
                types[c] = -1
                continue
            m += 1
            key = masks[u, c]
            h = ((key * -7046029254386353131) >> 20) & (H - 1)  # multiplicative hash, linear probing
            while slot_user[h] == u and slot_key[h] != key:
                h = (h + 1) & (H - 1)
            if slot_user[h] != u:
                slot_user[h], slot_key[h], slot_type[h] = u, key, T
                reps[T] = c
                counts[T] = 0.0
                T += 1
            types[c] = slot_type[h]
            counts[types[c]] += 1.0
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
        for c in range(N):  # order: by type, then rel descending (NaN last), then position
            neg[c] = -rel[u, c] if valid[u, c] and rel[u, c] == rel[u, c] else np.inf
        by_rel = np.argsort(neg, kind="mergesort")
        for t in range(T):
            end[t] = 0
        for c in range(N):
            if types[c] >= 0:
                end[types[c]] += 1
        start = 0
        for t in range(T):
            ptr[t] = start
            start += end[t]
            end[t] = ptr[t]
        for x in range(N):
            c = by_rel[x]
            if types[c] >= 0:
                order[end[types[c]]] = c
                end[types[c]] += 1
        kk = min(k, m)
        _lazy_cover(rel[u], order, ptr, end, counts, sv, nz, nnz, T, kk, weight[u], gamma, additive, row, work,
                    fresh, keyq, recent)
        out[u, :kk] = row[:kk]
