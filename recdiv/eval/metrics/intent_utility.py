"""Rank-biased intent-aware utilities (docs/intent-aware.md): NRBP, nNRBP, EU [RECON] and RBU. Shared machinery:
`recdiv.eval.metrics.intents`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from recdiv.eval.measure import Param
from recdiv.eval.metrics.greedy_ideal import chunks_by_width, padded_rows
from recdiv.eval.metrics.intents import (
    _AspectMeasure,
    alpha_gains,
    alpha_ideal_lists,
    alpha_run_gains,
    aspect_index,
    aspect_pairs,
    aspect_space,
    cutoff_of,
    exclusive_group_sum,
    has_aspects,
    intent_weights,
    local_aspects,
    relevance_weights,
    run_arrays,
)
from recdiv.eval.params import IDEAL_TIES, REDUNDANCY, WEIGHTS
from recdiv.limits import check_cells
from recdiv.models.discount import ExponentialDiscount, row_sums
from recdiv.models.relevance import is_relevant, stop_probability

ALPHA = replace(REDUNDANCY, default=0.25)
BETA = Param("beta", float, 0.9, "persistence β: probability of moving to the next item", low=0.0, high=1.0,
             low_open=True)
UNIFORM = replace(WEIGHTS, default="uniform")
PATIENCE = Param("p", float, 0.99, "persistence p: probability of inspecting the next item", low=0.0, high=1.0,
                 low_open=True)
COST = Param("e", float, 0.05, "reading cost e per inspected item")


# --------------------------------------------------------------------------------------------------
# rank-biased utilities
# --------------------------------------------------------------------------------------------------
def _weighted_alpha_gains(view, items, grades, alpha, w):
    """G(k) = Σ_a w_a rel (1−α)^c of an arbitrary (n, L) item array with its grades (NaN unjudged)."""
    g = relevance_weights(grades, view.threshold, False, 1.0)
    return alpha_gains(view, items, g, alpha, w)


def _nrbp(gains: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return (1.0 - (1.0 - alpha) * beta) * row_sums(gains, ExponentialDiscount(beta).positions(gains.shape[1]))


class NRBP(_AspectMeasure):
    """Novelty- and rank-biased precision (Clarke, Kolla, Vechtomova, ICTIR 2009).

    NRBP = (1 − (1−α)β) Σ_k β^{k−1} Σ_{a∈A(i_k)} w_a rel(u,i_k)(1−α)^{c_{a,k−1}}, w = 1/|A_u^rel| (uniform,
    default) or profile weights. The whole list is used unless a cutoff is given. ndeval's NRBP (uniform).
    docs/intent-aware.md
    """

    NAME = "NRBP"
    MONOTONE_IN_CUTOFF = True
    PARAMS = (ALPHA, BETA, UNIFORM)
    FORMULA = "(1−(1−α)β) Σ_k β^{k−1} Σ_a w_a rel (1−α)^{c_{a,k−1}}"
    CITATION = "Clarke, Kolla, Vechtomova, ICTIR 2009; ndeval"
    SECTION = "C.8"

    def _gains(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        return alpha_run_gains(view, k, self.alpha, weights=w), w

    def compute(self, view):
        return _nrbp(self._gains(view)[0], self.alpha, self.beta)


class NNRBP(NRBP):
    """nNRBP = NRBP / NRBP of the greedy α-ideal list (§C.1) built over all judged items (ndeval's nNRBP).

    Clarke, Kolla, Vechtomova, ICTIR 2009; docs/intent-aware.md
    """

    NAME = "nNRBP"
    MONOTONE_IN_CUTOFF = False  # the ideal grows with K
    PARAMS = (ALPHA, BETA, UNIFORM, IDEAL_TIES)
    FORMULA = "NRBP / NRBP(greedy α-ideal)"

    def compute(self, view):
        gains, w = self._gains(view)
        nrbp = _nrbp(gains, self.alpha, self.beta)
        ii, _ = alpha_ideal_lists(view, self.alpha, False, self.ideal_ties, self.cutoff)
        ideal = _weighted_alpha_gains(view, ii, view.qrels.lookup(view.users, ii), self.alpha, w)
        inrbp = _nrbp(ideal, self.alpha, self.beta)
        return np.divide(nrbp, inrbp, out=np.zeros_like(nrbp), where=inrbp > 0)


class EU(_AspectMeasure):
    """Expected Utility [RECON: reconstructed definition — Amigó et al.'s formalisation was not available].

    EU@K = (1−p) Σ_{k≤min(K,n)} p^{k−1} [Σ_{a∈A(i_k)} w_a rel(u,i_k)(1−α)^{c_{a,k−1}} − e]: geometric stopping,
    nugget redundancy (1−α)^count and a reading cost e per inspected item; w = profile weights. Can be
    negative. Yang & Lad, ICTIR 2009, as formalised by Amigó et al., SIGIR 2018; docs/intent-aware.md and G.3.2.
    Report EU values as coming from a reconstructed definition.
    """

    NAME = "EU"
    PARAMS = (PATIENCE, ALPHA, COST, WEIGHTS)
    FORMULA = "(1−p) Σ_k p^{k−1} [Σ_a w_a rel (1−α)^{c_{a,k−1}} − e]  [RECON]"
    CITATION = "Yang & Lad, ICTIR 2009; Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018 (reconstructed)"
    SECTION = "C.9"

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        items = view.at(view.items, k, fill=-1)
        gains = alpha_run_gains(view, k, self.alpha, weights=w)
        disc = ExponentialDiscount(self.p).positions(k)
        return (1.0 - self.p) * row_sums(gains - self.e * (items >= 0), disc)


class RBU(_AspectMeasure):
    """Rank-Biased Utility (Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018; code rmit-ir/RBU).

    r(i,a) = (2^{g(u,i,a)} − 1)/2^{g_max(a)}, g = grade of judged i having a (rating, or binary rel ≥ τ),
    g_max(a) = max grade among u's judged items having a;
    RBU@K = Σ_a w_a (1−p) Σ_{k≤K} p^{k−1} r(i_k,a) Π_{l<k}(1 − r(i_l,a)) − e(1−p) Σ_{k≤min(K,n)} p^{k−1},
    w = profile weights. docs/intent-aware.md
    """

    NAME = "RBU"
    PARAMS = (PATIENCE, COST, Param("grade", str, "rating", "grade g of a judged item: its rating, or [r ≥ τ]",
                                    choices=("rating", "binary")), WEIGHTS)
    FORMULA = "Σ_a w_a (1−p) Σ_k p^{k−1} r(i_k,a) Π_{l<k}(1 − r(i_l,a)) − e (1−p) Σ_k p^{k−1}"
    CITATION = "Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018"
    SECTION = "C.10"

    def _grade(self, grades, threshold):
        if self.grade == "binary":
            return is_relevant(grades, threshold).astype(np.float64)
        return np.nan_to_num(grades, nan=0.0)

    def _gmax(self, view) -> np.ndarray:
        space = aspect_space(view)
        cand, cg = padded_rows(view.qrels.matrix, view.users, keep_cols=has_aspects(view))
        widths = (cand >= 0).sum(axis=1)
        check_cells(f"{self}: users × aspects", len(cand), space.n_aspects)
        gmax = np.zeros((len(cand), space.n_aspects))
        for idx in chunks_by_width(widths, space.n_aspects):
            wc = max(int(widths[idx].max()), 1)
            cols, asp = local_aspects(view, cand[idx, :wc])
            best = np.where(asp, self._grade(cg[idx, :wc], view.threshold)[:, :, None], 0.0).max(axis=1)
            gmax[np.ix_(idx, cols)] = best[:, : len(cols)]
        return gmax

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        gmax = self._gmax(view)
        space = aspect_space(view)
        items, grades = run_arrays(view, k)
        g = self._grade(grades, view.threshold)
        u, pos, a, gstart = aspect_pairs(items, g > 0, aspect_index(view), space.n_aspects)
        rv = stop_probability(g[u, pos], gmax[u, a])
        surv = np.exp(exclusive_group_sum(np.log(np.maximum(1.0 - rv, 1e-300)), gstart))
        browse = ExponentialDiscount(self.p)
        util = np.bincount(u, weights=w[u, a] * rv * surv * browse.at(pos + 1), minlength=len(items))
        cost = row_sums(items >= 0, browse.positions(k))
        return (1.0 - self.p) * (util - self.e * cost)
