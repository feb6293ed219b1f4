"""Measures as typed value objects: ``Name(param=value,...)@K`` with declared parameters, of one of three kinds.

A measure class declares its name, its parameters (`Param`: name, type, default, choices or range,
description), whether it takes a cutoff, its formula, citation and docs/metrics.mdsection, whether higher values
are better, and registers itself in `MEASURES` with `@register`. Parsing and validation
(`recdiv.eval.catalog.parse_measure`), printing (`str()` gives the canonical form: parameters in declaration
order, defaults omitted, so `str(parse_measure(s)) == s` for canonical strings), `recdiv eval --list` and
docs/metrics.md all come from these declarations. Instances are immutable and hashable.

The kind of a measure is its base class:

- `PerUserMeasure`: a value per evaluated user (`per_user`), the system value is their mean (`aggregate`);
- `SystemMeasure`: one value for a whole run (aggregate diversity, Gini, ...), no per-user values;
- `PairwiseMeasure`: a preference per user between two runs (`compare`; lexicographic preferences).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from recdiv.data.samples import samples_of
from recdiv.errors import ConfigError
from recdiv.eval.context import EvalContext, RunView
from recdiv.limits import MAX_CUTOFF, at_most
from recdiv.registry import Registry

if TYPE_CHECKING:
    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings

__all__ = ["MEASURES", "Measure", "PairwiseMeasure", "Param", "PerUserMeasure", "SystemMeasure", "register"]


@dataclass(frozen=True)
class Param:
    """A declared measure parameter.

    type: int, float, str or bool; choices: the allowed values (str parameters); low/high: inclusive bounds
    unless low_open/high_open; spec: for parameters written in a small language of their own (rank discounts,
    relevance models), a function that parses the text and raises ConfigError if it is not valid.
    """

    name: str
    type: type
    default: Any
    description: str = ""
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    spec: Callable[[str], Any] | None = None

    def coerce(self, measure: str, value: Any) -> Any:
        """The value as this parameter's type (text from a measure string is converted); ConfigError if not."""
        t = self.type
        try:
            if isinstance(value, str) and t is not str:
                if t is bool:
                    if value.lower() not in ("true", "false", "1", "0"):
                        raise ValueError
                    return value.lower() in ("true", "1")
                return t(float(value)) if t is int and float(value).is_integer() else t(value)
            if t is float and isinstance(value, int | float | np.number) and not isinstance(value, bool):
                return float(value)
            if t is int and isinstance(value, int | np.integer) and not isinstance(value, bool):
                return int(value)
            if t is str:
                return str(value)
            if isinstance(value, t):
                return value
            raise ValueError
        except ValueError:
            raise ConfigError(f"{measure}: parameter {self.name}={value!r} is not a valid {t.__name__}") from None

    def check(self, measure: str, value: Any) -> None:
        """ConfigError naming the measure and the parameter if `value` is not allowed."""
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"{measure}: {self.name} must be one of {', '.join(map(_fmt, self.choices))}, "
                              f"got {value!r}")
        if self.low is not None or self.high is not None:
            if isinstance(value, float) and math.isnan(value):
                raise ConfigError(f"{measure}: {self.name} must be a number, got nan")
            below = self.low is not None and (value <= self.low if self.low_open else value < self.low)
            above = self.high is not None and (value >= self.high if self.high_open else value > self.high)
            if below or above:
                raise ConfigError(f"{measure}: {self.name} must be in {self.range_text()}, got {_fmt(value)}")
        if self.spec is not None:
            try:
                self.spec(value)
            except ConfigError as e:
                raise ConfigError(f"{measure}: {self.name}={value}: {e}") from None

    def range_text(self) -> str:
        lo = "−∞" if self.low is None else _fmt(self.low)
        hi = "∞" if self.high is None else _fmt(self.high)
        left = "(" if self.low_open or self.low is None else "["
        right = ")" if self.high_open or self.high is None else "]"
        return f"{left}{lo}, {hi}{right}"

    def describe(self) -> str:
        """One line for `--list` and docs/metrics.md: description, then the allowed values."""
        allowed = ""
        if self.choices is not None:
            allowed = "one of " + ", ".join(map(_fmt, self.choices))
        elif self.low is not None or self.high is not None:
            allowed = "in " + self.range_text()
        return "; ".join(x for x in (self.description, allowed) if x)


#: every measure class by canonical name (spelling rule of `recdiv.registry`: case and punctuation are ignored)
MEASURES: Registry[type[Measure]] = Registry("measure", group="recdiv.measures", base="recdiv.eval.measure:Measure")


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator for measures outside recdiv: make a measure class available to `parse_measure` under
    `cls.NAME` (and `cls.ALIASES`) when its module is imported. (The built-ins are registered in
    `recdiv.eval.catalog.BUILTINS`, imported on first lookup.)"""
    return MEASURES.add(cls.NAME, cls, aliases=cls.ALIASES)


class Measure:
    """A metric with fixed parameters and an optional cutoff (use one of the three kinds below as the base).

    Subclasses set NAME, PARAMS (a tuple of `Param`, in printing order), CUTOFF ("optional", "required" or
    "none"), FORMULA, CITATION, SECTION (of docs/metrics.md), FAMILY (the section of the metric reference:
    "accuracy", "novelty", "diversity", "system", "intent-aware", "unified", "preference"), NEEDS (context
    parts required: "train", "aspects", "previous"), HIGHER_IS_BETTER, optionally ALIASES, and may override
    `validate` for checks that involve several parameters.
    """

    NAME: ClassVar[str] = ""
    ALIASES: ClassVar[tuple[str, ...]] = ()
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    CUTOFF: ClassVar[str] = "optional"
    FORMULA: ClassVar[str] = ""
    CITATION: ClassVar[str] = ""
    SECTION: ClassVar[str] = ""
    FAMILY: ClassVar[str] = "accuracy"
    NEEDS: ClassVar[tuple[str, ...]] = ()
    HIGHER_IS_BETTER: ClassVar[bool] = True
    #: the system value pools every user's pairs (a ratio of sums: FCP, RMSE, MAE) instead of aggregating the
    #: per-user values alone; tools that average per-query values (ir_measures) cannot reproduce it
    POOLED: ClassVar[bool] = False
    #: "per-user", "system" or "pairwise" (set by the three base classes)
    KIND: ClassVar[str] = ""
    #: True for measures that read every sample of a stochastic run (`RankingSamples`) themselves (expected
    #: exposure); any other measure of such a run is its expected value over the samples
    STOCHASTIC: ClassVar[bool] = False
    #: the interval every value lies in, whatever the parameters and the data (None: not declared); the conformance
    #: suite (`recdiv.testing.conformance.check_measure`) checks every per-user and system value against it
    RANGE: ClassVar[tuple[float, float] | None] = None
    #: True where a user's value at cutoff K never exceeds its value at a larger cutoff, whatever the parameters
    #: and the data (sums of non-negative terms over the top K with a fixed normaliser: RR, ERR, RBP, HitRate, ...);
    #: the system value of a system measure likewise. The conformance suite checks it at several cutoffs
    MONOTONE_IN_CUTOFF: ClassVar[bool] = False

    __slots__ = ("cutoff", "params")

    def __init__(self, cutoff: int | None = None, **params):
        declared = self.param_map()
        unknown = set(params) - set(declared)
        if unknown:
            raise ConfigError(f"{self.NAME} has no parameter {sorted(unknown)[0]!r}; "
                              f"parameters: {', '.join(declared) or 'none'}")
        if self.CUTOFF == "none" and cutoff is not None:
            raise ConfigError(f"{self.NAME} takes no cutoff")
        if self.CUTOFF == "required" and cutoff is None:
            raise ConfigError(f"{self.NAME} needs a cutoff, e.g. {self.NAME}@10")
        if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int | np.integer) or cutoff < 1):
            raise ConfigError(f"cutoff must be a positive integer, got {cutoff!r}")
        if cutoff is not None:
            at_most(f"cutoff of {self.NAME}", int(cutoff), MAX_CUTOFF)
        full = {p.name: p.default for p in self.PARAMS}
        for k, v in params.items():
            full[k] = declared[k].coerce(self.NAME, v)
        for p in self.PARAMS:
            p.check(self.NAME, full[p.name])
        object.__setattr__(self, "params", full)
        object.__setattr__(self, "cutoff", None if cutoff is None else int(cutoff))
        self.validate()

    @classmethod
    def param_map(cls) -> dict[str, Param]:
        return {p.name: p for p in cls.PARAMS}

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {p.name: p.default for p in cls.PARAMS}

    def validate(self) -> None:
        """Checks that involve several parameters; raise ConfigError naming the problem."""

    # value-object behaviour ----------------------------------------------------------------------
    def __setattr__(self, key, value):
        raise AttributeError("measures are immutable")

    def __getattr__(self, key):
        try:
            return object.__getattribute__(self, "params")[key]
        except KeyError:
            raise AttributeError(key) from None

    def _key(self):
        return (self.NAME, tuple(sorted(self.params.items())), self.cutoff)

    def __eq__(self, other) -> bool:
        return isinstance(other, Measure) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        ps = [f"{p.name}={_fmt(self.params[p.name])}" for p in self.PARAMS if self.params[p.name] != p.default]
        s = self.NAME + (f"({','.join(ps)})" if ps else "")
        return s + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def __repr__(self) -> str:
        return f"<{self}>"

    def __matmul__(self, cutoff: int) -> Measure:
        """`NDCG() @ 10` → nDCG@10 (ir_measures style)."""
        return type(self)(cutoff, **{p.name: self.params[p.name] for p in self.PARAMS
                                     if self.params[p.name] != p.default})

    def uses_max_grade(self) -> bool:
        """Whether the values depend on the maximum grade r_max of the rating scale (`EvalContext.scale`, or the
        largest test grade when no scale is declared): graded gains normalised by r_max, ERR's 2^{g_max}."""
        return False

    def depth_bound(self) -> bool:
        """Whether the value at a cutoff beyond the data's depth (`RunView.depth`: the longest list, the most judged
        items of a user, the longest previous list) is the value at that depth — true of every measure that sums
        over the positions of a list and of its ideal list. Measures with K in their formula (P@K divides by K) say
        False and keep their arrays within the lists themselves."""
        return True

    def at_depth(self, view) -> Measure:
        """This measure, or the same measure at the data's depth when its cutoff is beyond it and `depth_bound`:
        the work of a cutoff of 10⁹ is the work of the longest list (recdiv.limits)."""
        if self.cutoff is None or self.cutoff <= view.depth or not self.depth_bound():
            return self
        return self @ view.depth

    def _check_context(self, context: EvalContext) -> None:
        for need in self.NEEDS:
            if getattr(context, need, None) is None:
                option = need.replace("_", "-")
                raise ConfigError(f"{self} needs `{need}` in the evaluation context (e.g. --{option} FILE)")



class PerUserMeasure(Measure):
    """A value per evaluated user; the system value aggregates them (the mean, unless `aggregate` says else).
    Subclasses implement `compute(view)` over a `RunView`."""

    KIND = "per-user"

    def per_user(self, rankings: Rankings, qrels: Qrels, context: EvalContext | None = None) -> np.ndarray:
        """Per-user values over the evaluated population (`RunView.of(context, ...).users` order). Of a stochastic
        run (`RankingSamples`): each user's mean over the samples where the value is defined."""
        context = context or EvalContext()
        self._check_context(context)
        samples = samples_of(rankings)
        if samples is not None and not self.STOCHASTIC:
            values = np.stack([self._computed(self.run_view(s, qrels, context)) for s in samples])
            defined = ~np.isnan(values)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(defined.any(axis=0), np.where(defined, values, 0.0).sum(axis=0) / defined.sum(axis=0),
                                np.nan)
        return self._computed(self.run_view(rankings, qrels, context))

    def _computed(self, view) -> np.ndarray:
        """`compute` at the cutoff the data bounds (`at_depth`: a cutoff beyond the data's depth costs that depth)."""
        return self.at_depth(view).compute(view)

    def run_view(self, rankings: Rankings, qrels: Qrels, context: EvalContext):
        """The `RunView` this measure computes on: the context's (a measure with its own relevance level, `rel=`,
        judges the same users at that level)."""
        return RunView.of(context, rankings, qrels)

    def compute(self, view) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def aggregate(self, values: np.ndarray, view) -> float:
        """System value from the per-user values of `view`: `aggregate_final` of `aggregate_state`."""
        return self.aggregate_final(values, self.aggregate_state(values, view))

    def aggregate_state(self, values: np.ndarray, view):
        """What the system value needs of a block of users besides their per-user values, as a mergeable partial
        result (`recdiv.eval.partial`; None: nothing). A streamed evaluation merges the blocks' states."""
        return None

    def aggregate_final(self, values: np.ndarray, state) -> float:
        """The system value from the per-user values of every evaluated user (population order) and the merged
        `aggregate_state`s: the mean over the evaluated users, unless a measure says otherwise."""
        return float(np.mean(values)) if len(values) else 0.0

    def value(self, rankings: Rankings, qrels: Qrels, context: EvalContext | None = None) -> float:
        """The system value: `aggregate` of the per-user values."""
        context = context or EvalContext()
        return self.aggregate_run(self.per_user(rankings, qrels, context), rankings, qrels, context)

    def aggregate_run(self, values: np.ndarray, rankings: Rankings, qrels: Qrels, context: EvalContext) -> float:
        """The system value from the per-user `values` of `rankings`; of a stochastic run whose measure has its
        own `aggregate` (not the mean), the mean of the samples' system values."""
        samples = samples_of(rankings)
        if samples is None or self.STOCHASTIC:
            view = self.run_view(samples[0] if samples else rankings, qrels, context)
            return float(self.aggregate(values, view))
        if type(self).aggregate is PerUserMeasure.aggregate:
            return float(np.mean(values)) if len(values) else 0.0
        return float(np.mean([self.value(s, qrels, context) for s in samples]))


class SystemMeasure(Measure):
    """One value for a whole run (`value`), computed over all users' lists at once; no per-user values."""

    KIND = "system"

    def per_user(self, rankings: Rankings, qrels: Qrels, context: EvalContext | None = None) -> np.ndarray:
        raise ConfigError(f"{self} is a system-level measure: it has no per-user values (use .value(...))")

    def value(self, rankings: Rankings, qrels: Qrels, context: EvalContext | None = None) -> float:
        """The system value; of a stochastic run (`RankingSamples`), the mean of the samples' values."""
        context = context or EvalContext()
        self._check_context(context)
        samples = samples_of(rankings)
        if samples is not None and not self.STOCHASTIC:
            return float(np.mean([self.system_value(s, qrels, context) for s in samples]))
        return self.system_value(rankings, qrels, context)

    def system_value(self, rankings: Rankings, qrels: Qrels, context: EvalContext) -> float:
        """`finish` of the `block_state` of all lists: the one formula of the in-memory and the streamed paths."""
        return self.finish(self.block_state(rankings, qrels, context), len(rankings.item_vocab))

    def block_state(self, rankings: Rankings, qrels: Qrels, context: EvalContext):  # pragma: no cover - abstract
        """A mergeable partial result (`recdiv.eval.partial`) of the lists of `rankings` (one block of users)."""
        raise NotImplementedError

    def finish(self, state, n_items: int) -> float:  # pragma: no cover - abstract
        """The system value from the merged state of every block (`n_items`: the size of the item vocabulary)."""
        raise NotImplementedError


class PairwiseMeasure(Measure):
    """A preference of one run over another for every evaluated user (+1, 0, −1; `compare`); no value of a
    single run. Subclasses implement `_rule(rel_x, rel_y)` over the two runs' relevance arrays."""

    KIND = "pairwise"
    FAMILY = "preference"

    def compare(self, run_x: Rankings, run_y: Rankings, qrels: Qrels,
                context: EvalContext | None = None) -> np.ndarray:
        """Per-user preference of run_x over run_y over the evaluated population (+1: X preferred)."""
        context = context or EvalContext()
        self._check_context(context)
        if samples_of(run_x) is not None or samples_of(run_y) is not None:
            raise ConfigError(f"{self} compares two rankings per user: a stochastic run (several sampled rankings) "
                              "has no single ranking to compare")
        vx, vy = RunView.of(context, run_x, qrels), RunView.of(context, run_y, qrels)
        return self._rule(_cut(vx.rel, self.cutoff), _cut(vy.rel, self.cutoff))

    def _rule(self, rel_x: np.ndarray, rel_y: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _single_run(self) -> ConfigError:
        return ConfigError(f"{self} compares two runs: it has no value of a single run (use preference_per_user("
                           f"{str(self)!r}, run_x, run_y, qrels, context) or .compare(...))")

    def per_user(self, rankings, qrels, context=None):
        raise self._single_run()

    def value(self, rankings, qrels, context=None):
        raise self._single_run()


def _cut(rel: np.ndarray, k: int | None) -> np.ndarray:
    return rel if k is None else rel[:, :k]


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if not v.is_integer() else str(int(v)) if abs(v) < 1e15 else repr(v)
    return str(v)
