"""What each command does, as library functions: read the inputs, assemble them, call the components
(docs/architecture.md, "The command line"). A command's handler parses its arguments, calls one of these and writes
what it returns, so Python and the shell run the same code:

    from recdiv.workflows import compare_files, meta_files, recommend_files, rerank_files

    knn = recommend_files("user-knn", 100, train="u1/train.tsv", qrels="u1/test.qrels")
    reranked = rerank_files("u1/knn.run", "xQuAD", 20, aspects="u1/aspects.tsv", train="u1/train.tsv")
    report = compare_files("u1/test.qrels", ["u1/knn.run", "u1/xquad.run"], ["nDCG@10", "alpha-nDCG@10"])
    meta = meta_files("u1/test.qrels", ["u1/knn.run", "u1/xquad.run", "u1/pop.run"], ["nDCG@10", "P@10"])
"""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "EvalOptions": "recdiv.workflows.evaluation",
    "Evaluated": "recdiv.workflows.evaluation",
    "evaluate_inputs": "recdiv.workflows.evaluation",
    "ComparisonReport": "recdiv.workflows.compare",
    "compare_files": "recdiv.workflows.compare",
    "MetaReport": "recdiv.workflows.meta",
    "meta_files": "recdiv.workflows.meta",
    "Recommended": "recdiv.workflows.recommend",
    "recommend_files": "recdiv.workflows.recommend",
    "Reranked": "recdiv.workflows.rerank",
    "rerank_files": "recdiv.workflows.rerank",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
