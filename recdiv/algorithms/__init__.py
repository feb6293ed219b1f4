"""Baseline recommenders and candidate generation: `make_recommender(name, **params).fit(train).recommend(...)`."""

from recdiv.algorithms.base import Recommender, RecommenderConfig
from recdiv.algorithms.registry import RECOMMENDERS, make_recommender

__all__ = ["RECOMMENDERS", "Recommender", "RecommenderConfig", "make_recommender"]
