"""Accuracy metrics (docs/metrics.md) with trec_eval semantics, computed for all users at once.

Conventions (docs/metrics.md): relevant ⇔ grade ≥ τ (`EvalContext.threshold`, default 4); denominators
that involve |Rel_u| count all relevant test items, retrieved or not, and give 0 when |Rel_u| = 0 (possible
only with `population="judged"`); unjudged items are non-relevant (bpref and infAP skip them by definition);
users of the evaluated population without a list score 0; lists shorter than K are padded with non-relevant
items (P@K divides by K).

Every measure works on the arrays of a `RunView` (rel, grades, cumulative sums) — one row per user, one
column per rank position; the arrays shared by several measures are computed once per view (`RunView.memo`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.context import RunView
from recdiv.eval.measure import Param, PerUserMeasure, SystemMeasure
from recdiv.eval.params import LEVEL, POSITION_DISC
from recdiv.eval.partial import ByUser
from recdiv.models.discount import (
    Discount,
    ExponentialDiscount,
    HalfLifeDiscount,
    JKDiscount,
    parse_discount,
    rank_order_sum,
    row_sums,
)
from recdiv.models.gain import GAINS, gain_values
from recdiv.models.relevance import stop_probability

if TYPE_CHECKING:
    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings
    from recdiv.eval.context import EvalContext

INFAP_EPSILON = 1e-5  # trec_eval m_infap.c


# shared per-view arrays ----------------------------------------------------------------------------
def _memo(view: RunView, key, fn):
    """Compute `fn()` once per view (the shared arrays of several measures; `RunView.memo`)."""
    return view.memo(("accuracy", key), fn)


def _width(view: RunView, cutoff: int | None) -> int:
    """Number of run columns inside the cutoff."""
    k = view.items.shape[1]
    return k if cutoff is None else min(cutoff, k)


def _cum_rel(view: RunView) -> np.ndarray:
    """(n, k) number of relevant items in the top k."""
    return _memo(view, "cum_rel", lambda: np.cumsum(view.rel, axis=1, dtype=np.int64))


def _hits(view: RunView, cutoff: int | None) -> np.ndarray:
    """|R^K ∩ Rel_u| per user."""
    return _stats(view, cutoff)[0]


def _stats(view: RunView, cutoff: int | None):
    """(hits, AP numerator, rank of the first relevant item) within the cutoff."""
    w = _width(view, cutoff)
    return _memo(view, ("prefix", w), lambda: _prefix_stats(view.rel, w))


def _prefix_stats(rel: np.ndarray, w: int):
    """Per row over the first w positions: hits, Σ_k rel_k·hits_k/k (the AP numerator), rank of the first hit."""
    if w == 0:
        return np.zeros(len(rel)), np.zeros(len(rel)), np.full(len(rel), np.inf)
    top = rel[:, :w]
    cum = np.cumsum(top, axis=1, dtype=np.int64)
    ap = rank_order_sum(np.where(top, cum / _ranks(w), 0.0))
    first = np.where(top.any(axis=1), np.argmax(top, axis=1) + 1.0, np.inf)
    return cum[:, -1].astype(np.float64), ap, first


def _listed(view: RunView) -> np.ndarray:
    """Length n of each user's list (0 without one)."""
    return view.lengths.astype(np.float64)


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, and 0 where den = 0 (docs/reproductions.md)."""
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


def _ranks(k: int) -> np.ndarray:
    return np.arange(1, k + 1, dtype=np.float64)


class _Leveled(PerUserMeasure):
    """An accuracy measure with ir_measures' relevance level `rel=`: relevant ⇔ grade ≥ rel for this measure
    (`P(rel=5)@10` next to `P@10` at --rel-threshold 4); the users averaged over stay the evaluated population."""

    PARAMS = (LEVEL,)

    def run_view(self, rankings, qrels, context):
        view = super().run_view(rankings, qrels, context)
        return view if self.rel is None else view.at_threshold(self.rel)


# DCG-like sums (gains: recdiv.models.gain; discounts: recdiv.models.discount) ---------------------------
def _rank_factors(discount: Discount, n: int) -> tuple[np.ndarray, bool]:
    """(factors, divide) for ranks 1..n: the discount's divisors (log, jk, half-life: trec_eval divides), else
    its multiplicative weights."""
    div = discount.divisors(n)
    return (div, True) if div is not None else (discount.positions(n), False)


def _discounted(terms: np.ndarray, factor: np.ndarray, divide: bool) -> np.ndarray:
    """terms / factor (the divisor models, as trec_eval divides) or terms · factor."""
    return terms / factor if divide else terms * factor


def ideal_sums(view: RunView, gain: str, cutoff: int | None, discount: Discount, d: float = 0.0) -> np.ndarray:
    """Ideal DCG-like sum per evaluated user from all judged test items (retrieved or not), cut at K:
    Σ_{j < K} G*_j·D(j) over the user's positive gains sorted descending (gains grow with the grade, so
    the grades are sorted), added in that order."""
    m = view.qrels.csr
    users = view.users
    counts = (m.indptr[users + 1] - m.indptr[users]).astype(np.int64)
    longest = int(counts.max()) if len(counts) else 0
    limit = longest if cutoff is None else min(cutoff, longest)
    row = np.repeat(np.arange(len(users)), counts)
    at = np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(m.indptr[users], counts)
    grades = m.data[at].astype(np.float64)
    gains = gain_values(gain, grades, float(view.threshold), float(d))
    keep = gains > 0
    row, grades, gains = row[keep], grades[keep], gains[keep]
    order = np.lexsort((-grades, row))
    row, gains = row[order], gains[order]
    kept = np.bincount(row, minlength=len(users))
    pos = np.arange(len(row)) - np.repeat(np.cumsum(kept) - kept, kept)
    inside = pos < limit
    row, gains, pos = row[inside], gains[inside], pos[inside]
    factor, divide = _rank_factors(discount, max(limit, 1))
    terms = _discounted(gains, factor[pos], divide)
    total = np.zeros(len(users))
    by_rank = np.argsort(pos, kind="stable")  # rank by rank, each user once per rank: trec_eval's order
    bounds = np.searchsorted(pos[by_rank], np.arange(limit + 1))
    for j in range(limit):
        sel = by_rank[bounds[j]:bounds[j + 1]]
        total[row[sel]] += terms[sel]
    return total


def _ideal(view: RunView, gain: str, discount: Discount, cutoff: int | None) -> np.ndarray:
    return _memo(view, ("ideal", gain, discount.spec, cutoff), lambda: ideal_sums(view, gain, cutoff, discount))


def _dcg(view: RunView, gain: str, discount: Discount, cutoff: int | None) -> np.ndarray:
    """DCG-like sum of the run within the cutoff (unjudged items gain nothing), added rank by rank."""
    w = _width(view, cutoff)

    def compute():
        g = view.grades[:, :w]
        judged = ~np.isnan(g)
        terms = np.where(judged, gain_values(gain, np.where(judged, g, 0.0), float(view.threshold)), 0.0)
        factor, divide = _rank_factors(discount, max(w, 1))
        return rank_order_sum(_discounted(terms, factor[:w], divide))

    return _memo(view, ("dcg", gain, discount.spec, w), compute)


# measures ------------------------------------------------------------------------------------------
class Precision(_Leveled):
    """Precision at K: the fraction of the top K that is relevant.

    P@K(u) = |R^K ∩ Rel_u| / K (short lists still divide by K). trec_eval `P.K`; Valcarce et al. 2018 eq. 1.
    docs/metrics.md
    """

    NAME = "P"
    RANGE = (0.0, 1.0)
    CUTOFF = "required"
    PARAMS = (Param("den", str, "k", "denominator: K (trec_eval), or the list length when shorter than K (LensKit "
                    "2025 Precision; 0 for an empty list)", choices=("k", "list")), LEVEL)
    FORMULA = "|R^K ∩ Rel_u| / K (den=list: / min(K, n))"
    CITATION = "trec_eval P.K; Valcarce et al. 2018 eq. 1; LensKit Precision (den=list)"
    SECTION = "A.1"

    def depth_bound(self) -> bool:
        return False  # divides by K, however short the lists

    def compute(self, view):
        if self.den == "list":
            return _safe_div(_hits(view, self.cutoff), np.minimum(_listed(view), self.cutoff))
        return _hits(view, self.cutoff) / self.cutoff


class Recall(_Leveled):
    """Recall at K: the fraction of all relevant test items found in the top K.

    Recall@K(u) = |R^K ∩ Rel_u| / |Rel_u| (den=min: / min(|Rel_u|, K), LensKit 2025 Recall). trec_eval `recall.K`;
    Valcarce et al. 2018 eq. 2. docs/metrics.md
    """

    NAME = "Recall"
    RANGE = (0.0, 1.0)
    PARAMS = (Param("den", str, "rel", "denominator: |Rel_u| (trec_eval), or min(|Rel_u|, K) (LensKit 2025 Recall)",
                    choices=("rel", "min")), LEVEL)
    FORMULA = "|R^K ∩ Rel_u| / |Rel_u| (den=min: / min(|Rel_u|, K))"
    CITATION = "trec_eval recall.K; Valcarce et al. 2018 eq. 2; LensKit Recall (den=min)"
    SECTION = "A.2"

    def compute(self, view):
        rel = view.n_rel if self.den == "rel" or self.cutoff is None else np.minimum(view.n_rel, self.cutoff)
        return _safe_div(_hits(view, self.cutoff), rel)


class F1(_Leveled):
    """Harmonic mean of P@K and Recall@K.

    F1@K(u) = 2·P·R/(P + R) = 2·|R^K ∩ Rel_u| / (K + |Rel_u|) (0 if no hit). Van Rijsbergen 1979. docs/metrics.md
    """

    NAME = "F1"
    RANGE = (0.0, 1.0)
    CUTOFF = "required"
    FORMULA = "2·P@K·Recall@K / (P@K + Recall@K) = 2·|R^K ∩ Rel_u| / (K + |Rel_u|)"
    CITATION = "van Rijsbergen 1979 (F-measure, β = 1)"
    SECTION = "A.1–A.2"

    def depth_bound(self) -> bool:
        return False  # K is in the formula

    def compute(self, view):
        return _safe_div(2.0 * _hits(view, self.cutoff), self.cutoff + view.n_rel)


class HitRate(_Leveled):
    """Hit rate: 1 if any relevant item is in the top K.

    HitRate@K(u) = [|R^K ∩ Rel_u| > 0] (trec_eval `success.K`). Deshpande & Karypis 2004. docs/metrics.md
    """

    NAME = "HitRate"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    FORMULA = "[|R^K ∩ Rel_u| ≥ 1]"
    CITATION = "trec_eval success.K; Deshpande & Karypis 2004"
    SECTION = "A.1"

    def compute(self, view):
        return (_hits(view, self.cutoff) > 0).astype(np.float64)


class AP(_Leveled):
    """Average precision (trec_eval `map_cut.K`; without cutoff trec_eval `map`).

    AP@K(u) = (1/|Rel_u|) · Σ_{k ≤ min(K,n)} rel_k · P@k(u) — the denominator is |Rel_u|, not min(K, |Rel_u|).
    Valcarce et al. 2018 eq. 3. docs/metrics.md
    """

    NAME = "AP"
    RANGE = (0.0, 1.0)
    PARAMS = (Param("den", str, "rel", "denominator: |Rel_u| (trec_eval), or min(|Rel_u|, min(K, n)) (LensKit 2025 "
                    "AveragePrecision)", choices=("rel", "min")), LEVEL)
    FORMULA = "(1/|Rel_u|) Σ_{k≤K} rel_k · P@k (den=min: 1/min(|Rel_u|, K, n))"
    CITATION = "trec_eval map_cut.K / map; Valcarce et al. 2018 eq. 3; LensKit AveragePrecision (den=min)"
    SECTION = "A.3"

    def compute(self, view):
        den = view.n_rel
        if self.den == "min":
            den = np.minimum(den, _listed(view) if self.cutoff is None else np.minimum(_listed(view), self.cutoff))
        return _safe_div(_stats(view, self.cutoff)[1], den)


class _DCGBase(_Leveled):
    PARAMS = (
        Param("gain", str, "rating", "gain G of a judged grade g: g, [g ≥ τ], 2^g − 1 (g ≥ τ), 2^(g−τ+1) − 1 (g ≥ τ)",
              choices=GAINS),
        replace(POSITION_DISC, default="log", description="rank discount D(k): log (1/log2(k+1), trec_eval), "
                "jk (1 for k ≤ b, else 1/log_b k), or any position discount: recip, exp<p>, halflife<α>, none"),
        Param("b", float, 2.0, "log base of disc=jk", low=1.0, low_open=True),
        LEVEL,
    )

    def validate(self) -> None:
        if self.disc != "jk" and self.b != 2.0:
            raise ConfigError(f"{self.NAME}: b is the log base of disc=jk; it has no effect with disc={self.disc}")

    @property
    def discount(self) -> Discount:
        return JKDiscount(self.b) if self.disc == "jk" else parse_discount(self.disc)

    def _dcg(self, view):
        return _dcg(view, self.gain, self.discount, self.cutoff)


class DCG(_DCGBase):
    """Discounted cumulative gain (unnormalised).

    DCG@K(u) = Σ_{k ≤ min(K,n)} G(i_k)·D(k); gains and discounts as nDCG. Järvelin & Kekäläinen 2002. docs/metrics.md
    """

    NAME = "DCG"
    FORMULA = "Σ_{k≤K} G(i_k)·D(k); G ∈ {rating, binary, exp, ranksys}, D ∈ {1/log2(k+1), jk(b)}"
    CITATION = "Järvelin & Kekäläinen 2002"
    SECTION = "A.4"

    def compute(self, view):
        return self._dcg(view)


class NDCG(_DCGBase):
    """Normalised DCG with trec_eval's ideal: the gains of all judged items (retrieved or not), sorted.

    nDCG@K = DCG@K / IDCG@K (0 if IDCG = 0). gain: `rating` (grade, trec_eval `ndcg_cut`), `binary` (grade ≥ τ),
    `exp` (2^g − 1 for g ≥ τ), `ranksys` (2^{g−τ+1} − 1 for g ≥ τ); disc: `log` (1/log2(k+1)) or `jk` (1 for
    k ≤ b, else 1/log_b k; parameter b, default 2). Järvelin & Kekäläinen 2002; trec_eval `ndcg_cut.K`.
    docs/metrics.md
    """

    NAME = "nDCG"
    RANGE = (0.0, 1.0)
    FORMULA = "DCG@K / IDCG@K; IDCG from all judged items' gains sorted descending"
    CITATION = "Järvelin & Kekäläinen 2002; trec_eval ndcg_cut.K / ndcg"
    SECTION = "A.4"

    def compute(self, view):
        return _safe_div(self._dcg(view), _ideal(view, self.gain, self.discount, self.cutoff))


class RR(_Leveled):
    """Reciprocal rank of the first relevant item (mean over users = MRR).

    RR@K(u) = 1 / min{k ≤ K : rel_k = 1}, 0 if none. trec_eval `recip_rank`; Voorhees 1999. docs/metrics.md
    """

    NAME = "RR"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    FORMULA = "1 / min{k ≤ K : rel_k = 1} (0 if none)"
    CITATION = "trec_eval recip_rank; Voorhees 1999 (TREC-8 QA)"
    SECTION = "A.5"

    def compute(self, view):
        return 1.0 / _stats(view, self.cutoff)[2]


class Rprec(_Leveled):
    """R-precision: precision at rank |Rel_u|.

    Rprec(u) = |R^{|Rel_u|} ∩ Rel_u| / |Rel_u| (missing positions non-relevant). trec_eval `Rprec`. docs/metrics.md
    """

    NAME = "Rprec"
    RANGE = (0.0, 1.0)
    CUTOFF = "none"
    FORMULA = "|R^{|Rel_u|} ∩ Rel_u| / |Rel_u|"
    CITATION = "trec_eval Rprec; Buckley & Voorhees 2000"
    SECTION = "A.6"

    def compute(self, view):
        k = view.items.shape[1]
        if k == 0:
            return np.zeros(len(view.users))
        w = np.minimum(view.n_rel, k)
        hits = np.take_along_axis(_cum_rel(view), np.maximum(w - 1, 0)[:, None], axis=1)[:, 0]
        return _safe_div(np.where(w > 0, hits, 0).astype(np.float64), view.n_rel)


def _judged_nonrel(view: RunView) -> np.ndarray:
    return _memo(view, "nonrel", lambda: view.judged & ~view.rel)


def _nonrel_above(view: RunView) -> np.ndarray:
    """(n, k) number of judged non-relevant items ranked above position k."""

    def compute():
        c = np.cumsum(_judged_nonrel(view), axis=1, dtype=np.int64)
        return c - _judged_nonrel(view)

    return _memo(view, "nonrel_above", compute)


class Bpref(_Leveled):
    """bpref: how often relevant items are ranked above judged non-relevant ones (unjudged items skipped).

    bpref@K(u) = (1/R) Σ_{relevant i_k, k ≤ K} [1 if nr(k) = 0 else 1 − min(nr(k), R)/min(N, R)], R = |Rel_u|,
    N = |NRel_u| (judged non-relevant test items: 0 ≤ grade < τ), nr(k) = judged non-relevant items above k;
    negative labels (pooled but unjudged) are skipped like unjudged items.
    Buckley & Voorhees 2004; trec_eval `bpref`; Valcarce et al. 2018 eq. 6. docs/metrics.md
    """

    NAME = "bpref"
    RANGE = (0.0, 1.0)
    FORMULA = "(1/R) Σ_{rel i_k} (1 − min(nr(k), R) / min(N, R)); term 1 if nr(k) = 0"
    CITATION = "Buckley & Voorhees 2004; trec_eval bpref; Valcarce et al. 2018 eq. 6"
    SECTION = "A.7"

    def compute(self, view):
        w = _width(view, self.cutoff)
        R = view.n_rel.astype(np.float64)[:, None]
        N = (view.n_judged - view.n_rel).astype(np.float64)[:, None]
        nr = _nonrel_above(view)[:, :w]
        penalty = _safe_div(np.minimum(nr, R), np.minimum(N, R))
        term = np.where(nr > 0, 1.0 - penalty, 1.0)
        return _safe_div(np.where(view.rel[:, :w], term, 0.0).sum(axis=1), view.n_rel)


class InfAP(_Leveled):
    """Inferred average precision (Yilmaz & Aslam 2006).

    infAP@K(u) = (1/|Rel_u|) Σ_{relevant i_k, k ≤ K} E[P@k], with rel_a / nrel_a the judged relevant /
    non-relevant items above k, unj_a the pooled-but-unjudged items above k (negative labels) and ε = 1e−5:
    `trec_eval` (default): E[P@1] = 1;
    E[P@k] = 1/k + ((k−1)/k)·((rel_a + nrel_a + unj_a)/(k−1))·(rel_a + ε)/(rel_a + nrel_a + 2ε);
    `valcarce`: E[P@k] = 1/k + ((k−1)/k)·(rel_a + ε)/(rel_a + nrel_a + 2ε) (Valcarce et al. 2018 eq. 7–8).
    docs/metrics.md
    """

    NAME = "infAP"
    PARAMS = (Param("variant", str, "trec_eval", "E[P@k] with trec_eval's pool factor, or as Valcarce et al. 2018",
                    choices=("trec_eval", "valcarce")), LEVEL)
    FORMULA = ("(1/|Rel_u|) Σ_{rel i_k} E[P@k]; E[P@k] = 1/k + ((k−1)/k)·(pool/(k−1))·(rel+ε)/(rel+nrel+2ε), "
               "pool = rel + nrel + pooled-unjudged above k (trec_eval; valcarce: no pool factor)")
    CITATION = "Yilmaz & Aslam 2006; trec_eval infAP; Valcarce et al. 2018 eq. 7–8"
    SECTION = "A.8"

    def compute(self, view):
        w = _width(view, self.cutoff)
        k = _ranks(w)
        rel_a = (_cum_rel(view)[:, :w] - view.rel[:, :w]).astype(np.float64)
        nrel_a = _nonrel_above(view)[:, :w].astype(np.float64)
        frac = (rel_a + INFAP_EPSILON) / (rel_a + nrel_a + 2 * INFAP_EPSILON)
        if self.variant == "trec_eval":
            pool = rel_a + nrel_a
            unj = view.pooled_unjudged[:, :w]
            if unj.any():
                pool = pool + (np.cumsum(unj, axis=1) - unj)
            e = 1.0 / k + ((k - 1.0) / k) * _safe_div(pool, k - 1.0) * frac
            if w:
                e[:, 0] = 1.0
        else:
            e = 1.0 / k + ((k - 1.0) / k) * frac
        return _safe_div(np.where(view.rel[:, :w], e, 0.0).sum(axis=1), view.n_rel)


class RBP(_Leveled):
    """Rank-biased precision (Moffat & Zobel 2008): a user moves to the next item with probability p.

    RBP@K(u) = (1 − p) Σ_{k ≤ min(K,n)} p^{k−1} G(i_k); `gain=binary` G = [g ≥ τ], `gain=graded` G = g / r_max
    (judged items; unjudged 0). docs/metrics.md
    """

    NAME = "RBP"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    PARAMS = (Param("p", float, 0.9, "persistence: probability of moving to the next item", low=0.0, high=1.0,
                    low_open=True, high_open=True),
              Param("gain", str, "binary", "G = [g ≥ τ], or g / r_max", choices=("binary", "graded")), LEVEL)
    FORMULA = "(1 − p) Σ_{k≤K} p^{k−1} G(i_k); G = [g ≥ τ] or g / r_max"
    CITATION = "Moffat & Zobel 2008"
    SECTION = "A.9"

    def uses_max_grade(self) -> bool:
        return self.gain == "graded"

    def compute(self, view):
        w = _width(view, self.cutoff)
        if self.gain == "binary":
            g = view.rel[:, :w].astype(np.float64)
        else:
            g = np.nan_to_num(view.grades[:, :w], nan=0.0).clip(min=0.0) / view.max_grade
        return (1.0 - self.p) * row_sums(g, ExponentialDiscount(self.p).positions(w))


class ERR(_Leveled):
    """Expected reciprocal rank (Chapelle et al. 2009), cascade model, RankSys recsys instantiation.

    R(i) = (2^{g(i)} − 1) / 2^{g_max}, g(i) = r(u,i) if ≥ τ else 0, g_max = r_max (the declared rating scale's
    maximum, `--rating-scale`; without one the largest test grade — gdeval fixes 4);
    ERR@K(u) = Σ_{k ≤ K} (1/k) R(i_k) Π_{l<k} (1 − R(i_l)). Unnormalised. docs/metrics.md
    """

    NAME = "ERR"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    FORMULA = "Σ_{k≤K} (1/k)·R(i_k)·Π_{l<k}(1 − R(i_l)); R = (2^g − 1)/2^{g_max}, g = 0 below τ"
    CITATION = "Chapelle, Metzler, Zhang & Grinspan 2009; RankSys ERRIA.ERRRelevanceModel"
    SECTION = "A.10"

    def uses_max_grade(self) -> bool:
        return True

    def compute(self, view):
        w = _width(view, self.cutoff)
        g = np.nan_to_num(view.grades[:, :w], nan=0.0)
        g = np.where(view.rel[:, :w], g, 0.0)
        r = stop_probability(g, view.max_grade)
        stop = np.cumprod(1.0 - r, axis=1)
        before = np.concatenate([np.ones((len(r), 1)), stop[:, :-1]], axis=1) if w else stop
        return (r * before / _ranks(w)).sum(axis=1)


class _HalfLife:
    """Half-life sums shared by the per-user and the system-level half-life utility."""

    PARAMS = (Param("d", float, 3.0, "neutral (default) grade: utility counts max(g − d, 0)"),
              Param("alpha", float, 5.0, "half-life rank: the rank with a 50 % chance of being viewed", low=1.0,
                    low_open=True))

    def _sums(self, view) -> tuple[np.ndarray, np.ndarray]:
        """(HL(u, R), HL_max(u)) for the evaluated users."""
        w = _width(view, self.cutoff)
        discount = HalfLifeDiscount(self.alpha)
        g = np.maximum(np.nan_to_num(view.grades[:, :w], nan=self.d) - self.d, 0.0)
        hl = (g / discount.divisors(w)).sum(axis=1)
        hl_max = ideal_sums(view, "halflife", self.cutoff, discount, self.d)
        return hl, hl_max


class HLU(_HalfLife, PerUserMeasure):
    """Half-life utility (Breese, Heckerman & Kadie 1998), per user normalised by the best possible list.

    HL(u, R) = Σ_{k ≤ K} max(g(i_k) − d, 0) / 2^{(k−1)/(α−1)} (unjudged: g = d); HLU(u) = HL(u, R) / HL_max(u),
    HL_max over u's judged test items sorted by grade (0 if HL_max = 0). Defaults d = 3, α = 5. docs/metrics.md
    """

    NAME = "HLU"
    RANGE = (0.0, 1.0)
    FORMULA = "HL(u,R) / HL_max(u); HL = Σ_{k≤K} max(g(i_k) − d, 0) / 2^{(k−1)/(α−1)}"
    CITATION = "Breese, Heckerman & Kadie 1998"
    SECTION = "A.11"

    def compute(self, view):
        hl, hl_max = self._sums(view)
        return _safe_div(hl, hl_max)


class HLUBreese(_HalfLife, SystemMeasure):
    """Breese's system-level half-life utility: 100 · Σ_u HL(u, R) / Σ_u HL_max(u) (no per-user values).

    Breese, Heckerman & Kadie 1998 eq. for R (the aggregate over users). docs/metrics.md
    """

    NAME = "HLU_breese"
    FORMULA = "100 · Σ_u HL(u,R) / Σ_u HL_max(u)"
    CITATION = "Breese, Heckerman & Kadie 1998"
    SECTION = "A.11"

    def block_state(self, rankings: Rankings, qrels: Qrels, context: EvalContext) -> ByUser:
        view = RunView.of(context, rankings, qrels)
        return ByUser(view.users, self._sums(view))

    def finish(self, state: ByUser, n_items: int) -> float:
        hl, hl_max = state.arrays
        total = float(hl_max.sum())
        return 100.0 * float(hl.sum()) / total if total > 0 else 0.0
