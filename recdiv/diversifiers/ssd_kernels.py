"""numba kernel of SSD (`ssd.py`) over 0/1 aspect masks, one user at a time and per candidate type (candidates with
the same aspect set have the same kernel row, coefficients and residual norm: `blocks_kernels.mask_types`), with the
arithmetic of `SSD.objective`, `SSD.update` and `blocks.orthogonal_coefficients` and the template's selection rule,
so that its lists equal the template's (tests/diversifiers/test_new_rerankers.py)."""

from __future__ import annotations

import numba
import numpy as np

from recdiv.diversifiers.blocks_kernels import _set_sim, mask_types, type_best, type_order, type_scratch


@numba.njit(cache=True, nogil=True)
def ssd_greedy_masks(rel, masks, inv, size, defined, cosine, coef, bias, window, tiny, valid, out):
    """SSD: f(c) = rel(c) + coef·√d²(type(c)), coef = (1 − λ)·γ; after the pick p (d²_p > tiny: live), the
    coefficients on the new direction e_t = (K(p, t) − Σ_s C[s, p]·C[s, t]) / √d²_p (s in buffer order, from 0.0;
    K = sim (NaN: 0) + bias), d² ← max(d² − e², 0); window w > 0: a ring of w directions (every pick adds one, 0 when
    not live), the oldest given back (d² + C[head]²) before; w = 0: no window (only live picks add a direction)."""
    n, N = valid.shape
    k = out.shape[1]
    slots, types, reps, counts = type_scratch(N)
    scratch = np.empty((3, N + 1), dtype=np.int64)
    order, ptr, end = scratch[0], scratch[1], scratch[2]
    taken = np.zeros(N, dtype=np.bool_)
    cap = window if window > 0 else k
    C = np.zeros((cap, N))
    d2 = np.empty(N)
    e = np.empty(N)
    kern = np.empty(N)
    key = np.empty(N)
    keyq = np.empty(N, dtype=np.int64)
    for u in range(n):
        T, m = mask_types(masks[u], valid[u], u, slots, types, reps, counts)
        if m == 0:
            continue
        type_order(rel[u], types, T, order, ptr, end)
        for c in range(N):
            taken[c] = False
        for t in range(T):
            d2[t] = (1.0 if defined[u, reps[t]] else 0.0) + bias
        filled, head = 0, 0
        for t in range(T):
            key[t], keyq[t] = type_best(rel[u], order, ptr, end, taken, t, coef * np.sqrt(d2[t]))
        for step in range(min(k, m)):
            best, bv, bq = -1, -np.inf, N
            for t in range(T):
                if ptr[t] < end[t] and (key[t] > bv or (key[t] == bv and keyq[t] < bq)):
                    best, bv, bq = t, key[t], keyq[t]
            if best < 0:  # every value NaN: the earliest remaining candidate
                for t in range(T):
                    if ptr[t] < end[t] and keyq[t] < bq:
                        best, bq = t, keyq[t]
            out[u, step] = bq
            taken[bq] = True
            d2p = d2[best]
            live = d2p > tiny
            if live or window > 0:
                if live:
                    p = reps[best]
                    mp, ip, sp = masks[u, p], inv[u, p], size[u, p]
                    dp = defined[u, p]
                    for t in range(T):
                        q = reps[t]
                        s = _set_sim(masks[u, q], mp, inv[u, q], ip, size[u, q], sp, defined[u, q], cosine)
                        kern[t] = (s if dp and s == s else 0.0) + bias
                        e[t] = 0.0
                    for x in range(filled):
                        cp = C[x, best]
                        for t in range(T):
                            e[t] += cp * C[x, t]
                    r = np.sqrt(d2p)
                    for t in range(T):
                        e[t] = (kern[t] - e[t]) / r
                else:
                    for t in range(T):
                        e[t] = 0.0
                if window > 0 and filled == window:
                    for t in range(T):
                        d2[t] = d2[t] + C[head, t] * C[head, t]
                        C[head, t] = e[t]
                    head = (head + 1) % window
                else:
                    for t in range(T):
                        C[filled, t] = e[t]
                    filled += 1
                for t in range(T):
                    d2[t] = max(d2[t] - e[t] * e[t], 0.0)
                for t in range(T):
                    if ptr[t] < end[t]:
                        key[t], keyq[t] = type_best(rel[u], order, ptr, end, taken, t, coef * np.sqrt(d2[t]))
            elif ptr[best] < end[best]:
                key[best], keyq[best] = type_best(rel[u], order, ptr, end, taken, best, coef * np.sqrt(d2[best]))
