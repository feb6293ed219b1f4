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

- **Aspect-proportional removal** (P&R RecSys 2021 §5.4, Exp. 3; `proportional_robustness`,
  `recdiv.eval.meta.perturbation.pr_experiment3`): the systems are random shuffles of the ideal ordering (§F.7);
  for every fraction kept f (the sparsity levels) and b = 1..50, remove N = |T| − round(f·|T|) test ratings,
  distributed across aspects proportionally to the aspects' presence in the original (ideal) ranking, uniformly
  at random within each aspect.
  [CHOICE] "presence" is a partition of the test ratings: every rating counts once, for the aspect through which
  the full-length ideal ordering placed it (the aspect list L_a it was popped from, §F.7 step 3); ratings of items
  without aspects form one more stratum. Counting a multi-aspect item in every aspect would make the quotas add up
  to more than N. [CHOICE] quotas by the largest-remainder (Hamilton) method: q_a = ⌊N·n_a/|T|⌋, the remaining
  units go to the largest remainders N·n_a/|T| − ⌊·⌋, ties to the smaller stratum index; so Σ q_a = N and
  q_a ≤ n_a. The paper does not give the levels: recdiv uses Valcarce's 20 fractions kept (1.00 … 0.05) [CHOICE].

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
from recdiv.eval.catalog import parse_measures
from recdiv.eval.context import EvalContext
from recdiv.eval.meta.ideal import ideal_ordering
from recdiv.eval.plots import plot_robustness
from recdiv.models.context import Cache
from recdiv.progress import tick

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

        if self.kind in ("sparsity", "aspect-proportional"):
            return plot_robustness(self.levels, self.mean, path=path, ax=ax)
        return plot_robustness(self.levels, self.mean, xlabel="% most popular items removed", invert_x=False,
                               path=path, ax=ax)


def _fresh(context):

    context = context or EvalContext()
    return dataclasses.replace(context, cache=Cache())  # do not grow the caller's cache


def system_means(runs: Mapping[str, Rankings], qrels: Qrels, measures, context=None) -> dict[str, np.ndarray]:
    """{measure: (S,) mean value of every run} on `qrels` (0 for every run if no user is evaluated)."""

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
    fractions = np.asarray(fractions, dtype=np.float64)
    return _sampled_curve("sparsity", runs, qrels, measures, context, fractions, n_samples,
                          sparsity_samples(qrels, fractions, n_samples, seed))


def _sampled_curve(kind: str, runs, qrels: Qrels, measures, context, fractions: np.ndarray, n_samples: int,
                   samples) -> RobustnessCurve:
    """τ_b of the system ranking on every degraded test set of `samples` ((fraction, b, qrels) per level × sample)."""
    if len(runs) < 2:
        raise ConfigError("robustness needs at least two systems")
    ref = system_means(runs, qrels, measures, context)
    taus = {m: np.full((len(fractions), n_samples), np.nan) for m in ref}
    for li, (_, b, q) in enumerate(samples):
        for m, t in _taus(ref, system_means(runs, q, measures, context)).items():
            taus[m][li // n_samples, b] = t
        tick()
    return RobustnessCurve(kind, fractions, taus, ref, list(runs))


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
        tick()
    return RobustnessCurve("popularity", percents, taus, ref, list(runs))


# ---------------------------------------------------------------------------------------------------- P&R Exp. 3
def aspect_strata(qrels: Qrels, aspects) -> tuple[np.ndarray, np.ndarray]:
    """Removal stratum of every stored test rating and the stratum sizes (presence), for P&R Exp. 3.

    Returns (strata (nnz,) aligned with ``qrels.matrix.data``, presence (A + 1,)): stratum a < A is the aspect
    through which the full-length ideal ordering (§F.7) placed the rating's item; stratum A holds the ratings of
    items without aspects. presence[a] = the number of ideal-ranking positions filled from L_a.
    """

    m = qrels.matrix
    n_asp = aspects.n_aspects
    strata = np.full(m.nnz, n_asp, dtype=np.int64)
    width = int(np.diff(m.indptr).max()) if m.nnz else 0
    if m.nnz:
        ranking, used = ideal_ordering(qrels, aspects, width, return_aspects=True)
        ok = ranking.items >= 0
        rows = np.repeat(ranking.users[:, None], ranking.k, axis=1)[ok]
        items, asp = ranking.items[ok], used[ok]
        # position of (user, item) in the CSR data: rows are sorted, search within each row's slice
        order = np.lexsort((m.indices, np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))))
        keys = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr)) * m.shape[1] + m.indices
        sorted_keys = keys[order]
        pos = order[np.searchsorted(sorted_keys, rows.astype(np.int64) * m.shape[1] + items)]
        strata[pos] = np.where(asp >= 0, asp, n_asp)
    return strata, np.bincount(strata, minlength=n_asp + 1)


def proportional_allocation(presence, n_remove: int) -> np.ndarray:
    """Largest-remainder split of `n_remove` removals over strata proportionally to `presence` (ties: lower index).

    Σ result = n_remove and result ≤ presence (0 ≤ n_remove ≤ Σ presence).
    """
    presence = np.asarray(presence, dtype=np.int64)
    total = int(presence.sum())
    if not 0 <= n_remove <= total:
        raise ConfigError(f"cannot remove {n_remove} of {total} ratings")
    if total == 0:
        return np.zeros_like(presence)
    num = presence * int(n_remove)  # exact integer arithmetic: share = num / total
    base = num // total
    rem = num - base * total
    left = int(n_remove - base.sum())
    extra = np.lexsort((np.arange(len(presence)), -rem))[:left]
    base[extra] += 1
    return base


def proportional_samples(qrels: Qrels, strata: np.ndarray, fractions: Sequence[float] = SPARSITY_LEVELS,
                         n_samples: int = 50, seed: int | None = 0) -> Iterator[tuple[float, int, Qrels]]:
    """(f, b, degraded qrels): remove |T| − round(f·|T|) ratings, `proportional_allocation` of them per stratum,
    uniformly at random within each stratum; levels then samples in order, one stream ``default_rng(seed)``."""
    strata = np.asarray(strata, dtype=np.int64)
    nnz = qrels.matrix.nnz
    if len(strata) != nnz:
        raise ConfigError(f"strata has {len(strata)} entries, the qrels {nnz} ratings")
    presence = np.bincount(strata, minlength=int(strata.max()) + 1 if nnz else 0)
    starts = np.concatenate([[0], np.cumsum(presence)[:-1]])
    by_stratum = np.argsort(strata, kind="stable")
    rng = np.random.default_rng(seed)
    for f in fractions:
        if not 0 < f <= 1:
            raise ConfigError(f"fractions must be in (0, 1], got {f}")
        quota = proportional_allocation(presence, nnz - round(f * nnz))
        for b in range(n_samples):
            order = by_stratum[np.lexsort((rng.random(nnz), strata[by_stratum]))]  # random order within strata
            rank = np.arange(nnz) - starts[strata[order]]
            yield float(f), b, keep_ratings(qrels, order[rank >= quota[strata[order]]])


def proportional_robustness(runs: Mapping[str, Rankings], qrels: Qrels, measures, context=None, *,
                            strata: np.ndarray, fractions: Sequence[float] = SPARSITY_LEVELS, n_samples: int = 50,
                            seed: int | None = 0) -> RobustnessCurve:
    """τ_b of the system ranking when test ratings are removed proportionally per stratum (`aspect_strata`)."""
    fractions = np.asarray(fractions, dtype=np.float64)
    return _sampled_curve("aspect-proportional", runs, qrels, measures, context, fractions, n_samples,
                          proportional_samples(qrels, strata, fractions, n_samples, seed))
