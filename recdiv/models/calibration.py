"""Steck's calibration divergence (RecSys 2018; METRICS.md §E.8) of the `Miscalibration` measure; the `Calibrated`
reranker minimises the same divergence, updated incrementally per greedy step."""

from __future__ import annotations

import numpy as np


def miscalibration(p: np.ndarray, q: np.ndarray, alpha: float = 0.01) -> np.ndarray:
    """C_KL(p, q̃) = Σ_{g: p_g > 0} p_g ln(p_g / q̃_g), q̃ = (1 − α) q + α p, row-wise for (n, G) distributions.

    α > 0 keeps q̃ positive wherever p is (Steck's smoothing, α = 0.01 in the paper); natural log.
    """
    qt = (1.0 - alpha) * q + alpha * p
    pos = p > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pos, p * np.log(np.where(pos, p, 1.0) / np.where(pos, qt, 1.0)), 0.0)
    return terms.sum(axis=1)
