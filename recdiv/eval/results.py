"""`Results`: systems × measures with the per-user values inside; statistics attach to it (STYLE.md, after ranx).

    res = Results.evaluate({"pop": pop_run, "mmr": mmr_run}, qrels, ["nDCG@10", "P@10", "Gini@10"])
    cmp = res.compare(test="t", correction="holm")          # all pairs; or baseline="pop"
    print(cmp.to_markdown()); cmp.to_latex(); cmp.to_html(title); cmp.to_json()
    res.tukey("nDCG@10"); res.discriminative_power("nDCG@10"); res.plot_tradeoff("nDCG@10", "ILD@10")

Per-user values are **paired**: every system has a value for the same users (the evaluated population of
METRICS.md §0.2); unpaired inputs are refused with a ConfigError. Corrections are applied per measure over
the family of pairs compared for it (m = number of pairs). System-level measures (aggregate diversity, Gini, ...)
have no per-user values: they are kept as one value per system (or one per fold, averaged) and appear in the
tables without tests. Each measure's direction (higher or lower is better) comes from its class
(``HIGHER_IS_BETTER``) and decides the bold "best" value and which way a significant difference is "better".
The experiment report (`recdiv.experiment.report`) is built on this object: one `Results` per dataset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from recdiv.errors import ConfigError, RecdivError
from recdiv.eval.catalog import parse_measure, parse_measures
from recdiv.eval.comparison import Comparison, PairComparison
from recdiv.eval.evaluate import Evaluation, evaluate
from recdiv.eval.meta.discriminative import discriminative_power
from recdiv.eval.plots import plot_tradeoff
from recdiv.eval.stats.corrections import adjust, canonical_correction
from recdiv.eval.stats.significance import (
    BOOTSTRAP_SAMPLES,
    MULTI_SYSTEM_TESTS,
    Alternative,
    canonical_test,
    cohens_dz,
    confidence_interval,
    monte_carlo_samples,
    resample_counts,
    system_pair_pvalues,
)
from recdiv.eval.stats.tukey import TUKEY_SAMPLES, tukey_hsd

__all__ = ["Comparison", "PairComparison", "Results", "higher_is_better"]


def higher_is_better(measure: str) -> bool:
    """The declared direction of a measure (its class's ``HIGHER_IS_BETTER``; True for names that do not parse)."""
    try:
        return bool(getattr(parse_measure(measure), "HIGHER_IS_BETTER", True))
    except RecdivError:
        return True


class Results:
    """Per-user values of several systems on several measures, paired on the same users.

    values: {system: {measure: per-user array}}; every array of a measure has the same length (one entry per
    evaluated user, in the same user order). users: optional user ids — one array shared by all systems, or
    {system: array}; when given per system they must be identical (same users in the same order).
    system_values: {system: {measure: value or array of values (one per fold)}} of system-level measures.
    directions: {measure: higher is better} overriding the measures' declarations (for names that do not parse).
    """

    def __init__(self, values: Mapping[str, Mapping[str, np.ndarray]],
                 users: np.ndarray | Mapping[str, np.ndarray] | None = None, *,
                 system_values: Mapping[str, Mapping[str, float | np.ndarray]] | None = None,
                 directions: Mapping[str, bool] | None = None):
        if not values and not system_values:
            raise ConfigError("Results needs at least one system")
        self._values = {str(s): {str(m): np.asarray(v, dtype=np.float64) for m, v in ms.items()}
                        for s, ms in values.items()}
        self._system = {str(s): {str(m): np.atleast_1d(np.asarray(v, dtype=np.float64)) for m, v in ms.items()}
                        for s, ms in (system_values or {}).items()}
        self.systems: list[str] = list(dict.fromkeys([*self._values, *self._system]))
        for s in self.systems:
            self._values.setdefault(s, {})
        self.per_user_measures: list[str] = list(dict.fromkeys(m for ms in self._values.values() for m in ms))
        self.system_measures: list[str] = list(dict.fromkeys(m for ms in self._system.values() for m in ms))
        both = set(self.per_user_measures) & set(self.system_measures)
        if both:
            raise ConfigError(f"measure {sorted(both)[0]!r} has both per-user and system-level values")
        self.measures: list[str] = self.per_user_measures + self.system_measures
        for s, ms in self._values.items():
            missing = [m for m in self.per_user_measures if m not in ms]
            if missing:
                raise ConfigError(f"system {s!r} has no values for measure {missing[0]!r}")
        self._directions = dict(directions or {})
        self.users = self._check_users(users)
        self._check_paired()

    # construction -----------------------------------------------------------------------------------------------
    @classmethod
    def evaluate(cls, runs, qrels, measures, context=None) -> Results:
        """Evaluate every run on every measure (`recdiv.eval.evaluate`): per-user values, and the one value of
        each system-level measure."""
        ms = parse_measures([measures] if isinstance(measures, str) else measures)
        for m in ms:
            if m.KIND == "pairwise":
                raise ConfigError(f"{m} is a pairwise measure without values of one run; statistics need "
                                  "per-user (or system-level) measures")
        return cls.from_evaluation(evaluate(runs, qrels, ms, context))

    @classmethod
    def from_evaluation(cls, evaluation: Evaluation) -> Results:
        """The `Evaluation` (the one results type of `recdiv.eval.evaluate`) as a table statistics attach to:
        its per-user values (of a pairwise measure: each run's preferences over the evaluation's baseline), the
        values of its system-level measures, and every measure's declared direction."""
        system = [str(m) for m in evaluation.measures if m.KIND == "system"]
        sys_values = {r: {m: evaluation.values[r][m] for m in system} for r in evaluation.runs}
        return cls(evaluation.per_user, users=evaluation.users, system_values=sys_values if system else None,
                   directions={str(m): bool(m.HIGHER_IS_BETTER) for m in evaluation.measures})

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, system: str = "system", user: str = "user",
                   measure: str = "measure", value: str = "value",
                   directions: Mapping[str, bool] | None = None) -> Results:
        """Per-user values made by any tool, as `Results`: a long frame (columns system, measure, user, value: the
        layout of `to_frame`) or a wide one (system, user and one column per measure: LensKit's
        `MeasurementCollector.list_metrics()` frames with a system column added, per-user exports of RecBole or
        Elliot). The user may be the index. Users are paired by id and put in recdiv's order (sorted ids); a system
        without a value for a user another system has is a ConfigError naming both."""
        from recdiv.data.vocab import Vocab

        if user not in frame.columns and user in (frame.index.names or ()):
            frame = frame.reset_index()
        missing = [c for c in (system, user) if c not in frame.columns]
        if missing:
            raise ConfigError(f"the per-user frame has no column {missing[0]!r} (columns: "
                              f"{', '.join(map(str, frame.columns))})")
        if measure in frame.columns and value in frame.columns:
            long = frame[[system, user, measure, value]]
        else:
            cols = [c for c in frame.columns if c not in (system, user)]
            if not cols:
                raise ConfigError(f"the per-user frame has no measure columns besides {system!r} and {user!r}")
            long = frame.melt(id_vars=[system, user], value_vars=cols, var_name=measure, value_name=value)
        systems = list(dict.fromkeys(long[system].astype(str)))
        measures = list(dict.fromkeys(long[measure].astype(str)))
        users = Vocab.from_values(long[user].to_numpy()).ids
        values: dict[str, dict[str, np.ndarray]] = {s: {} for s in systems}
        for (m, s), part in long.groupby([long[measure].astype(str), long[system].astype(str)], sort=False):
            if part[user].duplicated().any():
                raise ConfigError(f"{s!r} / {m!r}: user {part[user][part[user].duplicated()].iloc[0]!r} has "
                                  "several values")
            v = pd.Series(part[value].to_numpy(np.float64), index=part[user].to_numpy()).reindex(users)
            if v.isna().any() and not part[value].isna().any():
                other = next(o for o in systems if o != s) if len(systems) > 1 else s
                raise ConfigError(f"measure {m!r}: system {s!r} has no value for user {v.index[v.isna()][0]!r}, "
                                  f"which another system ({other!r}) has; paired tests need the same users")
            values[s][m] = v.to_numpy()
        for s in systems:
            absent = [m for m in measures if m not in values[s]]
            if absent:
                raise ConfigError(f"system {s!r} has no values for measure {absent[0]!r}")
        return cls(values, users=users, directions=directions)

    @classmethod
    def concat(cls, parts: Mapping[str, Results]) -> Results:
        """Results of disjoint parts pooled — the folds of a k-fold evaluation (one run per fold per system), as an
        experiment pools its splits: per-user values paired on (part, user), so a mean is over all (part, user)
        pairs and a test compares the same pairs of two systems; a system-level measure keeps one value per part
        (its mean is the mean over the parts). Every part needs the same systems and measures."""
        if not parts:
            raise ConfigError("Results.concat needs at least one part")
        first_name, first = next(iter(parts.items()))
        for name, r in parts.items():
            if r.systems != first.systems or r.measures != first.measures:
                what = "systems" if r.systems != first.systems else "measures"
                raise ConfigError(f"part {name!r} has other {what} than part {first_name!r}: "
                                  f"{', '.join(getattr(r, what))} vs {', '.join(getattr(first, what))}")
        values = {s: {m: np.concatenate([r.per_user(s, m) for r in parts.values()]) for m in first.per_user_measures}
                  for s in first.systems}
        system = {s: {m: np.concatenate([r._system[s][m] for r in parts.values()]) for m in first.system_measures}
                  for s in first.systems} if first.system_measures else None
        pairs = [(name, u) for name, r in parts.items() for u in r._user_ids()]
        users = np.empty(len(pairs), dtype=object)
        users[:] = pairs
        return cls(values, users=users if first.per_user_measures else None, system_values=system,
                   directions={m: first.higher_is_better(m) for m in first.measures})

    def _user_ids(self) -> np.ndarray:
        """The user ids, or positions when none were given."""
        if self.users is not None:
            return self.users
        return np.arange(len(self.per_user(self.systems[0], self.per_user_measures[0])) if self.per_user_measures
                         else 0)

    def _check_users(self, users) -> np.ndarray | None:
        if users is None:
            return None
        if not isinstance(users, Mapping):
            return np.asarray(users)
        ref_name = next(iter(users))
        ref = np.asarray(users[ref_name])
        for s, u in users.items():
            u = np.asarray(u)
            if len(u) != len(ref) or not np.array_equal(u, ref):
                common = len(np.intersect1d(u, ref))
                differ = len(u) + len(ref) - 2 * common
                raise ConfigError(
                    f"systems {ref_name!r} and {s!r} are not paired: {differ} users differ ({len(ref)} vs {len(u)} "
                    "users); paired tests need per-user values over the same users in the same order")
        return ref

    def _check_paired(self) -> None:
        n_users = None if self.users is None else len(self.users)
        for m in self.per_user_measures:
            lengths = {s: len(self._values[s][m]) for s in self.systems}
            ref_sys = self.systems[0]
            ref = n_users if n_users is not None else lengths[ref_sys]
            for s, n in lengths.items():
                if n != ref:
                    what = "the user list" if n_users is not None else f"system {ref_sys!r}"
                    raise ConfigError(
                        f"measure {m!r} is not paired: system {s!r} has {n} users but {what} has {ref} "
                        f"({abs(n - ref)} users differ); paired tests need values for the same users")
            for s in self.systems:
                if self._values[s][m].ndim != 1:
                    raise ConfigError(f"{s!r} / {m!r}: per-user values must be a 1-d array")

    # access ---------------------------------------------------------------------------------------------------------
    def per_user(self, system: str, measure: str) -> np.ndarray:
        try:
            return self._values[system][measure]
        except KeyError:
            if measure in self.system_measures:
                raise ConfigError(f"{measure} is a system-level measure: it has no per-user values") from None
            raise ConfigError(f"no values for system {system!r} and measure {measure!r}") from None

    def matrix(self, measure: str, systems: Sequence[str] | None = None) -> np.ndarray:
        """S × n matrix of per-user values of `measure` (rows in `systems` order)."""
        return np.vstack([self.per_user(s, measure) for s in (systems or self.systems)])

    def has(self, system: str, measure: str) -> bool:
        return measure in self._values.get(system, {}) or measure in self._system.get(system, {})

    def mean(self, system: str, measure: str) -> float:
        """Mean of the per-user values, or the (fold-averaged) value of a system-level measure."""
        if measure in self.system_measures:
            v = self._system.get(system, {}).get(measure)
            if v is None:
                raise ConfigError(f"no value for system {system!r} and measure {measure!r}")
            return float(v.mean())
        v = self.per_user(system, measure)
        return float(v.mean()) if len(v) else 0.0

    def count(self, system: str, measure: str) -> int:
        """Number of values behind the mean (users, or folds of a system-level measure)."""
        if measure in self.system_measures:
            return len(self._system.get(system, {}).get(measure, ()))
        return len(self.per_user(system, measure))

    def higher_is_better(self, measure: str) -> bool:
        if measure not in self._directions:
            self._directions[measure] = higher_is_better(measure)
        return self._directions[measure]

    def is_count(self, measure: str) -> bool:
        """A system-level measure whose values are all whole numbers (printed as integers)."""
        if measure not in self.system_measures:
            return False
        vals = [self.mean(s, measure) for s in self.systems if self.has(s, measure)]
        return bool(vals) and all(math.isfinite(v) and float(v).is_integer() for v in vals)

    def means(self) -> pd.DataFrame:
        """systems × measures table of mean values."""
        return pd.DataFrame({m: [self.mean(s, m) if self.has(s, m) else np.nan for s in self.systems]
                             for m in self.measures}, index=self.systems)

    def to_frame(self) -> pd.DataFrame:
        """Long table: system, measure, user (position or id), value (per-user measures)."""
        rows = []
        for s in self.systems:
            for m in self.per_user_measures:
                v = self._values[s][m]
                u = self.users if self.users is not None else np.arange(len(v))
                rows.append(pd.DataFrame({"system": s, "measure": m, "user": u, "value": v}))
        return pd.concat(rows, ignore_index=True)

    def __repr__(self) -> str:
        return f"Results({len(self.systems)} systems × {len(self.measures)} measures)"

    # statistics -----------------------------------------------------------------------------------------------------
    def compare(
        self,
        baseline: str | Mapping[str, str | None] | None = None,
        test: str = "t",
        correction: str | None = "holm",
        measures: Sequence[str] | str | None = None,
        alpha: float = 0.05,
        alternative: Alternative = "two-sided",
        seed: int | None = 0,
        n_samples: int | None = None,
        *,
        ci: str = "t",
        confidence: float = 0.95,
        ci_samples: int | None = None,
        keys: Mapping[str, Hashable] | None = None,
        memo: Callable[[Hashable, Callable[[], Any]], Any] | None = None,
    ) -> Comparison:
        """Tests between systems, per measure, with confidence intervals.

        baseline=None: every unordered pair (a, b) of systems, a before b in `systems` order; baseline=name:
        each other system a against the baseline b; baseline={system: its baseline or None}: each system against
        its own baseline (experiments). p-values are adjusted per measure over its pairs (`correction`); the
        Tukey HSDs (test="tukey": randomised and paired, "tukey-anova") give family-wise p-values over all pairs
        of systems, so no correction is applied to them. effect_size = Cohen's d_z of (a − b).
        ci: "t" or "bootstrap" intervals at level `confidence` for every mean and every tested difference
        (`recdiv.eval.stats.significance.confidence_interval`; bootstrap: B = `ci_samples` or 1000, `seed`).
        System-level measures get means only.
        keys={system: key} and memo(key, build) (both or neither) let a caller that asks for many overlapping
        tables (`recdiv explore`) keep their parts: a system's key stands for its per-user values (the same key,
        the same values), and memo returns what it keeps under a key or builds it, keeps it and returns it. Kept:
        the bootstrap counts, each interval, the p-value of each pair for the tests computed pair by pair (t,
        Wilcoxon, sign) and the p-values of the table for the others. The values are those of a call without them.
        """
        test = canonical_test(test)
        correction = canonical_correction(correction)
        if test in MULTI_SYSTEM_TESTS:
            if correction != "none":
                raise ConfigError(f"{test} gives family-wise p-values over all pairs of systems: use no correction "
                                  f"(correction none), not {correction}")
            if alternative != "two-sided":
                raise ConfigError("Tukey HSD is two-sided only")
        if ci not in ("t", "bootstrap"):
            raise ConfigError(f"confidence intervals are t or bootstrap, got {ci!r}")
        if not 0 < confidence < 1:
            raise ConfigError(f"confidence must be in (0, 1), got {confidence}")
        measures = [measures] if isinstance(measures, str) else list(measures or self.measures)
        for m in measures:
            if m not in self.measures:
                raise ConfigError(f"unknown measure {m!r}; measures in these results: {', '.join(self.measures)}")
        pairs = self._pairs(baseline)
        ci_opts = {"level": confidence, "method": ci, "seed": seed}
        if ci_samples is not None:
            ci_opts["n_samples"] = ci_samples
        if (keys is None) != (memo is None) or (keys is not None and not set(self.systems) <= set(keys)):
            raise ConfigError("compare: give keys (one per system) and memo together")
        kept = _kept(keys, memo)
        n_samples = n_samples or (TUKEY_SAMPLES if test == "tukey" else None)
        out: list[PairComparison] = []
        mean_ci: dict[str, dict[str, tuple[float, float]]] = {}
        for m in measures:
            if m in self.system_measures:
                continue
            Y = self.matrix(m)
            if ci == "bootstrap" and Y.shape[1] >= 2 and "counts" not in ci_opts:  # drawn once for the table
                b = ci_opts.get("n_samples", BOOTSTRAP_SAMPLES)
                ci_opts["counts"] = kept(("counts", b, Y.shape[1], seed), (), resample_counts, b, Y.shape[1], seed)
            setting = (m, ci, confidence, ci_samples, seed)
            mean_ci[m] = {s: kept(("ci", *setting), (s,), _interval, Y[i], None, ci_opts)
                          for i, s in enumerate(self.systems)}
            if not pairs:
                continue
            idx = [(self.systems.index(a), self.systems.index(b)) for a, b in pairs]
            tested = ("p", m, test, alternative, seed, n_samples)
            if test in PER_PAIR_TESTS:  # the p-value of a pair does not depend on the other pairs
                p = np.concatenate([kept(tested, pair, system_pair_pvalues, Y, [ij], test, alternative, seed=seed,
                                         n_samples=n_samples) for pair, ij in zip(pairs, idx)])
            else:
                p = kept((*tested, tuple(pairs)), tuple(self.systems), system_pair_pvalues, Y, idx, test, alternative,
                         seed=seed, n_samples=n_samples)
            p = np.nan_to_num(p, nan=1.0)
            p_adj = adjust(p, correction)
            for (a, b), (i, j), pv, pa in zip(pairs, idx, p, p_adj):
                d = np.round(Y[i] - Y[j], 12)
                lo, hi = kept(("ci", *setting), (a, b), _interval, Y[i], Y[j], ci_opts)
                out.append(PairComparison(m, a, b, self.mean(a, m), self.mean(b, m), float(pv), float(pa),
                                          cohens_dz(d), bool(pa < alpha), float(d.mean()) if len(d) else 0.0,
                                          lo, hi))
        means = {m: {s: self.mean(s, m) for s in self.systems if self.has(s, m)} for m in measures}
        one = baseline if isinstance(baseline, str) else None
        many = dict(baseline) if isinstance(baseline, Mapping) else None
        return Comparison(list(self.systems), measures, means, out, test, correction, alpha, alternative, one,
                          baselines=many, mean_ci=mean_ci, ci_method=ci, confidence=confidence,
                          higher_is_better={m: self.higher_is_better(m) for m in measures},
                          integer={m: self.is_count(m) for m in measures},
                          n={m: {s: self.count(s, m) for s in self.systems if self.has(s, m)} for m in measures},
                          samples=monte_carlo_samples(test, n_samples),
                          results=self)

    def _pairs(self, baseline) -> list[tuple[str, str]]:
        if baseline is None:
            return [(a, b) for i, a in enumerate(self.systems) for b in self.systems[i + 1:]]
        if isinstance(baseline, str):
            if baseline not in self.systems:
                raise ConfigError(f"baseline {baseline!r} is not one of the systems: {', '.join(self.systems)}")
            return [(a, baseline) for a in self.systems if a != baseline]
        for s, b in baseline.items():
            if s not in self.systems or (b is not None and b not in self.systems):
                bad = s if s not in self.systems else b
                raise ConfigError(f"baseline mapping names {bad!r}, which is not one of the systems")
        return [(s, baseline[s]) for s in self.systems if baseline.get(s) is not None]

    # groups -------------------------------------------------------------------------------------------------------
    def subset(self, mask) -> Results:
        """The per-user measures over the users where `mask` (one bool per user) is true (system-level measures
        are dropped: they have no per-user values to split)."""
        mask = np.asarray(mask, dtype=bool)
        values = {s: {m: v[mask] for m, v in ms.items()} for s, ms in self._values.items()}
        users = None if self.users is None else self.users[mask]
        return Results(values, users=users, directions={m: self.higher_is_better(m) for m in self.per_user_measures})

    def by_group(self, labels) -> dict[str, Results]:
        """{group: Results of its users} for one label per user (None: in no group); `recdiv.eval.groups`."""
        from recdiv.eval.groups import group_order

        labels = np.asarray(labels, dtype=object)
        if self.per_user_measures and len(labels) != len(self.per_user(self.systems[0], self.per_user_measures[0])):
            raise ConfigError(f"{len(labels)} group labels for "
                              f"{len(self.per_user(self.systems[0], self.per_user_measures[0]))} users")
        return {g: self.subset(labels == g) for g in group_order(labels)}

    def compare_groups(self, labels, **options) -> dict[str, Comparison]:
        """`compare` inside each group (tests and corrections per group and measure); options as `compare`."""
        out = {}
        for g, res in self.by_group(labels).items():
            if res.per_user_measures and len(res.per_user(res.systems[0], res.per_user_measures[0])) >= 2:
                measures = options.get("measures")
                opts = {**options, "measures": [m for m in (measures or res.measures) if m in res.measures]}
                out[g] = res.compare(**opts)
        return out

    def tukey(self, measure: str, method: str = "randomised", **options):
        """Tukey HSD over all systems (`recdiv.eval.stats.tukey.tukey_hsd`: randomised and paired by default,
        method="anova" for the blocked-ANOVA version)."""

        return tukey_hsd(self.matrix(measure), self.systems, method=method, **options)

    def discriminative_power(self, measure: str, **options):
        """Discriminative power of `measure` over all system pairs (`recdiv.eval.meta.discriminative`)."""

        return discriminative_power(self.matrix(measure), names=self.systems, **options)

    def tradeoff(self, x_measure: str, y_measure: str, systems: Sequence[str] | None = None, **options):
        """Pareto front, hypervolume, area under the front and accuracy-retention points of `systems` (default all)
        on two per-user measures, with bootstrap intervals over users (`recdiv.eval.stats.fronts.tradeoff`:
        `reference`, `baseline`, `fractions`, `n_samples`, `seed`, `level`)."""
        from recdiv.eval.stats.fronts import tradeoff

        systems = list(systems or self.systems)
        return tradeoff(self.matrix(x_measure, systems), self.matrix(y_measure, systems), systems,
                        (x_measure, y_measure), (self.higher_is_better(x_measure), self.higher_is_better(y_measure)),
                        **options)

    def compare_fronts(self, x_measure: str, y_measure: str, a: Sequence[str], b: Sequence[str], **options):
        """Front of systems `a` against front of systems `b` (e.g. two rerankers' λ grids) on the same users and
        reference point: hypervolume difference with interval and p-value, dominance shares
        (`recdiv.eval.stats.fronts.compare_fronts`)."""
        from recdiv.eval.stats.fronts import compare_fronts

        higher = (self.higher_is_better(x_measure), self.higher_is_better(y_measure))
        return compare_fronts(self.matrix(x_measure, list(a)), self.matrix(y_measure, list(a)), list(a),
                              self.matrix(x_measure, list(b)), self.matrix(y_measure, list(b)), list(b),
                              (x_measure, y_measure), higher, **options)

    def plot_tradeoff(self, x_measure: str, y_measure: str, path=None, ax=None):
        """Scatter of the system means on two measures (e.g. nDCG@10 vs ILD@10); returns the Figure."""

        xs = [self.mean(s, x_measure) for s in self.systems]
        ys = [self.mean(s, y_measure) for s in self.systems]
        return plot_tradeoff(dict(zip(self.systems, zip(xs, ys))), x_measure, y_measure, path=path, ax=ax)


#: tests whose p-value of a pair is computed from that pair alone (`pairwise_pvalues` column by column)
PER_PAIR_TESTS = ("t", "wilcoxon", "sign")


def _kept(keys: Mapping[str, Hashable] | None, memo) -> Callable[..., Any]:
    """kept(what, systems, f, *args, **kwargs): f(*args, **kwargs) — kept by `memo` under (what, the systems' keys)
    when given."""

    def kept(what: tuple, systems: tuple, f: Callable[..., Any], *args, **kwargs) -> Any:
        if memo is None or keys is None:
            return f(*args, **kwargs)
        return memo(("Results.compare", what, tuple(keys[s] for s in systems)), lambda: f(*args, **kwargs))

    return kept


def _interval(x, y, opts) -> tuple[float, float]:
    """Confidence interval of mean(x) (y None) or of mean(x − y); (mean, mean) with fewer than 2 users."""
    x = np.asarray(x)
    if len(x) < 2:
        v = float(x.mean() - (0 if y is None else np.asarray(y).mean())) if len(x) else math.nan
        return v, v
    return confidence_interval(x, y, **opts)
