"""Baseline recommenders and candidate generation: `make_recommender(name, **params).fit(train).recommend(...)`.

The names below are imported on first use (the recommenders bring LensKit and torch)."""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "Recommender": "recdiv.algorithms.base",
    "RecommenderConfig": "recdiv.algorithms.base",
    "RECOMMENDERS": "recdiv.algorithms.registry",
    "make_recommender": "recdiv.algorithms.registry",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
