"""`Context`: what evaluation and reranking need besides runs and qrels, with the one cache they share.

One object serves both: the metrics read the relevance threshold, the population, the training data, the aspect
space, the item similarity and the previous lists; the rerankers read the training data, the aspect space, the
similarity, precomputed novelty arrays, the seed and the thread count. Everything derived from these (user aspect
distributions, item novelty, similarity matrices, aligned run views, ideal lists, kernel tables) is computed once
and kept in `context.cache`, an explicit `Cache`; `context.cache.clear()` forgets all of it. There are no
module-level caches in recdiv.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from recdiv.aspects.similarity import ItemSimilarity, SetCosine
from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.models.intent import item_aspect_distribution, user_aspect_distribution
from recdiv.models.novelty import item_novelty

if TYPE_CHECKING:
    from recdiv.data.rankings import Rankings

__all__ = ["Cache", "Context"]

T = TypeVar("T")
_PLAIN = (str, int, float, bool, type(None), bytes)


def _is_plain(x: Any) -> bool:
    return isinstance(x, _PLAIN) or (isinstance(x, tuple) and all(_is_plain(v) for v in x))


class Cache:
    """Values computed once per key. A key is a tuple; plain values (str, int, float, bool, None, tuples of them)
    compare by value, any other object (a qrels, a run, an aspect space, an array) by identity — the entry keeps it
    alive, so an identity is never confused with a later object's."""

    def __init__(self) -> None:
        self._store: dict[tuple, tuple[tuple, Any]] = {}

    @staticmethod
    def _split(key: tuple) -> tuple[tuple, tuple]:
        norm, objs = [], []
        for x in key:
            if _is_plain(x):
                norm.append(x)
            else:
                norm.append(("<object>", id(x)))
                objs.append(x)
        return tuple(norm), tuple(objs)

    def peek(self, key: tuple) -> Any | None:
        """The value stored under `key`, or None."""
        norm, objs = self._split(key)
        hit = self._store.get(norm)
        if hit is None or len(hit[0]) != len(objs) or any(a is not b for a, b in zip(hit[0], objs)):
            return None
        return hit[1]

    def put(self, key: tuple, value: T) -> T:
        norm, objs = self._split(key)
        self._store[norm] = (objs, value)
        return value

    def get(self, key: tuple, build: Callable[[], T]) -> T:
        """The value under `key`, computed by `build()` the first time."""
        hit = self.peek(key)
        return hit if hit is not None else self.put(key, build())

    def clear(self) -> None:
        """Forget every value."""
        self._store.clear()

    def forget(self, obj: Any) -> None:
        """Forget the values whose key holds `obj` (e.g. everything derived from one run), keep the others."""
        for k in [k for k, (objs, _) in self._store.items() if any(o is obj for o in objs)]:
            del self._store[k]

    def __len__(self) -> int:
        return len(self._store)

    def __repr__(self) -> str:
        return f"<Cache of {len(self)} values>"


@dataclass(eq=False)
class Context:
    """Settings and side data of an evaluation or a reranking (also named `EvalContext`, `RerankContext`).

    threshold: relevance threshold τ (relevant ⇔ grade ≥ τ; default 4 on 1–5 ratings). Grades below 0 are TREC's
    "pooled but unjudged" labels: never judged, never relevant (a τ below 0 acts as 0).
    population: "relevant" (users with ≥ 1 relevant test item, default) or "judged" (trec_eval averaging).
    scale: the rating scale (min, max) — its max is r_max of the measures that need it (ERR, ERR-IA, αβ-nDCG, graded
    gains); without it the qrels' own scale (datasets) or, failing that, the largest test grade
    (`recdiv.eval.context.max_grade` says which). train: training interactions (popularity, profiles).
    aspects: the aspect space. similarity: item similarity (default: set cosine over `aspects`).
    previous: the previous recommendation lists (ESSD). item_groups: items × groups (provider groups, a protected
    attribute: an aspect-file space) of the exposure and fairness measures and of FA*IR. novelty: precomputed item
    novelty arrays by name ("IUF", "PC", "FD"; computed from `train` when absent). seed: for randomised rerankers.
    threads: user blocks reranked in parallel threads. cache: every derived value (see the module docstring).
    """

    threshold: float = 4.0
    population: Literal["relevant", "judged"] = "relevant"
    scale: tuple[float, float] | None = None
    train: Interactions | None = None
    aspects: AspectSpace | None = None
    similarity: ItemSimilarity | None = None
    previous: Rankings | None = None
    item_groups: AspectSpace | None = None
    novelty: dict[str, np.ndarray] = field(default_factory=dict)
    seed: int = 0
    threads: int = 2
    cache: Cache = field(default_factory=Cache, repr=False)

    def __post_init__(self):
        if self.train is not None and self.aspects is not None and self.train.items != self.aspects.items:
            raise ValueError("training data and aspect space use different item vocabularies")
        known = self.aspects.items if self.aspects is not None else self.train.items if self.train is not None else None
        if self.item_groups is not None and known is not None and self.item_groups.items != known:
            raise ValueError("item groups and training data / aspect space use different item vocabularies")

    @property
    def items(self) -> Vocab | None:
        if self.aspects is not None:
            return self.aspects.items
        return None if self.train is None else self.train.items

    def with_items(self, items: Vocab) -> Context:
        """This context over `items`, a vocabulary that starts with this context's items (`Vocab.extend`): the items
        added have no aspects, no interactions, no item group and no features, as an item that no file describes
        (`recdiv rerank` reads such candidates the same way). A new cache; ConfigError when a part cannot be
        extended (precomputed `novelty` arrays, a similarity without `with_items`)."""
        from dataclasses import replace

        if self.items is None or items is self.items or items == self.items:
            return self
        similarity = self.similarity.with_items(len(items)) if self.similarity is not None else None
        if self.similarity is not None and similarity is None:
            raise ConfigError(f"the similarity {type(self.similarity).__name__} cannot take items it was not built "
                              "over (it has no with_items): build it over every candidate item")
        if self.novelty:
            raise ConfigError("Context.novelty holds arrays over the context's items: give them for every candidate "
                              "item, or leave novelty to be computed from the training data")
        return replace(self, train=self.train.with_items(items) if self.train is not None else None,
                       aspects=self.aspects.with_items(items) if self.aspects is not None else None,
                       item_groups=self.item_groups.with_items(items) if self.item_groups is not None else None,
                       similarity=similarity, cache=Cache())

    def require_aspects(self, who: str) -> AspectSpace:
        if self.aspects is None:
            raise ConfigError(f"{who} needs an aspect space (Context.aspects)")
        return self.aspects

    def item_similarity(self) -> ItemSimilarity:
        """The configured similarity, else set cosine over the aspect space (docs/diversifiers.md)."""
        if self.similarity is not None:
            return self.similarity
        space = self.require_aspects("this reranker")
        return self.cache.get(("similarity", "cosine", space), lambda: SetCosine(space))

    def item_distribution(self):
        """p(a|i) of every item (`recdiv.models.intent.item_aspect_distribution`, items × aspects CSR), computed
        once."""
        space = self.require_aspects("p(a|i)")
        return self.cache.get(("p(a|i)", space), lambda: item_aspect_distribution(space))

    def user_distribution(self, weighting: str = "count") -> np.ndarray:
        """p(a|u) for every training user (`recdiv.models.intent`), computed once per weighting."""
        if self.train is None:
            raise ConfigError("user aspect distributions need training data (Context.train)")
        space, train = self.require_aspects("p(a|u)"), self.train
        return self.cache.get(("p(a|u)", weighting, space, train),
                              lambda: user_aspect_distribution(space, train, weighting))

    def item_novelty(self, kind: str) -> np.ndarray:
        """Item novelty nov_PC / nov_IUF / nov_FD (docs/novelty-diversity.md): `novelty[kind]` if given, else computed
        from the training data once."""
        if kind in self.novelty:
            return self.novelty[kind]
        if self.train is None:
            raise ConfigError("item novelty needs training data (Context.train)")
        train = self.train
        return self.cache.get(("novelty", kind.lower(), train),
                              lambda: np.asarray(item_novelty(kind.lower(), train), dtype=np.float64))
