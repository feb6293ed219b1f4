"""numba kernels of `recdiv.data.rankings.top_k`: a partial selection (quickselect) per row and a sort of the
k best by (score, tie-break rank)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _kth_smallest(a, kk):  # pragma: no cover - compiled
    """Value of rank kk (0-based, ascending) of a (no NaN); partially reorders a in place (quickselect)."""
    lo, hi = 0, len(a) - 1
    while hi - lo > 16:
        mid = (lo + hi) // 2
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        pivot = a[mid]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if kk <= j:
            hi = j
        elif kk >= i:
            lo = i
        else:
            return a[kk]
    for i in range(lo + 1, hi + 1):  # insertion sort of the small rest
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x
    return a[kk]


@numba.njit(cache=True)
def _pair_less(key, pay, a, b):  # pragma: no cover - compiled
    return key[a] < key[b] or (key[a] == key[b] and pay[a] < pay[b])


@numba.njit(cache=True)
def _sort_pairs(key, pay, n, stack):  # pragma: no cover - compiled
    """Sort key[:n], pay[:n] together by (key, pay) ascending (pay values are distinct); quicksort + insertion."""
    top = 0
    stack[0], stack[1] = 0, n - 1
    top = 2
    while top > 0:
        top -= 2
        lo, hi = stack[top], stack[top + 1]
        while hi - lo > 16:
            mid = (lo + hi) // 2
            if _pair_less(key, pay, mid, lo):
                key[mid], key[lo] = key[lo], key[mid]
                pay[mid], pay[lo] = pay[lo], pay[mid]
            if _pair_less(key, pay, hi, lo):
                key[hi], key[lo] = key[lo], key[hi]
                pay[hi], pay[lo] = pay[lo], pay[hi]
            if _pair_less(key, pay, hi, mid):
                key[hi], key[mid] = key[mid], key[hi]
                pay[hi], pay[mid] = pay[mid], pay[hi]
            pk, pp = key[mid], pay[mid]
            i, j = lo, hi
            while i <= j:
                while key[i] < pk or (key[i] == pk and pay[i] < pp):
                    i += 1
                while key[j] > pk or (key[j] == pk and pay[j] > pp):
                    j -= 1
                if i <= j:
                    key[i], key[j] = key[j], key[i]
                    pay[i], pay[j] = pay[j], pay[i]
                    i += 1
                    j -= 1
            if j - lo < hi - i:  # push the larger part, continue with the smaller
                stack[top], stack[top + 1] = i, hi
                top += 2
                hi = j
            else:
                stack[top], stack[top + 1] = lo, j
                top += 2
                lo = i
        for i in range(lo + 1, hi + 1):
            k, p = key[i], pay[i]
            j = i - 1
            while j >= lo and (key[j] > k or (key[j] == k and pay[j] > p)):
                key[j + 1] = key[j]
                pay[j + 1] = pay[j]
                j -= 1
            key[j + 1] = k
            pay[j + 1] = p


@numba.njit(parallel=True, cache=True)
def _top_k_kernel(scores, k, perm, rank, out_i, out_s):  # pragma: no cover - compiled
    """perm: columns in decreasing tiebreak order; rank = its inverse (rank[j] = 0: column j wins all ties)."""
    n, m = scores.shape
    n_chunks = min(n, 256)
    n_sample = min(m, 256)
    for ch in numba.prange(n_chunks):
        buf = np.empty(m)  # scratch, once per chunk of rows
        small = np.empty(m)
        sample = np.empty(n_sample)
        key = np.empty(m)
        pay = np.empty(m, np.int64)
        stack = np.empty(256, np.int64)
        for r in range(ch * n // n_chunks, (ch + 1) * n // n_chunks):
            row = scores[r]
            for j in range(m):
                v = row[j]
                buf[j] = -np.inf if np.isnan(v) else v
            # k-th largest value (NaN counted as -inf): filter by a threshold t0 from a strided sample (rank chosen so
            # that usually ~1.5 k values are >= t0), then select exactly among those; the k-th largest of the values
            # >= t0 is the k-th largest of the row whenever at least k values are >= t0, else select on the full row
            kth = -np.inf
            found = False
            if m > 4 * n_sample and k < m // 2:
                for e in range(n_sample):
                    sample[e] = buf[(e * m) // n_sample]
                above = min(n_sample - 1, (3 * k * n_sample) // (2 * m) + 8)
                t0 = _kth_smallest(sample, n_sample - 1 - above)
                c = 0
                for j in range(m):
                    v = buf[j]
                    small[c] = v
                    c += v >= t0
                if c >= k:
                    kth = _kth_smallest(small[:c], c - k)
                    found = True
            if not found:
                kth = _kth_smallest(buf, m - k)
            cnt = 0
            for j in range(m):
                v = row[j]
                if v >= kth and np.isfinite(v):
                    key[cnt] = -v
                    pay[cnt] = rank[j]
                    cnt += 1
            if cnt > 1:
                _sort_pairs(key, pay, cnt, stack)  # score descending, then tiebreak descending
            for p in range(min(cnt, k)):
                out_i[r, p] = perm[pay[p]]
                out_s[r, p] = -key[p]
