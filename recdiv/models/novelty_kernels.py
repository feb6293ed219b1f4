"""numba kernel of `recdiv.models.novelty.ProfileDistance` (its readable form: `ProfileDistance._blocks`)."""

from __future__ import annotations

import numba
import numpy as np

from recdiv.jit import per_user_kernel


@per_user_kernel
def profile_distances(bounds, indptr, indices, data, users, qsig, dist):  # pragma: no cover - compiled
    """out[r, c] = Σ_p data[p] d(qsig[r, c], p) / Σ_p data[p] over user users[r]'s profile signatures p with a
    defined (non-NaN) distance; 0 at padding (qsig < 0) or where no pair is defined."""
    n, k = qsig.shape
    out = np.zeros((n, k))
    for b in numba.prange(len(bounds) - 1):
        for r in range(bounds[b], bounds[b + 1]):
            u = users[r]
            for c in range(k):
                q = qsig[r, c]
                if q < 0:
                    continue
                drow = dist[q]
                num = 0.0
                den = 0.0
                for p in range(indptr[u], indptr[u + 1]):
                    d = drow[indices[p]]
                    if np.isnan(d):
                        continue
                    num += data[p] * d
                    den += data[p]
                if den > 0:
                    out[r, c] = num / den
    return out
