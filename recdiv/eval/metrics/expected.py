"""Novelty and diversity metrics of the Vargas & Castells framework (METRICS.md §B; thesis chapter 4).

Every metric is the expected novelty of the items a user sees and likes,

    m(R | θ) = C · Σ_{k ≤ n'} disc(k) · p(rel | i_k, u) · nov(i_k | θ),   1/C = Σ_{k ≤ n'} disc(k),  n' = min(K, n),

composed from three models, as in RankSys: a rank discount (`recdiv.models.discount`), a relevance model
(`recdiv.models.relevance`) and an item novelty model (`recdiv.models.novelty`, or a distance for EPD/EILD/ILD).
Popularity and profiles come from `EvalContext.train`, relevance from the test qrels, distances from the
aspect space (`EvalContext.aspects`) or `EvalContext.similarity`. Empty lists (and users without a list) score 0.

Parameters: ``disc`` (none | log | exp<p> | recip | cascade | cascade<p0>), ``rel`` (none | binary | graded |
graded_noneg | background<b> | unnormalised), ``dist`` (cosine | jaccard | latent-cosine | pearson),
``undefined`` (skip | one), ``profile_rel`` (EPD: a relevance model of the training ratings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from recdiv.aspects.similarity import similarity_from_name
from recdiv.errors import ConfigError
from recdiv.eval.measure import PerUserMeasure
from recdiv.eval.params import DISC, DISTANCES, REL
from recdiv.models.discount import parse_discount
from recdiv.models.novelty import SignatureDistances
from recdiv.models.relevance import NoRelevance, parse_relevance

if TYPE_CHECKING:
    from recdiv.aspects.similarity import ItemSimilarity
    from recdiv.eval.context import EvalContext, RunView

__all__ = ["DISTANCES", "resolve_similarity"]

_BLOCK = 2_000_000  # floats per (users × K × K) distance block
_CACHED_PAIRS = 25_000_000  # list similarities kept with a run view up to this many floats (200 MB)
def _cached(context: EvalContext, key: tuple, build):
    """The model under `key` in the context's cache, built once."""
    return context.cache.get(("novelty framework", *key), build)


def resolve_similarity(context: EvalContext, dist: str) -> ItemSimilarity:
    """The item similarity named `dist`: `context.similarity` when its name matches, else built from
    `context.aspects` (cosine, jaccard) or `context.train` (pearson), cached per context."""
    given = context.similarity
    if given is not None and getattr(given, "name", None) == dist:
        return given
    if dist in ("cosine", "jaccard"):
        if context.aspects is None:
            raise ConfigError(f"dist={dist} needs an aspect space in the evaluation context (--aspects FILE)")
        return _cached(context, ("sim", dist, context.aspects), lambda: similarity_from_name(dist, context.aspects))
    if dist == "pearson":
        if context.train is None:
            raise ConfigError("dist=pearson needs training data in the evaluation context (--train FILE)")
        train = context.train
        return _cached(context, ("sim", dist, train), lambda: similarity_from_name(dist, train=train))
    raise ConfigError(f"dist={dist} needs `similarity` in the evaluation context (e.g. LatentCosine(factors))")


class _Needs:
    """NEEDS that depends on the `dist` parameter: the class default on the class, the exact list on instances."""

    def __init__(self, default: tuple[str, ...]):
        self.default = default

    def __get__(self, obj, cls):
        return self.default if obj is None else obj._needs()


class _Expected(PerUserMeasure):
    """Base of the framework metrics: browsing (disc, rel) × item novelty."""

    PARAMS = (DISC, REL)
    CUTOFF = "optional"
    SECTION = "B.6"
    FAMILY = "novelty"
    CITATION = "Vargas & Castells, RecSys 2011; Vargas, PhD thesis 2012, ch. 4"

    def _needs(self) -> tuple[str, ...]:
        return type(self).NEEDS

    def uses_max_grade(self) -> bool:
        return self.relevance.uses_max_grade

    @property
    def discount(self):
        return parse_discount(self.params.get("disc", "none"))

    @property
    def relevance(self):
        return parse_relevance(self.params.get("rel", "none"))

    def browse(self, view: RunView):
        """(items, valid, p(rel), disc) as (n, K) arrays cut or padded to the cutoff."""
        items = view.at(view.items, self.cutoff, fill=-1)
        valid = items >= 0
        rel = self.relevance
        prel = np.where(valid, 1.0, 0.0) if isinstance(rel, NoRelevance) else \
            rel.ranked(view.at(view.grades, self.cutoff, fill=np.nan), valid, view.threshold, view.max_grade)
        return items, valid, prel, self.discount.weights(valid, prel)

    def compute(self, view: RunView) -> np.ndarray:
        items, valid, prel, disc = self.browse(view)
        nov = self.item_novelty(view, items, valid, prel)
        return _normalised((disc * prel * nov).sum(axis=1), disc.sum(axis=1))

    def item_novelty(self, view, items, valid, prel) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _train(self, view: RunView):
        train = view.context.train
        if train.items != view.rankings.item_vocab:
            raise ConfigError(f"{self}: training data and run use different item vocabularies")
        return train


def _normalised(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)

def _dist_needs(dist: str) -> tuple[str, ...]:
    return {"cosine": ("aspects",), "jaccard": ("aspects",), "pearson": ("train",)}.get(dist, ("similarity",))


def _signature_distances(context: EvalContext, sim: ItemSimilarity, n_items: int,
                         undefined: str) -> SignatureDistances | None:
    """The cached signature distance matrix of `sim` (None when there are too many signatures)."""
    return _cached(context, ("sigdist", sim, n_items, undefined),
                   lambda: SignatureDistances.build(sim, n_items, undefined))


def _distance_blocks(sim: ItemSimilarity, items: np.ndarray, valid: np.ndarray, undefined: str,
                     view: RunView | None = None):
    """Yield (slice, d, defined) over user chunks: d (c, K, K) distances, 0 where not `defined`.
    The fallback when the signature matrix would be too large (e.g. Pearson or latent factors of a big catalog).
    With a `view`, the similarities within its lists are kept with the view when they fit in _CACHED_PAIRS floats,
    so that the measures of one run (EILD and ILD variants) compute them once."""
    K = items.shape[1]
    step = max(1, _BLOCK // max(1, K * K))
    off = ~np.eye(K, dtype=bool)

    cached = None
    if view is not None and items.size * K <= _CACHED_PAIRS:
        cached = view.memo(("list similarities", sim, K), lambda: _list_similarities(sim, items, step))
    for lo in range(0, len(items), step):
        sl = slice(lo, lo + step)
        s = cached[sl] if cached is not None else sim.sim(items[sl], items[sl])
        if undefined == "skip":
            defined = ~np.isnan(s)
        else:
            v = valid[sl]
            defined = v[:, :, None] & v[:, None, :]
        defined &= off
        d = np.where(defined, 1.0 - np.nan_to_num(s, nan=0.0), 0.0)
        yield sl, d, defined


def _list_similarities(sim: ItemSimilarity, items: np.ndarray, step: int) -> np.ndarray:
    """(n, K, K) similarities within every list, computed `step` users at a time."""
    out = np.empty((len(items), items.shape[1], items.shape[1]))
    for lo in range(0, len(items), step):
        out[lo : lo + step] = sim.sim(items[lo : lo + step], items[lo : lo + step])
    return out
