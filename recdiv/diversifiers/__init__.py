"""Diversifiers: greedy rerankers of a baseline's top-N candidates into a top-k list (METRICS.md §E).

    from recdiv.diversifiers import RerankContext, make_reranker
    ctx = RerankContext(train=split.train, aspects=space)
    top50 = make_reranker("xQuAD", **{"lambda": 0.5}).rerank(candidates, 50, ctx)
"""

from recdiv.diversifiers.base import CandidateBlock, RerankContext, Reranker, RerankerConfig
from recdiv.diversifiers.greedy import GreedyReranker, greedy_select
from recdiv.diversifiers.registry import RERANKERS, make_reranker

__all__ = [
    "RERANKERS",
    "CandidateBlock",
    "GreedyReranker",
    "RerankContext",
    "Reranker",
    "RerankerConfig",
    "greedy_select",
    "make_reranker",
]
