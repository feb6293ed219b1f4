"""Parapar & Radlinski's perturbation experiments (RecSys 2021 §5.2–5.4; METRICS.md §F.7).

Simulated systems are gradual perturbations of the ideal ordering ι of every user's ground truth
(`recdiv.eval.meta.ideal.ideal_ordering`, P&R §5.1). Level s = 0 is ι; all users get the same s:

- `bottom_to_top(ι, s)` (Exp. 1a): swap positions j ↔ L+1−j for j = 1..s (L = the user's list length; swaps with
  j > ⌊L/2⌋ do not exist, so such users keep their last possible level).
- `redundant_aspect(ι, s)` (Exp. 1b): with a_cur the aspect used at construction step t and p the first position
  where the aspect of step t+1 differs, for t' = 0..s−1 take the next item of L_{a_cur} (the per-aspect list) not in
  positions < p + t' and swap it with the item at p + t' (if that item is not in ι, it replaces the item at p + t').
- `aspect_swap(ι, s)` (Exp. 1c, s = 1..10): order aspects by w(u,a) (eq. 9 on the test ratings) descending; the s-th
  of them that ι_1 does not exhibit gives its top item, which is swapped with ι_1 (or replaces it). Users without an
  s-th such aspect keep their previous level.

Experiments for any recdiv measure: (1) `order_correlation` — Kendall τ_b between the true order (s = 0 best) and the
measure's means; (2) `pvalue_curve` — one-sided Wilcoxon p-value of ideal > s-perturbed per level (H1: ideal
better); `perturbation_experiment` does both from one evaluation per system (`perturbation_values`, then
`PerturbationResult.from_values`: the one place of both formulas, also used on the per-user values an experiment
pools over its splits); (3) robustness — `shuffled_systems` gives random shuffles of ι; `pr_experiment3` runs the
aspect-proportional removal. `family_systems` gives one family's systems at the default levels.
`distinct_levels` drops levels that change no user's list (e.g. bottom-to-top beyond ⌊K/2⌋ swaps) [CHOICE: the
paper's 50 levels need K ≥ 100; at K = 10 repeated systems would only add ties to τ_b].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import PAD, Rankings
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext
from recdiv.eval.meta.ideal import _eq9, _priority, ideal_ordering
from recdiv.eval.meta.robustness import (
    SPARSITY_LEVELS,
    RobustnessCurve,
    aspect_strata,
    kendall_tau_b,
    proportional_robustness,
)
from recdiv.eval.metrics.greedy_ideal import padded_rows
from recdiv.eval.stats.significance import wilcoxon

FAMILIES = ("bottom_to_top", "redundant_aspect", "aspect_swap")
DEFAULT_LEVELS = {"bottom_to_top": 50, "redundant_aspect": 50, "aspect_swap": 10}


@dataclass(frozen=True)
class IdealTrace:
    """The ideal ordering with what the perturbations need, aligned by user (n users).

    ranking: ι as `Rankings`; aspects_used: (n, k) aspect index used at each step (−1: none);
    cand: (n, T) the user's test items (dense, −1 padded); prio: (n, T) rank of each candidate in the L_a
    order (rating ↓, |A(i)| ↓, index ↑; large at padding); member: (n, T, A) aspect membership of candidates;
    weights: (n, A) w(u,a) eq. 9 on the test ratings.
    """

    ranking: Rankings
    aspects_used: np.ndarray
    cand: np.ndarray
    prio: np.ndarray
    member: np.ndarray
    weights: np.ndarray


def ideal_trace(qrels: Qrels, aspects, k: int, users: np.ndarray | None = None) -> IdealTrace:
    """Ideal ordering (P&R §5.1, `recdiv.eval.meta.ideal`) of length ≤ k plus its construction trace."""

    ranking, used = ideal_ordering(qrels, aspects, k, users=users, return_aspects=True)
    cand, grades = padded_rows(qrels.matrix, ranking.users)
    dense = aspects.dense(dtype=bool)
    member = dense[np.where(cand >= 0, cand, 0)] & (cand >= 0)[:, :, None]
    prio = _priority(cand, grades, aspects.n_item_aspects)
    w = _eq9(np.einsum("nt,nta->na", np.nan_to_num(grades), member.astype(np.float64)), True)
    return IdealTrace(ranking, used, cand, prio, member, w)


# ---------------------------------------------------------------------------------------------------- state helpers
def _columns(trace: IdealTrace, items: np.ndarray) -> np.ndarray:
    """Candidate column of each ranked item (−1 for padding)."""
    out = np.full(items.shape, -1, dtype=np.int64)
    step = max(1, 4_000_000 // max(items.shape[1] * trace.cand.shape[1], 1))  # bound the (n, k, T) comparison
    for lo in range(0, len(items), step):
        it, cd = items[lo:lo + step], trace.cand[lo:lo + step]
        eq = (it[:, :, None] == cd[:, None, :]) & (it[:, :, None] >= 0)
        out[lo:lo + step] = np.where(eq.any(axis=2), eq.argmax(axis=2), -1)
    return out


def _place(cols: np.ndarray, rows: np.ndarray, target: np.ndarray, c: np.ndarray) -> None:
    """Put candidate c at position `target` of each row (swap with its current position, or replace)."""
    cur = (cols[rows] == c[:, None])
    has = cur.any(axis=1)
    q = cur.argmax(axis=1)
    x = cols[rows, target]
    cols[rows, target] = c
    cols[rows[has], q[has]] = x[has]


def _rankings(trace: IdealTrace, cols: np.ndarray) -> Rankings:
    base = trace.ranking
    items = np.where(cols >= 0, np.take_along_axis(trace.cand, np.maximum(cols, 0), axis=1), PAD)
    return Rankings(base.users, items, base.scores.copy(), base.user_vocab, base.item_vocab)


# ---------------------------------------------------------------------------------------------------- perturbations
def bottom_to_top(trace: IdealTrace, s: int) -> Rankings:
    """s-perturbed bottom-to-top swaps: positions j ↔ L+1−j for j = 1..min(s, ⌊L/2⌋)."""
    items = trace.ranking.items.copy()
    L = (items != PAD).sum(axis=1)
    rows = np.arange(len(items))
    for j in range(min(s, items.shape[1] // 2)):
        ok = j < L // 2
        r, hi = rows[ok], L[ok] - 1 - j
        a, b = items[r, j].copy(), items[r, hi].copy()
        items[r, j], items[r, hi] = b, a
    base = trace.ranking
    return Rankings(base.users, items, base.scores.copy(), base.user_vocab, base.item_vocab)


def redundant_aspect(trace: IdealTrace, s: int) -> Rankings:
    """s-perturbed redundant aspect (METRICS.md §F.7, Exp. 1b)."""
    used = trace.aspects_used
    cols = _columns(trace, trace.ranking.items)
    L = (cols >= 0).sum(axis=1)
    n = len(cols)
    change = (used[:, :-1] >= 0) & (used[:, 1:] != used[:, :-1]) if used.shape[1] > 1 else np.zeros((n, 0), bool)
    has_p = change.any(axis=1)
    p = np.where(has_p, change.argmax(axis=1) + 1, 0)  # 0-based position of the first change
    a_cur = np.where(has_p, used[np.arange(n), np.maximum(p - 1, 0)], -1)
    in_a = np.zeros(trace.cand.shape, dtype=bool)
    in_a[has_p] = trace.member[has_p, :, a_cur[has_p]]
    big = np.iinfo(np.int64).max
    for t in range(s):
        target = p + t
        pos = np.full(trace.cand.shape, big, dtype=np.int64)  # position of each candidate, big if not ranked
        r_idx, c_idx = np.nonzero(cols >= 0)
        pos[r_idx, cols[r_idx, c_idx]] = c_idx
        eligible = in_a & (pos >= target[:, None])
        pr = np.where(eligible, trace.prio, big)
        ok = has_p & (target < L) & (pr.min(axis=1) < big)
        rows = np.flatnonzero(ok)
        if not len(rows):
            break
        _place(cols, rows, target[rows], pr[rows].argmin(axis=1))
    return _rankings(trace, cols)


def aspect_swap(trace: IdealTrace, s: int) -> Rankings:
    """s-perturbed aspect swap (METRICS.md §F.7, Exp. 1c): ι_1 ↔ top item of the s-th most preferred aspect not
    exhibited by ι_1; users with fewer such aspects keep their highest possible level."""
    cols = _columns(trace, trace.ranking.items)
    n, A = trace.weights.shape
    if s < 1 or cols.shape[1] == 0:
        return _rankings(trace, cols)
    rows = np.arange(n)
    first = cols[:, 0]
    shown = np.zeros((n, A), dtype=bool)
    ok0 = first >= 0
    shown[ok0] = trace.member[rows[ok0], first[ok0]]
    present = trace.member.any(axis=1)
    big = np.iinfo(np.int64).max
    # aspects ι_1 does not show, by w(u,a) descending (ties: aspect index)
    key = np.where(present & ~shown & ok0[:, None], -trace.weights, np.inf)
    order = np.argsort(key, axis=1, kind="stable")
    n_avail = np.isfinite(key).sum(axis=1)
    level = np.minimum(s, n_avail)
    act = level >= 1
    a = order[rows, np.maximum(level - 1, 0)]
    pr = np.where(trace.member[rows, :, a], trace.prio, big)
    r = rows[act]
    _place(cols, r, np.zeros(len(r), dtype=np.int64), pr[r].argmin(axis=1))
    return _rankings(trace, cols)


_FUNCS = {"bottom_to_top": bottom_to_top, "redundant_aspect": redundant_aspect, "aspect_swap": aspect_swap}


def perturbed_systems(trace: IdealTrace, family: str, levels: int | Sequence[int] | None = None
                      ) -> dict[int, Rankings]:
    """{s: s-perturbed Rankings} for s = 0 (the ideal) and the given levels (default 50, or 10 for aspect_swap)."""
    if family not in _FUNCS:
        raise ConfigError(f"unknown perturbation {family!r}; choose one of {', '.join(FAMILIES)}")
    if levels is None:
        levels = DEFAULT_LEVELS[family]
    if isinstance(levels, int | np.integer):
        levels = range(1, int(levels) + 1)
    out = {0: trace.ranking}
    for s in levels:
        out[int(s)] = _FUNCS[family](trace, int(s))
    return out


def distinct_levels(systems: Mapping[int, Rankings]) -> dict[int, Rankings]:
    """The systems without the levels whose lists equal those of the previous kept level for every user."""
    out: dict[int, Rankings] = {}
    prev = None
    for s in sorted(systems):
        items = systems[s].items
        if prev is None or prev.shape != items.shape or (prev != items).any():
            out[s] = systems[s]
            prev = items
    return out


def shuffled_systems(trace: IdealTrace, n_systems: int = 50, seed: int | None = 0) -> dict[str, Rankings]:
    """P&R Exp. 3 systems: independent random shuffles of every user's ideal list (one stream, users in order)."""
    rng = np.random.default_rng(seed)
    base = trace.ranking
    L = (base.items != PAD).sum(axis=1)
    out = {}
    for b in range(n_systems):
        keys = np.where(np.arange(base.k)[None, :] < L[:, None], rng.random(base.items.shape), np.inf)
        order = np.argsort(keys, axis=1)
        out[f"shuffle{b}"] = Rankings(base.users, np.take_along_axis(base.items, order, axis=1), base.scores.copy(),
                                      base.user_vocab, base.item_vocab)
    return out


# ---------------------------------------------------------------------------------------------------- experiments
def family_systems(trace: IdealTrace, family: str) -> dict[int, Rankings]:
    """The simulated systems of one family at its default levels (50, or 10 for aspect_swap), without the levels
    that change no user's list (`distinct_levels`): what `recdiv meta` and an experiment's [meta] evaluate."""
    if family not in _FUNCS:
        raise ConfigError(f"unknown perturbation {family!r}; choose from {', '.join(FAMILIES)}")
    return distinct_levels(perturbed_systems(trace, family, DEFAULT_LEVELS[family]))


def perturbation_values(systems: Mapping[int, Rankings], qrels: Qrels, measures, context=None
                        ) -> dict[str, dict[int, np.ndarray]]:
    """{measure: {level s: per-user values of the s-perturbed system}} (the users of the context's population)."""
    context = context or EvalContext()
    out = {}
    for text in [measures] if isinstance(measures, str) else measures:
        m = parse_measure(text)
        out[str(text)] = {int(s): np.asarray(m.per_user(systems[s], qrels, context), dtype=np.float64)
                          for s in sorted(systems)}
    return out


@dataclass(frozen=True)
class PerturbationResult:
    """Exp. 1–2 for one measure: levels (ascending, 0 = ideal), mean value per level, τ_b of the means against
    the true order (s = 0 best) and the one-sided Wilcoxon p-value of ideal > level s (levels[1:])."""

    measure: str
    levels: np.ndarray
    means: np.ndarray
    tau: float
    pvalues: np.ndarray

    @classmethod
    def from_values(cls, measure: str, values: Mapping[int, np.ndarray]) -> PerturbationResult:
        """Experiments 1 and 2 from the per-user values of every level ({s: values}, the same users in the same
        order at every level; s = 0 the ideal): the means, their τ_b against −s, and the p-values."""
        levels = np.array(sorted(values), dtype=np.int64)
        means = np.array([values[s].mean() if len(values[s]) else 0.0 for s in levels])
        p = np.array([wilcoxon(values[0], values[s], "greater").p_value for s in levels[1:]])
        return cls(str(measure), levels, means, kendall_tau_b(-levels, means), p)

    def to_dict(self) -> dict:
        """JSON form (NaN → None)."""
        return {"levels": self.levels.tolist(), "means": self.means.tolist(), "tau": _finite(self.tau),
                "pvalues": [_finite(p) for p in self.pvalues]}

    @classmethod
    def from_dict(cls, measure: str, d: Mapping) -> PerturbationResult:
        def arr(xs) -> np.ndarray:
            return np.array([np.nan if x is None else x for x in xs], dtype=np.float64)

        tau = np.nan if d["tau"] is None else float(d["tau"])
        return cls(measure, np.asarray(d["levels"], dtype=np.int64), arr(d["means"]), tau, arr(d["pvalues"]))


def _finite(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def perturbation_experiment(systems: Mapping[int, Rankings], qrels: Qrels, measures, context=None
                            ) -> dict[str, PerturbationResult]:
    """Experiments 1 and 2 (P&R §5.2–5.3) from one evaluation of every system (`PerturbationResult.from_values`)."""
    return {m: PerturbationResult.from_values(m, v)
            for m, v in perturbation_values(systems, qrels, measures, context).items()}


def order_correlation(systems: Mapping[int, Rankings], qrels: Qrels, measures, context=None) -> dict[str, float]:
    """Exp. 1: Kendall τ_b between the true order (lower level s = better) and each measure's mean values."""
    return {m: r.tau for m, r in perturbation_experiment(systems, qrels, measures, context).items()}


def pvalue_curve(systems: Mapping[int, Rankings], qrels: Qrels, measure, context=None) -> dict[int, float]:
    """Exp. 2: one-sided Wilcoxon p-value (H1: ideal > s-perturbed, §F.1 method rule) for every level s ≥ 1."""
    r = perturbation_experiment(systems, qrels, [measure], context)[str(measure)]
    return {int(s): float(p) for s, p in zip(r.levels[1:], r.pvalues)}


def pr_experiment3(qrels: Qrels, aspects, measures, context=None, *, n_systems: int = 50,
                   fractions: Sequence[float] = SPARSITY_LEVELS, n_samples: int = 50,
                   seed: int | None = 0) -> RobustnessCurve:
    """Parapar & Radlinski's Experiment 3 (RecSys 2021 §5.4; METRICS.md §F.6 last bullet).

    Systems: `n_systems` seeded random shuffles of every user's full-length ideal ordering (§F.7; each shuffle
    contains all of the user's test items); removals: `proportional_samples` over `aspect_strata`; every measure
    is recomputed on every degraded test set and the mean Kendall τ_b against the full-data system order is
    reported per fraction kept. ``default_rng(seed)`` draws the seeds of the shuffles and of the removals.
    """
    if n_systems < 2:
        raise ConfigError("robustness needs at least two systems")
    s_sys, s_rem = (int(x) for x in np.random.default_rng(seed).integers(0, 2**63 - 1, size=2))
    width = int(qrels.n_labels().max()) if qrels.matrix.nnz else 1
    runs = shuffled_systems(ideal_trace(qrels, aspects, width), n_systems, seed=s_sys)
    strata, _ = aspect_strata(qrels, aspects)
    return proportional_robustness(runs, qrels, measures, context, strata=strata, fractions=fractions,
                                   n_samples=n_samples, seed=s_rem)
