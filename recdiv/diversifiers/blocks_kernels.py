"""numba kernels of the greedy template's building blocks (`blocks.py`; one pass over the users × N arrays each).

They do exactly the floating-point operations of the NumPy expressions they replace, in the same order, so that the
selected lists do not change: `csr_row_dot` / `ell_row_dot` the sparse mat-vec with each row summed in stored order
from 0.0, `set_similarity` the bit-mask set cosine / Jaccard of one picked candidate against all candidates. No
`fastmath`: IEEE semantics.
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
