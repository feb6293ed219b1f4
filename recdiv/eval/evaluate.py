"""Evaluation entry points on in-memory data: per-user values of measures for runs (`evaluate`) and per-user
preferences between two runs (`preference_per_user`, `preference_summary`; METRICS.md §D.5)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.eval.catalog import parse_measure, parse_measures
from recdiv.eval.context import EvalContext
from recdiv.eval.measure import Measure
from recdiv.eval.metrics.preference import PairwiseMeasure

__all__ = ["PreferenceSummary", "evaluate", "preference_per_user", "preference_summary"]


def evaluate(
    runs: dict[str, Rankings] | Rankings,
    qrels: Qrels,
    measures,
    context: EvalContext | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    """Per-user values of every measure for every run: {run: {str(measure): array over view.users}}."""
    context = context or EvalContext()
    if isinstance(runs, Rankings):
        runs = {"run": runs}
    ms = parse_measures(measures)
    return {name: {str(m): m.per_user(run, qrels, context) for m in ms} for name, run in runs.items()}


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
    """System-level view of per-user preferences (METRICS.md §D.5)."""

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
