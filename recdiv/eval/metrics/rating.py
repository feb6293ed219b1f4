"""Rating-prediction error (RMSE, MAE) of predicted scores against the test ratings.

A prediction file (``user item prediction``; `recdiv eval QRELS --predictions FILE`, `load_inputs(predictions=…)`)
is read as a run whose scores are the predictions; the errors are taken over the (user, item) pairs that have
both a prediction and a test rating (grade ≥ 0). Per user: the user's RMSE / MAE (NaN without such a pair); system
value: over all pairs at once (LensKit's global aggregate), not the mean of the per-user values. Test ratings
without a prediction are not errors here: `recdiv eval` says how many there are.
"""

from __future__ import annotations

import math

import numpy as np

from recdiv.eval.measure import PerUserMeasure
from recdiv.eval.partial import Ragged

__all__ = ["MAE", "RMSE"]


def prediction_errors(view) -> tuple[np.ndarray, np.ndarray]:
    """(errors s(u,i) − r(u,i) (n, k), mask of the pairs with a prediction and a test rating)."""
    scores = view.aligned.scores
    ok = view.judged & (view.items >= 0) & ~np.isnan(scores)
    return np.where(ok, scores - np.nan_to_num(view.grades), 0.0), ok


class _Error(PerUserMeasure):
    FAMILY = "rating"
    HIGHER_IS_BETTER = False
    POOLED = True
    CUTOFF = "none"
    SECTION = ""

    def _per_pair(self, err: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _finish(self, mean: np.ndarray) -> np.ndarray:
        return mean

    def compute(self, view):
        err, ok = prediction_errors(view)
        n = ok.sum(axis=1)
        total = np.where(ok, self._per_pair(err), 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self._finish(np.where(n > 0, total / np.maximum(n, 1), np.nan))

    def aggregate_state(self, values: np.ndarray, view) -> Ragged:
        """Every rated, predicted pair's term, user after user (merged in user order)."""
        err, ok = prediction_errors(view)
        return Ragged(view.users, ok.sum(axis=1), self._per_pair(err[ok]))

    def aggregate_final(self, values: np.ndarray, state: Ragged) -> float:
        """Over all rated, predicted pairs of the evaluated users at once (not the mean of the per-user values)."""
        if not len(state.values):
            return float("nan")
        return float(self._finish(np.array([state.values.mean()]))[0])


class RMSE(_Error):
    """Root mean squared error: RMSE = sqrt(mean over rated, predicted pairs of (s(u,i) − r(u,i))²); per user over
    the user's pairs, system value over all pairs. Herlocker et al., TOIS 2004; LensKit `RMSE`."""

    NAME = "RMSE"
    RANGE = (0.0, math.inf)
    FORMULA = "sqrt(mean_{(u,i)} (s(u,i) − r(u,i))²)"
    CITATION = "Herlocker, Konstan, Terveen & Riedl, TOIS 2004; LensKit RMSE"

    def _per_pair(self, err):
        return err * err

    def _finish(self, mean):
        return np.sqrt(mean)


class MAE(_Error):
    """Mean absolute error: MAE = mean over rated, predicted pairs of |s(u,i) − r(u,i)|; per user over the user's
    pairs, system value over all pairs. Herlocker et al., TOIS 2004; LensKit `MAE`."""

    NAME = "MAE"
    RANGE = (0.0, math.inf)
    FORMULA = "mean_{(u,i)} |s(u,i) − r(u,i)|"
    CITATION = "Herlocker, Konstan, Terveen & Riedl, TOIS 2004; LensKit MAE"

    def _per_pair(self, err):
        return np.abs(err)
