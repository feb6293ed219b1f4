"""Novelty and diversity metrics of the Vargas & Castells framework (METRICS.md §B; thesis chapter 4).

Every metric is the expected novelty of the items a user sees and likes,

    m(R | θ) = C · Σ_{k ≤ n'} disc(k) · p(rel | i_k, u) · nov(i_k | θ),   1/C = Σ_{k ≤ n'} disc(k),  n' = min(K, n),

composed from three models, as in RankSys: a rank discount (`recdiv.eval.discount`), a relevance model
(`recdiv.eval.relevance`) and an item novelty model (`recdiv.eval.novelty`, or a distance for EPD/EILD/ILD).
Popularity and profiles come from `EvalContext.train`, relevance from the test qrels, distances from the
aspect space (`EvalContext.aspects`) or `EvalContext.similarity`. Empty lists (and users without a list) score 0.

Parameters: ``disc`` (none | log | exp<p> | recip | cascade | cascade<p0>), ``rel`` (none | binary | graded |
graded_noneg | background<b> | unnormalised), ``dist`` (cosine | jaccard | latent-cosine | pearson),
``undefined`` (skip | one), ``profile_rel`` (EPD: a relevance model of the training ratings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar
from weakref import WeakKeyDictionary

import numpy as np
from numba import prange

from recdiv.errors import ConfigError
from recdiv.eval.discount import parse_discount
from recdiv.eval.measure import Measure, register
from recdiv.eval.novelty import ProfileDistance, SignatureDistances, dual_jit, gather, item_novelty
from recdiv.eval.relevance import NoRelevance, parse_relevance

if TYPE_CHECKING:
    from recdiv.aspects.similarity import ItemSimilarity
    from recdiv.eval.context import EvalContext, RunView

__all__ = ["EFD", "EILD", "EIP", "EPC", "EPD", "ESSD", "ILD", "MSI", "resolve_similarity"]

DISTANCES = ("cosine", "jaccard", "latent-cosine", "pearson")
_BLOCK = 2_000_000  # floats per (users × K × K) distance block
_CACHE: WeakKeyDictionary = WeakKeyDictionary()  # EvalContext -> {key: model}


def _cached(context: EvalContext, key, build):
    store = _CACHE.setdefault(context, {})
    if key not in store:
        store[key] = build()
    return store[key]


def resolve_similarity(context: EvalContext, dist: str) -> ItemSimilarity:
    """The item similarity named `dist`: `context.similarity` when its name matches, else built from
    `context.aspects` (cosine, jaccard) or `context.train` (pearson), cached per context."""
    from recdiv.aspects.similarity import similarity_from_name

    given = context.similarity
    if given is not None and getattr(given, "name", None) == dist:
        return given
    if dist in ("cosine", "jaccard"):
        if context.aspects is None:
            raise ConfigError(f"dist={dist} needs an aspect space in the evaluation context (--aspects FILE)")
        return _cached(context, ("sim", dist, id(context.aspects)), lambda: similarity_from_name(dist, context.aspects))
    if dist == "pearson":
        if context.train is None:
            raise ConfigError("dist=pearson needs training data in the evaluation context (--train FILE)")
        train = context.train
        return _cached(context, ("sim", dist, id(train)), lambda: similarity_from_name(dist, train=train))
    raise ConfigError(f"dist={dist} needs `similarity` in the evaluation context (e.g. LatentCosine(factors))")


class _Needs:
    """NEEDS that depends on the `dist` parameter: the class default on the class, the exact list on instances."""

    def __init__(self, default: tuple[str, ...]):
        self.default = default

    def __get__(self, obj, cls):
        return self.default if obj is None else obj._needs()


class _Expected(Measure):
    """Base of the framework metrics: browsing (disc, rel) × item novelty."""

    PARAMS: ClassVar[dict] = {"disc": "none", "rel": "none"}
    CUTOFF = "optional"
    SECTION = "B.6"
    KIND = "novelty"
    CITATION = "Vargas & Castells, RecSys 2011; Vargas, PhD thesis 2012, ch. 4"

    def validate(self) -> None:
        parse_discount(self.params.get("disc", "none"))
        parse_relevance(self.params.get("rel", "none"))
        if self.params.get("dist", "cosine") not in DISTANCES:
            raise ConfigError(f"{self.NAME}: dist={self.params['dist']!r} is not one of {', '.join(DISTANCES)}")
        if self.params.get("undefined", "skip") not in ("skip", "one"):
            raise ConfigError(f"{self.NAME}: undefined={self.params['undefined']!r} must be skip or one")
        if "profile_rel" in self.params:
            parse_relevance(self.params["profile_rel"])

    def _needs(self) -> tuple[str, ...]:
        return type(self).NEEDS

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
        prel = np.where(valid, 1.0, 0.0) if isinstance(rel, NoRelevance) else rel(view, self.cutoff)
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


class _Popularity(_Expected):
    NEEDS = ("train",)
    MODEL = "pc"

    def item_novelty(self, view, items, valid, prel):
        train = self._train(view)
        nov = _cached(view.context, ("nov", self.MODEL, id(train)), lambda: item_novelty(self.MODEL, train))
        return gather(nov, items)


@register
class EPC(_Popularity):
    """Expected popularity complement: expected number of seen relevant items not previously seen.

    EPC = C Σ_k disc(k) p(rel | i_k, u) (1 − |U_{i_k}| / |U|)  (thesis eq. 4.14; METRICS.md §B.6).
    """

    NAME = "EPC"
    MODEL = "pc"
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (1 − |U_i|/|U|)"
    CITATION = "Vargas & Castells 2011; thesis eq. 4.14"


@register
class EIP(_Popularity):
    """Expected inverse popularity: EIP = C Σ_k disc(k) p(rel | i_k, u) (−log2(|U_{i_k}| / |U|))
    (thesis §4.6.1; METRICS.md §B.6)."""

    NAME = "EIP"
    MODEL = "iuf"
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (−log2(|U_i|/|U|))"
    CITATION = "Vargas & Castells 2011; thesis §4.6.1"


@register
class EFD(_Popularity):
    """Expected free discovery: EFD = C Σ_k disc(k) p(rel | i_k, u) (−log2(|U_{i_k}| / T))
    (thesis §4.6.1; RankSys EFD; METRICS.md §B.6)."""

    NAME = "EFD"
    MODEL = "fd"
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (−log2(|U_i|/T))"
    CITATION = "Vargas & Castells 2011; thesis §4.6.1; RankSys EFD"


@register
class MSI(_Popularity):
    """Mean self-information (Zhou et al., PNAS 2010): MSI = (1/n') Σ_k log2(|U| / |U_{i_k}|) = EIP(none, none)
    (METRICS.md §B.6)."""

    NAME = "MSI"
    PARAMS: ClassVar[dict] = {}
    MODEL = "iuf"
    FORMULA = "(1/n') Σ_k log2(|U|/|U_i|)"
    CITATION = "Zhou et al., PNAS 2010; thesis §2.3.4"


@register
class EPD(_Expected):
    """Expected profile distance: user-relative novelty, the expected distance to the user's training profile.

    EPD = C Σ_k disc(k) p(rel | i_k, u) · Σ_{j∈P_u} p_P(j) d(i_k, j) / Σ_{j∈P_u} p_P(j)  over defined pairs
    (thesis eq. 4.15; RankSys `PDItemNovelty` for p_P ≡ 1; METRICS.md §B.6).
    """

    NAME = "EPD"
    PARAMS: ClassVar[dict] = {"dist": "cosine", "disc": "none", "rel": "none", "undefined": "skip",
                              "profile_rel": "none"}
    NEEDS = _Needs(("train", "aspects"))
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) Σ_{j∈P_u} p_P(j) d(i_k,j) / Σ_j p_P(j)"
    CITATION = "Vargas & Castells 2011; thesis eq. 4.15"

    def _needs(self):
        return ("train", *_dist_needs(self.dist))

    def item_novelty(self, view, items, valid, prel):
        train = self._train(view)
        if train.users != view.rankings.user_vocab:
            raise ConfigError(f"{self}: training data and run use different user vocabularies")
        ctx = view.context
        sim = resolve_similarity(ctx, self.dist)

        def build():
            weights = None
            if self.profile_rel != "none":
                r_max = (ctx.scale or train.scale or (None, train.matrix.data.max(initial=1.0)))[1]
                weights = parse_relevance(self.profile_rel).probability(train.matrix.data, ctx.threshold, r_max)
            return ProfileDistance(train, sim, weights, self.undefined,
                                   _signature_distances(ctx, sim, train.n_items, self.undefined))

        model = _cached(ctx, ("pd", id(sim), id(train), self.profile_rel, self.undefined), build)
        return model(view.users, items)


def _dist_needs(dist: str) -> tuple[str, ...]:
    return {"cosine": ("aspects",), "jaccard": ("aspects",), "pearson": ("train",)}.get(dist, ("similarity",))


def _signature_distances(context: EvalContext, sim: ItemSimilarity, n_items: int,
                         undefined: str) -> SignatureDistances | None:
    """The cached signature distance matrix of `sim` (None when there are too many signatures)."""
    return _cached(context, ("sigdist", id(sim), n_items, undefined),
                   lambda: SignatureDistances.build(sim, n_items, undefined))


def _distance_blocks(sim: ItemSimilarity, items: np.ndarray, valid: np.ndarray, undefined: str):
    """Yield (slice, d, defined) over user chunks: d (c, K, K) distances, 0 where not `defined`.
    The fallback when the signature matrix would be too large (e.g. latent factors of a big catalog)."""
    K = items.shape[1]
    step = max(1, _BLOCK // max(1, K * K))
    off = ~np.eye(K, dtype=bool)
    for lo in range(0, len(items), step):
        sl = slice(lo, lo + step)
        s = sim.sim(items[sl], items[sl])
        if undefined == "skip":
            defined = ~np.isnan(s)
        else:
            v = valid[sl]
            defined = v[:, :, None] & v[:, None, :]
        defined &= off
        d = np.where(defined, 1.0 - np.nan_to_num(s, nan=0.0), 0.0)
        yield sl, d, defined


@dual_jit
def _eild_kernel(sig, prel, rd, dist):  # pragma: no cover - compiled
    """term[u, k] = Σ_{l≠k} w_kl d / Σ_{l≠k} w_kl, w_kl = rd[k, l] p_l, over defined pairs (rd: (1 or n, K, K)).
    Each unordered pair is visited once and feeds both of its terms."""
    n, K = sig.shape
    term = np.zeros((n, K))
    shared = rd.shape[0] == 1
    for u in prange(n):
        r = np.int64(0) if shared else np.int64(u)  # prange indices are unsigned: keep an integer type
        num = np.zeros(K)
        den = np.zeros(K)
        for k in range(K):
            sk = sig[u, k]
            if sk < 0:
                continue
            drow = dist[sk]
            pk = prel[u, k]
            for l in range(k + 1, K):
                sl = sig[u, l]
                if sl < 0:
                    continue
                d = drow[sl]
                if np.isnan(d):
                    continue
                wkl = rd[r, k, l] * prel[u, l]
                wlk = rd[r, l, k] * pk
                num[k] += wkl * d
                den[k] += wkl
                num[l] += wlk * d
                den[l] += wlk
        for k in range(K):
            if den[k] > 0:
                term[u, k] = num[k] / den[k]
    return term


@dual_jit
def _seen_kernel(items, prev, prev_disc):  # pragma: no cover - compiled
    """disc_prev of every ranked item: the discount of its position in the previous list, 0 if absent."""
    n, K = items.shape
    out = np.zeros((n, K))
    for u in prange(n):
        for k in range(K):
            i = items[u, k]
            if i < 0:
                continue
            for l in range(prev.shape[1]):
                if prev[u, l] == i:
                    out[u, k] = prev_disc[u, l]
                    break
    return out


@dual_jit
def _ild_kernel(sig, dist):  # pragma: no cover - compiled
    n, K = sig.shape
    out = np.zeros(n)
    for u in prange(n):
        num = 0.0
        cnt = 0
        for k in range(K):
            sk = sig[u, k]
            if sk < 0:
                continue
            drow = dist[sk]
            for l in range(k + 1, K):
                sl = sig[u, l]
                if sl < 0:
                    continue
                d = drow[sl]
                if np.isnan(d):
                    continue
                num += d
                cnt += 1
        if cnt > 0:
            out[u] = num / cnt
    return out


@register
class EILD(_Expected):
    """Expected intra-list distance: rank- and relevance-aware diversity within the list.

    EILD = C Σ_k disc(k) p(rel | i_k, u) · Σ_{l≠k} w_kl d(i_k, i_l) / Σ_{l≠k} w_kl,
    w_kl = disc(max(1, l − k)) p(rel | i_l, u), undefined pairs dropped from both sums
    (thesis eq. 4.16; RankSys `EILD`; METRICS.md §B.6).
    """

    NAME = "EILD"
    KIND = "diversity"
    PARAMS: ClassVar[dict] = {"dist": "cosine", "disc": "none", "rel": "none", "undefined": "skip"}
    NEEDS = _Needs(("aspects",))
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) Σ_{l≠k} disc(l|k) p(rel|i_l,u) d(i_k,i_l) / Σ_{l≠k} disc(l|k) p(rel|i_l,u)"
    CITATION = "Vargas & Castells 2011; thesis eq. 4.16"

    def _needs(self):
        return _dist_needs(self.dist)

    def compute(self, view):
        items, valid, prel, disc = self.browse(view)
        sim = resolve_similarity(view.context, self.dist)
        discount = self.discount
        sd = _signature_distances(view.context, sim, len(view.rankings.item_vocab), self.undefined)
        if sd is None:
            term = np.zeros(items.shape)
            for sl, d, defined in _distance_blocks(sim, items, valid, self.undefined):
                rd = discount.relative(valid[sl], prel[sl])
                w = rd * prel[sl][:, None, :] * defined
                term[sl] = _normalised((w * d).sum(axis=2), w.sum(axis=2))
        elif discount.uses_relevance:  # per-user relative discounts: bounded chunks
            sig, term, K = sd.of(items), np.zeros(items.shape), items.shape[1]
            step = max(1, _BLOCK // max(1, K * K))
            for lo in range(0, len(items), step):
                sl = slice(lo, lo + step)
                rd = discount.relative(valid[sl], prel[sl])
                term[sl] = _eild_kernel(sig[sl].size * K, sig[sl], prel[sl], rd, sd.distance)
        else:
            rd = np.ascontiguousarray(discount.relative(valid)[None])
            term = _eild_kernel(items.size * items.shape[1], sd.of(items), prel, rd, sd.distance)
        return _normalised((disc * prel * term).sum(axis=1), disc.sum(axis=1))


@register
class ILD(_Expected):
    """Intra-list diversity (Ziegler et al. 2005; Zhang & Hurley 2008): the average pairwise distance.

    ILD = (2 / (n'(n' − 1))) Σ_{k<l≤n'} d(i_k, i_l) over defined pairs; n' < 2 ⇒ 0 (METRICS.md §B.6).
    """

    NAME = "ILD"
    KIND = "diversity"
    PARAMS: ClassVar[dict] = {"dist": "cosine", "undefined": "skip"}
    NEEDS = _Needs(("aspects",))
    FORMULA = "2/(n'(n'−1)) Σ_{k<l} d(i_k,i_l)"
    CITATION = "Ziegler et al., WWW 2005; Zhang & Hurley, RecSys 2008; thesis §4.6.2"

    def _needs(self):
        return _dist_needs(self.dist)

    def compute(self, view):
        items = view.at(view.items, self.cutoff, fill=-1)
        sim = resolve_similarity(view.context, self.dist)
        sd = _signature_distances(view.context, sim, len(view.rankings.item_vocab), self.undefined)
        if sd is not None:
            return _ild_kernel(items.size * items.shape[1], sd.of(items), sd.distance)
        num, den = np.zeros(len(items)), np.zeros(len(items))
        for sl, d, defined in _distance_blocks(sim, items, items >= 0, self.undefined):
            num[sl] = d.sum(axis=(1, 2))
            den[sl] = defined.sum(axis=(1, 2))
        return _normalised(num, den)


@register
class ESSD(_Expected):
    """Expected self-system diversity (Lathia et al. 2010, temporal diversity, in the framework).

    ESSD = C Σ_k disc(k) p(rel | i_k, u) (1 − disc_prev(i_k)), disc_prev(i) = disc(position of i in R_{t−1}^K),
    0 if absent (thesis §4.6.3; METRICS.md §B.6; with disc = rel = none, |R \\ R_{t−1}| / |R|, eq. 4.17).
    The previous lists come from `EvalContext.previous` and are cut at the same K (whole without a cutoff), with
    the same discount model [CHOICE].
    """

    NAME = "ESSD"
    KIND = "diversity"
    NEEDS = ("previous",)
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (1 − disc(i_k|R_{t−1}))"
    CITATION = "Lathia et al., SIGIR 2010; thesis §4.6.3"

    def item_novelty(self, view, items, valid, prel):
        prev = view.context.previous
        if prev.item_vocab != view.rankings.item_vocab or prev.user_vocab != view.rankings.user_vocab:
            raise ConfigError(f"{self}: previous and current runs use different vocabularies")
        prev_items = prev.for_users(view.users).items
        prev_items = prev_items if self.cutoff is None else prev_items[:, : self.cutoff]
        pvalid = prev_items >= 0
        pprel = None
        if self.discount.uses_relevance:  # a cascade over the previous list needs its relevance
            pgrades = view.qrels.lookup(view.users, prev_items)
            pprel = np.where(pvalid, self.relevance.probability(pgrades, view.threshold, view.max_grade), 0.0)
        pdisc = self.discount.weights(pvalid, pprel)
        prev_items = np.ascontiguousarray(prev_items)
        seen = _seen_kernel(items.size * prev_items.shape[1], items, prev_items, pdisc)
        return np.where(valid, 1.0 - seen, 0.0)
