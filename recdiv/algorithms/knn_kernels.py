"""Compiled scoring loops of the k-nearest-neighbour recommenders (`recdiv.algorithms.knn` holds their formulas,
the similarities and the calls). Per-user kernels (`recdiv.jit.per_user_kernel`): each user's row of scores is
computed by the same operations in the serial and the parallel version.

- `user_knn_scores`: score(u, i) over the k most similar users who rated i (numerator Σ sim·value, denominator
  Σ |sim|; explicit feedback adds the user's mean to the weighted average).
- `item_knn_scores` (sparse similarities) and `item_knn_dense_scores` (a dense similarity matrix, tiled): score(u,
  t) over the k items most similar to t among those u rated; the same neighbours and the same summation order.
"""

from __future__ import annotations

import numba
import numpy as np

from recdiv.jit import per_user_kernel

__all__ = ["item_knn_dense_scores", "item_knn_scores", "user_knn_scores"]

#: users × items from which the kernels run in parallel
KNN_PARALLEL_WORK = 200_000


@numba.njit(cache=True, nogil=True)
def _score(num, den, taken, min_nbrs, explicit, mean):  # pragma: no cover - compiled
    """NaN below min_nbrs neighbours; the weighted average plus the mean (explicit) or the sum (implicit)."""
    if taken < min_nbrs:
        return np.nan
    if explicit:
        return num / den + mean
    return num


@per_user_kernel(min_work=KNN_PARALLEL_WORK)
def user_knn_scores(bounds, sims, indptr, indices, vals, n_items, k, min_nbrs, min_sim, explicit, means,
                    out):  # pragma: no cover - compiled
    """Row b of `out`: user b's scores from its row of similarities `sims[b]` to every training user."""
    for blk in numba.prange(len(bounds) - 1):
        cnt = np.zeros(n_items, np.int64)
        num = np.zeros(n_items)
        den = np.zeros(n_items)
        for b in range(bounds[blk], bounds[blk + 1]):
            cnt[:] = 0
            num[:] = 0.0
            den[:] = 0.0
            s = sims[b]
            cand = np.nonzero(s >= min_sim)[0]
            order = cand[np.argsort(-s[cand], kind="mergesort")]
            for v in order:  # most similar neighbours first: each item keeps its k best raters
                sv = s[v]
                for p in range(indptr[v], indptr[v + 1]):
                    j = indices[p]
                    if cnt[j] < k:
                        cnt[j] += 1
                        num[j] += sv * vals[p]
                        den[j] += abs(sv)
            for j in range(n_items):
                out[b, j] = _score(num[j], den[j], cnt[j], min_nbrs, explicit, means[b])


@numba.njit(cache=True, nogil=True)
def _sum_top(seg_s, seg_v, c, thr, k):  # pragma: no cover - compiled
    """Σ s·v and Σ |s| over the k largest similarities of seg_s[:c] (thr = the k-th largest; among equal-to-thr
    neighbours the earliest are taken), in input order; returns (numerator, denominator, neighbours taken)."""
    tn = 0.0
    td = 0.0
    taken = 0
    for e in range(c):
        if seg_s[e] > thr:
            tn += seg_s[e] * seg_v[e]
            td += abs(seg_s[e])
            taken += 1
    for e in range(c):
        if taken >= k:
            break
        if seg_s[e] == thr:
            tn += seg_s[e] * seg_v[e]
            td += abs(seg_s[e])
            taken += 1
    return tn, td, taken


@per_user_kernel(min_work=KNN_PARALLEL_WORK)
def item_knn_scores(bounds, users, u_ptr, u_idx, u_val, s_ptr, s_idx, s_val, n_items, k, min_nbrs, explicit,
                    means, out):  # pragma: no cover - compiled
    """Row b of `out`: the scores of user `users[b]` from the CSR item similarities (s_ptr, s_idx, s_val)."""
    for blk in numba.prange(len(bounds) - 1):
        cnt = np.zeros(n_items, np.int64)
        num = np.zeros(n_items)
        den = np.zeros(n_items)
        for b in range(bounds[blk], bounds[blk + 1]):
            cnt[:] = 0
            num[:] = 0.0
            den[:] = 0.0
            u = users[b]
            # pass 1: count candidate neighbours of every target and sum them all
            for p in range(u_ptr[u], u_ptr[u + 1]):
                j, rv = u_idx[p], u_val[p]
                for q in range(s_ptr[j], s_ptr[j + 1]):
                    t = s_idx[q]
                    cnt[t] += 1
                    num[t] += s_val[q] * rv
                    den[t] += abs(s_val[q])
            # pass 2: targets with more than k candidates keep only the k most similar
            over = np.nonzero(cnt > k)[0]
            if len(over) > 0:
                slot = np.full(n_items, -1, np.int64)
                start = np.zeros(len(over) + 1, np.int64)
                for o in range(len(over)):
                    slot[over[o]] = o
                    start[o + 1] = start[o] + cnt[over[o]]
                fill = start[:-1].copy()
                bs = np.empty(start[-1])
                bv = np.empty(start[-1])
                for p in range(u_ptr[u], u_ptr[u + 1]):
                    j, rv = u_idx[p], u_val[p]
                    for q in range(s_ptr[j], s_ptr[j + 1]):
                        o = slot[s_idx[q]]
                        if o >= 0:
                            bs[fill[o]] = s_val[q]
                            bv[fill[o]] = rv
                            fill[o] += 1
                for o in range(len(over)):
                    a, z = start[o], start[o + 1]
                    seg_s = bs[a:z]
                    seg_v = bv[a:z]
                    thr = np.partition(seg_s, len(seg_s) - k)[len(seg_s) - k]  # k-th largest similarity
                    tn, td, _ = _sum_top(seg_s, seg_v, len(seg_s), thr, k)
                    t = over[o]
                    num[t] = tn
                    den[t] = td
                    cnt[t] = k
            for t in range(n_items):
                out[b, t] = _score(num[t], den[t], cnt[t], min_nbrs, explicit, means[t])


@per_user_kernel(min_work=KNN_PARALLEL_WORK)
def item_knn_dense_scores(bounds, users, u_ptr, u_idx, u_val, sims, k, min_nbrs, explicit,
                          means, out):  # pragma: no cover - compiled
    """`item_knn_scores` over a dense similarity matrix (0 = not a neighbour): same neighbours, same summation
    order (the user's rated items in CSR order; ties at the k-th similarity: first rated first), same results.
    Targets are processed in tiles: the tile's columns of the rated items' rows are copied into a small buffer."""
    n_items = sims.shape[1]
    tile = 64
    for blk in numba.prange(len(bounds) - 1):
        for b in range(bounds[blk], bounds[blk + 1]):
            u = users[b]
            a = u_ptr[u]
            r = u_ptr[u + 1] - a
            buf = np.empty((tile, r))
            seg_s = np.empty(r)
            seg_v = np.empty(r)
            top = np.empty(min(k, r) + 1)  # the k largest similarities seen so far, ascending
            track = r > k and k <= 64  # small k: insertion into a sorted list; large k: np.partition
            for t0 in range(0, n_items, tile):
                t1 = min(n_items, t0 + tile)
                for e in range(r):
                    row = sims[u_idx[a + e]]
                    for t in range(t0, t1):
                        buf[t - t0, e] = row[t]
                for t in range(t0, t1):
                    bt = buf[t - t0]
                    c = 0
                    for e in range(r):
                        x = bt[e]
                        if x != 0.0:
                            seg_s[c] = x
                            seg_v[c] = u_val[a + e]
                            c += 1
                            if not track:
                                continue
                            if c <= k:  # insertion into the sorted top list
                                p = c - 1
                                while p > 0 and top[p - 1] > x:
                                    top[p] = top[p - 1]
                                    p -= 1
                                top[p] = x
                            elif x > top[0]:  # replaces the smallest of the k kept
                                p = 0
                                while p + 1 < k and top[p + 1] < x:
                                    top[p] = top[p + 1]
                                    p += 1
                                top[p] = x
                    tn = 0.0
                    td = 0.0
                    if c <= k:
                        for e in range(c):
                            tn += seg_s[e] * seg_v[e]
                            td += abs(seg_s[e])
                        taken = c
                    else:
                        if track:
                            thr = top[0]  # k-th largest similarity (with multiplicity)
                        else:
                            thr = np.partition(seg_s[:c], c - k)[c - k]
                        tn, td, taken = _sum_top(seg_s, seg_v, c, thr, k)
                    out[b, t] = _score(tn, td, taken, min_nbrs, explicit, means[t])
