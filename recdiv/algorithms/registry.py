"""The recommenders by name: `RECOMMENDERS` (a `recdiv.registry.Registry`) and `make_recommender(name, **params)`.

Names follow the registry's spelling rule (``user-knn`` = ``UserKNN`` = ``userknn``); ``module:Class`` and the
entry-point group ``recdiv.recommenders`` add recommenders of other packages. Capabilities: ``item-factors``
(`item_factors`, items × F: MF factor aspect spaces) and ``topics`` (`user_topics`, `item_topics`: topic spaces).

The built-ins are registered by name and module (`Registry.defer`), as every kind of component is: a recommender's
module (and LensKit, torch, implicit behind it) is imported when that recommender is first looked up, so that
`recdiv recommend --help` lists the names without importing any. Each name is its class's `name`
(tests/test_registry.py checks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recdiv.registry import Registry

if TYPE_CHECKING:
    from recdiv.algorithms.base import Recommender

RECOMMENDERS: Registry[type[Recommender]] = Registry("recommender", group="recdiv.recommenders",
                                                    base="recdiv.algorithms.base:Recommender")
for _name, _spec, _aliases in [
    ("pop", "recdiv.algorithms.popularity:Popularity", ("popularity", "most-popular")),
    ("random", "recdiv.algorithms.popularity:RandomRecommender", ()),
    ("avg-rating", "recdiv.algorithms.popularity:AverageRating", ("average-rating",)),
    ("user-knn", "recdiv.algorithms.knn:UserKNN", ("user-based",)),
    ("item-knn", "recdiv.algorithms.knn:ItemKNN", ("item-based",)),
    ("mf-als", "recdiv.algorithms.mf:BiasedMF", ("biased-mf", "als")),
    ("wrmf", "recdiv.algorithms.implicit_mf:WRMF", ("implicit-als",)),
    ("bpr", "recdiv.algorithms.implicit_mf:BPR", ()),
    ("pure-svd", "recdiv.algorithms.mf:PureSVD", ()),
    ("content", "recdiv.algorithms.content:ContentBased", ("content-based",)),
    ("plsa", "recdiv.algorithms.plsa:PLSA", ()),
    ("lda", "recdiv.algorithms.lda:LDA", ()),
]:
    RECOMMENDERS.defer(_name, _spec, aliases=_aliases)


def make_recommender(name: str, **params: Any) -> Recommender:
    """A recommender by name (or ``module:Class``) with validated hyperparameters; unknown names or bad
    parameters are ConfigErrors (with a did-you-mean for names)."""
    from recdiv.config import validate_config

    entry = RECOMMENDERS.entry(name)
    cls = entry.obj
    config = validate_config(cls.Config, params, what=f"bad parameters for recommender {entry.name!r}")
    return cls(config)
