"""Evaluation on in-memory data, and the one results type of every evaluation.

`evaluate(runs, qrels, measures, context)` evaluates runs (`Rankings`) against qrels and returns an
`Evaluation`; `recdiv.eval.io.evaluate_files` does the same from TREC files, `recdiv.eval.io.evaluate_itemlists`
from LensKit item lists. Per-user preferences between two runs: `preference_per_user`, `preference_summary`
(docs/intent-aware.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure, parse_measures
from recdiv.eval.context import EvalContext
from recdiv.eval.measure import Measure, PairwiseMeasure

if TYPE_CHECKING:  # pandas and scipy load where they are used: `recdiv eval` needs neither
    import pandas as pd

__all__ = ["Evaluation", "PreferenceSummary", "evaluate", "preference_per_user", "preference_summary"]


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Runs × measures evaluated against one qrels under one context: a plain record of the numbers.

    measures: the measures, parsed (`str(m)` is the key of every table below), in the order asked;
    runs: the run names; users: the external ids of the evaluated users (docs/metrics.md) — the order of
    every per-user array; per_user: {run: {measure: per-user values}} for the per-user measures (NaN = a user
    the measure skips, e.g. Spearman with fewer than two rated items); values: {run: {measure: system value}}
    for every measure (the mean of the per-user values, or the measure's own aggregate: system-level measures,
    FCP, rank effectiveness); threshold and population: the relevance threshold τ and the population used.
    Each measure's direction (`HIGHER_IS_BETTER`) and kind (`KIND`) come with the measure objects.
    spellings: a measure as the caller wrote it → the key it was evaluated under, where conventions filled in
    parameters (``ERR-IA@13`` with subtopic qrels is ``ERR-IA(weights=uniform)@13``), so `value` and
    `user_values` take the caller's spelling.
    """

    measures: tuple[Measure, ...]
    runs: tuple[str, ...]
    users: np.ndarray
    per_user: Mapping[str, Mapping[str, np.ndarray]]
    values: Mapping[str, Mapping[str, float]]
    threshold: float
    population: str
    spellings: Mapping[str, str] = field(default_factory=dict)  # a measure as asked → its key under conventions

    def value(self, run: str, measure: str | Measure) -> float:
        """The system value of `measure` for `run`."""
        return self.values[run][self._key(measure)]

    def user_values(self, run: str, measure: str | Measure) -> np.ndarray:
        """The per-user values of `measure` for `run` (in `users` order)."""
        key = self._key(measure)
        if key not in self.per_user[run]:
            raise ConfigError(f"{key} is a system-level measure: it has no per-user values")
        return self.per_user[run][key]

    def _key(self, measure: str | Measure) -> str:
        key = str(parse_measure(measure))
        key = self.spellings.get(key, key)
        if key not in self.values[self.runs[0]] if self.runs else True:
            raise ConfigError(f"{measure} was not evaluated; measures: {', '.join(map(str, self.measures))}")
        return key

    def table(self) -> pd.DataFrame:
        """System values: one row per run, one column per measure."""
        import pandas as pd

        return pd.DataFrame([[self.values[r][str(m)] for m in self.measures] for r in self.runs],
                            index=pd.Index(self.runs, name="run"), columns=[str(m) for m in self.measures])

    def user_table(self, run: str) -> pd.DataFrame:
        """Per-user values of one run: one row per evaluated user (index: user id), one column per per-user
        measure."""
        import pandas as pd

        return pd.DataFrame(dict(self.per_user[run]), index=pd.Index(self.users, name="user"))

    def to_dict(self, per_user: bool = False) -> dict:
        """{"runs": {run: {measure: value}}, "per_user": {run: {measure: {user: value}}}} with plain floats
        (the JSON of `recdiv eval`); "per_user" only if asked."""
        out: dict = {"runs": {r: {m: float(v) for m, v in self.values[r].items()} for r in self.runs}}
        if per_user:
            ids = [str(u) for u in self.users]
            out["per_user"] = {r: {m: {u: float(v) for u, v in zip(ids, vals)} for m, vals in self.per_user[r].items()}
                               for r in self.runs}
        return out


def evaluate(
    runs: Mapping[str, Rankings] | Rankings,
    qrels: Qrels,
    measures: Iterable[str | Measure] | str | Measure,
    context: EvalContext | None = None,
    *,
    baseline: str | None = None,
) -> Evaluation:
    """Evaluate every run on every measure: per-user values and system values (`Evaluation`).

    runs: {name: Rankings} (a single `Rankings` is named "run"); measures: measure objects or strings
    (``"nDCG@10"``). Pairwise measures (lexirecall, lexiprecision) compare every run with the run named
    `baseline`: per user the preference π_u ∈ {−1, 0, +1} of the run over the baseline, as system value their
    mean, (wins − losses) / users (0 for the baseline itself); without a baseline they are an error (see also
    `preference_summary` and `recdiv compare`).
    """
    context = context or EvalContext()
    if isinstance(runs, Rankings):
        runs = {"run": runs}
    ms = parse_measures([measures] if isinstance(measures, str | Measure) else measures)
    for m in ms:
        if isinstance(m, PairwiseMeasure) and baseline not in runs:
            names = ", ".join(list(runs)[:6]) + (", …" if len(runs) > 6 else "")
            raise ConfigError(f"{m} compares two runs: name the run to compare the others with, --baseline RUN "
                              f"(one of: {names}), or use `recdiv compare`")
        m._check_context(context)
    users = qrels.users.id_of(qrels.population(context.threshold, context.population))
    per_user: dict[str, dict[str, np.ndarray]] = {}
    values: dict[str, dict[str, float]] = {}
    for name, run in runs.items():
        per_user[name], values[name] = {}, {}
        for m in ms:
            if m.KIND == "per-user":
                v = per_user[name][str(m)] = m.per_user(run, qrels, context)
                values[name][str(m)] = m.aggregate_run(v, run, qrels, context)
            elif m.KIND == "pairwise":
                v = per_user[name][str(m)] = m.compare(run, runs[baseline], qrels, context)
                values[name][str(m)] = float(np.mean(v)) if len(v) else 0.0
            else:
                values[name][str(m)] = float(m.value(run, qrels, context))
    return Evaluation(tuple(ms), tuple(runs), np.asarray(users), per_user, values, float(context.threshold),
                      str(context.population))


def preference_per_user(name, run_x, run_y, qrels, context=None) -> np.ndarray:
    """Per-user preferences π_u ∈ {−1, 0, +1} of run_x over run_y.

    `name`: a pairwise measure (``lexirecall``, ``lexiprecision``, with optional ``@K``) or any per-user
    measure, in which case π_u = sign(Q_u(X) − Q_u(Y)) with differences rounded to 12 decimals (§0.7).
    """
    m = parse_measure(name)
    if isinstance(m, PairwiseMeasure):
        return m.compare(run_x, run_y, qrels, context)
    d = np.round(m.per_user(run_x, qrels, context) - m.per_user(run_y, qrels, context), 12)
    return np.sign(d).astype(np.int64)


@dataclass(frozen=True)
class PreferenceSummary:
    """System-level view of per-user preferences (docs/intent-aware.md)."""

    n: int
    mean: float
    wins: int
    ties: int
    losses: int
    win_rate: float
    p_value: float

    def __str__(self) -> str:
        return (f"mean {self.mean:+.4f}  wins/ties/losses {self.wins}/{self.ties}/{self.losses}  "
                f"win rate {self.win_rate:.4f}  sign test p = {self.p_value:.4g}")


def preference_summary(prefs, run_x=None, run_y=None, qrels=None, context=None) -> PreferenceSummary:
    """Summary of per-user preferences: mean, wins/ties/losses, win rate = wins/(wins+losses) (NaN if none),
    two-sided sign test p = binomtest(wins, wins + losses, 0.5).

    Either pass the per-user array, or a measure name and the two runs:
    ``preference_summary("lexirecall", run_x, run_y, qrels, context)``.
    """
    from scipy.stats import binomtest

    if isinstance(prefs, str | Measure):
        prefs = preference_per_user(prefs, run_x, run_y, qrels, context)
    p = np.asarray(prefs)
    wins, losses = int((p > 0).sum()), int((p < 0).sum())
    decided = wins + losses
    return PreferenceSummary(
        n=len(p),
        mean=float(p.mean()) if len(p) else 0.0,
        wins=wins,
        ties=len(p) - decided,
        losses=losses,
        win_rate=wins / decided if decided else float("nan"),
        p_value=float(binomtest(wins, decided, 0.5).pvalue) if decided else 1.0,
    )
