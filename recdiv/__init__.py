"""recdiv: recommender systems research platform — baselines, diversifiers, and one evaluation suite.

The main entry points are available here and imported on first use (so `import recdiv` stays cheap):

    import recdiv

    ds = recdiv.load_dataset("ml-100k")
    split = recdiv.make_split(ds, "u1")
    cands = recdiv.make_recommender("user-knn").fit(split.train).recommend(users, 500)
    ctx = recdiv.Context(train=split.train, aspects=recdiv.genre_space(ds))
    top = recdiv.make_reranker("xQuAD").rerank(cands, 50, ctx)
    res = recdiv.evaluate({"xQuAD": top}, qrels, ["nDCG@50", "alpha-nDCG@50"], ctx)

`dir(recdiv)` lists them; docs/architecture.md says where each lives.
"""

from recdiv._lazy import lazy_exports
from recdiv.errors import ConfigError as ConfigError
from recdiv.errors import DataError as DataError
from recdiv.errors import RecdivError as RecdivError

__version__ = "0.1.0"

_EXPORTS = {
    # data
    "load_dataset": "recdiv.data.load",
    "make_split": "recdiv.data.splits",
    "Interactions": "recdiv.data.interactions",
    "Dataset": "recdiv.data.interactions",
    "Split": "recdiv.data.interactions",
    "Qrels": "recdiv.data.qrels",
    "Rankings": "recdiv.data.rankings",
    "Vocab": "recdiv.data.vocab",
    "read_trec_run": "recdiv.data.textio",
    "read_trec_qrels": "recdiv.data.textio",
    "write_trec_run": "recdiv.data.textio",
    # aspects and models
    "AspectSpace": "recdiv.aspects.space",
    "genre_space": "recdiv.aspects.build",
    "tag_space": "recdiv.aspects.build",
    "Context": "recdiv.models.context",
    # components
    "RECOMMENDERS": "recdiv.algorithms.registry",
    "make_recommender": "recdiv.algorithms.registry",
    "RERANKERS": "recdiv.diversifiers.registry",
    "make_reranker": "recdiv.diversifiers.registry",
    "GreedyReranker": "recdiv.diversifiers.greedy",
    "RerankerConfig": "recdiv.diversifiers.base",
    # evaluation
    "MEASURES": "recdiv.eval.catalog",
    "parse_measure": "recdiv.eval.catalog",
    "list_measures": "recdiv.eval.catalog",
    "evaluate": "recdiv.eval.evaluate",
    "Evaluation": "recdiv.eval.evaluate",
    "evaluate_files": "recdiv.eval.io",
    "Results": "recdiv.eval.results",
    # what the commands do, from files (recdiv.workflows)
    "recommend_files": "recdiv.workflows.recommend",
    "rerank_files": "recdiv.workflows.rerank",
    "compare_files": "recdiv.workflows.compare",
    "meta_files": "recdiv.workflows.meta",
    # experiments
    "load_experiment": "recdiv.experiment.spec.experiment",
    "run_experiment": "recdiv.experiment.run.runner",
}
__all__ = sorted([*_EXPORTS, "ConfigError", "DataError", "RecdivError", "__version__"])
_getattr, _dir = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> object:
    return _getattr(name)


def __dir__() -> list[str]:
    return sorted({*_dir(), "ConfigError", "DataError", "RecdivError", "__version__"})
