"""A reranker of "your own" for the explorer's plugin tests: f(i) = (1 − λ)·ŝ(i) + λ·(1 − pop(i)/max pop)."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import RerankerConfig
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.normalize import normalize


class LongTailConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0, description="weight of the long-tail bonus")


class LongTail(GreedyReranker):
    """Relevance plus a bonus for unpopular items (a test plugin)."""

    NAME = "LongTail"
    NEEDS = ("train",)
    Config = LongTailConfig

    def init_state(self, block):
        pop = block.context.train.item_counts().astype(np.float64)
        tail = 1.0 - pop / max(pop.max(), 1.0)
        lam = self.config.lambda_
        rel = (1.0 - lam) * normalize(block.scores, block.valid, "minmax")
        return {"rel": rel, "f": rel + lam * np.where(block.valid, tail[np.maximum(block.items, 0)], np.nan)}

    def objective(self, state, block, remaining, t):
        return state["f"]

    def relevance_term(self, state, block, remaining, t):
        return state["rel"]
