"""Gains of judged grades, the G(i) of DCG-like measures (METRICS.md §A.4, §A.11), written once.

| gain | code | G(g) |
|---|---|---|
| ``rating`` | 0 | g (trec_eval's ndcg: the grade itself), 0 for g ≤ 0 |
| ``binary`` | 1 | 1 if g ≥ τ else 0 |
| ``exp`` | 2 | 2^g − 1 if g ≥ τ else 0 (Burges et al. 2005) |
| ``ranksys`` | 3 | 2^(g−τ+1) − 1 if g ≥ τ else 0 (RankSys NDCG) |
| ``halflife`` | 4 | max(g − d, 0) (Breese's half-life utility, d = the neutral grade) |

`gain` is compiled (numba) so that the metric kernels call it per judged item; every gain is non-decreasing in
the grade, so sorting grades sorts gains (the ideal lists rely on it).
"""

from __future__ import annotations

import numba

__all__ = ["GAINS", "GAIN_CODE", "gain"]

#: the gains a DCG-like measure's `gain=` parameter takes
GAINS = ("rating", "binary", "exp", "ranksys")
GAIN_CODE = {"rating": 0, "binary": 1, "exp": 2, "ranksys": 3, "halflife": 4}


@numba.njit(cache=True, nogil=True)
def gain(code, g, tau, d):  # pragma: no cover - compiled
    """Gain of a judged grade (METRICS.md §A.4 table): rating (0), binary (1), exp (2), ranksys (3); and the
    half-life gain max(g − d, 0) (4)."""
    if code == 0:
        return g if g > 0 else 0.0
    if code == 4:
        return g - d if g > d else 0.0
    if g < tau:
        return 0.0
    if code == 1:
        return 1.0
    if code == 2:
        return 2.0**g - 1.0
    return 2.0 ** (g - tau + 1.0) - 1.0
