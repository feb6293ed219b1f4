"""Robustness of a measure to an incomplete test set (Valcarce et al., RecSys 2018 §4–5; METRICS.md §F.6).

Systems are run once; only the **test set** (the qrels) is degraded. The reference ranking orders the systems by
their mean metric on the full test set; each degraded test set gives another ranking, compared with Kendall τ_b
(`scipy.stats.kendalltau`) of the mean-metric vectors.

- **Sparsity bias** (`sparsity_robustness`): for f = 1.00, 0.95, …, 0.05 and b = 1..50, keep a uniformly random
  subset of round(f·|T|) test ratings (without replacement over all (u, i, r) triples), recompute every system's
  metric (users left without relevant items drop out of the population, §0.2) and report the mean τ_b per f.
- **Popularity bias** (`popularity_robustness`): rank items by popularity (number of ratings in train ∪ test when
  the context has a training set, else in the test set [CHOICE]; ties by dense index) among the items with at
  least one rating; for x = 0, 1, …, 20 % remove every test rating of the top x % items; one sample per level.

One stream ``default_rng(seed)`` is shared by all levels and samples, processed in order (§0.8).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import stats

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.errors import ConfigError

#: 1.00, 0.95, …, 0.05 (20 levels)
SPARSITY_LEVELS = np.round(np.arange(20, 0, -1) * 0.05, 2)
#: 0, 1, …, 20 % of the most popular items removed
POPULARITY_LEVELS = np.arange(0, 21)


def kendall_tau_b(reference, other) -> float:
    """Kendall τ_b between two vectors of system scores (NaN when either is constant)."""
    return float(stats.kendalltau(np.asarray(reference, float), np.asarray(other, float)).statistic)


@dataclass(frozen=True)
class RobustnessCurve:
    """τ_b of every measure at every degradation level and sample.

    levels: fraction of test ratings kept (sparsity) or percentage of top items removed (popularity).
    taus: {measure: (levels × samples) τ_b}; reference: {measure: full-test means per system}.
    """

    kind: str
    levels: np.ndarray
    taus: dict[str, np.ndarray]
    reference: dict[str, np.ndarray]
    systems: list[str]

    @property
    def mean(self) -> dict[str, np.ndarray]:
        """Mean τ_b per level for each measure (NaN samples — constant rankings — ignored)."""
        out = {}
        for m, t in self.taus.items():
            ok = ~np.isnan(t)
            out[m] = np.where(ok.any(axis=1), np.nansum(t, axis=1) / np.maximum(ok.sum(axis=1), 1), np.nan)
        return out

    def to_dict(self) -> dict:
        return {"kind": self.kind, "levels": self.levels.tolist(), "systems": self.systems,
                "mean_tau": {m: v.tolist() for m, v in self.mean.items()}}

    def plot(self, path=None, ax=None):
        from recdiv.eval.plots import plot_robustness

        if self.kind == "sparsity":
            return plot_robustness(self.levels, self.mean, path=path, ax=ax)
        return plot_robustness(self.levels, self.mean, xlabel="% most popular items removed", invert_x=False,
                               path=path, ax=ax)


def _fresh(context):
    from recdiv.eval.context import EvalContext

    context = context or EvalContext()
    return dataclasses.replace(context, _views={})  # do not grow the caller's view cache


def system_means(runs: Mapping[str, Rankings], qrels: Qrels, measures, context=None) -> dict[str, np.ndarray]:
    """{measure: (S,) mean value of every run} on `qrels` (0 for every run if no user is evaluated)."""
    from recdiv.eval.measure import parse_measures

    ctx = _fresh(context)
    out = {}
    for m in parse_measures(measures):
        out[str(m)] = np.array([m.value(run, qrels, ctx) for run in runs.values()])
    return out


def keep_ratings(qrels: Qrels, keep: np.ndarray) -> Qrels:
    """The qrels restricted to the stored ratings with positions `keep` (indices into `qrels.matrix.data`)."""
    m = qrels.matrix
    keep = np.sort(np.asarray(keep, dtype=np.int64))
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))[keep]
    indptr = np.zeros(m.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=m.shape[0]), out=indptr[1:])
    sub = sp.csr_matrix((m.data[keep], m.indices[keep], indptr), shape=m.shape)
    sub.has_sorted_indices = True
    return Qrels(qrels.users, qrels.items, sub, qrels.scale)


def sparsity_samples(qrels: Qrels, fractions: Sequence[float] = SPARSITY_LEVELS, n_samples: int = 50,
                     seed: int | None = 0) -> Iterator[tuple[float, int, Qrels]]:
    """(f, b, degraded qrels) keeping round(f·|T|) random ratings, levels then samples in order, one stream."""
    rng = np.random.default_rng(seed)
    nnz = qrels.matrix.nnz
    for f in fractions:
        if not 0 < f <= 1:
            raise ConfigError(f"fractions must be in (0, 1], got {f}")
        size = round(f * nnz)
        for b in range(n_samples):
            yield float(f), b, keep_ratings(qrels, rng.choice(nnz, size=size, replace=False))


def _taus(reference: dict[str, np.ndarray], degraded: dict[str, np.ndarray]) -> dict[str, float]:
    return {m: kendall_tau_b(reference[m], degraded[m]) for m in reference}


def sparsity_robustness(runs: Mapping[str, Rankings], qrels: Qrels, measures, context=None, *,
                        fractions: Sequence[float] = SPARSITY_LEVELS, n_samples: int = 50,
                        seed: int | None = 0) -> RobustnessCurve:
    """Valcarce's sparsity-bias robustness: τ_b of the system ranking on random subsets of the test ratings."""
    if len(runs) < 2:
        raise ConfigError("robustness needs at least two systems")
    ref = system_means(runs, qrels, measures, context)
    fractions = np.asarray(fractions, dtype=np.float64)
    taus = {m: np.full((len(fractions), n_samples), np.nan) for m in ref}
    for li, (_, b, q) in enumerate(sparsity_samples(qrels, fractions, n_samples, seed)):
        for m, t in _taus(ref, system_means(runs, q, measures, context)).items():
            taus[m][li // n_samples, b] = t
    return RobustnessCurve("sparsity", fractions, taus, ref, list(runs))


def item_popularity(qrels: Qrels, train=None) -> np.ndarray:
    """Number of ratings of every item in train ∪ test (test only without `train`)."""
    pop = np.bincount(qrels.matrix.indices, minlength=len(qrels.items)).astype(np.int64)
    if train is not None:
        if train.items != qrels.items:
            raise ConfigError("training data and qrels use different item vocabularies")
        pop += np.bincount(train.matrix.indices, minlength=len(qrels.items))
    return pop


def popularity_samples(qrels: Qrels, popularity: np.ndarray, percents: Sequence[float] = POPULARITY_LEVELS
                       ) -> Iterator[tuple[float, Qrels]]:
    """(x, qrels without the test ratings of the top x % most popular items), deterministic."""
    popularity = np.asarray(popularity)
    if len(popularity) != len(qrels.items):
        raise ConfigError(f"popularity has {len(popularity)} items, the qrels {len(qrels.items)}")
    rated = np.flatnonzero(popularity > 0)
    order = rated[np.lexsort((rated, -popularity[rated]))]  # most popular first, ties by dense index
    for x in percents:
        if not 0 <= x < 100:
            raise ConfigError(f"percentages must be in [0, 100), got {x}")
        removed = np.zeros(len(popularity), dtype=bool)
        removed[order[: round(x / 100 * len(order))]] = True
        yield float(x), keep_ratings(qrels, np.flatnonzero(~removed[qrels.matrix.indices]))


def popularity_robustness(runs: Mapping[str, Rankings], qrels: Qrels, measures, context=None, *,
                          popularity: np.ndarray | None = None,
                          percents: Sequence[float] = POPULARITY_LEVELS) -> RobustnessCurve:
    """Valcarce's popularity-bias robustness: τ_b after removing the test ratings of the most popular items.

    popularity: ratings per item (default: `item_popularity(qrels, context.train)`).
    """
    if len(runs) < 2:
        raise ConfigError("robustness needs at least two systems")
    if popularity is None:
        popularity = item_popularity(qrels, getattr(context, "train", None))
    ref = system_means(runs, qrels, measures, context)
    percents = np.asarray(percents, dtype=np.float64)
    taus = {m: np.full((len(percents), 1), np.nan) for m in ref}
    for li, (_, q) in enumerate(popularity_samples(qrels, popularity, percents)):
        for m, t in _taus(ref, system_means(runs, q, measures, context)).items():
            taus[m][li, 0] = t
    return RobustnessCurve("popularity", percents, taus, ref, list(runs))
