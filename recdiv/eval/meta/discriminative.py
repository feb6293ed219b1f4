"""Discriminative power of a measure over all pairs of systems (METRICS.md §F.5).

- **Valcarce et al. (RecSys 2018, §4)**: two-sided Fisher randomisation p-values with the difference in means,
  B = 100,000 Monte Carlo samples, for every unordered pair of systems; the "p-value curve" is the p-values sorted
  decreasingly and **DP = Σ_pairs p** (lower = more discriminative; comparable only for the same systems and data).
- **Sakai (SIGIR 2006)**: paired bootstrap ASLs (studentised shift, B = 1000) of every pair; the "ASL curve" is the
  ASLs sorted decreasingly; discriminative power at level a = fraction of pairs with ASL < a.

One call from a systems × users matrix of per-user values::

    dp = discriminative_power(per_user_matrix)            # Valcarce: dp.dp (sum), dp.curve, dp.fraction
    dp = discriminative_power(per_user_matrix, method="sakai", alpha=0.05)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.stats.significance import BOOTSTRAP_SAMPLES, PERMUTATION_SAMPLES, system_pair_pvalues


@dataclass(frozen=True)
class DiscriminativePower:
    """Pairwise p-values (or ASLs) of one measure and the summaries of §F.5.

    pairs[k] = (i, j) with i < j (system indices); p_values[k] its p-value / ASL. curve = p-values sorted in
    decreasing order. dp = Σ p-values (Valcarce DP). fraction = fraction of pairs with p < alpha (Sakai).
    """

    names: list[str]
    pairs: list[tuple[int, int]]
    p_values: np.ndarray
    method: str
    alpha: float

    @property
    def curve(self) -> np.ndarray:
        return np.sort(self.p_values)[::-1]

    @property
    def dp(self) -> float:
        return float(self.p_values.sum())

    @property
    def fraction(self) -> float:
        return float((self.p_values < self.alpha).mean()) if len(self.p_values) else 0.0

    def to_dict(self) -> dict:
        return {"method": self.method, "alpha": self.alpha, "dp": self.dp, "fraction": self.fraction,
                "pairs": [{"a": self.names[i], "b": self.names[j], "p_value": float(p)}
                          for (i, j), p in zip(self.pairs, self.p_values)]}


def _matrix(per_user, names) -> tuple[np.ndarray, list[str]]:
    if isinstance(per_user, dict):
        names = list(per_user) if names is None else list(names)
        per_user = [per_user[k] for k in names]
    Y = np.asarray(per_user, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[0] < 2:
        raise ConfigError("discriminative power needs a systems × users matrix with at least 2 systems")
    names = [f"S{s + 1}" for s in range(Y.shape[0])] if names is None else list(names)
    if len(names) != Y.shape[0]:
        raise ConfigError(f"{len(names)} names for {Y.shape[0]} systems")
    return Y, names


def pairwise_difference_matrix(Y: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """(n users × P) differences Y_i − Y_j of every unordered pair i < j, and the pairs."""
    iu, ju = np.triu_indices(Y.shape[0], k=1)
    return (Y[iu] - Y[ju]).T, list(zip(iu.tolist(), ju.tolist()))


def discriminative_power(
    per_user,
    method: str = "valcarce",
    alpha: float = 0.05,
    *,
    names: list[str] | None = None,
    n_samples: int | None = None,
    seed: int | None = 0,
    test: str | None = None,
) -> DiscriminativePower:
    """Discriminative power of one measure from its per-user values (S systems × n users, or {name: array}).

    method="valcarce": two-sided Fisher randomisation, B = 100,000 (sum of p-values is `dp`);
    method="sakai": paired bootstrap ASL, B = 1000 (`fraction` of pairs with ASL < alpha).
    `test` overrides the test (any name accepted by `recdiv.eval.stats.significance.pairwise_pvalues`).
    """
    Y, names = _matrix(per_user, names)
    if method not in ("valcarce", "sakai"):
        raise ConfigError(f"method must be valcarce or sakai, got {method!r}")
    test = test or ("permutation" if method == "valcarce" else "bootstrap")
    if n_samples is None:
        n_samples = PERMUTATION_SAMPLES if test == "permutation" else BOOTSTRAP_SAMPLES
    iu, ju = np.triu_indices(Y.shape[0], k=1)
    pairs = list(zip(iu.tolist(), ju.tolist()))
    p = system_pair_pvalues(Y, pairs, test, seed=seed, n_samples=n_samples)
    return DiscriminativePower(names, pairs, np.asarray(p, dtype=np.float64), method, alpha)


def valcarce_dp(p_values) -> float:
    """Valcarce DP = Σ over system pairs of the randomisation-test p-values."""
    return float(np.sum(np.asarray(p_values, dtype=np.float64)))


def sakai_power(p_values, alpha: float = 0.05) -> float:
    """Sakai's discriminative power: fraction of pairs with ASL (p-value) < alpha."""
    p = np.asarray(p_values, dtype=np.float64)
    return float((p < alpha).mean()) if len(p) else 0.0


def asl_curve(per_user, *, n_samples: int = BOOTSTRAP_SAMPLES, seed: int | None = 0) -> np.ndarray:
    """Sakai's ASL curve: bootstrap ASLs of all system pairs sorted in decreasing order."""
    return discriminative_power(per_user, "sakai", n_samples=n_samples, seed=seed).curve


def measure_report(results, measures=None, method: str = "valcarce", alpha: float = 0.05, **options) -> dict:
    """{measure: DiscriminativePower} for several measures of a `Results` table."""
    return {m: discriminative_power(results.matrix(m), method, alpha, names=results.systems, **options)
            for m in (measures or results.measures)}
