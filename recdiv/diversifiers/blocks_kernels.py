"""numba kernels of the greedy template's building blocks (`blocks.py`; one pass over the users × N arrays each).

They do exactly the floating-point operations of the NumPy expressions they replace, in the same order, so that the
selected lists do not change: `csr_row_dot` / `ell_row_dot` the sparse mat-vec with each row summed in stored order
from 0.0, `set_similarity` the bit-mask set cosine / Jaccard of one picked candidate against all candidates,
`orthogonal_step` the Gram–Schmidt step of DPP and SSD. The candidate types of a user (`mask_types`: candidates with
the same aspect mask have the same similarities) and the best remaining member of a type (`type_order`, `type_best`)
serve the compiled loops of COVER and SSD. No `fastmath`: IEEE semantics.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def csr_row_dot(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """out[r] = Σ_j data[j]·w[indices[j]] over row r's stored entries, summed in stored order starting from 0.0."""
    for r in range(len(out)):
        acc = 0.0
        for j in range(indptr[r], indptr[r + 1]):
            acc += data[j] * w[indices[j]]
        out[r] = acc


@numba.njit(cache=True, nogil=True)
def ell_row_dot(cols: np.ndarray, vals: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """`csr_row_dot` on a padded (ELL) layout: row r's entries in slots cols/vals[r, :], padding points at a zero of
    w with value 0 (adds +0.0, which changes no sum). Branch-free when row lengths vary."""
    R, L = cols.shape
    for r in range(R):
        acc = 0.0
        for j in range(L):
            acc += vals[r, j] * w[cols[r, j]]
        out[r] = acc


@numba.njit(inline="always")
def _popcount(x: np.int64) -> np.int64:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@numba.njit(inline="always")
def _set_sim(mc, mp, ic, ip, sc, sp, dc, cosine):
    """sim(c, p) of 0/1 aspect masks: cosine |A∩B|·(1/√|A|)·(1/√|B|), Jaccard |A∩B| / (|A| + |B| − |A∩B|) (NaN
    when c has no features); p has features."""
    inter = float(_popcount(mc & mp))
    if cosine:
        return inter * ic * ip
    if dc:
        return inter / (sc + sp - inter)
    return np.nan


@numba.njit(cache=True, nogil=True)
def set_similarity(masks: np.ndarray, inv: np.ndarray, size: np.ndarray, defined: np.ndarray, pos: np.ndarray,
                   cosine: bool, out: np.ndarray) -> None:
    """out[u, c] = sim(c_{u,pos_u}, c_{u,c}) for 0/1 aspect masks (< 64 aspects), NaN where undefined or pos_u < 0.

    cosine: |A∩B|·(1/√|A|)·(1/√|B|) (as `inter * inv_c * inv_p`); Jaccard: |A∩B| / (|A| + |B| − |A∩B|).
    """
    n, N = masks.shape
    for u in range(n):
        p = pos[u]
        ok = p >= 0 and defined[u, max(p, 0)]
        if not ok:
            out[u, :] = np.nan
            continue
        mp = masks[u, p]
        for c in range(N):
            out[u, c] = _set_sim(masks[u, c], mp, inv[u, c], inv[u, p], size[u, c], size[u, p], defined[u, c], cosine)


@numba.njit(cache=True, nogil=True)
def set_similarity_pairs(masks, inv, size, defined, picked, others, cosine, out):
    """out[u, x, y] = sim(c_{u,picked[u,x]}, c_{u,others[u,y]}) as `set_similarity` (NaN where undefined)."""
    n, a = picked.shape
    b = others.shape[1]
    for u in range(n):
        for x in range(a):
            p = picked[u, x]
            if not defined[u, p]:
                out[u, x, :] = np.nan
                continue
            mp = masks[u, p]
            for y in range(b):
                c = others[u, y]
                out[u, x, y] = _set_sim(masks[u, c], mp, inv[u, c], inv[u, p], size[u, c], size[u, p],
                                        defined[u, c], cosine)


@numba.njit(cache=True, nogil=True)
def orthogonal_step(basis, kernel_row, picked, d2_picked, live, out):
    """out[u, i] = (K(p, i) − Σ_s basis[u, s, p]·basis[u, s, i]) / √d²_p (`blocks.orthogonal_coefficients`), the sum
    over s in order from 0.0; 0 for the users not live."""
    n, S, N = basis.shape
    for u in range(n):
        out[u, :] = 0.0
        if not live[u]:
            continue
        p = picked[u]
        for s in range(S):
            cp = basis[u, s, p]
            for i in range(N):
                out[u, i] += cp * basis[u, s, i]
        r = np.sqrt(d2_picked[u])
        for i in range(N):
            out[u, i] = (kernel_row[u, i] - out[u, i]) / r


@numba.njit(inline="always")
def mask_types(masks, valid, u, slots, types, reps, counts):
    """Candidate types of one user (row u): the distinct aspect masks of the valid candidates, numbered by first
    appearance; types[c] (−1 for padding), reps[t] = the first candidate of type t, counts[t] = its size. `slots`
    (3, H), H ≥ 2N a power of two, is a hash table (user, mask, type) shared by the users of one call, filled with
    −1 before the first. Returns (T, number of valid candidates)."""
    H = slots.shape[1]
    T, m = 0, 0
    for c in range(len(types)):
        if not valid[c]:
            types[c] = -1
            continue
        m += 1
        key = masks[c]
        h = ((key * -7046029254386353131) >> 20) & (H - 1)  # multiplicative hash, linear probing
        while slots[0, h] == u and slots[1, h] != key:
            h = (h + 1) & (H - 1)
        if slots[0, h] != u:
            slots[0, h], slots[1, h], slots[2, h] = u, key, T
            reps[T] = c
            counts[T] = 0.0
            T += 1
        types[c] = slots[2, h]
        counts[types[c]] += 1.0
    return T, m


@numba.njit(inline="always")
def type_scratch(N: int):
    """The arrays `mask_types` fills for rows of N candidates: (slots, types, reps, counts), the hash table empty."""
    H = 1
    while H < 2 * N:
        H *= 2
    return np.full((3, H), -1, dtype=np.int64), np.empty(N, dtype=np.int64), np.empty(N, dtype=np.int64), np.zeros(N)


@numba.njit(inline="always")
def type_order(rel, types, T, order, ptr, end):
    """order[ptr[t]:end[t]] = the candidates of type t (types[c], −1: none) by rel descending (NaN last), then
    position."""
    N = len(types)
    neg = np.empty(N)
    for c in range(N):
        neg[c] = -rel[c] if types[c] >= 0 and rel[c] == rel[c] else np.inf
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


@numba.njit(inline="always")
def type_best(rel, order, ptr, end, taken, t, x):
    """(value, candidate) of type t, whose members share the term x: the largest rel + x over its remaining members
    (order[ptr[t]:end[t]]; ptr[t] moves past the taken ones) and the earliest member with that value (rel + x can
    round members of different rel to one value: the template takes the earliest); (NaN, the earliest) when the
    best rel is NaN; (−inf, len(rel)) when none is left."""
    while ptr[t] < end[t] and taken[order[ptr[t]]]:
        ptr[t] += 1
    if ptr[t] >= end[t]:
        return -np.inf, len(rel)
    q = order[ptr[t]]
    v = rel[q] + x
    if v == v:
        for j in range(ptr[t] + 1, end[t]):
            c = order[j]
            if not taken[c]:
                if rel[c] + x != v:
                    break
                q = min(q, c)
    return v, q
