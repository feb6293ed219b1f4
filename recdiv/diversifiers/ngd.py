"""NGD — novelty-based greedy diversification (Vargas 2012 thesis §4.8.2; RankSys `ItemNoveltyReranker`; §E.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.mmr import _baseline
from recdiv.diversifiers.normalize import zscore

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class NGDConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0)
    novelty: Literal["IUF", "PC", "FD"] = "IUF"


class NGD(GreedyReranker):
    """Relevance–novelty trade-off: f(i) = (1 − λ)·z(s(i)) + λ·z(nov(i)).

    z-scores over the whole candidate list (sample sd); nov from the training data: IUF (default), PC or FD
    (docs/novelty-diversity.md). The objective does not depend on S, so the greedy equals a stable sort. λ = 0
    returns the baseline order. Vargas 2012 thesis §4.8.2; RankSys `ItemNoveltyReranker` with norm=true.
    docs/diversifiers.md
    """

    NAME = "NGD"
    PURE_RELEVANCE = ({"lambda": 0.0},)
    FORMULA = "(1−λ)·z(s) + λ·z(nov)"
    CITATION = "Vargas 2012 §4.8.2"
    NEEDS = ("train",)
    Config = NGDConfig

    def _rerank_block(self, block, k):
        if self.config.lambda_ == 0.0:
            return _baseline(block, k)
        return super()._rerank_block(block, k)

    def init_state(self, block: CandidateBlock):
        nov_items = block.context.item_novelty(self.config.novelty)
        nov = np.where(block.valid, nov_items[np.maximum(block.items, 0)], np.nan)
        lam = self.config.lambda_
        return (1.0 - lam) * zscore(block.scores, block.valid) + lam * zscore(nov, block.valid)

    def objective(self, st, block, remaining, t):
        return st

    def relevance_term(self, st, block, remaining, t):
        """(1 − λ)·z(s(i)); the rest of f is the novelty term λ·z(nov(i))."""
        return (1.0 - self.config.lambda_) * zscore(block.scores, block.valid)

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of NGD's objective (its oracle: `recdiv.diversifiers.reference`)."""
        from recdiv.diversifiers.reference import greedy_loop, lambda_values

        n = len(cands)
        lam = params.get("lambda", 0.5)
        if lam == 0:
            return list(range(min(k, n)))
        nov = [env.novelty[c] for c in cands]
        vals = lambda_values(range(n), scores, nov, lam)
        return greedy_loop(n, k, lambda rem, S: vals)
