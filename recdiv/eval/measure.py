"""Typed measure objects parsed from ir_measures-style strings: ``Name(param=value,...)@K``.

A measure class declares its name, parameters (with defaults), whether it takes a cutoff, its formula
and its citation, and registers itself with `@register`. `recdiv.eval.catalog.parse_measure("nDCG(gain=exp)@10")`
returns an instance; `str()` prints the canonical form (parameters in declaration order, defaults omitted), so
`str(parse_measure(s)) == s` for canonical strings. Instances are hashable value objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.context import EvalContext

if TYPE_CHECKING:
    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings

REGISTRY: dict[str, type[Measure]] = {}


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator: make a measure class available to `parse_measure` under `cls.NAME`."""
    if cls.NAME in REGISTRY and REGISTRY[cls.NAME] is not cls:
        raise ValueError(f"measure name {cls.NAME!r} registered twice")
    REGISTRY[cls.NAME] = cls
    return cls


class Measure:
    """A metric with fixed parameters and an optional cutoff.

    Subclasses set NAME, PARAMS (name -> default; the default's type is the parameter's type), CUTOFF
    ("optional", "required" or "none"), FORMULA, CITATION, SECTION (of METRICS.md), KIND
    ("accuracy", "novelty", "diversity", "intent-aware", "unified", "preference", "system"), NEEDS
    (context parts required: "train", "aspects", "previous", ...) and implement `compute`.
    """

    NAME: ClassVar[str] = ""
    PARAMS: ClassVar[dict[str, Any]] = {}
    CUTOFF: ClassVar[str] = "optional"
    FORMULA: ClassVar[str] = ""
    CITATION: ClassVar[str] = ""
    SECTION: ClassVar[str] = ""
    KIND: ClassVar[str] = "accuracy"
    NEEDS: ClassVar[tuple[str, ...]] = ()
    #: per-user values are combined by the mean; system-level measures override `aggregate`
    SYSTEM_LEVEL: ClassVar[bool] = False

    __slots__ = ("cutoff", "params")

    def __init__(self, cutoff: int | None = None, **params):
        unknown = set(params) - set(self.PARAMS)
        if unknown:
            raise ConfigError(f"{self.NAME} has no parameter {sorted(unknown)[0]!r}; "
                              f"parameters: {', '.join(self.PARAMS) or 'none'}")
        if self.CUTOFF == "none" and cutoff is not None:
            raise ConfigError(f"{self.NAME} takes no cutoff")
        if self.CUTOFF == "required" and cutoff is None:
            raise ConfigError(f"{self.NAME} needs a cutoff, e.g. {self.NAME}@10")
        if cutoff is not None and (not isinstance(cutoff, int | np.integer) or cutoff < 1):
            raise ConfigError(f"cutoff must be a positive integer, got {cutoff!r}")
        full = dict(self.PARAMS)
        for k, v in params.items():
            full[k] = _coerce(self.NAME, k, v, self.PARAMS[k])
        object.__setattr__(self, "params", full)
        object.__setattr__(self, "cutoff", None if cutoff is None else int(cutoff))
        self.validate()

    def validate(self) -> None:
        """Check parameter values; raise ConfigError naming the bad one."""

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
        ps = [f"{k}={_fmt(v)}" for k, v in self.params.items() if v != self.PARAMS[k]]
        s = self.NAME + (f"({','.join(ps)})" if ps else "")
        return s + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def __repr__(self) -> str:
        return f"<{self}>"

    def __matmul__(self, cutoff: int) -> Measure:
        """`NDCG() @ 10` → nDCG@10 (ir_measures style)."""
        return type(self)(cutoff, **{k: v for k, v in self.params.items() if v != self.PARAMS[k]})

    # computing -----------------------------------------------------------------------------------
    def per_user(self, rankings: Rankings, qrels: Qrels, context: EvalContext | None = None) -> np.ndarray:
        """Per-user values over the evaluated population (`context.view(...).users` order)."""
        context = context or EvalContext()
        for need in self.NEEDS:
            if getattr(context, need, None) is None:
                raise ConfigError(f"{self} needs `{need}` in the evaluation context (e.g. --{need} FILE)")
        return self.compute(context.view(rankings, qrels))

    def compute(self, view) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def uses_max_grade(self) -> bool:
        """Whether the values depend on the maximum grade r_max of the rating scale (`EvalContext.scale`, or the
        largest test grade when no scale is declared): graded gains normalised by r_max, ERR's 2^{g_max}."""
        return False

    def aggregate(self, values: np.ndarray) -> float:
        """System value from per-user values (the mean over the evaluated users)."""
        return float(np.mean(values)) if len(values) else 0.0

    def value(self, rankings: Rankings, qrels: Qrels, context: EvalContext | None = None) -> float:
        """The system-level value. Per-user measures: the mean of `per_user`. System-level measures
        (SYSTEM_LEVEL = True: aggregate diversity, Gini, ...) override this and have no per-user values."""
        return self.aggregate(self.per_user(rankings, qrels, context))


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if not v.is_integer() else str(int(v)) if abs(v) < 1e15 else repr(v)
    return str(v)


def _coerce(name: str, key: str, value, default):
    t = type(default)
    try:
        if isinstance(value, str) and t is not str:
            if t is bool:
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError
                return value.lower() in ("true", "1")
            return t(float(value)) if t is int and float(value).is_integer() else t(value)
        if t is float and isinstance(value, int | float | np.number):
            return float(value)
        if t is int and isinstance(value, int | np.integer):
            return int(value)
        if t is str:
            return str(value)
        if isinstance(value, t):
            return value
        raise ValueError
    except ValueError:
        raise ConfigError(f"{name}: parameter {key}={value!r} is not a valid {t.__name__}") from None
