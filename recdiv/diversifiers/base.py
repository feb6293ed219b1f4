"""The reranker interface: `Reranker.rerank(candidates, k, context) -> Rankings` (METRICS.md §E.0).

A reranker turns every user's top-N candidate list (a `Rankings`, best first) into a top-k list made of a subset of
those candidates. What it needs besides the candidates lives in a `recdiv.models.context.Context` (the same object
the metrics use): training interactions (profiles, popularity), the aspect space, the item similarity, novelty
arrays and a seed. Its cache keeps what several rerankers share (user aspect distributions, novelty arrays), so one
context can serve a whole experiment.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal, get_args, get_origin

import numpy as np
from pydantic import model_validator

from recdiv.config import Config
from recdiv.data.rankings import PAD, Rankings
from recdiv.errors import DataError
from recdiv.models.context import Context
from recdiv.models.intent import rows_or_uniform
from recdiv.progress import tick


class RerankerConfig(Config):
    """Base of every reranker configuration (`recdiv.config.Config`: unknown keys and values of the wrong type
    are errors, immutable); `lambda` may be written as is. A choice among names that include "none" (`norm`)
    also takes None: `--param norm=none` reads as None (a null value), and means the name."""

    @model_validator(mode="before")
    @classmethod
    def _none_is_the_name_none(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = dict(data)
        for name, info in cls.model_fields.items():
            for key in (name, info.alias):
                choices = get_args(info.annotation) if get_origin(info.annotation) is Literal else ()
                if key in out and out[key] is None and "none" in choices:
                    out[key] = "none"
        return out


#: the context of a reranking is the one `Context` of evaluation and reranking (this name is kept for scripts)
RerankContext = Context


@dataclass(eq=False)
class CandidateBlock:
    """Candidates of a block of users, in the context's item indices.

    items (n, N) int (−1 padding), scores (n, N) float (NaN at padding), valid (n, N) bool, users (n,) row of each
    user in the training data (−1 = unknown user).
    """

    items: np.ndarray
    scores: np.ndarray
    valid: np.ndarray
    users: np.ndarray
    context: Context
    ids: np.ndarray | None = None  # the candidates' own dense user indices
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return self.items.shape[0]

    @property
    def N(self) -> int:
        return self.items.shape[1]

    @cached_property
    def lengths(self) -> np.ndarray:
        return self.valid.sum(axis=1)

    def user_distribution(self, weighting: str = "count") -> np.ndarray:
        """p(a|u) rows of the block's users; unknown users get the uniform distribution."""
        return rows_or_uniform(self.context.user_distribution(weighting), self.users)

    @cached_property
    def has_profile(self) -> np.ndarray:
        """(n,) True where the user has at least one training interaction."""
        train = self.context.train
        if train is None:
            return np.zeros(self.n, dtype=bool)
        counts = train.user_counts()
        return (self.users >= 0) & (counts[np.maximum(self.users, 0)] > 0)


class Reranker(ABC):
    """Reranks every user's candidates into a top-k list: `rerank(candidates, k, context) -> Rankings`.

    Subclasses set `NAME`, `Config` (a `RerankerConfig`) and implement `_rerank_block`, which returns, for a block
    of users, the chosen candidate *positions* (n, k) with −1 padding. Output scores are k, k−1, …, 1 (rank order,
    so that the list survives a round trip through a TREC run file sorted by score).
    """

    NAME: ClassVar[str] = ""
    FORMULA: ClassVar[str] = ""  # the objective f(i | S), for the reference table of docs/diversifiers.md
    CITATION: ClassVar[str] = ""  # its source
    Config: ClassVar[type[RerankerConfig]] = RerankerConfig
    #: context parts the reranker reads: "train" (profiles p(a|u), popularity), "aspects" (A(i), p(a|u)),
    #: "similarity" (an item similarity: over the aspects by default, or set in the context)
    NEEDS: ClassVar[tuple[str, ...]] = ("aspects",)
    BLOCK_USERS: ClassVar[int] = 512  # users per block: keeps the per-step (users × N) arrays in cache
    #: the first j positions of its top-k lists are its top-j lists (j ≤ k): nothing it computes depends on k
    #: (the explorer takes a shorter list from a longer one; tests/diversifiers/test_depth_free.py checks it)
    DEPTH_FREE: ClassVar[bool] = False
    #: parameter settings in which the reranker returns the baseline's top k (pure relevance: MMR λ = 1, xQuAD
    #: λ = 0, ...); the conformance suite (`recdiv.testing.conformance.check_reranker_class`) checks each
    PURE_RELEVANCE: ClassVar[tuple[dict, ...]] = ()

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env) -> list[int]:
        """A readable per-user loop of the objective (the oracle the vectorised reranker is tested against):
        `params` as given to `make_reranker`, one user's candidates (item indices, best first) and scores, the list
        length and the user's `recdiv.diversifiers.reference.UserEnv`; returns the chosen positions. Every
        built-in reranker defines it beside its class (`recdiv.diversifiers.reference.reference_rerank`)."""
        raise NotImplementedError("this reranker has no per-user reference loop")

    def __init__(self, config: RerankerConfig | None = None, **params):
        if config is not None and params:
            raise TypeError("give either a config or keyword parameters")
        self.config = config if config is not None else self.Config(**params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.model_dump(by_alias=True).items())
        return f"{self.NAME}({args})"

    def rerank(self, candidates: Rankings, k: int, context: Context | None = None, *,
               blocks: dict | None = None) -> Rankings:
        """Every user's top-k list. `blocks`: a dict the caller keeps to reuse, across rerankings of the same
        `candidates` with the same context (a sweep of λ), what each block of users derives from them alone (the
        caches of `CandidateBlock`: aspect indicators and probabilities); None keeps nothing."""
        context = covering(candidates, context if context is not None else Context())
        if k < 0:
            raise ValueError("k must be non-negative")
        items = _map_items(candidates, context)
        users = _map_users(candidates, context)
        scores = np.where(items >= 0, candidates.scores, np.nan).astype(np.float64)
        kk = min(k, items.shape[1])
        pos = np.full((len(items), kk), PAD, dtype=np.int64)
        step = max(1, self.BLOCK_USERS)

        def run(lo: int) -> None:
            sl = slice(lo, lo + step)
            block = CandidateBlock(items[sl], scores[sl], items[sl] >= 0, users[sl], context,
                                   ids=np.asarray(candidates.users[sl]),
                                   cache={} if blocks is None else blocks.setdefault((lo, step), {}))
            pos[sl] = self._rerank_block(block, kk)
            tick(len(block.items))

        starts = range(0, len(items), step) if kk > 0 else range(0)
        if context.threads > 1 and len(starts) > 1:
            with ThreadPoolExecutor(context.threads) as pool:  # NumPy releases the GIL inside array operations
                list(pool.map(run, starts))
        else:
            for lo in starts:
                run(lo)
        return _positions_to_rankings(candidates, pos)

    @abstractmethod
    def _rerank_block(self, block: CandidateBlock, k: int) -> np.ndarray:
        """Chosen candidate positions (n, k), −1 where a user has fewer than k candidates."""


def covering(candidates: Rankings, context: Context) -> Context:
    """`context` over its items and then the candidate items it does not know (`Context.with_items`): a candidate
    that the aspects, the training data and the factors do not describe is an item without features — no aspects,
    no profile, zero similarity to any item — as RankSys takes an item missing from its feature data, and as
    `recdiv rerank` reads a candidate that no file describes. Built once per candidate vocabulary (the context's
    cache keeps it)."""
    vocab = context.items
    if vocab is None or vocab is candidates.item_vocab or vocab == candidates.item_vocab:
        return context
    listed = np.asarray(candidates.items)
    ext = candidates.item_vocab.id_of(np.unique(listed[listed >= 0]))
    if (vocab.lookup(ext, missing="-1") >= 0).all():
        return context
    return context.cache.get(("covering", candidates.item_vocab),
                             lambda: context.with_items(vocab.extend(candidates.item_vocab.ids)))


def candidate_block(candidates: Rankings, context: Context) -> CandidateBlock:
    """All of `candidates` as one `CandidateBlock` in the context's item indices (what `Reranker.rerank` builds per
    block of users)."""
    context = covering(candidates, context)
    items = _map_items(candidates, context)
    scores = np.where(items >= 0, candidates.scores, np.nan).astype(np.float64)
    return CandidateBlock(items, scores, items >= 0, _map_users(candidates, context), context,
                          ids=np.asarray(candidates.users))


def _map_items(candidates: Rankings, context: Context) -> np.ndarray:
    items = np.asarray(candidates.items, dtype=np.int64)
    vocab = context.items
    if vocab is None or vocab is candidates.item_vocab or vocab == candidates.item_vocab:
        return items.copy()
    valid = items >= 0
    ext = candidates.item_vocab.id_of(items[valid])
    idx = vocab.lookup(ext, missing="-1")
    if (idx < 0).any():
        raise DataError(f"candidate item {ext[idx < 0][0]!r} is not in the aspect space / training data")
    out = np.full(items.shape, PAD, dtype=np.int64)
    out[valid] = idx
    return out


def _map_users(candidates: Rankings, context: Context) -> np.ndarray:
    users = np.asarray(candidates.users, dtype=np.int64)
    if context.train is None:
        return np.full(len(users), -1, dtype=np.int64)
    vocab = context.train.users
    if vocab is candidates.user_vocab or vocab == candidates.user_vocab:
        return users.copy()
    return vocab.lookup(candidates.user_vocab.id_of(users), missing="-1")


def _positions_to_rankings(candidates: Rankings, pos: np.ndarray) -> Rankings:
    chosen = pos >= 0
    rows = np.arange(len(pos))[:, None]
    items = np.where(chosen, candidates.items[rows, np.maximum(pos, 0)], PAD)
    k = pos.shape[1]
    scores = np.where(chosen, np.arange(k, 0, -1, dtype=np.float64)[None, :], np.nan)
    return Rankings(np.asarray(candidates.users, dtype=np.int64).copy(), items, scores,
                    candidates.user_vocab, candidates.item_vocab)
