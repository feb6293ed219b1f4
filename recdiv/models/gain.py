"""Gains of judged grades, the G(i) of DCG-like measures (METRICS.md §A.4, §A.11), written once.

| gain | G(g) |
|---|---|
| ``rating`` | g (trec_eval's ndcg: the grade itself), 0 for g ≤ 0 |
| ``binary`` | 1 if g ≥ τ else 0 |
| ``exp`` | 2^g − 1 if g ≥ τ else 0 (Burges et al. 2005) |
| ``ranksys`` | 2^(g−τ+1) − 1 if g ≥ τ else 0 (RankSys NDCG) |
| ``halflife`` | max(g − d, 0) (Breese's half-life utility, d = the neutral grade) |

`gain_values` works on arrays of judged grades (NumPy, so that the accuracy measures need no compiled kernel);
every gain is non-decreasing in the grade, so sorting grades sorts gains (the ideal lists rely on it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["GAINS", "gain_values"]

#: the gains a DCG-like measure's `gain=` parameter takes
GAINS = ("rating", "binary", "exp", "ranksys")


def gain_values(gain: str, g: np.ndarray, tau: float, d: float = 0.0) -> np.ndarray:
    """G(g) of judged grades `g` (METRICS.md §A.4 table): rating, binary, exp, ranksys; and the half-life gain
    max(g − d, 0) (`halflife`)."""
    if gain == "rating":
        return np.where(g > 0, g, 0.0)
    if gain == "halflife":
        return np.where(g > d, g - d, 0.0)
    if gain == "binary":
        value = np.ones_like(g)
    elif gain == "exp":
        value = 2.0**g - 1.0
    elif gain == "ranksys":
        value = 2.0 ** (g - tau + 1.0) - 1.0
    else:
        raise ValueError(f"unknown gain {gain!r}")
    return np.where(g < tau, 0.0, value)
