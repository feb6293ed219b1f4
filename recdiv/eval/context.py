"""`EvalContext` (what metrics need besides runs and qrels) and `RunView` (a run aligned to the
evaluated users, with the lookups every metric shares, computed once and cached)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import numpy as np

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import PAD, Rankings

if TYPE_CHECKING:
    from recdiv.aspects.similarity import ItemSimilarity
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.interactions import Interactions


@dataclass(eq=False)
class EvalContext:
    """Evaluation settings and side data (DESIGN.md: EvalContext).

    threshold: relevance threshold τ (relevant ⇔ grade ≥ τ; default 4 on 1–5 ratings).
    population: "relevant" (users with ≥ 1 relevant test item, default) or "judged" (trec_eval averaging).
    train: training interactions (popularity, profiles). aspects: the aspect space.
    similarity: item similarity for distance metrics (default: set cosine over `aspects`).
    previous: the previous recommendation lists (ESSD). scale: rating scale (min, max) if known.
    """

    threshold: float = 4.0
    population: Literal["relevant", "judged"] = "relevant"
    train: Interactions | None = None
    aspects: AspectSpace | None = None
    similarity: ItemSimilarity | None = None
    previous: Rankings | None = None
    scale: tuple[float, float] | None = None
    _views: dict = field(default_factory=dict, repr=False)

    def view(self, rankings: Rankings, qrels: Qrels) -> RunView:
        """The cached `RunView` of this run against these qrels."""
        key = (id(rankings), id(qrels))
        hit = self._views.get(key)
        if hit is None or hit.rankings is not rankings or hit.qrels is not qrels:
            hit = RunView(rankings, qrels, self)
            self._views[key] = hit
        return hit

    def clear(self) -> None:
        self._views.clear()


class RunView:
    """A run aligned to the evaluated population, with cached per-position lookups.

    Arrays have one row per evaluated user (`users`, ascending dense index) and one column per rank
    position of the run (k = rankings.k). Use `at(K)` helpers to cut or pad to a cutoff.
    """

    def __init__(self, rankings: Rankings, qrels: Qrels, context: EvalContext):
        if rankings.item_vocab is not qrels.items and rankings.item_vocab != qrels.items:
            raise ValueError("run and qrels use different item vocabularies")
        if rankings.user_vocab is not qrels.users and rankings.user_vocab != qrels.users:
            raise ValueError("run and qrels use different user vocabularies")
        self.rankings = rankings
        self.qrels = qrels
        self.context = context
        self.threshold = context.threshold
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
            view.threshold, view.users = float(threshold), self.users
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
        """(n, k) test grade of each ranked item; NaN if unjudged or padding."""
        return self.qrels.lookup(self.users, self.items)

    @cached_property
    def judged(self) -> np.ndarray:
        return ~np.isnan(self.grades)

    @cached_property
    def rel(self) -> np.ndarray:
        """(n, k) bool: ranked item is relevant (grade ≥ τ)."""
        return self.grades >= self.threshold  # NaN (unjudged, padding) compares False

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
    def max_grade(self) -> float:
        """Maximum grade of the scale (context.scale) or, if unknown, the maximum test grade."""
        if self.context.scale is not None:
            return float(self.context.scale[1])
        if self.qrels.scale is not None:
            return float(self.qrels.scale[1])
        return float(self.qrels.matrix.data.max()) if self.qrels.matrix.nnz else 1.0

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
