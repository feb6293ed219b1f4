"""numba kernels of the diversity metrics (`recdiv.eval.metrics.diversity`; readable form: the
`_distance_blocks` path of the same metrics, held equal by tests/eval/test_diversity_properties.py)."""

from __future__ import annotations

import numba
import numpy as np

from recdiv.jit import per_user_kernel


@per_user_kernel
def eild_terms(bounds, sig, prel, rd, dist):  # pragma: no cover - compiled
    """term[u, k] = Σ_{l≠k} w_kl d / Σ_{l≠k} w_kl, w_kl = rd[k, l] p_l, over defined pairs (rd: (1 or n, K, K)).
    Each unordered pair is visited once and feeds both of its terms."""
    n, K = sig.shape
    term = np.zeros((n, K))
    shared = rd.shape[0] == 1
    for b in numba.prange(len(bounds) - 1):
        for u in range(bounds[b], bounds[b + 1]):
            r = 0 if shared else u
            num = np.zeros(K)
            den = np.zeros(K)
            for k in range(K):
                sk = sig[u, k]
                if sk < 0:
                    continue
                drow = dist[sk]
                pk = prel[u, k]
                for l in range(k + 1, K):
                    sl = sig[u, l]
                    if sl < 0:
                        continue
                    d = drow[sl]
                    if np.isnan(d):
                        continue
                    wkl = rd[r, k, l] * prel[u, l]
                    wlk = rd[r, l, k] * pk
                    num[k] += wkl * d
                    den[k] += wkl
                    num[l] += wlk * d
                    den[l] += wlk
            for k in range(K):
                if den[k] > 0:
                    term[u, k] = num[k] / den[k]
    return term


@per_user_kernel
def seen_discounts(bounds, items, prev, prev_disc):  # pragma: no cover - compiled
    """disc_prev of every ranked item: the discount of its position in the previous list, 0 if absent."""
    n, K = items.shape
    out = np.zeros((n, K))
    for b in numba.prange(len(bounds) - 1):
        for u in range(bounds[b], bounds[b + 1]):
            for k in range(K):
                i = items[u, k]
                if i < 0:
                    continue
                for l in range(prev.shape[1]):
                    if prev[u, l] == i:
                        out[u, k] = prev_disc[u, l]
                        break
    return out


@per_user_kernel
def ild(bounds, sig, dist):  # pragma: no cover - compiled
    """Mean distance over the defined pairs of each list (signatures sig, −1 padding); 0 without a pair."""
    n, K = sig.shape
    out = np.zeros(n)
    for b in numba.prange(len(bounds) - 1):
        for u in range(bounds[b], bounds[b + 1]):
            num = 0.0
            cnt = 0
            for k in range(K):
                sk = sig[u, k]
                if sk < 0:
                    continue
                drow = dist[sk]
                for l in range(k + 1, K):
                    sl = sig[u, l]
                    if sl < 0:
                        continue
                    d = drow[sl]
                    if np.isnan(d):
                        continue
                    num += d
                    cnt += 1
            if cnt > 0:
                out[u] = num / cnt
    return out
