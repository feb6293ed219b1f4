"""Diversity metrics of the Vargas & Castells framework (docs/novelty-diversity.md): expected intra-list distance
(EILD), intra-list diversity (ILD) and expected self-system diversity (ESSD). Kernels: `diversity_kernels.py`."""

from __future__ import annotations

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.metrics.expected import (
    _BLOCK,
    _dist_needs,
    _distance_blocks,
    _Expected,
    _Needs,
    _normalised,
    _signature_distances,
    resolve_similarity,
)
from recdiv.eval.params import DISC, DIST, REL, UNDEFINED

__all__ = ["EILD", "ESSD", "ILD", "ILS"]


class EILD(_Expected):
    """Expected intra-list distance: rank- and relevance-aware diversity within the list.

    EILD = C Σ_k disc(k) p(rel | i_k, u) · Σ_{l≠k} w_kl d(i_k, i_l) / Σ_{l≠k} w_kl,
    w_kl = disc(max(1, l − k)) p(rel | i_l, u), undefined pairs dropped from both sums
    (thesis eq. 4.16; RankSys `EILD`; docs/novelty-diversity.md).
    """

    NAME = "EILD"
    FAMILY = "diversity"
    PARAMS = (DIST, DISC, REL, UNDEFINED)
    NEEDS = _Needs(("aspects",))
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) Σ_{l≠k} disc(l|k) p(rel|i_l,u) d(i_k,i_l) / Σ_{l≠k} disc(l|k) p(rel|i_l,u)"
    CITATION = "Vargas & Castells 2011; thesis eq. 4.16"

    def _needs(self):
        return _dist_needs(self.dist)

    def compute(self, view):
        from recdiv.eval.metrics.diversity_kernels import eild_terms  # numba loads when a kernel runs

        items, valid, prel, disc = self.browse(view)
        sim = resolve_similarity(view.context, self.dist)
        discount = self.discount
        sd = _signature_distances(view.context, sim, len(view.rankings.item_vocab), self.undefined)
        if sd is None:
            term = np.zeros(items.shape)
            for sl, d, defined in _distance_blocks(sim, items, valid, self.undefined, view):
                rd = discount.relative(valid[sl], prel[sl])
                w = rd * prel[sl][:, None, :] * defined
                term[sl] = _normalised((w * d).sum(axis=2), w.sum(axis=2))
        elif discount.uses_relevance:  # per-user relative discounts: bounded chunks
            sig, term, K = sd.of(items), np.zeros(items.shape), items.shape[1]
            step = max(1, _BLOCK // max(1, K * K))
            for lo in range(0, len(items), step):
                sl = slice(lo, lo + step)
                rd = discount.relative(valid[sl], prel[sl])
                term[sl] = eild_terms(len(sig[sl]), sig[sl], prel[sl], rd, sd.distance, work=sig[sl].size * K)
        else:
            rd = np.ascontiguousarray(discount.relative(valid)[None])
            term = eild_terms(len(items), sd.of(items), prel, rd, sd.distance, work=items.size * items.shape[1])
        return _normalised((disc * prel * term).sum(axis=1), disc.sum(axis=1))


class ILD(_Expected):
    """Intra-list diversity (Ziegler et al. 2005; Zhang & Hurley 2008): the average pairwise distance.

    ILD = (2 / (n'(n' − 1))) Σ_{k<l≤n'} d(i_k, i_l) over defined pairs; n' < 2 ⇒ 0 (docs/novelty-diversity.md).
    """

    NAME = "ILD"
    RANGE = (0.0, 1.0)
    FAMILY = "diversity"
    PARAMS = (DIST, UNDEFINED)
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
            from recdiv.eval.metrics.diversity_kernels import ild  # numba loads when a kernel runs

            return ild(len(items), sd.of(items), sd.distance, work=items.size * items.shape[1])
        num, den = np.zeros(len(items)), np.zeros(len(items))
        for sl, d, defined in _distance_blocks(sim, items, items >= 0, self.undefined, view):
            num[sl] = d.sum(axis=(1, 2))
            den[sl] = defined.sum(axis=(1, 2))
        return _normalised(num, den)


class ILS(_Expected):
    """Intra-list similarity (Ziegler et al. 2005; LensKit `ILS`): the average pairwise similarity of a list.

    ILS = (2 / (n(n − 1))) Σ_{k<l≤n} sim(i_k, i_l) with sim = 1 − d, a pair involving an item without features
    counting as similarity 0 (LensKit's zero category vector) — so ILS = 1 − ILD(undefined=one) for n ≥ 2; a
    single item gives 1 (LensKit), an empty list 0. dist=cosine is LensKit's cosine of unit-normalised category
    vectors. docs/novelty-diversity.md
    """

    NAME = "ILS"
    RANGE = (0.0, 1.0)
    FAMILY = "diversity"
    HIGHER_IS_BETTER = False  # similarity within the list: lower is more diverse
    PARAMS = (DIST,)
    NEEDS = _Needs(("aspects",))
    FORMULA = "2/(n(n−1)) Σ_{k<l} sim(i_k,i_l); sim = 0 for a featureless item; 1 for n = 1"
    CITATION = "Ziegler et al., WWW 2005; LensKit ILS"

    def _needs(self):
        return _dist_needs(self.dist)

    def compute(self, view):
        n = (view.at(view.items, self.cutoff, fill=-1) >= 0).sum(axis=1)
        ild_one = ILD(self.cutoff, dist=self.dist, undefined="one").compute(view)
        return np.where(n >= 2, 1.0 - ild_one, np.where(n == 1, 1.0, 0.0))


class ESSD(_Expected):
    """Expected self-system diversity (Lathia et al. 2010, temporal diversity, in the framework).

    ESSD = C Σ_k disc(k) p(rel | i_k, u) (1 − disc_prev(i_k)), disc_prev(i) = disc(position of i in R_{t−1}^K),
    0 if absent (thesis §4.6.3; docs/novelty-diversity.md; with disc = rel = none, |R \\ R_{t−1}| / |R|, eq. 4.17).
    The previous lists come from `EvalContext.previous` and are cut at the same K (whole without a cutoff), with
    the same discount model [CHOICE].
    """

    NAME = "ESSD"
    FAMILY = "diversity"
    NEEDS = ("previous",)
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (1 − disc(i_k|R_{t−1}))"
    CITATION = "Lathia et al., SIGIR 2010; thesis §4.6.3"

    def item_novelty(self, view, items, valid, prel):
        from recdiv.eval.metrics.diversity_kernels import seen_discounts  # numba loads when a kernel runs

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
        seen = seen_discounts(len(items), items, prev_items, pdisc, work=items.size * prev_items.shape[1])
        return np.where(valid, 1.0 - seen, 0.0)
