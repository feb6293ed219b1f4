"""numba kernel of `recdiv.aspects.similarity.RatingPearson.paired`: the co-rating sums of given item pairs."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def pearson_sums(indptr, users, x, a, b, n_users):  # pragma: no cover - compiled
    """(6, n, k, m) sums over the users who rated both a[r, p] and b[r, q] (item columns of a CSC matrix: indptr,
    users ascending, centred ratings x): count, Σx_i, Σx_j, Σx_i², Σx_j², Σx_i·x_j; 0 where an index is −1.

    Each sum adds its terms one by one in ascending user order from 0.0, as SciPy's sparse product does for
    `RatingPearson.matrix`, so that both give the same bits."""
    n, k = a.shape
    m = b.shape[1]
    out = np.zeros((6, n, k, m))
    seen = np.zeros(n_users, dtype=np.bool_)
    value = np.zeros(n_users)
    for r in range(n):
        for p in range(k):
            i = a[r, p]
            if i < 0:
                continue
            for t in range(indptr[i], indptr[i + 1]):
                seen[users[t]] = True
                value[users[t]] = x[t]
            for q in range(m):
                j = b[r, q]
                if j < 0:
                    continue
                cnt = 0.0
                sx = 0.0
                sy = 0.0
                sxx = 0.0
                syy = 0.0
                sxy = 0.0
                for t in range(indptr[j], indptr[j + 1]):
                    u = users[t]
                    if seen[u]:
                        xi = value[u]
                        xj = x[t]
                        cnt += 1.0
                        sx += xi
                        sy += xj
                        sxx += xi * xi
                        syy += xj * xj
                        sxy += xi * xj
                out[0, r, p, q] = cnt
                out[1, r, p, q] = sx
                out[2, r, p, q] = sy
                out[3, r, p, q] = sxx
                out[4, r, p, q] = syy
                out[5, r, p, q] = sxy
            for t in range(indptr[i], indptr[i + 1]):
                seen[users[t]] = False
    return out
