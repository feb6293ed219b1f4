"""Tukey's HSD for many systems evaluated on the same users: randomised (paired) and ANOVA-based (METRICS.md §F.3).

**Randomised Tukey HSD** (`tukey_hsd`, the default; Carterette, TOIS 2012; Sakai, *Statistical Significance Testing
in Information Retrieval*, 2018, §4.4 / Sakai's Discpower tool). Y is the S × n matrix of per-user values. Under
the null hypothesis that all systems are equivalent, the S values of a user are exchangeable among the systems,
so each sample permutes every user's S values independently (the **pairing is kept**: values only move between
systems within a user) and records the range of the permuted system means::

    r*_b = max_s ȳ*_s − min_s ȳ*_s                      (b = 1..B)
    p(s, s') = #{b : r*_b ≥ |ȳ_s − ȳ_s'| − 1e−12} / B

The maximum over all pairs makes the p-values family-wise adjusted: no further correction applies. method
"exact" enumerates all (S!)^m within-user permutations of the m users whose values are not all equal (the
others contribute the same to every permutation); "auto" does that when (S!)^m ≤ B, else draws B seeded
samples (``default_rng(seed)``; the same seed gives the same p-values).

Hand-worked case (tests): S = 3 systems, n = 2 users, every user scores (3, 0, 0) on (S1, S2, S3). Observed
means (3, 0, 0). A permutation moves each user's 3 to one of the three systems; both 3s land on the same system
with probability 1/3 (means (3, 0, 0), range 3), otherwise the means are (1.5, 1.5, 0) (range 1.5). So
p(S1, S2) = p(S1, S3) = P(r* ≥ 3) = 1/3 and p(S2, S3) = P(r* ≥ 0) = 1.

**ANOVA-based Tukey HSD** (`anova_tukey_hsd`, option ``tukey-anova``; §F.3 [MEM]): two-way ANOVA without
interaction, y_su = μ + α_s + β_u + ε; residual e_su = y_su − ȳ_s· − ȳ_·u + ȳ_··, MSE = Σ e² / ((S − 1)(n − 1));
q = |ȳ_s· − ȳ_s'·| / √(MSE/n); p = P(Q ≥ q) under the studentised range distribution with S groups and
(S − 1)(n − 1) degrees of freedom (`scipy.stats.studentized_range.sf`). It assumes normal, homoscedastic errors;
the randomised test assumes only exchangeability within users.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from recdiv.errors import ConfigError
from recdiv.progress import tick

#: default Monte Carlo samples of the randomised Tukey HSD (Sakai's Discpower uses B = 5000)
TUKEY_SAMPLES = 10_000
#: tolerance of the comparison r*_b ≥ |ȳ_s − ȳ_s'| (rounding of sums of n values)
_TOL = 1e-12
METHODS = ("randomised", "anova")


@dataclass(frozen=True)
class TukeyHSD:
    """Result of a Tukey HSD: system means and one row per pair (i < j) with its family-wise p-value.

    method: "randomised" (with `n_samples` and `sampling` = "exact" or "monte-carlo") or "anova" (with `mse` and
    `df` of the blocked ANOVA and the studentised range statistics `q`).
    """

    names: list[str]
    means: np.ndarray
    pairs: list[tuple[int, int]]
    p_values: np.ndarray
    method: str
    q: np.ndarray | None = None
    mse: float | None = None
    df: int | None = None
    n_samples: int | None = None
    sampling: str | None = None

    def p_matrix(self) -> np.ndarray:
        """Symmetric S × S matrix of p-values (1 on the diagonal)."""
        S = len(self.names)
        out = np.ones((S, S))
        for (i, j), p in zip(self.pairs, self.p_values):
            out[i, j] = out[j, i] = p
        return out

    def to_dict(self) -> dict:
        out: dict = {"method": self.method, "means": dict(zip(self.names, map(float, self.means)))}
        if self.method == "anova":
            out.update(mse=self.mse, df=self.df)
        else:
            out.update(n_samples=self.n_samples, sampling=self.sampling)
        rows = []
        for k, ((i, j), p) in enumerate(zip(self.pairs, self.p_values)):
            row = {"a": self.names[i], "b": self.names[j], "p_value": float(p)}
            if self.q is not None:
                row["q"] = float(self.q[k])
            rows.append(row)
        out["pairs"] = rows
        return out


def _matrix(values, names) -> tuple[np.ndarray, list[str]]:
    if isinstance(values, dict):
        names = list(values) if names is None else names
        values = [values[k] for k in names]
    Y = np.asarray(values, dtype=np.float64)
    if Y.ndim != 2:
        raise ConfigError("Tukey HSD needs an S × n matrix of per-user values")
    S, n = Y.shape
    if S < 2 or n < 2:
        raise ConfigError(f"Tukey HSD needs at least 2 systems and 2 users, got {S} and {n}")
    if not np.isfinite(Y).all():
        raise ConfigError("per-user values must be finite")
    names = [f"S{s + 1}" for s in range(S)] if names is None else list(names)
    if len(names) != S:
        raise ConfigError(f"{len(names)} names for {S} systems")
    return Y, names


def tukey_hsd(values, names: list[str] | None = None, *, method: str = "randomised",
              n_samples: int = TUKEY_SAMPLES, seed: int | None = 0, sampling: str = "auto") -> TukeyHSD:
    """Tukey HSD on `values` (S systems × n users, or a dict name → per-user array).

    method="randomised" (default): the paired randomised test of the module docstring (`randomised_tukey_hsd`);
    method="anova": the blocked two-way ANOVA version (`anova_tukey_hsd`).
    """
    if method == "anova":
        return anova_tukey_hsd(values, names)
    if method != "randomised":
        raise ConfigError(f"Tukey HSD method must be randomised or anova, got {method!r}")
    return randomised_tukey_hsd(values, names, n_samples=n_samples, seed=seed, sampling=sampling)


def randomised_tukey_hsd(values, names: list[str] | None = None, *, n_samples: int = TUKEY_SAMPLES,
                         seed: int | None = 0, sampling: str = "auto", chunk_elements: int = 4_000_000) -> TukeyHSD:
    """Randomised Tukey HSD keeping the per-user pairing (module docstring)."""
    Y, names = _matrix(values, names)
    if n_samples < 1:
        raise ConfigError("n_samples must be positive")
    if sampling not in ("auto", "exact", "mc"):
        raise ConfigError(f"sampling must be auto, exact or mc, got {sampling!r}")
    S, n = Y.shape
    means = Y.mean(axis=1)
    iu, ju = np.triu_indices(S, k=1)
    observed = np.abs(means[iu] - means[ju])
    varied = np.flatnonzero(np.ptp(Y, axis=0) > 0)  # users whose values differ between systems
    m = len(varied)
    n_perms = math.factorial(S) ** m if m * math.log(math.factorial(S)) < 60 else None
    if sampling == "auto":
        sampling = "exact" if n_perms is not None and n_perms <= n_samples else "mc"
    fixed = Y[:, np.setdiff1d(np.arange(n), varied)].sum(axis=1)  # same in every permutation
    V = Y[:, varied].T  # m × S
    count = np.zeros(len(observed), dtype=np.int64)
    if sampling == "exact":
        if n_perms is None or n_perms > 5_000_000:
            raise ConfigError(f"exact Tukey HSD would enumerate (S!)^{m} permutations; use sampling='mc'")
        perms = np.array(list(itertools.permutations(range(S))), dtype=np.int64)  # S! × S
        for combo in itertools.product(range(len(perms)), repeat=m):
            sums = fixed + (V[np.arange(m)[:, None], perms[list(combo)]].sum(axis=0) if m else 0.0)
            mu = sums / n
            count += (mu.max() - mu.min()) >= observed - _TOL
        total = n_perms
    else:
        rng = np.random.default_rng(seed)
        rows = max(1, chunk_elements // max(1, m * S))
        base = np.broadcast_to(np.arange(S), (rows, m, S))
        done = 0
        while done < n_samples:
            b = min(rows, n_samples - done)
            P = rng.permuted(base[:b], axis=2)  # an independent permutation of the S systems per (sample, user)
            mu = (fixed + np.take_along_axis(np.broadcast_to(V, (b, m, S)), P, axis=2).sum(axis=1)) / n
            r = mu.max(axis=1) - mu.min(axis=1)
            count += (r[:, None] >= observed[None, :] - _TOL).sum(axis=0)
            done += b
            tick(b)
        total = n_samples
    p = count / total
    return TukeyHSD(names, means, list(zip(iu.tolist(), ju.tolist())), p, "randomised",
                    n_samples=total, sampling="exact" if sampling == "exact" else "monte-carlo")


def anova_tukey_hsd(values, names: list[str] | None = None) -> TukeyHSD:
    """Tukey HSD from the blocked two-way ANOVA (users as blocks; module docstring, METRICS.md §F.3)."""
    from scipy import stats

    Y, names = _matrix(values, names)
    S, n = Y.shape
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
    return TukeyHSD(names, sys_means, list(zip(iu.tolist(), ju.tolist())), np.clip(p, 0.0, 1.0), "anova", q=q,
                    mse=mse, df=df)
