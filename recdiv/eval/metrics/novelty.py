"""Novelty metrics of the Vargas & Castells framework (docs/novelty-diversity.md): the expected novelty of the items a
user sees and likes, with popularity-based (EPC, EIP, EFD, MSI) or profile-distance (EPD) item novelty.
The shared browsing model (discount × relevance) is `recdiv.eval.metrics.expected`."""

from __future__ import annotations

import math

from recdiv.errors import ConfigError
from recdiv.eval.metrics.expected import (
    _cached,
    _dist_needs,
    _Expected,
    _Needs,
    _signature_distances,
    resolve_similarity,
)
from recdiv.eval.params import DISC, DIST, PROFILE_REL, REL, UNDEFINED
from recdiv.models.novelty import ProfileDistance, gather, item_novelty
from recdiv.models.relevance import parse_relevance

__all__ = ["EFD", "EIP", "EPC", "EPD", "MSI"]


class _Popularity(_Expected):
    NEEDS = ("train",)
    MODEL = "pc"

    def item_novelty(self, view, items, valid, prel):
        train = self._train(view)
        nov = _cached(view.context, ("nov", self.MODEL, train), lambda: item_novelty(self.MODEL, train))
        return gather(nov, items)


class EPC(_Popularity):
    """Expected popularity complement: expected number of seen relevant items not previously seen.

    EPC = C Σ_k disc(k) p(rel | i_k, u) (1 − |U_{i_k}| / |U|)  (thesis eq. 4.14; docs/novelty-diversity.md).
    """

    NAME = "EPC"
    MODEL = "pc"
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (1 − |U_i|/|U|)"
    CITATION = "Vargas & Castells 2011; thesis eq. 4.14"


class EIP(_Popularity):
    """Expected inverse popularity: EIP = C Σ_k disc(k) p(rel | i_k, u) (−log2(|U_{i_k}| / |U|))
    (thesis §4.6.1; docs/novelty-diversity.md)."""

    NAME = "EIP"
    MODEL = "iuf"
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (−log2(|U_i|/|U|))"
    CITATION = "Vargas & Castells 2011; thesis §4.6.1"


class EFD(_Popularity):
    """Expected free discovery: EFD = C Σ_k disc(k) p(rel | i_k, u) (−log2(|U_{i_k}| / T))
    (thesis §4.6.1; RankSys EFD; docs/novelty-diversity.md)."""

    NAME = "EFD"
    MODEL = "fd"
    FORMULA = "C Σ_k disc(k) p(rel|i_k,u) (−log2(|U_i|/T))"
    CITATION = "Vargas & Castells 2011; thesis §4.6.1; RankSys EFD"


class MSI(_Popularity):
    """Mean self-information (Zhou et al., PNAS 2010): MSI = (1/n') Σ_k log2(|U| / |U_{i_k}|) = EIP(none, none)
    (docs/novelty-diversity.md)."""

    NAME = "MSI"
    RANGE = (0.0, math.inf)
    PARAMS = ()
    MODEL = "iuf"
    FORMULA = "(1/n') Σ_k log2(|U|/|U_i|)"
    CITATION = "Zhou et al., PNAS 2010; thesis §2.3.4"


class EPD(_Expected):
    """Expected profile distance: user-relative novelty, the expected distance to the user's training profile.

    EPD = C Σ_k disc(k) p(rel | i_k, u) · Σ_{j∈P_u} p_P(j) d(i_k, j) / Σ_{j∈P_u} p_P(j)  over defined pairs
    (thesis eq. 4.15; RankSys `PDItemNovelty` for p_P ≡ 1; docs/novelty-diversity.md).
    """

    NAME = "EPD"
    PARAMS = (DIST, DISC, REL, UNDEFINED, PROFILE_REL)
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

        model = _cached(ctx, ("pd", sim, train, self.profile_rel, self.undefined), build)
        # the same lists for every discount and relevance model: computed once per run view
        return view.memo(("profile distances", model, items.shape[1]), lambda: model(view.users, items))
