"""Rank effectiveness (docs/metrics.md): how well the system's scores order each user's rated test items.

Input per user: the judged test items (any grade, J_u) that appear in the run, with their true grade r and
the run's score ŝ — so a run evaluated with these measures must score the user's rated test items (a
rating-prediction run, or a ranking that includes them); judged items missing from the run are ignored.

Per-user values are NaN where the measure is undefined (fewer than two items, or a constant vector); such
users are *skipped*: the system value is the mean over the defined users (`nanmean`), NaN if none is defined.
FCP's system value is a ratio of sums over users (Koren & Sill), not a mean of per-user ratios.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from recdiv.eval.measure import PerUserMeasure
from recdiv.eval.metrics.accuracy import _memo
from recdiv.eval.partial import Sums

if TYPE_CHECKING:
    from recdiv.eval.context import RunView

_PAIR_BUDGET = 4_000_000  # users × k × k pair cells per chunk


def _rated(view: RunView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grades, scores, mask) of the judged items of each user's list; mask marks usable cells."""
    grades = view.grades
    scores = view.aligned.scores
    mask = view.judged & ~np.isnan(scores)  # judged: grade ≥ 0 (negative labels are pooled but unjudged)
    return grades, scores, mask


def average_ranks(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise 1-based ranks of `values` among the cells where `mask` holds; ties get their average rank
    (`scipy.stats.rankdata(method="average")` per row). Cells outside the mask get NaN."""
    n, k = values.shape
    key = np.where(mask, values, np.nan)  # NaN sorts last: valid cells first, by value
    order = np.argsort(key, axis=1, kind="stable")
    sv = np.take_along_axis(key, order, axis=1)
    pos = np.broadcast_to(np.arange(1, k + 1, dtype=np.float64), (n, k))
    new = np.ones((n, k), dtype=bool)
    if k > 1:
        new[:, 1:] = sv[:, 1:] != sv[:, :-1]
    first = np.maximum.accumulate(np.where(new, pos, 0.0), axis=1)
    end_new = np.ones((n, k), dtype=bool)
    if k > 1:
        end_new[:, :-1] = new[:, 1:]
    last = np.minimum.accumulate(np.where(end_new, pos, np.inf)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((n, k))
    np.put_along_axis(ranks, order, (first + last) / 2.0, axis=1)
    return np.where(mask, ranks, np.nan)


def _pearson(x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise Pearson correlation over the masked cells; NaN if < 2 cells or a constant vector."""
    cnt = mask.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.where(mask, x, 0.0).sum(axis=1) / cnt
        my = np.where(mask, y, 0.0).sum(axis=1) / cnt
        dx = np.where(mask, x - mx[:, None], 0.0)
        dy = np.where(mask, y - my[:, None], 0.0)
        sxx, syy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1)
        r = (dx * dy).sum(axis=1) / np.sqrt(sxx * syy)
    ok = (cnt >= 2) & (sxx > 0) & (syy > 0)
    return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)


def _pair_counts(view: RunView) -> dict[str, np.ndarray]:
    """Per-user pair statistics over unordered pairs of rated items (chunked over users).

    s: Σ sign(Δŝ)·sign(Δr) (= concordant − discordant, Kendall); tx, ty: pairs untied in ŝ / in r;
    nc, nd: FCP's concordant pairs (ŝ_hi > ŝ_lo) and discordant pairs (ŝ_hi ≤ ŝ_lo) among pairs with r_hi > r_lo.
    """

    def compute():
        grades, scores, mask = _rated(view)
        n, k = grades.shape
        out = {key: np.zeros(n) for key in ("s", "tx", "ty", "nc", "nd")}
        if k < 2:
            return out
        iu, ju = np.triu_indices(k, 1)
        step = max(1, _PAIR_BUDGET // len(iu))
        for lo in range(0, n, step):
            g, s, m = grades[lo : lo + step], scores[lo : lo + step], mask[lo : lo + step]
            both = m[:, iu] & m[:, ju]
            dr = np.where(both, g[:, iu] - g[:, ju], 0.0)
            ds = np.where(both, s[:, iu] - s[:, ju], 0.0)
            sr, ss = np.sign(dr), np.sign(ds)
            out["s"][lo : lo + step] = (sr * ss).sum(axis=1)
            out["tx"][lo : lo + step] = (ss != 0).sum(axis=1)
            out["ty"][lo : lo + step] = (sr != 0).sum(axis=1)
            conc = (sr * ds) > 0
            out["nc"][lo : lo + step] = conc.sum(axis=1)
            out["nd"][lo : lo + step] = ((sr != 0) & ~conc).sum(axis=1)
        return out

    return _memo(view, "rank_pairs", compute)


class _RankEffectiveness(PerUserMeasure):
    CUTOFF = "none"
    SECTION = "A.12"

    def aggregate_final(self, values: np.ndarray, state) -> float:
        """Mean over the users where the measure is defined (NaN = skipped); NaN if none is."""
        ok = ~np.isnan(values)
        return float(values[ok].mean()) if ok.any() else float("nan")


class Spearman(_RankEffectiveness):
    """Spearman's ρ between the run's scores and the true grades of each user's rated items in the run.

    ρ(u) = Pearson correlation of the average-tie rank vectors (= scipy.stats.spearmanr); NaN (user skipped)
    if fewer than 2 items or a constant vector. Spearman 1904. docs/metrics.md
    """

    NAME = "Spearman"
    RANGE = (-1.0, 1.0)
    FORMULA = "Pearson(rank(ŝ), rank(r)) over J_u ∩ R, average ranks for ties"
    CITATION = "Spearman 1904; scipy.stats.spearmanr"

    def compute(self, view):
        grades, scores, mask = _rated(view)
        return _pearson(average_ranks(scores, mask), average_ranks(grades, mask), mask)


class Kendall(_RankEffectiveness):
    """Kendall's τ_b between the run's scores and the true grades of each user's rated items in the run.

    τ_b(u) = (n_c − n_d) / sqrt((n_0 − n_ŝ)(n_0 − n_r)) over item pairs (n_ŝ, n_r: pairs tied in ŝ / in r)
    = scipy.stats.kendalltau (variant b); NaN (user skipped) if undefined. Kendall 1945. docs/metrics.md
    """

    NAME = "Kendall"
    RANGE = (-1.0, 1.0)
    FORMULA = "(n_c − n_d) / sqrt((n_0 − n_ŝ)·(n_0 − n_r)) over pairs of J_u ∩ R"
    CITATION = "Kendall 1945 (τ_b); scipy.stats.kendalltau"

    def compute(self, view):
        p = _pair_counts(view)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = p["s"] / np.sqrt(p["tx"]) / np.sqrt(p["ty"])
        return np.where((p["tx"] > 0) & (p["ty"] > 0), np.clip(tau, -1.0, 1.0), np.nan)


class FCP(_RankEffectiveness):
    """Fraction of concordant pairs (Koren & Sill 2013 §5.2; Surprise `accuracy.fcp`).

    Over pairs of u's rated items in the run with r_i > r_j: n_c = |{ŝ_i > ŝ_j}|, n_d = |{ŝ_i ≤ ŝ_j}| (prediction
    ties are discordant). FCP(u) = n_c / (n_c + n_d), NaN if no such pair; the system value is
    Σ_u n_c / Σ_u (n_c + n_d), a ratio of sums. docs/metrics.md
    """

    NAME = "FCP"
    RANGE = (0.0, 1.0)
    POOLED = True
    FORMULA = "Σ_u n_c(u) / Σ_u (n_c(u) + n_d(u)); per user n_c / (n_c + n_d)"
    CITATION = "Koren & Sill 2013 §5.2; Surprise accuracy.fcp"

    def compute(self, view):
        p = _pair_counts(view)
        den = p["nc"] + p["nd"]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, p["nc"] / den, np.nan)

    def aggregate_state(self, values: np.ndarray, view) -> Sums:
        """(Σ_u n_c, Σ_u (n_c + n_d)) over a block of users: counts, so blocks add up exactly."""
        p = _pair_counts(view)
        return Sums((np.float64(p["nc"].sum()), np.float64((p["nc"] + p["nd"]).sum())))

    def aggregate_final(self, values: np.ndarray, state: Sums) -> float:
        """Σ_u n_c / Σ_u (n_c + n_d): a ratio of sums over users, not the mean of per-user ratios."""
        nc, den = (float(x) for x in state.arrays)
        return nc / den if den > 0 else float("nan")
