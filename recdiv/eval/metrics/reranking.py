"""How far a list moved from its base list: rank-biased overlap (RBO) and the least item promoted (LIP).

Measures of the reference-run kind: each user's list R is compared with the same user's base list B, the
context's previous lists (`Context.previous`; `recdiv eval --previous BASE.run`; in an experiment, the
recommender's candidate list a diversifier reranked). They say how much a reranker disturbed the ranking it was
given (lkpy #767), beside what the reranking gained in diversity. A user without a base list scores 0 on both.
"""

from __future__ import annotations

import math

import numpy as np

from recdiv.data.rankings import PAD
from recdiv.errors import ConfigError
from recdiv.eval.measure import Param, PerUserMeasure

__all__ = ["LIP", "RBO", "base_positions"]


def base_positions(view, cutoff: int) -> tuple[np.ndarray, np.ndarray]:
    """(run items cut at `cutoff` (n, K, −1 padded), their 1-based positions in each user's base list (n, K):
    0 where the item is not in it or a pad), for the evaluated users of `view`."""
    prev = view.context.previous
    if prev.item_vocab != view.rankings.item_vocab or prev.user_vocab != view.rankings.user_vocab:
        raise ConfigError("the base (previous) lists and the run use different vocabularies")
    items = view.at(view.items, cutoff, fill=PAD)
    base = prev.for_users(view.users).items
    n_items = np.int64(len(prev.item_vocab))
    rows, cols = np.nonzero(base != PAD)
    if not len(rows):
        return items, np.zeros(items.shape, dtype=np.int64)
    keys = rows * n_items + base[rows, cols]  # (user row, item): one key per base entry
    order = np.argsort(keys, kind="stable")
    keys, where = keys[order], cols[order] + 1
    wanted = np.arange(len(items), dtype=np.int64)[:, None] * n_items + items
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    found = (items != PAD) & (keys[at] == wanted)
    return items, np.where(found, where[at], 0)

class RBO(PerUserMeasure):
    """Rank-biased overlap of each user's list with its base list, to depth K (Webber, Moffat & Zobel 2010).

    A_d = |R_{:d} ∩ B_{:d}| / d is the agreement of the two prefixes of length d, w_d = p^{d−1}.
    norm=weights: RBO@K = Σ_{d≤K} w_d A_d / Σ_{d≤K} w_d (1 for identical prefixes; LensKit's
    `rank_biased_overlap(reference, reranked, GeometricRankWeight(p), n=K)`); norm=geometric: RBO@K =
    (1 − p) Σ_{d≤K} p^{d−1} A_d, the truncated sum of Webber et al.'s eq. 7, a lower bound of the infinite
    ranking's RBO (identical prefixes give 1 − p^K). A pad in a shorter list matches nothing.
    """

    NAME = "RBO"
    RANGE = (0.0, 1.0)
    PARAMS = (Param("p", float, 0.9, "persistence: the weight of depth d is p^(d−1)", low=0.0, high=1.0,
                    low_open=True, high_open=True),
              Param("norm", str, "weights", "weights: divide by Σ_{d≤K} p^(d−1) (LensKit); geometric: multiply by "
                    "1 − p (Webber et al.'s truncated sum)", choices=("weights", "geometric")))
    CUTOFF = "required"
    FAMILY = "reranking"
    NEEDS = ("previous",)
    FORMULA = "Σ_{d≤K} p^{d−1} |R_{:d} ∩ B_{:d}|/d, divided by Σ_{d≤K} p^{d−1} (norm=weights) or times 1 − p"
    CITATION = "Webber, Moffat & Zobel, TOIS 2010 (eq. 7); LensKit rank_biased_overlap"

    def depth_bound(self) -> bool:
        return False  # A_d divides by d and the weights run to K, however short the lists

    def compute(self, view):
        k = self.cutoff
        n = min(k, view.depth)  # beyond the deepest list the overlap c stays: A_d = c/d, one shared series
        items, pos = base_positions(view, n)
        # the j-th item (1-based) is in both prefixes of length d ⇔ d ≥ max(j, its base position)
        enters = np.maximum(np.arange(1, n + 1), pos)
        enters = np.where((pos > 0) & (pos <= n), enters, n + 1)
        counts = np.zeros((len(items), n + 2), dtype=np.int64)
        np.add.at(counts, (np.repeat(np.arange(len(items)), n), enters.ravel()), 1)
        overlap = np.cumsum(counts[:, 1:n + 1], axis=1)
        w = self.p ** np.arange(k)
        total = (overlap / np.arange(1, n + 1) * w[:n]).sum(axis=1)  # per row (not BLAS's gemv)
        if k > n:  # Σ_{d>n} p^{d−1} c/d
            total = total + overlap[:, -1] * (w[n:] / np.arange(n + 1, k + 1)).sum()
        return total / w.sum() if self.norm == "weights" else (1.0 - self.p) * total


class LIP(PerUserMeasure):
    """Least item promoted: how many positions beyond K the deepest item of the top K came from in the base list.

    LIP@K = max(0, max_{i ∈ R_{:K} ∩ B} pos_B(i) − K), pos_B the 1-based position in the base list B (items not in
    B are ignored; 0 when every item of the top K was already in B's top K). LensKit 2025.8's
    `least_item_promoted(reference, reranked, n=K)` counts 0-based positions against K, so it gives
    max(0, LIP@K − 1): 0 for an item promoted from position K + 1.
    """

    NAME = "LIP"
    RANGE = (0.0, math.inf)
    CUTOFF = "required"
    FAMILY = "reranking"
    NEEDS = ("previous",)
    HIGHER_IS_BETTER = False
    FORMULA = "max(0, max_{i ∈ R_{:K} ∩ B} pos_B(i) − K)"
    CITATION = "LensKit least_item_promoted (lkpy #778); POPROX"

    def compute(self, view):
        _, pos = base_positions(view, self.cutoff)
        deepest = pos.max(axis=1) if pos.shape[1] else np.zeros(len(pos), dtype=np.int64)
        return np.maximum(deepest - self.cutoff, 0).astype(np.float64)
