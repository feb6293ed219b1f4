"""`RunView`: a run aligned to the evaluated users, with the lookups every metric shares, computed once.

What metrics need besides runs and qrels is the one `recdiv.models.context.Context` (threshold, population, training
data, aspects, similarity, previous lists) shared with the rerankers; `EvalContext` is its name here, kept for
scripts. Views live in the context's cache: `RunView.of(context, rankings, qrels)`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

from recdiv.data.qrels import Qrels, is_judged, is_relevant, relevance_threshold
from recdiv.data.rankings import PAD, Rankings
from recdiv.models.context import Context

__all__ = ["EvalContext", "RunView"]

T = TypeVar("T")

#: the evaluation context is the one `Context` (this name is kept for scripts)
EvalContext = Context


class RunView:
    """A run aligned to the evaluated population, with cached per-position lookups.

    Arrays have one row per evaluated user (`users`, ascending dense index) and one column per rank
    position of the run (k = rankings.k). Use `at(K)` helpers to cut or pad to a cutoff.
    """

    @classmethod
    def of(cls, context: Context | None, rankings: Rankings, qrels: Qrels) -> RunView:
        """The view of this run against these qrels under the context's threshold and population, built once and
        kept in `context.cache` (a fresh context when None)."""
        context = context if context is not None else Context()
        key = ("run view", rankings, qrels, float(context.threshold), context.population)
        return context.cache.get(key, lambda: cls(rankings, qrels, context))

    def key(self, *parts: Any) -> tuple:
        """The cache key of a value derived from this view (`parts` name it)."""
        return ("run view", self.rankings, self.qrels, float(self.threshold), self.context.population,
                float(self.population_threshold), *parts)

    def memo(self, key: Any, build: Callable[[], T]) -> T:
        """A value derived from this view (shared by several measures), computed once and kept in the context's
        cache with the view."""
        return self.context.cache.get(self.key(key), build)

    def __init__(self, rankings: Rankings, qrels: Qrels, context: Context):
        if rankings.item_vocab is not qrels.items and rankings.item_vocab != qrels.items:
            raise ValueError("run and qrels use different item vocabularies")
        if rankings.user_vocab is not qrels.users and rankings.user_vocab != qrels.users:
            raise ValueError("run and qrels use different user vocabularies")
        self.rankings = rankings
        self.qrels = qrels
        self.context = context
        # negative labels are pooled but unjudged (trec_eval): never relevant, so τ < 0 acts as τ = 0
        self.threshold = relevance_threshold(context.threshold)
        self.population_threshold = context.threshold  # the threshold that chose `users` (see at_threshold)
        self.users = qrels.population(context.threshold, context.population)

    def at_threshold(self, threshold: float) -> RunView:
        """The same users (the evaluated population) judged at another relevance threshold: relevant ⇔ grade ≥
        `threshold` (a measure's own level, ir_measures' `rel=`). Cached per threshold."""
        if threshold == self.threshold:
            return self
        cache = self.__dict__.setdefault("_levels", {})
        if threshold not in cache:
            view = RunView.__new__(RunView)
            view.rankings, view.qrels, view.context = self.rankings, self.qrels, self.context
            view.threshold, view.users = relevance_threshold(float(threshold)), self.users
            view.population_threshold = self.population_threshold
            view.__dict__["aligned"] = self.aligned
            cache[threshold] = view
        return cache[threshold]

    @cached_property
    def aligned(self) -> Rankings:
        return self.rankings.for_users(self.users)

    @property
    def items(self) -> np.ndarray:
        """(n, k) dense item indices, −1 padding."""
        return self.aligned.items

    @cached_property
    def grades(self) -> np.ndarray:
        """(n, k) test grade of each ranked item; NaN if not in the qrels or padding (negative: pooled, unjudged)."""
        return self.qrels.lookup(self.users, self.items)

    @cached_property
    def judged(self) -> np.ndarray:
        """(n, k) bool: ranked item is judged (grade ≥ 0; NaN and negative labels compare False)."""
        return is_judged(self.grades)

    @cached_property
    def pooled_unjudged(self) -> np.ndarray:
        """(n, k) bool: ranked item has a negative label — in the pool but unjudged (trec_eval's infAP)."""
        return self.grades < 0.0

    @cached_property
    def rel(self) -> np.ndarray:
        """(n, k) bool: ranked item is relevant (grade ≥ τ)."""
        return is_relevant(self.grades, self.threshold)  # unjudged and padding (NaN): not relevant

    @cached_property
    def n_rel(self) -> np.ndarray:
        """|Rel_u| for each evaluated user (all relevant test items, retrieved or not)."""
        return self.qrels.n_relevant(self.threshold)[self.users]

    @cached_property
    def n_judged(self) -> np.ndarray:
        return self.qrels.n_judged()[self.users]

    @cached_property
    def lengths(self) -> np.ndarray:
        return (self.items != PAD).sum(axis=1)

    @cached_property
    def depth(self) -> int:
        """The deepest position any list of this evaluation reaches: the longest list of the run, the most judged
        items of an evaluated user (ideal lists), the longest previous list. A cutoff beyond it adds no position
        (`Measure.at_depth`)."""
        labels = self.qrels.n_labels()[self.users]
        previous = self.context.previous
        return max(int(self.items.shape[1]), int(labels.max(initial=0)),
                   int(previous.items.shape[1]) if previous is not None else 0, 1)

    @cached_property
    def max_grade(self) -> float:
        """Maximum grade of the scale (context.scale) or, if unknown, the maximum test grade."""
        return max_grade(self.context, self.qrels)[0]

    def judged_grades_sorted(self, k: int | None = None) -> np.ndarray:
        """(n, k) grades of each user's judged test items sorted descending, 0-padded (ideal lists)."""
        m = self.qrels.matrix[self.users]
        counts = np.diff(m.indptr)
        width = int(counts.max()) if len(counts) and k is None else (k or 0)
        width = max(width, 1)
        rows = np.repeat(np.arange(len(self.users)), counts)
        order = np.lexsort((-m.data, rows))
        pos = np.arange(m.nnz) - np.repeat(m.indptr[:-1], counts)
        out = np.zeros((len(self.users), max(width, int(counts.max()) if len(counts) else 1)))
        out[rows[order], pos] = m.data[order]
        return out[:, :width] if k is not None else out

    def at(self, array: np.ndarray, k: int | None, fill=0) -> np.ndarray:
        """Cut or pad (with `fill`) an (n, k_run) array to K columns; K=None keeps it whole."""
        if k is None:
            return array
        if array.shape[1] >= k:
            return array[:, :k]
        pad = np.full((array.shape[0], k - array.shape[1]), fill, dtype=array.dtype)
        return np.concatenate([array, pad], axis=1)


def max_grade(context: Context, qrels: Qrels) -> tuple[float, str]:
    """(r_max, where it comes from): the declared scale, the qrels' scale (a dataset's), or the largest test grade."""
    if context.scale is not None:
        return float(context.scale[1]), "the declared rating scale"
    if qrels.scale is not None:
        return float(qrels.scale[1]), "the dataset's rating scale"
    if qrels.csr.nnz:
        return float(qrels.csr.data.max()), "the largest grade in the qrels"
    return 1.0, "no grade in the qrels (default 1)"
