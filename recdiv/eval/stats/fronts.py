"""Trade-off fronts of systems on two measures (accuracy x, diversity y), with bootstrap statistics over users.

A set of systems (a λ grid of one reranker, or any runs) has per-user values on both measures; a system's point is
(mean x, mean y). Both axes are oriented so that higher is better (a lower-is-better measure is negated).

- Pareto front: the systems no other system dominates (≥ on both means, > on one), in increasing x.
- Hypervolume against a reference point r (Zitzler & Thiele 1998; 2-D): the area of the points dominated by the
  front and dominating r, HV = Σ_j (x_j − x_{j−1})·(y_j − r_y) over the front's points that dominate r in increasing
  x, x_0 = r_x. The default r is the nadir of the systems' means (the worst mean on each axis), stated with the
  result; compare fronts against one common r.
- Accuracy-retention point: the best y among the systems whose x is at least `fraction` of the baseline system's x
  ("diversity at 95 % of the baseline's accuracy"; Pyversity's relevance retention); NaN when none qualifies. Both
  x values must be positive (a share of accuracy).
- Area under the trade-off curve: the trapezoid area between the piecewise-linear curve through the front's points
  at or above r (x ≥ r_x, y ≥ r_y) and y = r_y, from the smallest to the largest of their x.

Uncertainty: the users are resampled with replacement B times (the same resamples for every system: the systems'
means move together, as the per-user values are paired), every statistic is recomputed on the resampled means
with the same r, and the percentile interval is reported (`Estimate`); the share of resamples in which each system is
on the front is its front frequency. Two fronts (e.g. MMR's λ grid against xQuAD's) are compared on the same
resamples: the hypervolume difference with its interval and a two-sided bootstrap p-value (twice the smaller share
of resampled differences on either side of 0), and how often A's front dominates B's (every B point weakly dominated
by an A point, one strictly) and the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.stats.significance import resample_counts

__all__ = ["Estimate", "FrontComparison", "TradeOff", "compare_fronts", "front_area", "hypervolume", "pareto_front",
           "retention", "tradeoff"]

#: bootstrap resamples of the front statistics (a limit: at most MAX_RESAMPLES)
RESAMPLES = 1000
MAX_RESAMPLES = 100_000


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated points (higher is better on both), in increasing x (ties: increasing index);
    equal points are all kept."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    dominated = ((x[None, :] >= x[:, None]) & (y[None, :] >= y[:, None])
                 & ((x[None, :] > x[:, None]) | (y[None, :] > y[:, None]))).any(axis=1)
    idx = np.flatnonzero(~dominated)
    return idx[np.lexsort((idx, x[idx]))]


def hypervolume(x: np.ndarray, y: np.ndarray, reference: tuple[float, float]) -> float:
    """Area dominated by the points and dominating `reference` (higher is better on both)."""
    rx, ry = reference
    front = pareto_front(x, y)
    fx, fy = np.asarray(x, np.float64)[front], np.asarray(y, np.float64)[front]
    keep = (fx > rx) & (fy > ry)
    fx, fy = fx[keep], fy[keep]
    widths = np.diff(np.concatenate(([rx], fx)))
    return float(np.sum(widths * (fy - ry)))


def front_area(x: np.ndarray, y: np.ndarray, reference: tuple[float, float]) -> float:
    """Trapezoid area between the piecewise-linear curve through the front's points at or above `reference` (x ≥ r_x,
    y ≥ r_y) and y = r_y, over their x range (0 with fewer than two such points)."""
    rx, ry = reference
    front = pareto_front(x, y)
    fx, fy = np.asarray(x, np.float64)[front], np.asarray(y, np.float64)[front]
    keep = (fx >= rx) & (fy >= ry)
    fx, fy = fx[keep], fy[keep] - ry
    return float(np.sum(np.diff(fx) * (fy[1:] + fy[:-1]) / 2.0)) if len(fx) > 1 else 0.0


def retention(x: np.ndarray, y: np.ndarray, x_base: float, fraction: float) -> float:
    """Best y among the points with x ≥ fraction·x_base; NaN when none."""
    ok = np.asarray(x) >= fraction * x_base
    return float(np.max(np.asarray(y)[ok])) if ok.any() else float("nan")


@dataclass(frozen=True)
class Estimate:
    """A statistic of the systems' means and its bootstrap percentile interval."""

    value: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class TradeOff:
    """Front statistics of a set of systems on two measures (see the module docstring). Means are in the measures'
    own scale; `reference` too (`higher` says which axes were negated for the geometry)."""

    systems: tuple[str, ...]
    measures: tuple[str, str]
    higher: tuple[bool, bool]
    means: np.ndarray  # (systems, 2)
    front: tuple[str, ...]
    front_frequency: dict[str, float]
    reference: tuple[float, float]
    hypervolume: Estimate
    area: Estimate
    baseline: str | None
    retention: dict[float, Estimate] = field(default_factory=dict)
    resamples: int = RESAMPLES
    level: float = 0.95

    def to_dict(self) -> dict:
        return {"systems": list(self.systems), "measures": list(self.measures), "higher": list(self.higher),
                "means": {s: [float(a), float(b)] for s, (a, b) in zip(self.systems, self.means)},
                "front": list(self.front), "front_frequency": self.front_frequency,
                "reference": list(self.reference), "hypervolume": self.hypervolume.to_dict(),
                "area": self.area.to_dict(), "baseline": self.baseline,
                "retention": {str(f): e.to_dict() for f, e in self.retention.items()},
                "resamples": self.resamples, "level": self.level}


@dataclass(frozen=True)
class FrontComparison:
    """Front A against front B on the same users and reference point."""

    a: TradeOff
    b: TradeOff
    difference: Estimate  # HV(A) − HV(B)
    p_value: float  # two-sided bootstrap p-value of the hypervolume difference
    a_dominates: float  # share of resamples in which A's front dominates B's
    b_dominates: float

    def to_dict(self) -> dict:
        return {"a": self.a.to_dict(), "b": self.b.to_dict(), "hypervolume_difference": self.difference.to_dict(),
                "p_value": self.p_value, "a_dominates": self.a_dominates, "b_dominates": self.b_dominates}


def _oriented(values: np.ndarray, higher: bool) -> np.ndarray:
    return values if higher else -values


def _check(X: np.ndarray, Y: np.ndarray, names: Sequence[str], n_samples: int, level: float) -> None:
    if X.shape != Y.shape or X.ndim != 2 or X.shape[0] != len(names):
        raise ConfigError("a trade-off needs per-user values of both measures for every system (systems × users)")
    if X.shape[0] < 1 or X.shape[1] < 2:
        raise ConfigError("a trade-off needs at least one system and two users")
    if not 1 <= n_samples <= MAX_RESAMPLES:
        raise ConfigError(f"resamples must be between 1 and {MAX_RESAMPLES:,}, got {n_samples:,}")
    if not 0 < level < 1:
        raise ConfigError(f"the confidence level must be in (0, 1), got {level}")
    if np.isnan(X).any() or np.isnan(Y).any():
        raise ConfigError("a trade-off needs a value of both measures for every user (NaN found)")


def _interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    ok = samples[~np.isnan(samples)]
    if not len(ok):
        return float("nan"), float("nan")
    lo, hi = np.quantile(ok, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def _statistics(mx: np.ndarray, my: np.ndarray, ref: tuple[float, float], base: int | None,
                fractions: Sequence[float], higher_y: bool) -> tuple[float, float, list[float]]:
    """(hypervolume, area, retention values in y's own scale) of oriented means."""
    ret = [retention(mx, my, mx[base], f) for f in fractions] if base is not None else []
    return hypervolume(mx, my, ref), front_area(mx, my, ref), [r if higher_y else -r for r in ret]


def _nadir(px: np.ndarray, py: np.ndarray, higher: tuple[bool, bool]) -> tuple[float, float]:
    """The worst mean on each axis, in the measures' own scale."""
    return float(px.min() if higher[0] else px.max()), float(py.min() if higher[1] else py.max())


def tradeoff(X: np.ndarray, Y: np.ndarray, names: Sequence[str], measures: tuple[str, str] = ("x", "y"),
             higher: tuple[bool, bool] = (True, True), *, reference: tuple[float, float] | None = None,
             baseline: str | None = None, fractions: Sequence[float] = (0.95,), n_samples: int = RESAMPLES,
             seed: int | None = 0, level: float = 0.95, counts: np.ndarray | None = None) -> TradeOff:
    """Front statistics of systems `names` with per-user values X (systems × users) on measure x and Y on measure y.
    `reference` in the measures' own scale (default: the nadir of the means); `baseline`: the system whose x the
    retention points are shares of; `counts`: resample counts to use (B × users), e.g. shared with another front."""
    X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=np.float64)
    _check(X, Y, names, n_samples, level)
    names = tuple(names)
    base = None
    if baseline is not None:
        if baseline not in names:
            raise ConfigError(f"the baseline {baseline!r} is not one of the systems: {', '.join(names)}")
        base = names.index(baseline)
        if not higher[0] or X[base].mean() <= 0:
            raise ConfigError(f"accuracy retention needs a higher-is-better accuracy with a positive mean "
                              f"({measures[0]} of {baseline})")
    for f in fractions:
        if not 0 < f <= 1:
            raise ConfigError(f"a retention fraction is in (0, 1], got {f}")
    OX, OY = _oriented(X, higher[0]), _oriented(Y, higher[1])
    mx, my = OX.mean(axis=1), OY.mean(axis=1)
    ref_plain = tuple(map(float, reference)) if reference is not None else _nadir(X.mean(axis=1), Y.mean(axis=1),
                                                                                  higher)
    ref = (ref_plain[0] if higher[0] else -ref_plain[0], ref_plain[1] if higher[1] else -ref_plain[1])
    hv, area, ret = _statistics(mx, my, ref, base, fractions, higher[1])
    n = X.shape[1]
    if counts is None:
        counts = resample_counts(n_samples, n, seed)
    bx, by = counts @ OX.T / n, counts @ OY.T / n  # (B, systems) resampled means
    on_front = np.zeros(len(names))
    hv_b, area_b, ret_b = [], [], []
    for b in range(len(counts)):
        on_front[pareto_front(bx[b], by[b])] += 1
        h, a, r = _statistics(bx[b], by[b], ref, base, fractions, higher[1])
        hv_b.append(h), area_b.append(a), ret_b.append(r)
    hv_lo, hv_hi = _interval(np.array(hv_b), level)
    a_lo, a_hi = _interval(np.array(area_b), level)
    retention_est = {}
    for j, f in enumerate(fractions if base is not None else ()):
        lo, hi = _interval(np.array([r[j] for r in ret_b]), level)
        retention_est[float(f)] = Estimate(ret[j], lo, hi)
    front = tuple(names[i] for i in pareto_front(mx, my))
    return TradeOff(names, tuple(measures), tuple(higher), np.stack([X.mean(axis=1), Y.mean(axis=1)], axis=1),
                    front, {s: float(v) for s, v in zip(names, on_front / len(counts))}, ref_plain,
                    Estimate(hv, hv_lo, hv_hi), Estimate(area, a_lo, a_hi), baseline, retention_est, len(counts),
                    level)


def dominates(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> bool:
    """Whether every point of B is weakly dominated by a point of A, and some strictly (higher is better)."""
    weak = (ax[None, :] >= bx[:, None]) & (ay[None, :] >= by[:, None])
    strict = weak & ((ax[None, :] > bx[:, None]) | (ay[None, :] > by[:, None]))
    return bool(weak.any(axis=1).all() and strict.any())


def compare_fronts(XA, YA, names_a, XB, YB, names_b, measures=("x", "y"), higher=(True, True), *,
                   reference=None, n_samples: int = RESAMPLES, seed: int | None = 0, level: float = 0.95
                   ) -> FrontComparison:
    """Front A (systems × users arrays XA, YA) against front B on the same users: both fronts' statistics against
    one reference point (default: the nadir of all systems' means), the hypervolume difference HV(A) − HV(B) with
    its interval and two-sided p-value, and the shares of resamples in which A dominates B and B dominates A."""
    XA, YA, XB, YB = (np.asarray(v, dtype=np.float64) for v in (XA, YA, XB, YB))
    if XA.shape[1] != XB.shape[1]:
        raise ConfigError("the two fronts must be evaluated on the same users")
    _check(XA, YA, names_a, n_samples, level)
    _check(XB, YB, names_b, n_samples, level)
    if reference is None:
        reference = _nadir(np.concatenate([XA.mean(axis=1), XB.mean(axis=1)]),
                           np.concatenate([YA.mean(axis=1), YB.mean(axis=1)]), higher)
    counts = resample_counts(n_samples, XA.shape[1], seed)
    a = tradeoff(XA, YA, names_a, measures, higher, reference=reference, n_samples=n_samples, level=level,
                 counts=counts)
    b = tradeoff(XB, YB, names_b, measures, higher, reference=reference, n_samples=n_samples, level=level,
                 counts=counts)
    n = XA.shape[1]
    ref = (reference[0] if higher[0] else -reference[0], reference[1] if higher[1] else -reference[1])
    OA = (_oriented(XA, higher[0]), _oriented(YA, higher[1]))
    OB = (_oriented(XB, higher[0]), _oriented(YB, higher[1]))
    diffs, dom_a, dom_b = [], 0, 0
    for c in counts:
        ax, ay = c @ OA[0].T / n, c @ OA[1].T / n
        bx, by = c @ OB[0].T / n, c @ OB[1].T / n
        diffs.append(hypervolume(ax, ay, ref) - hypervolume(bx, by, ref))
        dom_a += dominates(ax, ay, bx, by)
        dom_b += dominates(bx, by, ax, ay)
    diffs = np.array(diffs)
    lo, hi = _interval(diffs, level)
    p = min(1.0, 2.0 * min((diffs <= 0).mean(), (diffs >= 0).mean()))
    return FrontComparison(a, b, Estimate(a.hypervolume.value - b.hypervolume.value, lo, hi), float(p),
                           dom_a / len(counts), dom_b / len(counts))
