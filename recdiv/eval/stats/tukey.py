"""Tukey's HSD for many systems with users as blocks (Carterette, TOIS 2012; METRICS.md §F.3).

Two-way ANOVA without interaction on the S × n matrix of per-user values, y_su = μ + α_s + β_u + ε:
residual e_su = y_su − ȳ_s· − ȳ_·u + ȳ_··, MSE = Σ e² / ((S − 1)(n − 1)). For each pair of systems
q = |ȳ_s· − ȳ_s'·| / √(MSE/n) and p = P(Q ≥ q) under the studentised range distribution with S groups and
(S − 1)(n − 1) degrees of freedom (`scipy.stats.studentized_range.sf`). Unlike `scipy.stats.tukey_hsd`
(one-way, no blocking), the user effect is removed before estimating the error variance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from recdiv.errors import ConfigError


@dataclass(frozen=True)
class TukeyHSD:
    """Result of `tukey_hsd`: system means, MSE and df of the blocked ANOVA, and one row per pair (i < j)."""

    names: list[str]
    means: np.ndarray
    mse: float
    df: int
    pairs: list[tuple[int, int]]
    q: np.ndarray
    p_values: np.ndarray

    def p_matrix(self) -> np.ndarray:
        """Symmetric S × S matrix of p-values (1 on the diagonal)."""
        S = len(self.names)
        out = np.ones((S, S))
        for (i, j), p in zip(self.pairs, self.p_values):
            out[i, j] = out[j, i] = p
        return out

    def to_dict(self) -> dict:
        return {
            "mse": self.mse, "df": self.df,
            "means": dict(zip(self.names, map(float, self.means))),
            "pairs": [{"a": self.names[i], "b": self.names[j], "q": float(q), "p_value": float(p)}
                      for (i, j), q, p in zip(self.pairs, self.q, self.p_values)],
        }


def tukey_hsd(values, names: list[str] | None = None) -> TukeyHSD:
    """Tukey HSD with user blocking on `values` (S systems × n users, or a dict name → per-user array)."""
    if isinstance(values, dict):
        names = list(values) if names is None else names
        values = [values[k] for k in names]
    Y = np.asarray(values, dtype=np.float64)
    if Y.ndim != 2:
        raise ConfigError("tukey_hsd needs an S × n matrix of per-user values")
    S, n = Y.shape
    if S < 2 or n < 2:
        raise ConfigError(f"tukey_hsd needs at least 2 systems and 2 users, got {S} and {n}")
    if not np.isfinite(Y).all():
        raise ConfigError("per-user values must be finite")
    names = [f"S{s + 1}" for s in range(S)] if names is None else list(names)
    sys_means = Y.mean(axis=1)
    resid = Y - sys_means[:, None] - Y.mean(axis=0)[None, :] + Y.mean()
    df = (S - 1) * (n - 1)
    mse = float((resid**2).sum() / df)
    iu, ju = np.triu_indices(S, k=1)
    diff = np.abs(sys_means[iu] - sys_means[ju])
    se = np.sqrt(mse / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(se > 0, diff / se, np.where(np.round(diff, 12) > 0, np.inf, 0.0))
    p = np.ones_like(q)
    finite = np.isfinite(q) & (q > 0)
    if finite.any():
        p[finite] = stats.studentized_range.sf(q[finite], S, df)
    p[np.isinf(q)] = 0.0
    return TukeyHSD(names, sys_means, mse, df, list(zip(iu.tolist(), ju.tolist())), q, np.clip(p, 0.0, 1.0))
