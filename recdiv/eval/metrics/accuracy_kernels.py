"""numba kernels of the accuracy metrics (`recdiv.eval.metrics.accuracy`): one pass per user over the run's
relevance flags or grades, and the ideal sums over each user's judgments. Summation follows trec_eval's order."""

from __future__ import annotations

import numba
import numpy as np

from recdiv.models.gain import gain


@numba.njit(cache=True, nogil=True)
def _prefix_stats(rel, w):  # pragma: no cover - compiled
    """Per row over the first w positions: hits, Σ rel_k·hits_k/k (AP numerator, trec_eval's order), first hit."""
    n = rel.shape[0]
    hits = np.zeros(n)
    ap = np.zeros(n)
    first = np.full(n, np.inf)
    for r in range(n):
        h = 0
        s = 0.0
        for c in range(w):
            if rel[r, c]:
                h += 1
                s += h / (c + 1.0)
                if h == 1:
                    first[r] = c + 1.0
        hits[r] = h
        ap[r] = s
    return hits, ap, first


@numba.njit(cache=True, nogil=True)
def _distinct(values, most):  # pragma: no cover - compiled
    """Sorted distinct values if there are at most `most` of them, else an empty array.

    Branch-free linear membership test: with a handful of grade levels it is ~6× faster than a binary search."""
    levels = np.empty(most)
    n = 0
    for v in values:
        c = 0
        for j in range(n):
            c += levels[j] == v
        if c == 0:
            if n == most:
                return np.empty(0)
            levels[n] = v
            n += 1
    return np.sort(levels[:n])


@numba.njit(cache=True, nogil=True)
def _ideal_sums(indptr, data, users, factor, divide, limit, levels, code, tau, d):  # pragma: no cover - compiled
    """Σ_{j < min(limit, M_u)} G*_j / factor[j] (or G*_j · factor[j] when not `divide`) over each user's positive
    gains G* sorted descending.

    Every gain is non-decreasing in the grade, so sorting grades sorts gains. With few distinct grades
    (`levels`, sorted ascending) a per-user count per level replaces the sort: O(nnz + K) per user.
    """
    out = np.zeros(len(users))
    n_levels = len(levels)
    counts = np.zeros(max(n_levels, 1), dtype=np.int64)
    for r in range(len(users)):
        lo, hi = indptr[users[r]], indptr[users[r] + 1]
        s = 0.0
        if n_levels:
            counts[:] = 0
            for j in range(lo, hi):
                v = data[j]
                a = 0
                for lev in range(n_levels):  # branch-free: index of v among the sorted levels
                    a += levels[lev] < v
                counts[a] += 1
            pos = 0
            for lev in range(n_levels - 1, -1, -1):
                g = gain(code, levels[lev], tau, d)
                if g <= 0 or pos >= limit:
                    break
                for _ in range(min(counts[lev], limit - pos)):
                    s += g / factor[pos] if divide else g * factor[pos]
                    pos += 1
        else:
            grades = -np.sort(-data[lo:hi])
            for j in range(min(limit, hi - lo)):
                g = gain(code, grades[j], tau, d)
                if g <= 0:
                    break
                s += g / factor[j] if divide else g * factor[j]
        out[r] = s
    return out


@numba.njit(cache=True, nogil=True)
def _dcg_sums(grades, w, factor, divide, code, tau, d):  # pragma: no cover - compiled
    """Σ_{k < w} G(grade_k) / factor[k] (or G · factor[k] when not `divide`) per row, in rank order (trec_eval's
    summation order); NaN = unjudged."""
    out = np.zeros(grades.shape[0])
    for r in range(grades.shape[0]):
        s = 0.0
        for c in range(w):
            g = grades[r, c]
            if g == g:
                x = gain(code, g, tau, d)
                s += x / factor[c] if divide else x * factor[c]
        out[r] = s
    return out
