"""Category distributions of recommendation lists: Steck's miscalibration (the measure behind the `Calibrated`
reranker) and LensKit's rank-biased entropy. Categories are the aspects of `EvalContext.aspects` (genres, tags,
...); lists are cut at K (|L_u| = min(K, n_u)); a user without a list scores 0.
"""

from __future__ import annotations

import math

import numpy as np

from recdiv.arrays.concentration import entropy
from recdiv.eval.measure import Measure, Param, PerUserMeasure
from recdiv.eval.metrics.intents import aspect_space, user_distribution
from recdiv.models.calibration import miscalibration
from recdiv.models.discount import ExponentialDiscount

__all__ = ["Miscalibration", "RankBiasedEntropy"]


def _list(measure: Measure, view) -> np.ndarray:
    return view.items if measure.cutoff is None else view.items[:, : measure.cutoff]


def _rows(matrix, items: np.ndarray) -> np.ndarray:
    """(n, K, A) dense rows of an items × aspects CSR for an (n, K) item array, 0 at padding."""
    dense = matrix[np.maximum(items, 0).ravel()].toarray().reshape(*items.shape, matrix.shape[1])
    return np.where((items >= 0)[..., None], dense, 0.0)


class Miscalibration(PerUserMeasure):
    """Miscalibration of a list (Steck, RecSys 2018): C_KL(p, q̃) = Σ_{g: p(g|u)>0} p(g|u) ln(p(g|u)/q̃(g|u)).

    p(g|u) = the training profile's genre distribution (`weighting=fractional`: (1/|P_u|) Σ_{i∈P_u} p(g|i), Steck's;
    or count / rating, §E.11); q(g|u) = (1/|L_u|) Σ_{i∈L_u} p(g|i) (uniform rank weights), p(g|i) = [g ∈ A(i)]/|A(i)|;
    q̃ = (1 − α) q + α p with Steck's α = 0.01, so that q̃ > 0 wherever p > 0. 0 = perfectly calibrated. The same
    objective the `Calibrated` reranker minimises (docs/diversifiers.md; `recdiv.models.calibration.miscalibration`).
    """

    NAME = "Miscalibration"
    RANGE = (0.0, math.inf)
    PARAMS = (Param("alpha", float, 0.01, "smoothing of q by p (Steck's α)", low=0.0, high=1.0, low_open=True),
              Param("weighting", str, "fractional", "p(g|u) of the profile: Steck's (fractional), count or rating",
                    choices=("fractional", "count", "rating")))
    FORMULA = "Σ_{g: p(g|u)>0} p(g|u) ln(p(g|u) / ((1−α) q(g|L_u) + α p(g|u)))"
    CITATION = "Steck, Calibrated Recommendations, RecSys 2018"
    SECTION = "E.8"
    FAMILY = "calibration"
    HIGHER_IS_BETTER = False
    NEEDS = ("train", "aspects")

    def compute(self, view):
        aspect_space(view)  # checked against the qrels' items
        p = user_distribution(view, self.weighting, str(self))
        items = _list(self, view)
        n = (items >= 0).sum(axis=1)
        per_item = view.context.item_distribution()  # p(g|i) of the context's aspect space
        q = _rows(per_item, items).sum(axis=1) / np.maximum(n, 1)[:, None]
        return np.where(n > 0, miscalibration(p, q, self.alpha), 0.0)


class RankBiasedEntropy(PerUserMeasure):
    """Rank-biased Shannon entropy of the categories in a list (LensKit `rank_biased_entropy`; with p = 1 LensKit's
    `entropy`): c_a = Σ_{k≤K} w_k [a ∈ A(i_k)] + s, w_k = p^{k−1}; H = −Σ_a (c_a/Σc) log2(c_a/Σc) over the aspects
    with c_a > 0. s (`smoothing`) is added to every aspect of the space: LensKit 2025.8 adds 10⁻⁶ (s = 1e-6 gives
    its numbers); later LensKit versions and the textbook entropy add nothing (s = 0, the default). 0 for a list
    without categories. Higher = more diverse categories near the top. docs/novelty-diversity.md (diversity).
    """

    NAME = "RankBiasedEntropy"
    RANGE = (0.0, math.inf)
    PARAMS = (Param("p", float, 0.85, "patience: item k weighs p^(k−1) (1: plain entropy)", low=0.0, high=1.0,
                    low_open=True),
              Param("smoothing", float, 0.0, "added to every category's weight (LensKit 2025.8: 1e-6)", low=0.0))
    FORMULA = "−Σ_a π_a log2 π_a, π_a ∝ Σ_k p^{k−1} [a ∈ A(i_k)] + s"
    CITATION = "LensKit rank_biased_entropy / entropy (Ekstrand et al.); Shannon 1948"
    SECTION = "B"
    FAMILY = "diversity"
    NEEDS = ("aspects",)

    def compute(self, view):
        space = aspect_space(view)
        items = _list(self, view)
        w = ExponentialDiscount(self.p).positions(items.shape[1])  # p^(k−1), the model layer's geometric discount
        c = np.einsum("nka,k->na", _rows(space.indicator, items), w) + self.smoothing
        h = np.array([entropy(row) for row in c])  # the one entropy (recdiv.arrays.concentration)
        return np.where((items >= 0).any(axis=1), h, 0.0)
