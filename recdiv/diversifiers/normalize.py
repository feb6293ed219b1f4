"""Score normalisations `norm=` of METRICS.md §E.0, row-wise over each user's candidate list.

| norm | ŝ(i) |
|---|---|
| minmax | (s(i) − min_C s)/(max_C s − min_C s); 1 for all if max = min |
| max | s(i)/max_C s (needs s ≥ 0) |
| sum | s(i)/Σ_C s (needs s ≥ 0) |
| rank | 1 − (pos_C(i) − 1)/N (top = 1, last = 1/N) |
| zscore | (x − mean)/sd, sample sd (ddof = 1), over a mask (the *remaining* candidates at each step, RankSys
  `LambdaReranker`); NaN values are left out of mean and sd and stay NaN (RankSys's `Stats` ignores NaN);
  sd = 0 or fewer than 2 values ⇒ NaN |
| none | s(i) |

All functions take (n, N) arrays and a (n, N) boolean mask of the positions that count; other positions are NaN.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Norm = Literal["minmax", "max", "sum", "rank", "zscore", "none"]
NORMS: tuple[str, ...] = ("minmax", "max", "sum", "rank", "zscore", "none")


def minmax(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    lo = np.min(np.where(mask, s, np.inf), axis=1, keepdims=True)
    hi = np.max(np.where(mask, s, -np.inf), axis=1, keepdims=True)
    span = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(span > 0, (s - lo) / np.where(span > 0, span, 1.0), 1.0)
    return np.where(mask, out, np.nan)


def _check_nonneg(s: np.ndarray, mask: np.ndarray, how: str) -> None:
    if (np.where(mask, s, 0.0) < 0).any():
        raise ValueError(f"norm={how} needs non-negative scores")


def max_norm(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    _check_nonneg(s, mask, "max")
    hi = np.max(np.where(mask, s, -np.inf), axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mask, s / hi, np.nan)


def sum_norm(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    _check_nonneg(s, mask, "sum")
    tot = np.sum(np.where(mask, s, 0.0), axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mask, s / tot, np.nan)


def rank_norm(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """1 − (pos − 1)/N by candidate position (the list is already in baseline order)."""
    n_c = mask.sum(axis=1, keepdims=True)
    pos = np.arange(s.shape[1])[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mask, 1.0 - pos / n_c, np.nan)


def zscore(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(x − mean)/sd over the masked non-NaN entries of every row (sample sd); NaN when sd = 0 or < 2 values."""
    nan = np.isnan(x)
    if nan.any():
        mask = mask & ~nan
    cnt = mask.sum(axis=1, keepdims=True)
    xm = np.where(mask, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = xm.sum(axis=1, keepdims=True) / cnt
        dev = np.where(mask, x - mean, 0.0)
        var = (dev * dev).sum(axis=1, keepdims=True) / (cnt - 1)
        sd = np.sqrt(var)
        bad = ~(sd > 0) | (cnt < 2)
        return np.where(mask & ~bad, dev / np.where(bad, 1.0, sd), np.nan)


def probability(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """P(i) = s⁺(i) / Σ_C s⁺(j) over the masked candidates of every row, uniform when that sum is 0: the score
    normalisation of xQuAD's P(i|u), the same as its aspect probabilities P(i|u,a) (Santos et al. 2010)."""
    sp = nonnegative(s, mask)
    tot = np.sum(np.where(mask, sp, 0.0), axis=1, keepdims=True)
    cnt = mask.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(tot > 0, sp / np.where(tot > 0, tot, 1.0), 1.0 / np.maximum(cnt, 1))
    return np.where(mask, out, np.nan)


def normalize(s: np.ndarray, mask: np.ndarray, how: str) -> np.ndarray:
    """ŝ = norm(s) over the masked candidates of every row (METRICS.md §E.0)."""
    if how == "minmax":
        return minmax(s, mask)
    if how == "max":
        return max_norm(s, mask)
    if how == "sum":
        return sum_norm(s, mask)
    if how == "rank":
        return rank_norm(s, mask)
    if how == "zscore":
        return zscore(s, mask)
    if how == "none":
        return np.where(mask, s, np.nan)
    raise ValueError(f"unknown norm {how!r} ({', '.join(NORMS)})")


def nonnegative(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """s⁺(i) = s(i) − min(0, min_C s): non-negative scores for aspect probabilities (METRICS.md §E.0)."""
    lo = np.min(np.where(mask, s, np.inf), axis=1, keepdims=True)
    return np.where(mask, s - np.minimum(0.0, lo), np.nan)
