"""Intent-aware and aspect-based metrics (docs/intent-aware.md): α-nDCG (binary and graded), α-DCG, ERR-IA
(RankSys style and ndeval style), nERR-IA, nDCG-IA, P-IA, MAP-IA, S-recall and S-RR — computed for every evaluated
user at once, at any cutoff (TREC's ndeval stops at 20). Shared machinery (aspect tables, intent weights,
α-gains, greedy ideals): `recdiv.eval.metrics.intents`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from recdiv.eval.measure import Param
from recdiv.eval.metrics.greedy_ideal import chunks_by_width, padded_rows
from recdiv.eval.metrics.intents import (
    _AspectMeasure,
    alpha_ideal_lists,
    alpha_run_gains,
    aspect_index,
    aspect_pairs,
    aspect_space,
    cutoff_of,
    exclusive_group_sum,
    has_aspects,
    ideal_ideal,
    intent_weights,
    local_aspects,
    relevant_aspects,
    row_chunks,
    run_arrays,
)
from recdiv.eval.params import IDEAL_TIES, REDUNDANCY, WEIGHTS
from recdiv.limits import check_cells
from recdiv.models.discount import LogDiscount, ReciprocalDiscount, row_sums
from recdiv.models.relevance import is_judged, is_relevant, stop_probability

GAIN = Param("gain", str, "binary", "relevance weight ĝ: 1, or r/r_max (graded α-nDCG [RECON])",
             choices=("binary", "graded"))
LOG, RECIP = LogDiscount(), ReciprocalDiscount()
COVER = Param("rel", str, "binary", "items that cover their aspects: relevant ones, or every judged one",
              choices=("binary", "judged"))


# --------------------------------------------------------------------------------------------------
# α-nDCG family
# --------------------------------------------------------------------------------------------------
class AlphaNDCG(_AspectMeasure):
    """α-nDCG: novelty- and redundancy-aware nDCG over aspects (Clarke et al., SIGIR 2008).

    gain=binary: G(k) = Σ_{a∈A(i_k)} rel(u,i_k)(1−α)^{c_{a,k−1}}, c = relevant items above k having a;
    gain=graded [RECON, §C.2]: ĝ = r/r_max for relevant items in the gain and in the counts.
    α-nDCG@K = Σ_{k≤K} G(k)/log2(k+1) / the same over the greedy ideal list (ties: §0.6, `ideal_ties`).
    Equals ndeval's alpha-nDCG@K (binary relevance) at K = 5, 10, 20 — and is defined at any K.
    """

    NAME = "alpha-nDCG"
    PARAMS = (REDUNDANCY, GAIN, IDEAL_TIES)
    FORMULA = "Σ_k Σ_{a∈A(i_k)} rel·(1−α)^{c_{a,k−1}} / log2(k+1), over the greedy ideal"
    CITATION = "Clarke et al., SIGIR 2008; Vargas 2012 thesis §3.5; ndeval"
    SECTION = "C.1, C.2"

    def uses_max_grade(self) -> bool:
        return self.gain == "graded"

    def compute(self, view):
        k = cutoff_of(self, view)
        graded = self.gain == "graded"
        disc = LOG.positions(k)
        dcg = _alpha_dcg(view, k, self.alpha, graded, disc)
        _, ig = alpha_ideal_lists(view, self.alpha, graded, self.ideal_ties, k)
        idcg = row_sums(ig, disc[: ig.shape[1]])
        return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


class AlphaDCG(_AspectMeasure):
    """α-DCG, unnormalised (norm=none) or with ndeval's collection-independent "ideal-ideal" normalisation.

    norm=ndeval: α-DCG@K / Σ_{k≤K} |A_u^rel|(1−α)^{k−1}/log2(k+1) — exactly ndeval's alpha-DCG@K column
    (binary relevance); 0 when A_u^rel = ∅. (Clarke et al. 2008; docs/intent-aware.md)
    """

    NAME = "alpha-DCG"
    RANGE = (0.0, math.inf)
    PARAMS = (REDUNDANCY, GAIN, Param("norm", str, "none", "unnormalised, or divided by ndeval's ideal-ideal",
                                 choices=("none", "ndeval")))
    FORMULA = "Σ_k Σ_{a∈A(i_k)} rel·(1−α)^{c_{a,k−1}} / log2(k+1) [/ ideal-ideal]"
    CITATION = "Clarke et al., SIGIR 2008; ndeval"
    SECTION = "C.1"

    def uses_max_grade(self) -> bool:
        return self.gain == "graded"

    def depth_bound(self) -> bool:
        return self.norm == "none"  # ndeval's ideal-ideal sums over every rank up to K

    def compute(self, view):
        k = cutoff_of(self, view)
        graded = self.gain == "graded"
        disc = LOG.positions(k)
        dcg = _alpha_dcg(view, k, self.alpha, graded, disc)
        if self.norm == "none":
            return dcg
        ii = ideal_ideal(view, self.alpha, disc)
        return np.divide(dcg, ii, out=np.zeros_like(dcg), where=ii > 0)


def _alpha_dcg(view, k: int, alpha: float, graded: bool, disc: np.ndarray) -> np.ndarray:
    """Σ_{k≤K} G(k)·disc_k of the run for every evaluated user, rank by rank (positions past the lists add nothing:
    the gains are computed within them, so a large K allocates no users × K array)."""
    w = min(k, max(int(view.items.shape[1]), 1))
    return row_sums(alpha_run_gains(view, w, alpha, graded), disc)


def _alpha_err(view, measure, k: int) -> np.ndarray:
    """E@K = Σ_{k≤K} G(k)/k with the binary α-nDCG gain (ndeval's ERR-IA numerator)."""
    return _alpha_dcg(view, k, measure.alpha, False, RECIP.positions(k))


class ERRIA(_AspectMeasure):
    """ERR-IA: intent-aware expected reciprocal rank (Chapelle et al. 2009; Agrawal et al. 2009).

    variant=ranksys (default): ERR-IA@K = Σ_a w_a Σ_{k≤K} (1/k) R(i_k,a) Π_{l<k}(1 − R(i_l,a)),
    R(i,a) = (2^g − 1)/2^{g_max}·[a∈A(i)], g = rating if ≥ τ else 0, g_max = r_max; unnormalised
    (RankSys `ERRIA`, thesis §2.2.1.3). variant=ndeval: Σ_{k≤K} G_α(k)/k over binary α-nDCG gains divided by
    the ideal-ideal Σ_{k≤K}|A_u^rel|(1−α)^{k−1}/k (ndeval's ERR-IA@K; `alpha` used, `weights` ignored).
    docs/intent-aware.md
    """

    NAME = "ERR-IA"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    PARAMS = (WEIGHTS, Param("variant", str, "ranksys", "RankSys ERR-IA, or ndeval's normalised ERR-IA over α gains",
                             choices=("ranksys", "ndeval")), REDUNDANCY)
    FORMULA = "Σ_a w_a Σ_k (1/k) R(i_k,a) Π_{l<k}(1 − R(i_l,a))"
    CITATION = "Chapelle et al., CIKM 2009; Agrawal et al., WSDM 2009; RankSys ERRIA; ndeval"
    SECTION = "C.3"

    def uses_max_grade(self) -> bool:
        return self.variant == "ranksys"

    def depth_bound(self) -> bool:
        return self.variant != "ndeval"  # ndeval's ideal-ideal sums over every rank up to K

    def compute(self, view):
        k = cutoff_of(self, view)
        if self.variant == "ndeval":
            e = _alpha_err(view, self, k)
            ii = ideal_ideal(view, self.alpha, RECIP.positions(k))
            return np.divide(e, ii, out=np.zeros_like(e), where=ii > 0)
        w = intent_weights(view, self.weights, str(self))
        space = aspect_space(view)
        items, grades = run_arrays(view, k)
        g = np.where(is_relevant(grades, view.threshold), np.nan_to_num(grades), 0.0)
        r = stop_probability(g, view.max_grade)
        u, pos, a, gstart = aspect_pairs(items, r > 0, aspect_index(view), space.n_aspects)
        rv = r[u, pos]
        surv = np.exp(exclusive_group_sum(np.log1p(-rv), gstart))  # Π_{l<k, a∈A(i_l)} (1 − R(i_l,a))
        return np.bincount(u, weights=w[u, a] * rv * surv / (pos + 1.0), minlength=len(items))


class NERRIA(_AspectMeasure):
    """nERR-IA (ndeval): E@K = Σ_{k≤K} G_α(k)/k with binary α-nDCG gains, divided by E@K of the greedy α-ideal.

    Chapelle et al. 2009 with ndeval's collection-dependent normalisation; docs/intent-aware.md
    """

    NAME = "nERR-IA"
    PARAMS = (REDUNDANCY, IDEAL_TIES)
    FORMULA = "Σ_k G_α(k)/k / Σ_k G_α*(k)/k"
    CITATION = "Chapelle et al., CIKM 2009; ndeval"
    SECTION = "C.3"

    def compute(self, view):
        k = cutoff_of(self, view)
        e = _alpha_err(view, self, k)
        _, ig = alpha_ideal_lists(view, self.alpha, False, self.ideal_ties, k)
        ie = row_sums(ig, RECIP.positions(ig.shape[1]))
        return np.divide(e, ie, out=np.zeros_like(e), where=ie > 0)


class NDCGIA(_AspectMeasure):
    """nDCG-IA = Σ_a w_a nDCG@K(u|a), nDCG(u|a) counting as relevant only items of Rel_u having a.

    gain=binary (default) or rating (the rating of relevant items); per-aspect ideal from u's relevant
    items having a; aspects without such items contribute 0 (no renormalisation).
    Agrawal et al., WSDM 2009; thesis §3.5; docs/intent-aware.md
    """

    NAME = "nDCG-IA"
    RANGE = (0.0, 1.0)
    PARAMS = (WEIGHTS, Param("gain", str, "binary", "gain of a relevant item: 1, or its rating",
                             choices=("binary", "rating")))
    FORMULA = "Σ_a w_a · DCG@K(u|a) / IDCG@K(u|a)"
    CITATION = "Agrawal et al., WSDM 2009; Vargas 2012 thesis §3.5"
    SECTION = "C.4"

    def _gain(self, grades, threshold):
        rel = is_relevant(grades, threshold)
        return np.where(rel, 1.0 if self.gain == "binary" else np.nan_to_num(grades), 0.0)

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        space = aspect_space(view)
        disc = LOG.positions(k)
        check_cells(f"{self}: users × aspects", len(view.users), space.n_aspects)
        dcg = np.zeros((len(view.users), space.n_aspects))
        items, grades = run_arrays(view, k)
        for sl in row_chunks(len(items), k * max(space.n_aspects, 1)):
            cols, asp = local_aspects(view, items[sl])
            part = np.einsum("nka,k->na", asp * self._gain(grades[sl], view.threshold)[:, :, None], disc)
            dcg[sl][:, cols] = part[:, : len(cols)]
        cand, cgrades = padded_rows(view.qrels.matrix, view.users, keep_cols=has_aspects(view),
                                    threshold=view.threshold)
        widths = (cand >= 0).sum(axis=1)
        idcg = np.zeros_like(dcg)
        for idx in chunks_by_width(widths, space.n_aspects):
            wc = max(int(widths[idx].max()), 1)
            cols, asp = local_aspects(view, cand[idx, :wc])
            ga = asp * self._gain(cgrades[idx, :wc], view.threshold)[:, :, None]
            top = -np.sort(-ga, axis=1)[:, :k]
            idcg[np.ix_(idx, cols)] = np.einsum("nja,j->na", top, disc[: top.shape[1]])[:, : len(cols)]
        nd = np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)
        return (nd * w).sum(axis=1)


class PIA(_AspectMeasure):
    """P-IA@K = Σ_a w_a |{k ≤ K : i_k ∈ Rel_u, a ∈ A(i_k)}| / K (Agrawal et al. 2009; ndeval with uniform weights).

    docs/intent-aware.md
    """

    NAME = "P-IA"
    PARAMS = (WEIGHTS,)
    FORMULA = "Σ_a w_a |{k≤K: i_k ∈ Rel_u, a ∈ A(i_k)}| / K"
    CITATION = "Agrawal et al., WSDM 2009; ndeval"
    SECTION = "C.5"

    def depth_bound(self) -> bool:
        return False  # divides by K, however short the lists

    def compute(self, view):
        k = cutoff_of(self, view)
        w, (u, _pos, a, _) = _relevant_pairs(self, view, min(k, view.items.shape[1]))  # no position past the lists
        return np.bincount(u, weights=w[u, a], minlength=len(w)) / k


def _relevant_pairs(measure, view, k: int):
    """(intent weights (n, A), `aspect_pairs` of the relevant items of the run cut at K and their aspects)."""
    w = intent_weights(view, measure.weights, str(measure))
    space = aspect_space(view)
    items, grades = run_arrays(view, k)
    rel = is_relevant(grades, view.threshold)
    return w, aspect_pairs(items, rel, aspect_index(view), space.n_aspects)


class MAPIA(_AspectMeasure):
    """Intent-aware average precision: MAP-IA@K = Σ_a w_a AP@K(u|a), AP(u|a) counting as relevant only the items of
    Rel_u having a: AP@K(u|a) = (1/|Rel_{u,a}|) Σ_{k≤K, i_k∈Rel_u, a∈A(i_k)} |{l ≤ k : i_l ∈ Rel_u, a ∈ A(i_l)}|/k.

    weights=uniform (default): 1/|A_u^rel| over A_u^rel — exactly ndeval's MAP-IA (binary relevance; ndeval has no
    cutoff: MAP-IA without @K is the whole list). Agrawal et al., WSDM 2009; ndeval `computeMAP`. docs/intent-aware.md
    (Example C: 0.388889).
    """

    NAME = "MAP-IA"
    RANGE = (0.0, 1.0)
    PARAMS = (replace(WEIGHTS, default="uniform"),)
    FORMULA = "Σ_a w_a (1/|Rel_{u,a}|) Σ_{k≤K: i_k ∈ Rel_{u,a}} |R^k ∩ Rel_{u,a}| / k"
    CITATION = "Agrawal et al., WSDM 2009; ndeval MAP-IA"
    SECTION = "C.5"

    def compute(self, view):
        w, (u, pos, a, gstart) = _relevant_pairs(self, view, cutoff_of(self, view))
        hits = np.arange(len(u)) - gstart + 1.0  # relevant items with a up to this one
        prec = np.zeros(w.shape)
        np.add.at(prec, (u, a), hits / (pos + 1.0))
        indicator = aspect_space(view).indicator
        n_rel_a = np.asarray((view.qrels.relevant(view.threshold)[view.users] @ indicator).todense())
        ap = np.divide(prec, n_rel_a, out=np.zeros_like(prec), where=n_rel_a > 0)
        return (w * ap).sum(axis=1)


def _coverage(view, measure, k):
    """(first covering position (0-based) of each covered (user, aspect), its user, and |target aspects| per user)."""
    judged = measure.rel == "judged"
    n_target = relevant_aspects(view, judged=judged).sum(axis=1)
    space = aspect_space(view)
    items, grades = run_arrays(view, k)
    ok = is_judged(grades) if judged else is_relevant(grades, view.threshold)
    u, pos, _a, gstart = aspect_pairs(items, ok, aspect_index(view), space.n_aspects)
    first = gstart == np.arange(len(u))
    return pos[first], u[first], n_target


class SRecall(_AspectMeasure):
    """Subtopic recall: S-recall@K = |∪_{k≤K, i_k∈Rel_u} A(i_k) ∩ A_u^rel| / |A_u^rel| (Zhai et al., SIGIR 2003).

    rel=judged counts any judged item as covering its aspects (denominator: aspects of J_u), reproducing
    P&R's relevance-agnostic reading. ndeval's strec@K (rel=binary). docs/intent-aware.md
    """

    NAME = "S-recall"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    PARAMS = (COVER,)
    FORMULA = "|∪_{k≤K, i_k relevant} A(i_k)| / |A_u^rel|"
    CITATION = "Zhai, Cohen, Lafferty, SIGIR 2003; ndeval strec"
    SECTION = "C.6"

    def compute(self, view):
        _pos, u, tot = _coverage(view, self, cutoff_of(self, view))
        covered = np.bincount(u, minlength=len(tot)).astype(np.float64)
        return np.divide(covered, tot, out=np.zeros(len(tot)), where=tot > 0)


class SRR(_AspectMeasure):
    """Subtopic reciprocal rank: 1/min{k : S-recall@k = 1} if that rank is ≤ K, else 0 (Zhai et al. 2003).

    docs/intent-aware.md (P&R §4.2); `rel=` as S-recall.
    """

    NAME = "S-RR"
    RANGE = (0.0, 1.0)
    PARAMS = (COVER,)
    FORMULA = "1 / min{k : S-recall@k = 1}"
    CITATION = "Zhai, Cohen, Lafferty, SIGIR 2003; Parapar & Radlinski 2021 §4.2"
    SECTION = "C.7"

    def compute(self, view):
        pos, u, tot = _coverage(view, self, cutoff_of(self, view))
        covered = np.bincount(u, minlength=len(tot))
        last = np.zeros(len(tot))
        np.maximum.at(last, u, pos + 1.0)  # rank at which the last aspect got covered
        full = (covered == tot) & (tot > 0)
        return np.where(full, 1.0 / np.maximum(last, 1.0), 0.0)
