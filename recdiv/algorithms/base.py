"""The `Recommender` interface: fit on training `Interactions`, then score and rank items for many users at once.

A recommender computes a dense block of scores (users × items) for a batch of users (`_score_block`); the base
class turns blocks into top-n `Rankings` (excluded items masked, tie rule of METRICS.md §0.5 through `top_k` with
the item vocabulary's string rank), so every baseline shares one ranking path and one tie rule.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from recdiv.config import Config
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import PAD, Rankings, top_k
from recdiv.progress import tick

# Scores are computed in blocks of users; a block holds at most this many (user, item) cells.
BLOCK_CELLS = 1 << 23


class RecommenderConfig(Config):
    """Base of every recommender's hyperparameters (`recdiv.config.Config`: unknown keys and values of the wrong
    type are errors; immutable)."""


class _TrainDefault:
    def __repr__(self) -> str:
        return "<train>"


TRAIN = _TrainDefault()
"""Sentinel default of `recommend(exclude=...)`: exclude the user's training items."""


def default_threads() -> int:
    """Threads for native libraries: `RECDIV_THREADS` if set, else the number of usable cores."""
    env = os.environ.get("RECDIV_THREADS")
    if env:
        return max(1, int(env))
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


class Recommender(ABC):
    """A recommender: `fit(train) -> self`, `recommend(users, n, exclude=train) -> Rankings`, `score(users, items)`.

    Subclasses define `Config` (a `RecommenderConfig`), `_fit(train)` and `_score_block(users)` returning a dense
    (len(users) × n_items) float array where NaN means "cannot score this item for this user". Users that the model
    cannot score at all (by default: users with no training data) get an empty ranking row (all -1) and NaN scores.
    """

    name: ClassVar[str] = ""
    #: what the model is for, one line for `recdiv recommend --help` and docs/algorithms.md ("top-N candidates",
    #: "rating prediction", ...)
    purpose: ClassVar[str] = ""
    Config: ClassVar[type[RecommenderConfig]] = RecommenderConfig
    #: what the fitted model provides to other stages: "item-factors" (`item_factors`, items × F), "topics"
    #: (`user_topics` users × Z, `item_topics` Z × items); see `recdiv.algorithms.registry`
    CAPABILITIES: ClassVar[tuple[str, ...]] = ()
    personalised: ClassVar[bool] = True  # False: every user can be scored (popularity, random, average)
    # True: `_score_block` returns a new array that nothing else references, so `recommend` may mask it in place
    fresh_blocks: ClassVar[bool] = False

    def __init__(self, config: RecommenderConfig | None = None, **params: Any):
        if config is not None and params:
            raise TypeError("pass either a config or keyword parameters, not both")
        self.config = config if config is not None else self.Config(**params)
        self.train_: Interactions | None = None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.model_dump().items())
        return f"{type(self).__name__}({args})"

    # training ------------------------------------------------------------------------------------------
    def fit(self, train: Interactions, **side: Any) -> Recommender:
        """Train on `train` (users × items over the dataset's vocabularies); returns self. Sizes in the config are
        checked against the data first (`check_sizes`)."""
        self.check_sizes(train)
        self.train_ = train
        self._fit(train, **side)
        return self

    #: config fields that size a model by its latent dimension, and fields that count training passes
    RANK_FIELDS = ("factors", "topics", "n_topics")
    PASS_FIELDS = ("iterations", "epochs", "max_iter", "n_iter")

    def check_sizes(self, train: Interactions) -> None:
        """ConfigError, before training, for a latent dimension whose factor matrices ((users + items) × dimension)
        exceed `recdiv.limits.MAX_DENSE_CELLS`, and for more training passes than `MAX_ITERATIONS`."""
        from recdiv.limits import MAX_ITERATIONS, at_most, check_cells

        config = self.config.model_dump()
        for name in self.RANK_FIELDS:
            if isinstance(config.get(name), int):
                check_cells(f"{name} of {type(self).__name__}: (users + items) × {name}",
                            train.n_users + train.n_items, config[name])
        for name in self.PASS_FIELDS:
            if isinstance(config.get(name), int):
                at_most(f"{name} of {type(self).__name__}", config[name], MAX_ITERATIONS)

    @abstractmethod
    def _fit(self, train: Interactions, **side: Any) -> None: ...

    @abstractmethod
    def _score_block(self, users: np.ndarray) -> np.ndarray:
        """Dense scores (len(users) × n_items) for scorable users; NaN = item not scorable for that user."""

    # scoring ------------------------------------------------------------------------------------------
    @property
    def n_items(self) -> int:
        return self._train.n_items

    @property
    def _train(self) -> Interactions:
        if self.train_ is None:
            raise RuntimeError(f"{type(self).__name__} is not fitted: call fit(train) first")
        return self.train_

    def can_score(self, users: np.ndarray) -> np.ndarray:
        """Boolean mask: which of the dense user indices the model can score (default: users with training data)."""
        users = np.asarray(users, dtype=np.int64)
        if not self.personalised:
            return np.ones(len(users), dtype=bool)
        return self._train.user_counts()[users] > 0

    def _blocks(self, users: np.ndarray):
        size = max(1, BLOCK_CELLS // max(1, self.n_items))
        for lo in range(0, len(users), size):
            yield lo, users[lo : lo + size]

    def score(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Scores of (user, item) pairs: `items` (m,) aligned with `users` (m,) gives (m,); `items` (m, k) gives
        (m, k) (a row of candidates per user, -1 = padding). NaN where the model cannot score."""
        users = np.asarray(users, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        flat = items.ndim == 1
        grid = items[:, None] if flat else items
        if len(grid) != len(users):
            raise ValueError("score needs one row of items per user")
        out = np.full(grid.shape, np.nan)
        idx = np.flatnonzero(self.can_score(users))
        for _, rows in self._blocks(idx):
            uniq, inv = np.unique(users[rows], return_inverse=True)
            s = self._score_block(uniq)
            sub = grid[rows]
            valid = (sub != PAD) & (sub >= 0) & (sub < self.n_items)
            got = np.take_along_axis(s[inv], np.where(valid, sub, 0), axis=1)
            out[rows] = np.where(valid, got, np.nan)
        return out[:, 0] if flat else out

    # ranking ------------------------------------------------------------------------------------------
    def recommend(self, users: np.ndarray, n: int, exclude: Interactions | _TrainDefault | None = TRAIN) -> Rankings:
        """Top-`n` items for each user (dense indices), best first, excluding the user's items in `exclude`
        (default: the training data; `None`: exclude nothing). Ties: score descending, then external item id in
        descending string order (METRICS.md §0.5). Unscorable users get an empty row."""
        train = self._train
        users = np.asarray(users, dtype=np.int64)
        if n < 0:
            raise ValueError("n must be >= 0")
        excl = train if exclude is TRAIN else exclude
        if excl is not None and excl.n_items != train.n_items:
            raise ValueError("exclude must share the training item vocabulary")
        k = min(n, train.n_items)
        items = np.full((len(users), k), PAD, dtype=np.int64)
        scores = np.full((len(users), k), np.nan)
        idx = np.flatnonzero(self.can_score(users))
        tiebreak = train.items.string_rank
        for lo, block in self._blocks(users[idx]):
            s = self._score_block(block)
            if not (self.fresh_blocks and _is_plain(s)):
                # a C-ordered float64 copy, masked in place (order="C": broadcast or transposed blocks would
                # otherwise be copied in Fortran order and top_k would have to copy them again)
                s = np.array(s, dtype=np.float64, order="C")
            if excl is not None:
                mask_excluded(s, excl.matrix, block)
            it, sc = top_k(s, k, tiebreak)
            items[idx[lo : lo + len(block)]] = it
            scores[idx[lo : lo + len(block)]] = sc
            tick(len(block))
        return Rankings(users, items, scores, train.users, train.items)


def _is_plain(s: np.ndarray) -> bool:
    """A writeable, C-contiguous float64 array owning its data (safe to modify in place)."""
    return (isinstance(s, np.ndarray) and s.dtype == np.float64 and s.flags.c_contiguous and s.flags.writeable
            and s.flags.owndata)


def mask_excluded(scores: np.ndarray, matrix: sp.csr_matrix, users: np.ndarray) -> None:
    """Set scores[r, j] = -inf for every stored (users[r], j) of `matrix` (in place)."""
    sub = matrix[users]
    rows = np.repeat(np.arange(len(users)), np.diff(sub.indptr))
    scores[rows, sub.indices] = -np.inf


def binary(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """The same sparsity pattern with all stored values 1 (float64)."""
    m = matrix.copy().astype(np.float64)
    m.data = np.ones_like(m.data)
    return m
