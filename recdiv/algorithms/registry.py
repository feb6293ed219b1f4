"""The recommenders by name: `RECOMMENDERS` (a `recdiv.registry.Registry`) and `make_recommender(name, **params)`.

Names follow the registry's spelling rule (``user-knn`` = ``UserKNN`` = ``userknn``); ``module:Class`` and the
entry-point group ``recdiv.recommenders`` add recommenders of other packages. Capabilities: ``item-factors``
(`item_factors`, items × F: MF factor aspect spaces) and ``topics`` (`user_topics`, `item_topics`: topic spaces).
"""

from __future__ import annotations

from typing import Any

from recdiv.algorithms.base import Recommender
from recdiv.algorithms.content import ContentBased
from recdiv.algorithms.implicit_mf import BPR, WRMF
from recdiv.algorithms.knn import ItemKNN, UserKNN
from recdiv.algorithms.lda import LDA
from recdiv.algorithms.mf import BiasedMF, PureSVD
from recdiv.algorithms.plsa import PLSA
from recdiv.algorithms.popularity import AverageRating, Popularity, RandomRecommender
from recdiv.config import validate_config
from recdiv.registry import Registry

RECOMMENDERS: Registry[type[Recommender]] = Registry("recommender", group="recdiv.recommenders", base=Recommender)
for _cls, _aliases in [
    (Popularity, ("popularity", "most-popular")),
    (RandomRecommender, ()),
    (AverageRating, ("average-rating",)),
    (UserKNN, ("user-based",)),
    (ItemKNN, ("item-based",)),
    (BiasedMF, ("biased-mf", "als")),
    (WRMF, ("implicit-als",)),
    (BPR, ()),
    (PureSVD, ()),
    (ContentBased, ("content-based",)),
    (PLSA, ()),
    (LDA, ()),
]:
    RECOMMENDERS.add(_cls.name, _cls, aliases=_aliases)


def make_recommender(name: str, **params: Any) -> Recommender:
    """A recommender by name (or ``module:Class``) with validated hyperparameters; unknown names or bad
    parameters are ConfigErrors (with a did-you-mean for names)."""
    entry = RECOMMENDERS.entry(name)
    cls = entry.obj
    config = validate_config(cls.Config, params, what=f"bad parameters for recommender {entry.name!r}")
    return cls(config)
