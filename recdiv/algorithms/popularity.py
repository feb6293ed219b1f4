"""Non-personalised probe baselines: most popular, random, and average rating (Vargas 2012 §4.8)."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from recdiv.algorithms.base import Recommender, RecommenderConfig
from recdiv.data.interactions import Interactions


class PopularityConfig(RecommenderConfig):
    pass


class Popularity(Recommender):
    """Most popular: score(u, i) = |U_i|, the number of training users with a stored value for item i.

    The same list for every user (minus the user's excluded items); items nobody interacted with score 0.
    Reference: the standard popularity baseline, e.g. Cremonesi, Koren & Turrin (2010) "TopPop".
    """

    name = "pop"
    purpose = "top-N reference: the non-personalised list every top-N recommender should beat"
    Config = PopularityConfig
    personalised = False

    def _fit(self, train: Interactions, **side: Any) -> None:
        self.item_scores_ = train.item_counts().astype(np.float64)

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        return np.broadcast_to(self.item_scores_, (len(users), len(self.item_scores_)))


class RandomConfig(RecommenderConfig):
    seed: int = 0


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (Steele, Lea & Flood 2014): a bijective, well-mixed uint64 -> uint64 hash."""
    x = x ^ (x >> np.uint64(30))
    x = x * _MIX1
    x = x ^ (x >> np.uint64(27))
    x = x * _MIX2
    return x ^ (x >> np.uint64(31))


class RandomRecommender(Recommender):
    """Random: score(u, i) ~ U[0, 1), independent for every (user, item), fixed by `seed`.

    Two 64-bit keys are drawn from `numpy.random.default_rng(seed)` at fit time; the score of (u, i) is the
    splitmix64 hash of (u·key1 + i·key2) mapped to [0, 1). A user's list therefore depends only on the seed and
    the user, not on which other users are requested or how they are batched.
    Reference: Vargas (2012) thesis §4.8 (RND probe baseline).
    """

    name = "random"
    purpose = "lower bound"
    Config = RandomConfig
    fresh_blocks = True
    personalised = False

    def _fit(self, train: Interactions, **side: Any) -> None:
        rng = np.random.default_rng(self.config.seed)
        self.keys_ = rng.integers(1, np.iinfo(np.int64).max, size=2, dtype=np.int64).astype(np.uint64) | np.uint64(1)

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        u = np.asarray(users, dtype=np.uint64)[:, None] * self.keys_[0]
        i = np.arange(self.n_items, dtype=np.uint64)[None, :] * self.keys_[1]
        with np.errstate(over="ignore"):
            h = _splitmix64(u + i)
        return (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


class AverageRatingConfig(RecommenderConfig):
    min_raters: int = Field(5, ge=1, description="items with fewer raters get a linear penalty")


class AverageRating(Recommender):
    """Average rating with a linear penalty for items with few raters (Vargas 2012 thesis §4.8.1, "AVG").

    score(i) = mean_{u ∈ U_i} r(u, i) · min(|U_i|, m) / m, with m = `min_raters` (default 5): items with fewer than
    five raters have their average scaled down linearly, so single-rater favourites do not swamp the top of the
    lists. Items without raters score 0. On implicit data the mean is over the stored values (e.g. play counts).
    """

    name = "avg-rating"
    purpose = "rating-based ranking (best average rating): a reference, far below popularity in top-N"
    Config = AverageRatingConfig
    personalised = False

    def _fit(self, train: Interactions, **side: Any) -> None:
        counts = train.item_counts().astype(np.float64)
        sums = np.bincount(train.item_index, weights=train.values, minlength=train.n_items)
        mean = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
        m = float(self.config.min_raters)
        self.item_means_ = mean
        self.item_scores_ = mean * np.minimum(counts, m) / m

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        return np.broadcast_to(self.item_scores_, (len(users), len(self.item_scores_)))
