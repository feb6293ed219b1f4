"""Topic diversification (Ziegler, McNee, Konstan & Lausen, WWW 2005; docs/diversifiers.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import similarity_slicer
from recdiv.diversifiers.greedy import GreedyReranker

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class ZieglerConfig(RerankerConfig):
    theta_F: float = Field(0.5, ge=0.0, le=1.0)


class Ziegler(GreedyReranker):
    """Topic diversification by merging the original rank with a dissimilarity rank.

    c*(b) = Σ_{j∈S} sim(b, j); rank_dis(b) = 1-based position of b among the remaining candidates sorted by c*
    ascending (ties by baseline position); w(b) = (1 − Θ_F)·rank_orig(b) + Θ_F·rank_dis(b); pick the minimum w.
    Undefined similarities (items without features) count as 0 [CHOICE]; c* is rounded to 12 decimals
    so that mathematically equal sums tie (docs/metrics.md). Θ_F = 0 keeps the baseline order.
    Ziegler et al., "Improving recommendation lists through topic diversification", WWW 2005. docs/diversifiers.md
    """

    NAME = "Ziegler"
    PURE_RELEVANCE = ({"theta_F": 0.0},)
    FORMULA = "minimise (1−Θ)·rank_orig + Θ·rank_dis (dissimilarity to S)"
    CITATION = "Ziegler et al. 2005"
    NEEDS = ("similarity",)  # an item similarity: over aspects (cosine, jaccard), factors or ratings
    Config = ZieglerConfig

    def init_state(self, block: CandidateBlock):
        slicer, _ = similarity_slicer(block.context.item_similarity(), block.items)
        return {"slice": slicer, "csum": np.zeros(block.items.shape)}

    def objective(self, st, block, remaining, t):
        th = self.config.theta_F
        key = np.where(remaining, np.round(st["csum"], 12), np.inf)  # §0.7: equal sums tie
        order = np.argsort(key, axis=1, kind="stable")
        rank_dis = np.empty_like(order)
        np.put_along_axis(rank_dis, order, np.arange(1, block.N + 1)[None, :].repeat(block.n, 0), axis=1)
        rank_orig = np.arange(1, block.N + 1)[None, :]
        return -((1.0 - th) * rank_orig + th * rank_dis)

    def relevance_term(self, st, block, remaining, t):
        """−(1 − Θ_F)·rank_orig(b): the original rank's share of the merged rank (the rest: −Θ_F·rank_dis(b))."""
        return np.broadcast_to(-(1.0 - self.config.theta_F) * np.arange(1, block.N + 1, dtype=np.float64),
                               block.items.shape)

    def update(self, st, block, picked, t):
        st["csum"] += np.nan_to_num(st["slice"](picked), nan=0.0)

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of Ziegler's objective (its oracle: `recdiv.diversifiers.reference`)."""
        from recdiv.diversifiers.reference import greedy_loop

        n = len(cands)
        th = params.get("theta_F", 0.5)

        def value(rem, S):
            cstar = {i: round(float(sum(np.nan_to_num(env.sim(cands[i], cands[j])) for j in S)), 12) for i in rem}
            order = sorted(rem, key=lambda i: (cstar[i], i))
            rdis = {i: r + 1 for r, i in enumerate(order)}
            return {i: -((1 - th) * (i + 1) + th * rdis[i]) for i in rem}

        return greedy_loop(n, k, value)
