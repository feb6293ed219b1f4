"""Concentration of a distribution over items (METRICS.md §B.9), written once: the Gini coefficient and Shannon
entropy of non-negative amounts (exposure counts of a run, popularity of a dataset's items), and the
Jensen–Shannon divergence between distributions (AWRF's distance of group exposure from its target).

They are functions of arrays only, below the data layer, so that dataset statistics and the exposure metrics
use the same formulas.
"""

from __future__ import annotations

import numpy as np

__all__ = ["entropy", "gini", "jensen_shannon"]


def gini(values: np.ndarray) -> float:
    """G = (1 / (n − 1)) Σ_j (2j − n − 1) p_(j) over the ascending shares p = values / Σ values of all n entries
    (zeros included): 0 = uniform, 1 = everything on one entry; 0 when n < 2 or Σ = 0."""
    c = np.sort(np.asarray(values, dtype=np.float64))
    n, total = len(c), c.sum()
    if n < 2 or total <= 0:
        return 0.0
    j = np.arange(1, n + 1)
    return float(((2 * j - n - 1) * (c / total)).sum() / (n - 1))


def entropy(values: np.ndarray) -> float:
    """Shannon entropy −Σ_{i: p_i>0} p_i log2 p_i of the shares p = values / Σ values; 0 when Σ = 0."""
    c = np.asarray(values, dtype=np.float64)
    total = c.sum()
    if total <= 0:
        return 0.0
    p = c[c > 0] / total
    return float(-(p * np.log2(p)).sum())


def jensen_shannon(p: np.ndarray, q: np.ndarray, base: float = 2.0) -> np.ndarray:
    """JS(p ‖ q) = ½ KL(p ‖ m) + ½ KL(q ‖ m), m = (p + q)/2, of distributions along the last axis (0·log 0 = 0),
    in logarithm base `base` (2: between 0 and 1; e: between 0 and ln 2). SciPy's `jensenshannon` returns its
    square root."""
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    m = 0.5 * (p + q)
    with np.errstate(invalid="ignore", divide="ignore"):
        kp = np.where(p > 0, p * np.log(p / m), 0.0).sum(axis=-1)
        kq = np.where(q > 0, q * np.log(q / m), 0.0).sum(axis=-1)
    return np.maximum(0.5 * (kp + kq), 0.0) / np.log(base)
