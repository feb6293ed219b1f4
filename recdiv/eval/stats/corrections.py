"""Multiple-comparison corrections of a family of m p-values (METRICS.md §F.2).

With p sorted ascending, p_(1) ≤ … ≤ p_(m):

- Bonferroni: p̃ = min(1, m·p).
- Holm (step-down; Holm 1979, "Holm–Bonferroni" in Diaz et al.): p̃_(j) = max_{l≤j} min(1, (m − l + 1)·p_(l)).
- Benjamini–Hochberg (1995, false discovery rate): p̃_(j) = min_{l≥j} min(1, m·p_(l)/l)
  (= `scipy.stats.false_discovery_control(p)`).

Adjusted p-values are returned in the input order.
"""

from __future__ import annotations

import numpy as np

from recdiv.errors import ConfigError
from recdiv.registry import Registry

#: the corrections by name (spelling rule of `recdiv.registry`; aliases)
CORRECTION_NAMES: Registry[str] = Registry("correction")
for _name, _aliases in [("none", ()), ("bonferroni", ()), ("holm", ("holm-bonferroni",)),
                        ("bh", ("fdr", "benjamini-hochberg", "fdr_bh"))]:
    CORRECTION_NAMES.add(_name, _name, aliases=_aliases)
CORRECTIONS = tuple(CORRECTION_NAMES.names())


def canonical_correction(name: str | None) -> str:
    """Canonical correction name (`none`, `bonferroni`, `holm`, `bh`) of a name or alias."""
    return CORRECTION_NAMES.canonical("none" if name is None else name)


def _check(p) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ConfigError("corrections take a 1-d array of p-values")
    if ((p < 0) | (p > 1) | ~np.isfinite(p)).any():
        raise ConfigError("p-values must lie in [0, 1]")
    return p


def bonferroni(p) -> np.ndarray:
    """Bonferroni: min(1, m·p)."""
    p = _check(p)
    return np.minimum(1.0, len(p) * p)


def holm(p) -> np.ndarray:
    """Holm's step-down adjustment: p̃_(j) = max_{l≤j} min(1, (m − l + 1)·p_(l))."""
    p = _check(p)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini–Hochberg step-up adjustment: p̃_(j) = min_{l≥j} min(1, m·p_(l)/l)."""
    p = _check(p)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, m * p[order] / np.arange(1, m + 1))
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = adj
    return out


def adjust(p, method: str | None = "holm") -> np.ndarray:
    """Adjusted p-values by the named correction (`none`, `bonferroni`, `holm`, `bh`)."""
    c = canonical_correction(method)
    if c == "none":
        return _check(p).copy()
    return {"bonferroni": bonferroni, "holm": holm, "bh": benjamini_hochberg}[c](p)
