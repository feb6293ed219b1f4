"""Numba kernels of the redundancy-aware intent-aware metrics (METRICS.md §C.1–C.3, §0.6, G.7).

One pass per user over the user's judgments (qrels CSR row) and a padded aspect table of the items, instead
of dense users × K × |A| tensors:

- `run_gains_blocks`: α-nDCG gains G(k) of the run, grades looked up in the qrels row on the fly;
- `alpha_gains_kernel`: the same gains for given (items, ĝ) arrays (e.g. an ideal list);
- `ideal_blocks` (and `ideal_widths`): the greedy α-ideal lists (§C.1, ties §0.6);
- `relevant_aspect_kernel` / `relevant_aspect_counts`: A_u^rel (or the aspects of all judged items) / |A_u^rel|.

`recdiv.eval.metrics.intents` calls them (through `recdiv.jit.kernel`) with int64 indices, float64 grades and
C-contiguous arrays: the types of `AHEAD_OF_TIME`, under which their serial versions are also compiled ahead of
time (`recdiv.aot`), so that `recdiv eval` with α-nDCG / ERR-IA(variant=ndeval) starts without numba.

The aspect table `atab` (items + 1, T) holds the aspects of every item in ascending order, padded with the
sentinel A = n_aspects; its last row (all sentinel) stands for padding (item −1). With a fixed trip count T
and sentinel slots that contribute exactly 0, the inner loops are branch-free (selects instead of
unpredictable branches), which is where most of the time went.

Floating-point order follows the vectorised reference implementation (`recdiv.eval.metrics.greedy_ideal.alpha_ideal`
and the former numpy gains): redundancy factors are (1−α)^c with c a count (binary: read from a table built
with numpy's power), summed over a ∈ A(i) in ascending aspect order (adding exact zeros for sentinels); the
greedy state is updated multiplicatively; ties use the 1e-10 relative tolerance. From `PARALLEL_USERS`
evaluated users on, the run-gain and ideal kernels run over blocks of users in parallel
(`recdiv.jit.per_user_kernel`; every user's arithmetic is the same as in the serial kernel).
"""

from __future__ import annotations

import numba
import numpy as np

from recdiv.jit import per_user_kernel

REL_TOL = 1e-10  # must equal recdiv.eval.metrics.greedy_ideal._REL_TOL
#: from this many evaluated users on, the run-gain and ideal kernels run over blocks of users in parallel
PARALLEL_USERS = 50_000

_I, _F, _B = numba.int64, numba.float64, numba.boolean
_I1, _I2, _F1, _F2 = _I[::1], _I[:, ::1], _F[::1], _F[:, ::1]
#: signatures of the kernels compiled ahead of time (`recdiv.aot`): every kernel the intent-aware readable code
#: calls (per-user kernels: their serial version, whose first argument is the block bounds)
AHEAD_OF_TIME = {
    "run_gains_blocks": numba.void(_I1, _I2, _I1, _I1, _I1, _I1, _F1, _I2, _I, _F, _F, _B, _F, _F2, _B, _F1, _F2),
    "ideal_blocks": numba.void(_I1, _I1, _I1, _I1, _F1, _F, _B, _F, _I2, _I, _I1, _F, _I, _I2, _F2, _I1, _I1),
    "ideal_widths": _I1(_I1, _I1, _I1, _F1, _F, _I2, _I),
    "alpha_gains_kernel": _F2(_I2, _F2, _I2, _I, _F, _B, _F2, _B, _F1),
    "relevant_aspect_kernel": _B[:, :](_I1, _I1, _I1, _F1, _F, _B, _I2, _I),
    "relevant_aspect_counts": _I1(_I1, _I1, _I1, _F1, _F, _I2, _I),
}


@numba.njit(cache=True, nogil=True, error_model="numpy")
def pick_in_band(gain, ckey, m, best):  # pragma: no cover - compiled
    """Greedy-ideal tie rule (METRICS.md §0.6): among the first m candidates whose gain is within REL_TOL of the
    best, the one with the largest key (external-id string rank) wins."""
    floor = best - REL_TOL * abs(best)
    pick = 0
    pk = -1
    for c in range(m):
        take = (gain[c] >= floor) & (ckey[c] > pk)
        pick = c if take else pick
        pk = ckey[c] if take else pk
    return pick


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _row_gains(items, g, atab, n_asp, powtab, base, graded, w, r, has_w, cnt, ncnt,
               out_row):  # pragma: no cover - compiled
    """G(k) of one list: Σ_{a∈A(i_k)} w_a ĝ_k (1−α)^{c_a}, c_a = Σ_{l<k} ĝ_l [a∈A(i_l)]; resets the counts after.

    Binary gains count in `ncnt` and read (1−α)^c from `powtab`; graded ones sum ĝ in `cnt` and compute the
    power. Positions with ĝ = 0 (or padding) get exactly 0 and change no count.
    """
    n = len(items)
    pad = atab.shape[0] - 1
    t_max = atab.shape[1]
    last = max(n_asp - 1, 0)
    for k in range(n):
        it = items[k]
        it = it if it >= 0 else pad
        gk = g[k]
        rel = gk > 0
        acc = 0.0
        for s in range(t_max):
            a = atab[it, s]
            on = rel & (a < n_asp)
            if graded:
                term = gk * base ** cnt[a]
                cnt[a] += gk if on else 0.0
            else:
                term = powtab[ncnt[a]]
                ncnt[a] += on
            if has_w:
                term = term * w[r, min(a, last)]
            acc += term if on else 0.0
        out_row[k] = acc
    for k in range(n):
        it = items[k]
        it = it if it >= 0 else pad
        for s in range(t_max):
            a = atab[it, s]
            cnt[a] = 0.0
            ncnt[a] = 0


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _run_gains_block(lo_r, hi_r, run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, threshold, alpha,
                     graded, r_max, w, has_w, powtab, out):  # pragma: no cover - compiled
    """Rows lo_r:hi_r of `run_gains` (own scratch arrays, so that blocks can run in parallel)."""
    n_items = atab.shape[0] - 1
    table = np.zeros(n_items)
    cnt = np.zeros(n_asp + 1)
    ncnt = np.zeros(n_asp + 1, dtype=np.int64)
    width = min(out.shape[1], run_items.shape[1])
    g = np.zeros(width)
    base = 1.0 - alpha
    for r in range(lo_r, hi_r):
        s = src[r]
        if s < 0:
            continue
        u = users[r]
        lo, hi = q_indptr[u], q_indptr[u + 1]
        for j in range(lo, hi):
            gr = q_data[j]
            table[q_indices[j]] = (gr / r_max if graded else 1.0) if gr >= threshold else 0.0
        row = run_items[s, :width]
        for k in range(width):
            it = row[k]
            g[k] = table[it] if 0 <= it < n_items else 0.0
        _row_gains(row, g, atab, n_asp, powtab, base, graded, w, r, has_w, cnt, ncnt, out[r])
        for j in range(lo, hi):
            table[q_indices[j]] = 0.0


@per_user_kernel(min_work=PARALLEL_USERS, error_model="numpy")
def run_gains_blocks(bounds, run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, threshold, alpha,
                        graded, r_max, w, has_w, powtab, out):  # pragma: no cover - compiled
    for b in numba.prange(len(bounds) - 1):
        _run_gains_block(bounds[b], bounds[b + 1], run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp,
                         threshold, alpha, graded, r_max, w, has_w, powtab, out)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def alpha_gains_kernel(items, g, atab, n_asp, alpha, graded, w, has_w, powtab):  # pragma: no cover - compiled
    """(n, L) gains of given item lists with relevance weights ĝ (n, L); powtab[c] = (1−α)^c, c = 0..L."""
    n, length = items.shape
    out = np.zeros((n, length))
    cnt = np.zeros(n_asp + 1)
    ncnt = np.zeros(n_asp + 1, dtype=np.int64)
    for r in range(n):
        _row_gains(items[r], g[r], atab, n_asp, powtab, 1.0 - alpha, graded, w, r, has_w, cnt, ncnt, out[r])
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def ideal_widths(users, q_indptr, q_indices, q_data, threshold, atab, n_asp):  # pragma: no cover - compiled
    """Number of ideal-list candidates per user: relevant judged items (grade ≥ τ) having aspects."""
    out = np.zeros(len(users), dtype=np.int64)
    for r in range(len(users)):
        u = users[r]
        c = 0
        for j in range(q_indptr[u], q_indptr[u + 1]):
            c += (q_data[j] >= threshold) & (atab[q_indices[j], 0] < n_asp)
        out[r] = c
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _ideal_block(lo_r, hi_r, users, q_indptr, q_indices, q_data, threshold, graded, r_max, atab, n_asp, keys, alpha,
                 max_j, out_i, out_g, widths, n_rel_asp):  # pragma: no cover - compiled
    """Rows lo_r:hi_r of `greedy_alpha_ideal` (own scratch arrays, so that blocks can run in parallel).

    max_j bounds the number of candidates of any user; widths[r] receives the user's candidate count and
    n_rel_asp[r] = |A_u^rel| (counted on the same pass over the user's judgments)."""
    length = out_i.shape[1]
    t_max = atab.shape[1]
    base = 1.0 - alpha
    pw = np.ones(n_asp + 1)
    pw[n_asp] = 0.0  # sentinel: padding aspects contribute nothing
    cand = np.empty(max_j + 1, dtype=np.int64)
    ckey = np.empty(max_j + 1, dtype=np.int64)
    cg = np.empty(max_j + 1)
    gain = np.empty(max_j + 1)
    casp = np.empty((max_j + 1, t_max), dtype=np.int64)
    seen = np.full(n_asp + 1, -1, dtype=np.int64)
    for r in range(lo_r, hi_r):
        u = users[r]
        m = 0
        width = 0
        n_rel = 0
        for j in range(q_indptr[u], q_indptr[u + 1]):  # branch-free gather: write at m, keep it if a candidate
            it = q_indices[j]
            gr = q_data[j]
            rel = gr >= threshold
            cand_ok = rel & (atab[it, 0] < n_asp)
            width += cand_ok
            gj = gr / r_max if graded else 1.0
            cand[m] = it
            ckey[m] = keys[it]
            cg[m] = gj
            for s in range(t_max):
                a = atab[it, s]
                casp[m, s] = a
                new = rel & (seen[a] != r) & (a < n_asp)
                n_rel += new
                seen[a] = r if new else seen[a]
            m += cand_ok & (gj > 0)
        widths[r] = width
        n_rel_asp[r] = n_rel
        steps = min(length, m)
        for t in range(steps):
            best = -np.inf
            for c in range(m):
                acc = pw[casp[c, 0]]
                for s in range(1, t_max):
                    acc += pw[casp[c, s]]
                gv = cg[c] * acc
                gain[c] = gv
                best = gv if gv > best else best
            pick = pick_in_band(gain, ckey, m, best)
            out_i[r, t] = cand[pick]
            out_g[r, t] = best
            f = base ** cg[pick] if graded else base
            for s in range(t_max):
                pw[casp[pick, s]] *= f
            pw[n_asp] = 0.0
            m -= 1
            cand[pick] = cand[m]
            ckey[pick] = ckey[m]
            cg[pick] = cg[m]
            for s in range(t_max):
                casp[pick, s] = casp[m, s]
        for t in range(steps):
            it = out_i[r, t]
            for s in range(t_max):
                pw[atab[it, s]] = 1.0
        pw[n_asp] = 0.0


@per_user_kernel(min_work=PARALLEL_USERS, error_model="numpy")
def ideal_blocks(bounds, users, q_indptr, q_indices, q_data, threshold, graded, r_max, atab, n_asp, keys, alpha,
                    max_j, out_i, out_g, widths, n_rel_asp):  # pragma: no cover - compiled
    for b in numba.prange(len(bounds) - 1):
        _ideal_block(bounds[b], bounds[b + 1], users, q_indptr, q_indices, q_data, threshold, graded, r_max, atab,
                     n_asp, keys, alpha, max_j, out_i, out_g, widths, n_rel_asp)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def relevant_aspect_kernel(users, q_indptr, q_indices, q_data, threshold, judged, atab,
                           n_asp):  # pragma: no cover - compiled
    """(n, A) bool: aspects of the user's relevant (or, when `judged`, all judged: grade ≥ 0) items."""
    out = np.zeros((len(users), n_asp + 1), dtype=np.bool_)
    for r in range(len(users)):
        u = users[r]
        for j in range(q_indptr[u], q_indptr[u + 1]):
            if (judged and q_data[j] >= 0.0) or q_data[j] >= threshold:
                it = q_indices[j]
                for s in range(atab.shape[1]):
                    out[r, atab[it, s]] = True
    return out[:, :n_asp]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def relevant_aspect_counts(users, q_indptr, q_indices, q_data, threshold, atab, n_asp):  # pragma: no cover
    """|A_u^rel| per user: the number of distinct aspects of the user's relevant items."""
    out = np.zeros(len(users), dtype=np.int64)
    seen = np.full(n_asp + 1, -1, dtype=np.int64)
    for r in range(len(users)):
        u = users[r]
        c = 0
        for j in range(q_indptr[u], q_indptr[u + 1]):
            rel = q_data[j] >= threshold
            it = q_indices[j]
            for s in range(atab.shape[1]):
                a = atab[it, s]
                new = rel & (seen[a] != r) & (a < n_asp)
                c += new
                seen[a] = r if new else seen[a]
        out[r] = c
    return out
