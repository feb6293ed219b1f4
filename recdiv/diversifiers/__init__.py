"""Diversifiers: greedy rerankers of a baseline's top-N candidates into a top-k list (METRICS.md §E).

    from recdiv.diversifiers import RerankContext, make_reranker
    ctx = RerankContext(train=split.train, aspects=space)
    top50 = make_reranker("xQuAD", **{"lambda": 0.5}).rerank(candidates, 50, ctx)

The names below are imported on first use.
"""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "CandidateBlock": "recdiv.diversifiers.base",
    "RerankContext": "recdiv.diversifiers.base",
    "Reranker": "recdiv.diversifiers.base",
    "RerankerConfig": "recdiv.diversifiers.base",
    "GreedyReranker": "recdiv.diversifiers.greedy",
    "greedy_select": "recdiv.diversifiers.greedy",
    "RERANKERS": "recdiv.diversifiers.registry",
    "make_reranker": "recdiv.diversifiers.registry",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
