"""Numba kernels of αβ-nDCG (Parapar & Radlinski 2021 eq. 4–16; METRICS.md §C.11, ties §0.6).

One pass per user over the user's judgments (qrels CSR row) and the padded aspect table `atab` (items + 1, T)
of `recdiv.eval.metrics.intents_kernels.aspect_table` (aspects ascending, sentinel A = n_aspects, last row = padding):

- `run_gains`: the gains G[k] of the run, P(a|u,i) looked up in the qrels row on the fly;
- `list_gains`: the same gains for given (items, P) arrays (e.g. an ideal list);
- `greedy_ab_ideal`: the greedy ideal lists over the judged test items having aspects;
- `discounted_sums`: DCG = Σ_k G[k]/log2(1+k) of gain rows.

The redundancy state of a user is S[a] = γ_a Π_{placed j, a∈A(j)} (1 − P_j), updated multiplicatively, and
G = 1 − Π_{a∈A(i)} (1 − P_i·S[a]) multiplied in ascending aspect order, sentinel slots contributing the exact
factor 1 (S[A] = 0). This is the arithmetic of the vectorised greedy ideal
(`recdiv.eval.metrics.greedy_ideal.ab_ideal`), so the ideal lists and gains are bit-identical to it, ties within the
relative 1e-10 band going to the largest key (§0.6); the run gains use the same products, so a run equal to
the ideal list gets exactly the ideal gains. From `PARALLEL_USERS` evaluated users on, the kernels run over
blocks of users in parallel (`recdiv.jit.per_user_kernel`; every user's arithmetic is the same as in the serial kernel).
"""

from __future__ import annotations

import numba
import numpy as np

from recdiv.eval.metrics.intents_kernels import PARALLEL_USERS, pick_in_band
from recdiv.jit import per_user_kernel


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _judged_probability(grade, beta, r_max, threshold, nonrel_to_zero):  # pragma: no cover - compiled
    """P(a|u,i) = β·r/r_max of a judged item (eq. 6); r < τ counts as 0 with `nonrel_to_zero`; NaN for a negative
    label (pooled but unjudged: the caller's unjudged case)."""
    if grade < 0.0:
        return np.nan
    r = grade if (grade >= threshold or not nonrel_to_zero) else 0.0
    return beta * r / r_max


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _reset_state(s, gamma, r, n_asp):  # pragma: no cover - compiled
    for a in range(n_asp):
        s[a] = gamma[r, a]
    s[n_asp] = 0.0


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _place(s, atab, it, p, n_asp, t_max):  # pragma: no cover - compiled
    """S[a] *= 1 − P for a ∈ A(it); the sentinel stays 0."""
    f = 1.0 - p
    for q in range(t_max):
        s[atab[it, q]] *= f
    s[n_asp] = 0.0


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _gain(s, atab, it, p, t_max):  # pragma: no cover - compiled
    """G = 1 − Π_{a∈A(it)} (1 − P·S[a]) (sentinel slots multiply by exactly 1)."""
    acc = 1.0 - p * s[atab[it, 0]]
    for q in range(1, t_max):
        acc *= 1.0 - p * s[atab[it, q]]
    return 1.0 - acc


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _run_block(lo_r, hi_r, run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, gamma, alpha, beta,
               r_max, threshold, nonrel_to_zero, out):  # pragma: no cover - compiled
    """Rows lo_r:hi_r of `run_gains` (own scratch arrays, so that blocks can run in parallel)."""
    n_items = atab.shape[0] - 1
    t_max = atab.shape[1]
    table = np.full(n_items, np.nan)  # P of the user's judged items, NaN = unjudged
    s = np.zeros(n_asp + 1)
    width = min(out.shape[1], run_items.shape[1])
    for r in range(lo_r, hi_r):
        row = src[r]
        if row < 0:
            continue
        u = users[r]
        lo, hi = q_indptr[u], q_indptr[u + 1]
        for j in range(lo, hi):
            table[q_indices[j]] = _judged_probability(q_data[j], beta, r_max, threshold, nonrel_to_zero)
        _reset_state(s, gamma, r, n_asp)
        for k in range(width):
            it = run_items[row, k]
            if it < 0:
                continue
            p = table[it]
            p = alpha if np.isnan(p) else p
            out[r, k] = _gain(s, atab, it, p, t_max)
            _place(s, atab, it, p, n_asp, t_max)
        for j in range(lo, hi):
            table[q_indices[j]] = np.nan


@per_user_kernel(min_work=PARALLEL_USERS, error_model="numpy")
def _run_blocks(bounds, run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, gamma, alpha, beta, r_max,
                  threshold, nonrel_to_zero, out):  # pragma: no cover - compiled
    for b in numba.prange(len(bounds) - 1):
        _run_block(bounds[b], bounds[b + 1], run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, gamma,
                   alpha, beta, r_max, threshold, nonrel_to_zero, out)


def run_gains(run_items, src, k_cut, users, q_indptr, q_indices, q_data, atab, n_asp, gamma, alpha, beta, r_max,
              threshold, nonrel_to_zero, parallel=None) -> np.ndarray:
    """(n, K) αβ gains G[k] of the run rows `src` (−1: no list) of the evaluated `users` (eq. 13).

    P(a|u,i) on a ∈ A(i): β·r(u,i)/r_max for items judged in the user's qrels row (r < τ → 0 with
    `nonrel_to_zero`), α for unjudged ones; γ (n, A) rows aligned with `users`. Padding (−1) gets 0.
    """
    out = np.zeros((len(users), k_cut))
    gamma = np.ascontiguousarray(gamma, dtype=np.float64)
    args = (run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, gamma, float(alpha), float(beta),
            float(r_max), float(threshold), bool(nonrel_to_zero), out)
    _run_blocks(len(users), *args, parallel=parallel)
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def list_gains(items, probs, atab, n_asp, gamma):  # pragma: no cover - compiled
    """(n, L) αβ gains of given item lists (−1 padded) with P(a|u,i_k) = probs[u, k] and γ (n, A)."""
    n, length = items.shape
    t_max = atab.shape[1]
    out = np.zeros((n, length))
    s = np.zeros(n_asp + 1)
    for r in range(n):
        _reset_state(s, gamma, r, n_asp)
        for k in range(length):
            it = items[r, k]
            if it < 0:
                continue
            p = probs[r, k]
            out[r, k] = _gain(s, atab, it, p, t_max)
            _place(s, atab, it, p, n_asp, t_max)
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def discounted_sums(gains, disc):  # pragma: no cover - compiled
    """Σ_k gains[u, k]·disc[k] per row, summed in rank order (a plain loop: the BLAS matrix–vector product
    would wake OpenBLAS's worker threads, whose spin-waiting doubled the CPU time of the measure)."""
    n, length = gains.shape
    out = np.zeros(n)
    for r in range(n):
        acc = 0.0
        for k in range(length):
            acc += gains[r, k] * disc[k]
        out[r] = acc
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def candidate_widths(users, q_indptr, q_indices, atab, n_asp):  # pragma: no cover - compiled
    """Number of judged items having aspects per user (the width of the former padded candidate table)."""
    out = np.zeros(len(users), dtype=np.int64)
    for r in range(len(users)):
        u = users[r]
        c = 0
        for j in range(q_indptr[u], q_indptr[u + 1]):
            c += atab[q_indices[j], 0] < n_asp
        out[r] = c
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _ideal_block(lo_r, hi_r, users, q_indptr, q_indices, q_data, atab, n_asp, gamma, keys, beta, r_max, threshold,
                 nonrel_to_zero, max_j, out_i, out_g):  # pragma: no cover - compiled
    """Rows lo_r:hi_r of `greedy_ab_ideal` (own scratch arrays, so that blocks can run in parallel)."""
    length = out_i.shape[1]
    t_max = atab.shape[1]
    s = np.zeros(n_asp + 1)
    cand = np.empty(max_j + 1, dtype=np.int64)
    ckey = np.empty(max_j + 1, dtype=np.int64)
    cp = np.empty(max_j + 1)
    gain = np.empty(max_j + 1)
    casp = np.empty((max_j + 1, t_max), dtype=np.int64)
    changed = np.zeros(n_asp + 1, dtype=np.bool_)  # aspects of the last pick (the sentinel never)
    pasp = np.empty(t_max, dtype=np.int64)
    for r in range(lo_r, hi_r):
        u = users[r]
        m = 0
        for j in range(q_indptr[u], q_indptr[u + 1]):  # branch-free gather: write at m, keep it if a candidate
            it = q_indices[j]
            p = _judged_probability(q_data[j], beta, r_max, threshold, nonrel_to_zero)
            cand[m] = it
            ckey[m] = keys[it]
            cp[m] = p
            for q in range(t_max):
                casp[m, q] = atab[it, q]
            m += (atab[it, 0] < n_asp) & (p > 0)
        _reset_state(s, gamma, r, n_asp)
        steps = min(length, m)
        for c in range(m):
            gain[c] = _gain(s, casp, c, cp[c], t_max)
        for t in range(steps):
            best = -np.inf
            for c in range(m):
                gv = gain[c]
                best = gv if gv > best else best
            pick = pick_in_band(gain, ckey, m, best)
            out_i[r, t] = cand[pick]
            out_g[r, t] = best
            _place(s, casp, pick, cp[pick], n_asp, t_max)
            for q in range(t_max):
                pasp[q] = casp[pick, q]
                changed[pasp[q]] = True
            changed[n_asp] = False
            m -= 1
            cand[pick] = cand[m]
            ckey[pick] = ckey[m]
            cp[pick] = cp[m]
            gain[pick] = gain[m]
            for q in range(t_max):
                casp[pick, q] = casp[m, q]
            if t + 1 < steps:  # only candidates sharing an aspect with the pick change gain (same products)
                for c in range(m):
                    hit = changed[casp[c, 0]]
                    for q in range(1, t_max):
                        hit |= changed[casp[c, q]]
                    if hit:
                        gain[c] = _gain(s, casp, c, cp[c], t_max)
            for q in range(t_max):
                changed[pasp[q]] = False


@per_user_kernel(min_work=PARALLEL_USERS, error_model="numpy")
def _ideal_blocks(bounds, users, q_indptr, q_indices, q_data, atab, n_asp, gamma, keys, beta, r_max, threshold,
                    nonrel_to_zero, max_j, out_i, out_g):  # pragma: no cover - compiled
    for b in numba.prange(len(bounds) - 1):
        _ideal_block(bounds[b], bounds[b + 1], users, q_indptr, q_indices, q_data, atab, n_asp, gamma, keys, beta,
                     r_max, threshold, nonrel_to_zero, max_j, out_i, out_g)


def greedy_ab_ideal(users, q_indptr, q_indices, q_data, atab, n_asp, gamma, keys, beta, r_max, threshold,
                    nonrel_to_zero, length, parallel=None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy αβ ideal lists (eq. 16) of `length` steps: (items (n, length) −1 padded, gains (n, length)).

    Candidates: the user's judged items having aspects with P = β·r/r_max > 0. At each step the candidate
    with the largest G = 1 − Π_{a∈A(j)} (1 − P_j·S[a]) wins; candidates within a relative 1e-10 of the best
    tie and the largest `keys[item]` among them wins (§0.6); the recorded gain is the best one. Placed
    candidates are swap-removed (the winner does not depend on candidate order, since keys are distinct).
    """
    out_i = np.full((len(users), length), -1, dtype=np.int64)
    out_g = np.zeros((len(users), length))
    max_j = int((q_indptr[users + 1] - q_indptr[users]).max()) if len(users) else 0
    gamma = np.ascontiguousarray(gamma, dtype=np.float64)
    args = (users, q_indptr, q_indices, q_data, atab, n_asp, gamma, keys, float(beta), float(r_max), float(threshold),
            bool(nonrel_to_zero), max_j, out_i, out_g)
    _ideal_blocks(len(users), *args, parallel=parallel)
    return out_i, out_g
