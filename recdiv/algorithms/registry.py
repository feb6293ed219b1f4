"""Registry of baseline recommenders by name: `make_recommender("user-knn", k=50)`."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from recdiv.algorithms.base import Recommender
from recdiv.algorithms.content import ContentBased
from recdiv.algorithms.implicit_mf import BPR, WRMF
from recdiv.algorithms.knn import ItemKNN, UserKNN
from recdiv.algorithms.mf import BiasedMF, PureSVD
from recdiv.algorithms.plsa import PLSA
from recdiv.algorithms.popularity import AverageRating, Popularity, RandomRecommender
from recdiv.errors import ConfigError

RECOMMENDERS: dict[str, type[Recommender]] = {
    cls.name: cls
    for cls in (Popularity, RandomRecommender, AverageRating, UserKNN, ItemKNN, BiasedMF, WRMF, BPR, PureSVD,
                ContentBased, PLSA)
}


def make_recommender(name: str, **params: Any) -> Recommender:
    """A recommender by registry name with validated hyperparameters; unknown names or parameters -> ConfigError."""
    cls = RECOMMENDERS.get(name)
    if cls is None:
        raise ConfigError(f"unknown recommender {name!r}; known: {', '.join(RECOMMENDERS)}")
    try:
        return cls(cls.Config(**params))
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or '?'}: {err['msg']}" for err in e.errors()
        )
        raise ConfigError(f"bad parameters for recommender {name!r}: {problems}") from None
