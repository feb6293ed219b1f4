"""numba kernels of the greedy template (`greedy.py`): its selection rule `select_best` (NaN skipped, ties →
earliest, all NaN → earliest remaining), and fused greedy loops — the whole k-step selection of one user at a
time, state kept in cache.

The NumPy template (`greedy.py`) runs each step for a block of users over (users × N) arrays, which streams those
arrays through memory k times. These kernels run the same objective and state update per user instead (the user's
N candidates and aspect state stay in L1/L2 for all k steps) and are used by the built-in rerankers whose objective
they implement (`GreedyReranker.fused`). They repeat the template's floating-point operations in the same order —
the objective is evaluated exactly as the reranker's `objective` evaluates it, sums over aspects run in the order of
`BlockSparse.dot` (stored order from 0.0) or of NumPy's pairwise `sum` — and select with the template's rule, so
their lists equal the template's (tests/diversifiers/test_fused.py checks this on random instances with ties).
Candidate aspects come as a padded (ELL) layout: row u·N + c of `cols`/`vals` holds the block columns u·F + a of
the candidate's aspects; padding points at column n·F with value 0. Callers obtain `mmr_greedy` through
`recdiv.jit.kernel` (its ahead-of-time build when there is one) and import this module only for the others.
"""

from __future__ import annotations

import numba
import numpy as np

from recdiv.diversifiers.blocks_kernels import _popcount, _set_sim

_I2, _F, _F2, _B, _B2 = numba.int64[:, ::1], numba.float64, numba.float64[:, ::1], numba.boolean, numba.boolean[:, ::1]
#: compiled ahead of time too (`recdiv.aot`): `recdiv rerank --method MMR` over aspects runs without numba
AHEAD_OF_TIME = {"mmr_greedy": numba.void(_F2, _F2, _F, _I2, _F2, _F2, _B, _B2, _I2)}


@numba.njit(cache=True, nogil=True)
def select_best(f: np.ndarray, remaining: np.ndarray, has: np.ndarray, best: np.ndarray) -> None:
    """best[u] = argmax of f[u] over remaining non-NaN entries (first maximum); if none is above −inf, the earliest
    remaining non-NaN, else the earliest remaining; −1 where not has[u]. The picked entry leaves `remaining`."""
    n, N = f.shape
    for u in range(n):
        if not has[u]:
            best[u] = -1
            continue
        b, first_ok, first_rem = -1, -1, -1
        bv = -np.inf
        for c in range(N):
            if remaining[u, c]:
                if first_rem < 0:
                    first_rem = c
                v = f[u, c]
                if v == v:  # not NaN
                    if first_ok < 0:
                        first_ok = c
                    if v > bv:
                        bv = v
                        b = c
        if b < 0:
            b = first_ok if first_ok >= 0 else first_rem
        best[u] = b
        if b >= 0:
            remaining[u, b] = False


@numba.njit(inline="always")
def _pick(f: np.ndarray, rem: np.ndarray) -> int:
    """The template's rule on f, where removed candidates hold NaN: first maximum over non-NaN values; if none is
    above −inf, the earliest remaining non-NaN; if all remaining are NaN, the earliest remaining."""
    b = -1
    bv = -np.inf
    for c in range(len(f)):
        if f[c] > bv:  # False for NaN
            bv = f[c]
            b = c
    if b >= 0:
        return b
    first_rem = -1
    for c in range(len(f)):
        if rem[c]:
            if f[c] == f[c]:
                return c
            if first_rem < 0:
                first_rem = c
    return first_rem


@numba.njit(inline="always")
def _aspect_masks(cols: np.ndarray, u: int, N: int, F: int, n: int, masks: np.ndarray) -> None:
    """Bit (a mod 63) for every aspect a of each of user u's candidates: a conservative overlap test."""
    for c in range(N):
        m = 0
        for j in range(cols.shape[1]):
            col = cols[u * N + c, j]
            if col < n * F:
                m |= 1 << ((col - u * F) % 63)
        masks[c] = m


@numba.njit(inline="always")
def _changed(w: np.ndarray, w_old: np.ndarray, lo: int, F: int) -> int:
    """Bit mask (a mod 63) of the aspects whose weight changed; w_old takes the new values."""
    m = 0
    for a in range(F):
        if w[lo + a] != w_old[a] or w[lo + a] != w[lo + a]:
            m |= 1 << (a % 63)
        w_old[a] = w[lo + a]
    return m


@numba.njit(inline="always")
def _row_dot(cols: np.ndarray, vals: np.ndarray, r: int, w: np.ndarray) -> float:
    acc = 0.0
    for j in range(cols.shape[1]):
        acc += vals[r, j] * w[cols[r, j]]
    return acc


@numba.njit(cache=True, nogil=True)
def pairwise_sum(a: np.ndarray, lo: int, n: int) -> float:
    """NumPy's pairwise summation of a[lo:lo+n] (`np.add.reduce` over a contiguous axis) bit for bit, n ≤ 128
    (NumPy splits longer runs recursively; callers with more aspects use the template)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@numba.njit(cache=True, nogil=True)
def aspect_coverage_greedy(cols, vals, rel, gain, pu, alpha, valid, out):
    """IA-Select and xQuAD: U_a = 1 initially; f(c) = rel[c] + gain[c]·Σ_a X[c,a]·(p(a|u)·U_a) (rel = 0, gain = ŝ
    for IA-Select; rel = (1 − λ)·ŝ, gain = λ for xQuAD); after the pick i*: U_a ← U_a·(1 − alpha[i*]·X[i*,a])
    (alpha = ŝ for IA-Select, α for xQuAD). Only candidates sharing an aspect whose weight changed are re-evaluated."""
    n, N = valid.shape
    F = pu.shape[1]
    k = out.shape[1]
    w = np.zeros(n * F + 1)
    w_old = np.empty(F)
    f = np.empty(N)
    U = np.empty(F)
    masks = np.empty(N, dtype=np.int64)
    for u in range(n):
        rem = valid[u].copy()
        _aspect_masks(cols, u, N, F, n, masks)
        U[:] = 1.0
        for t in range(min(k, rem.sum())):
            for a in range(F):
                w[u * F + a] = pu[u, a] * U[a]
            changed = _changed(w, w_old, u * F, F)  # also records w for the next step
            for c in range(N):
                if t == 0:
                    f[c] = np.nan
                if rem[c] and (t == 0 or masks[c] & changed):
                    f[c] = rel[u, c] + gain[u, c] * _row_dot(cols, vals, u * N + c, w)
            b = _pick(f, rem)
            out[u, t] = b
            rem[b] = False
            f[b] = np.nan
            r = u * N + b
            for j in range(cols.shape[1]):
                if cols[r, j] < n * F:
                    a = cols[r, j] - u * F
                    U[a] = U[a] * (1.0 - alpha[u, b] * vals[r, j])


@numba.njit(cache=True, nogil=True)
def pm2_greedy(cols, vals, votes, lam, valid, out):
    """PM-2: qt_a = v_a/(2 s_a + 1), a* = first argmax; f(c) = Σ_a X[c,a]·w_a with w = (1 − λ)·qt, w_{a*} = λ·qt_{a*};
    after the pick i*: s_a ← s_a + X[i*,a]/Σ_a' X[i*,a'] (NumPy's pairwise sum over the dense row).
    Only candidates sharing an aspect whose weight changed are re-evaluated."""
    n, N = valid.shape
    F = votes.shape[1]
    k = out.shape[1]
    w = np.zeros(n * F + 1)
    w_old = np.empty(F)
    f = np.empty(N)
    seats = np.empty(F)
    qt = np.empty(F)
    row = np.empty(F)
    masks = np.empty(N, dtype=np.int64)
    for u in range(n):
        rem = valid[u].copy()
        _aspect_masks(cols, u, N, F, n, masks)
        seats[:] = 0.0
        for t in range(min(k, rem.sum())):
            star = 0
            for a in range(F):
                qt[a] = votes[u, a] / (2.0 * seats[a] + 1.0)
                if qt[a] > qt[star]:
                    star = a
            for a in range(F):
                w[u * F + a] = (1.0 - lam) * qt[a]
            w[u * F + star] = lam * qt[star]
            changed = _changed(w, w_old, u * F, F)  # also records w for the next step
            for c in range(N):
                if t == 0:
                    f[c] = np.nan
                if rem[c] and (t == 0 or masks[c] & changed):
                    f[c] = _row_dot(cols, vals, u * N + c, w)
            b = _pick(f, rem)
            out[u, t] = b
            rem[b] = False
            f[b] = np.nan
            r = u * N + b
            row[:] = 0.0
            for j in range(cols.shape[1]):
                if cols[r, j] < n * F:
                    row[cols[r, j] - u * F] = vals[r, j]
            tot = pairwise_sum(row, 0, F)
            if tot > 0:
                for a in range(F):
                    seats[a] += row[a] / tot


@numba.njit(inline="always")
def _start_user(first, base, valid, u, f, rest):
    """MMR's and MSD's per-user start: f = first and rest = base over the valid candidates (NaN elsewhere); returns
    the user's remaining-candidate mask."""
    rem = valid[u].copy()
    for c in range(len(f)):
        f[c] = first[u, c] if rem[c] else np.nan
        rest[c] = base[u, c] if rem[c] else np.nan
    return rem


@numba.njit(inline="always")
def _take(f, rem, rest, out, u, t):
    """The template's pick on f, recorded at out[u, t]; the pick leaves `rem` and `rest` (base NaN once picked)."""
    b = _pick(f, rem)
    out[u, t] = b
    rem[b] = False
    rest[b] = np.nan
    return b


@numba.njit(cache=True, nogil=True, error_model="numpy")
def mmr_greedy(first, base, lam1, masks, inv, size, cosine, valid, out):
    """MMR (thesis) with 0/1 aspect-mask similarities: f = first at t = 0, else base − pen with
    pen = max over S of (1 − λ)·sim (fmax, NaN similarities ignored); sim as `kernels.set_similarity`.

    Branch-free over the candidates (so that it vectorises): after each pick every candidate's similarity to it is
    computed, and pen and f = base − pen rewritten. The values are those of the template: a candidate sharing no
    aspect with the pick gets sim 0 (which no pen ≥ 0 is below) or NaN (kept out by the comparison, as by fmax),
    a featureless pick has mask 0 and 1/√0 = NaN (cosine) or size 0 (Jaccard: 0/0 = NaN, error_model numpy), so it
    changes no pen; picked candidates hold base NaN, hence f NaN."""
    n, N = valid.shape
    k = out.shape[1]
    f = np.empty(N)
    pen = np.empty(N)
    rest = np.empty(N)  # base of the remaining candidates, NaN once picked
    for u in range(n):
        rem = _start_user(first, base, valid, u, f, rest)
        mu, iu, su = masks[u], inv[u], size[u]
        pen[:] = 0.0
        for t in range(min(k, rem.sum())):
            b = _take(f, rem, rest, out, u, t)
            mb, ib, sb = mu[b], iu[b], su[b]
            if cosine:
                for c in range(N):
                    s = float(_popcount(mu[c] & mb)) * iu[c] * ib * lam1
                    p = s if s > pen[c] else pen[c]  # np.fmax(pen, s): NaN s keeps pen
                    pen[c] = p
                    f[c] = rest[c] - p
            else:
                for c in range(N):
                    inter = float(_popcount(mu[c] & mb))
                    s = inter / (su[c] + sb - inter) * lam1
                    p = s if s > pen[c] else pen[c]
                    pen[c] = p
                    f[c] = rest[c] - p


@numba.njit(cache=True, nogil=True)
def calibrated_step(cal_cols, ind_cols, ind_vals, w, s, sum_s, c1, lam, off, remaining, has, Q, best):
    """One greedy step of Calibrated for a block: f(c) = (1 − λ)·(Σ_S s + s(c)) − λ·(c1 − gain(c)), gain(c) =
    Σ_j w[cal_cols[c, j]] (unit weights) as `Calibrated.objective`, NaN for users with `off`; pick with the template's
    rule; then Q_g ← Q_g + X[i*,g]/Σ_g' X[i*,g'] (pairwise sum) and Σ_S s ← Σ_S s + s(i*), as `Calibrated.update`."""
    n, N = s.shape
    F = Q.shape[1]
    f = np.empty(N)
    row = np.empty(F)
    for u in range(n):
        if not has[u]:
            best[u] = -1
            continue
        for c in range(N):
            if not remaining[u, c] or off[u]:
                f[c] = np.nan
                continue
            r = u * N + c
            gain = 0.0
            for j in range(cal_cols.shape[1]):
                gain += w[cal_cols[r, j]]
            f[c] = (1.0 - lam) * (sum_s[u] + s[u, c]) - lam * (c1[u] - gain)
        b = _pick(f, remaining[u])
        best[u] = b
        remaining[u, b] = False
        r = u * N + b
        row[:] = 0.0
        for j in range(ind_cols.shape[1]):
            if ind_cols[r, j] < n * F:
                row[ind_cols[r, j] - u * F] = ind_vals[r, j]
        cnt = pairwise_sum(row, 0, F)
        if cnt > 0:
            for a in range(F):
                Q[u, a] += row[a] / cnt
        sum_s[u] += s[u, b]


@numba.njit(cache=True, nogil=True)
def fair_greedy(protected, valid, m, out):
    """FA*IR: while the protected count is below m(t), the earliest remaining protected candidate (the earliest
    remaining one if none is left), otherwise the earliest remaining candidate — `FAIR.objective` (−position
    over the eligible candidates) with the template's rule, one user at a time."""
    n, N = valid.shape
    k = out.shape[1]
    for u in range(n):
        nxt, nxt_p, count = 0, 0, 0  # earliest remaining candidate overall and protected
        taken = np.zeros(N, dtype=np.bool_)
        for t in range(k):
            while nxt < N and (not valid[u, nxt] or taken[nxt]):
                nxt += 1
            if nxt >= N:
                break
            while nxt_p < N and (not valid[u, nxt_p] or taken[nxt_p] or not protected[u, nxt_p]):
                nxt_p += 1
            b = nxt_p if count < m[t] and nxt_p < N else nxt
            out[u, t] = b
            taken[b] = True
            if protected[u, b]:
                count += 1


@numba.njit(cache=True, nogil=True, error_model="numpy")
def msd_greedy(first, base, lam1, masks, inv, size, cosine, valid, out):
    """MSD with 0/1 aspect-mask similarities: f = first at t = 0, else base + (1 − λ)·dist with
    dist = Σ_{j∈S} (1 − sim(c, j)) over the defined similarities (sim as `blocks_kernels.set_similarity`); a
    featureless pick changes no distance (its similarities are undefined), as `MSD.update`. Picked candidates hold
    base NaN, hence f NaN."""
    n, N = valid.shape
    k = out.shape[1]
    f = np.empty(N)
    dist = np.empty(N)
    rest = np.empty(N)
    for u in range(n):
        rem = _start_user(first, base, valid, u, f, rest)
        mu, iu, su = masks[u], inv[u], size[u]
        dist[:] = 0.0
        for t in range(min(k, rem.sum())):
            b = _take(f, rem, rest, out, u, t)
            mb, ib, sb = mu[b], iu[b], su[b]
            if sb > 0:
                for c in range(N):
                    inter = float(_popcount(mu[c] & mb))
                    s = inter * iu[c] * ib if cosine else (inter / (su[c] + sb - inter) if su[c] > 0 else np.nan)
                    if s == s:
                        dist[c] += 1.0 - s
            for c in range(N):
                f[c] = rest[c] + lam1 * dist[c]


@numba.njit(inline="always")
def _mask_distance(masks, inv, size, defined, u, a, b, cosine):
    """1 − sim(c_{u,b}, c_{u,a}) by `blocks_kernels.set_similarity`'s arithmetic (b picked), 0 when undefined."""
    if not defined[u, b]:
        return 0.0
    s = _set_sim(masks[u, a], masks[u, b], inv[u, a], inv[u, b], size[u, a], size[u, b], defined[u, a], cosine)
    return 0.0 if s != s else 1.0 - s


@numba.njit(inline="always")
def _tie_key(x: float) -> float:
    """`swap.tie_key`: x rounded to 12 decimals."""
    return np.rint(x * 1e12) / 1e12


@numba.njit(cache=True, nogil=True, error_model="numpy")
def swap_select(masks, inv, size, defined, cosine, valid, relevant, k, members):
    """Swap's members for 0/1 aspect masks, one user at a time, with the arithmetic of `Swap._select`: initial
    contributions summed over the members in position order, the gain of candidate c summed left to right over
    R ∖ {i*}, contributions updated as (contrib + d(j, c)) − d(j, i*)."""
    n, N = valid.shape
    contrib = np.zeros(N)
    dc = np.zeros(N)
    for u in range(n):
        for j in range(N):
            members[u, j] = valid[u, j] and j < k
            contrib[j] = 0.0
        for p in range(min(k, N)):
            if not members[u, p]:
                continue
            for i in range(N):
                if members[u, i] and i != p:
                    contrib[i] += _mask_distance(masks, inv, size, defined, u, i, p, cosine)
        for c in range(k, N):
            if not (valid[u, c] and relevant[u, c]):
                break
            worst, wv = -1, np.inf
            for i in range(N):
                if members[u, i] and _tie_key(contrib[i]) <= wv:  # ties: the lowest-ranked member
                    worst, wv = i, _tie_key(contrib[i])
            gain = 0.0
            for j in range(N):
                dc[j] = _mask_distance(masks, inv, size, defined, u, j, c, cosine)
                if members[u, j] and j != worst:
                    gain += dc[j]
            if not _tie_key(gain) > _tie_key(contrib[worst]):
                continue
            for j in range(N):
                if members[u, j] and j != worst:
                    contrib[j] = (contrib[j] + dc[j]) - _mask_distance(masks, inv, size, defined, u, j, worst, cosine)
            contrib[c] = gain
            members[u, worst] = False
            members[u, c] = True
