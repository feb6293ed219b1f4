"""Intent-aware and aspect-based metrics (METRICS.md §C): users play queries, aspects play intents.

α-nDCG (binary and graded), ERR-IA (RankSys style and ndeval style), nERR-IA, nDCG-IA, P-IA, S-recall,
S-RR, NRBP, nNRBP, EU [RECON] and RBU — all computed for every evaluated user at once, at any cutoff
(TREC's ndeval stops at 20). Aspects come from `EvalContext.aspects`; A(i) is the membership pattern of
the aspect space. An item relevant to u is relevant to every aspect it has (§C.0).

Intent weights w_a (``weights=``): ``profile`` = count-based p(a|u) from `EvalContext.train`
(`AspectSpace.user_distribution`, uniform over A for an empty profile), ``uniform`` = 1/|A_u^rel| over
the aspects of the user's relevant test items (TREC / ndeval convention).

Arrays: the redundancy-aware gains (α-nDCG family, ERR-IA ndeval, NRBP, EU), A_u^rel and the greedy α-ideal
lists are computed by numba kernels (`recdiv.eval._ia_kernels`) in one pass per user over the user's qrels
CSR row and a padded items × aspects table — no users × K × |A| tensor. Unweighted run gains are cached per
RunView (shared by α-nDCG, α-DCG, ERR-IA(ndeval), nERR-IA), greedy ideals and |A_u^rel| per qrels object;
`clear_caches()` forgets them. The other measures gather (user, position, aspect) pairs or a dense
items × aspects indicator for a chunk of users (memory bound METRICS.md G.7).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval import _ia_kernels
from recdiv.eval._ia_kernels import (
    alpha_gains_kernel,
    greedy_alpha_ideal,
    relevant_aspect_counts,
    relevant_aspect_kernel,
    run_gains,
)
from recdiv.eval.greedy_ideal import (
    CHUNK_ELEMS,
    check_ideal_ties,
    chunks_by_width,
    padded_rows,
)
from recdiv.eval.measure import Measure, register

WEIGHTS = ("profile", "uniform")

# --------------------------------------------------------------------------------------------------
# shared helpers (also used by recdiv.eval.unified)
# --------------------------------------------------------------------------------------------------
_DENSE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_DIST: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_IDEAL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_INDEX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CSR: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # kernel inputs: aspect tables, qrels CSR arrays
_GAINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per RunView: unweighted run gains
_NO_WEIGHTS = np.zeros((0, 0))


def clear_caches() -> None:
    """Forget every cached per-space / per-qrels / per-view array (indicators, aspect tables, greedy ideals,
    |A_u^rel|, run gains, profile distributions)."""
    for cache in (_DENSE, _DIST, _IDEAL, _INDEX, _CSR, _GAINS):
        cache.clear()


def aspect_space(view):
    """The context's aspect space, checked against the run's item vocabulary."""
    space = view.context.aspects
    if space is None:
        raise ConfigError("this measure needs `aspects` in the evaluation context (e.g. --aspects FILE)")
    if space.items is not view.qrels.items and space.items != view.qrels.items:
        raise ConfigError("the aspect space and the qrels use different item vocabularies")
    return space


def aspect_matrix(space) -> np.ndarray:
    """Dense bool items × aspects indicator of A(i), cached per aspect space."""
    hit = _DENSE.get(space)
    if hit is None:
        hit = space.dense(dtype=bool)
        _DENSE[space] = hit
    return hit


def gather_aspects(dense: np.ndarray, items: np.ndarray) -> np.ndarray:
    """asp[u,k,a] = [a ∈ A(items[u,k])], False at padding (−1)."""
    asp = dense[np.where(items >= 0, items, 0)]
    asp &= (items >= 0)[..., None]
    return asp


def user_rows(view, interactions) -> np.ndarray:
    """Row of each evaluated user in `interactions` (−1 if absent)."""
    if interactions.users is view.qrels.users or interactions.users == view.qrels.users:
        return view.users.astype(np.int64)
    return interactions.users.lookup(view.qrels.users.id_of(view.users), missing="-1")


def user_distribution(view, weighting: str, measure: str = "this measure") -> np.ndarray:
    """(n, A) p(a|u) from the training profile (`count` or `rating` weighting, §E.11); uniform if absent."""
    train = view.context.train
    if train is None:
        raise ConfigError(f"{measure} needs `train` in the evaluation context for profile intent weights "
                          "(e.g. --train FILE), or use weights=uniform")
    space = aspect_space(view)
    per_train = _DIST.setdefault(train, {})
    key = (id(space), weighting)
    hit = per_train.get(key)
    if hit is None or hit[0] is not space:
        hit = (space, space.user_distribution(train, weighting))
        per_train[key] = hit
    dist = hit[1]
    rows = user_rows(view, train)
    out = np.full((len(rows), space.n_aspects), 1.0 / max(space.n_aspects, 1))
    ok = rows >= 0
    out[ok] = dist[rows[ok]]
    return out


def aspect_table(space) -> np.ndarray:
    """(items + 1, T) aspects of every item in ascending order, padded with the sentinel n_aspects (last row:
    padding item −1), for the numba kernels (`recdiv.eval._ia_kernels.aspect_table`); cached per space."""
    hit = _CSR.get(space)
    if hit is None:
        m = space.indicator.tocsr()
        m.sort_indices()
        hit = _ia_kernels.aspect_table(m.indptr, m.indices.astype(np.int64), space.n_aspects)
        _CSR[space] = hit
    return hit


def qrels_csr(qrels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, grades float64) of the qrels matrix for the kernels — the matrix's own arrays when
    their types fit (int32/int64 indices, float64 grades), no copy; cached per qrels object."""
    hit = _CSR.get(qrels)
    if hit is None or hit[0] is not qrels.matrix:
        m = qrels.matrix

        def index(a):
            return a if a.dtype in (np.int32, np.int64) else a.astype(np.int64)

        hit = (m, index(m.indptr), index(m.indices), m.data.astype(np.float64, copy=False))
        _CSR[qrels] = hit
    return hit[1], hit[2], hit[3]


def relevant_aspects(view, judged: bool = False) -> np.ndarray:
    """(n, A) bool: A_u^rel = ∪_{i ∈ Rel_u} A(i) (or the aspects of all judged items when `judged`)."""
    space = aspect_space(view)
    return relevant_aspect_kernel(view.users.astype(np.int64), *qrels_csr(view.qrels), float(view.threshold),
                                  judged, aspect_table(space), space.n_aspects)


def n_relevant_aspects(view) -> np.ndarray:
    """|A_u^rel| of every evaluated user (the ndeval "ideal-ideal" normalisations); a by-product of the greedy
    ideal kernel, so cached per qrels object with the ideal lists."""
    space = aspect_space(view)
    hit = _IDEAL.setdefault(view.qrels, {}).get(_rel_asp_key(view))
    if hit is not None and hit[0] is space:
        return hit[1]
    return relevant_aspect_counts(view.users.astype(np.int64), *qrels_csr(view.qrels), float(view.threshold),
                                  aspect_table(space), space.n_aspects)


def run_rows(view) -> np.ndarray:
    """Row of each evaluated user in `view.rankings.items` (−1: the user has no list)."""
    rk = view.rankings
    pos = np.full(max(len(rk.user_vocab), 1), -1, dtype=np.int64)
    pos[rk.users] = np.arange(len(rk.users))
    return pos[view.users]


def alpha_run_gains(view, k: int, alpha: float, graded: bool = False,
                    weights: np.ndarray | None = None) -> np.ndarray:
    """(n, K) gains G(k) = Σ_{a∈A(i_k)} w_a·ĝ_k·(1−α)^{c_{a,k−1}} of the run cut at K (§C.1/C.2/C.8), 0 at padding.

    One numba pass per user: ĝ from the user's qrels row, aspects from `aspect_table`. Without weights the
    result is cached per RunView (read-only array).
    """
    space = aspect_space(view)
    has_w = weights is not None
    key = (int(k), float(alpha), bool(graded), id(space))
    per_view = _GAINS.setdefault(view, {})
    hit = per_view.get(key) if not has_w else None
    if hit is not None and hit[0] is space:
        return hit[1]
    items = np.ascontiguousarray(view.rankings.items, dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64) if has_w else _NO_WEIGHTS
    out = run_gains(items, run_rows(view), int(k), view.users.astype(np.int64), *qrels_csr(view.qrels),
                    aspect_table(space), space.n_aspects, float(view.threshold), float(alpha), graded,
                    float(view.max_grade), w, has_w, _powers(alpha, k))
    if not has_w:
        out.flags.writeable = False
        per_view[key] = (space, out)
    return out


def intent_weights(view, how: str, measure: str = "this measure") -> np.ndarray:
    """(n, A) intent weights: `profile` (count-based p(a|u)) or `uniform` (1/|A_u^rel| on A_u^rel)."""
    if how == "profile":
        return user_distribution(view, "count", measure)
    arel = relevant_aspects(view)
    n = arel.sum(axis=1, keepdims=True)
    return np.where(arel, 1.0 / np.maximum(n, 1), 0.0)


def run_arrays(view, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Items (n, K) (−1 padded) and grades (n, K) (NaN unjudged/padding) of the run cut or padded to K."""
    return view.at(view.items, k, fill=-1), view.at(view.grades, k, fill=np.nan)


def cutoff_of(measure: Measure, view) -> int:
    return int(measure.cutoff) if measure.cutoff is not None else max(int(view.items.shape[1]), 1)


def row_chunks(n: int, per_row: int) -> Iterator[slice]:
    step = max(1, CHUNK_ELEMS // max(per_row, 1))
    for lo in range(0, n, step):
        yield slice(lo, min(n, lo + step))


def relevance_weights(grades: np.ndarray, threshold: float, graded: bool, r_max: float) -> np.ndarray:
    """ĝ(u,i): 1 (binary) or r/r_max (graded) for relevant items, 0 otherwise (§C.1/C.2)."""
    rel = np.nan_to_num(grades, nan=-np.inf) >= threshold
    if not graded:
        return rel.astype(np.float64)
    return np.where(rel, np.nan_to_num(grades) / r_max, 0.0)


def aspect_index(space) -> np.ndarray:
    """(items, T) aspect indices of every item (T = max |A(i)|), padded with the sentinel n_aspects; cached."""
    hit = _INDEX.get(space)
    if hit is None:
        m = space.indicator.tocsr()
        m.sort_indices()
        counts = np.diff(m.indptr)
        t = max(int(counts.max()) if len(counts) else 0, 1)
        hit = np.full((m.shape[0], t), space.n_aspects, dtype=np.int64)
        rows = np.repeat(np.arange(m.shape[0]), counts)
        hit[rows, np.arange(m.nnz) - np.repeat(m.indptr[:-1], counts)] = m.indices
        _INDEX[space] = hit
    return hit


def aspect_pairs(items: np.ndarray, mask: np.ndarray, table: np.ndarray, n_asp: int):
    """(user row, position, aspect) of every masked ranked item and aspect, sorted by (row, aspect, position),
    with the index of each pair's group start (groups = (row, aspect)). Work ∝ number of pairs, not n·K·|A|."""
    idx = table[np.where(items >= 0, items, 0)]
    ok = (idx < n_asp) & (mask & (items >= 0))[:, :, None]
    u, k, t = np.nonzero(ok)
    a = idx[u, k, t]
    order = np.argsort(u * (n_asp + 1) + a, kind="stable")  # stable: positions stay ascending
    u, k, a = u[order], k[order], a[order]
    start = np.ones(len(u), dtype=bool)
    start[1:] = (u[1:] != u[:-1]) | (a[1:] != a[:-1])
    gstart = np.maximum.accumulate(np.where(start, np.arange(len(u)), 0))
    return u, k, a, gstart


def exclusive_group_sum(values: np.ndarray, gstart: np.ndarray) -> np.ndarray:
    """Σ of `values` over the earlier members of each element's group (groups contiguous, starts `gstart`)."""
    cs = np.cumsum(values)
    return cs - values - (cs[gstart] - values[gstart])


def alpha_gains(items: np.ndarray, g: np.ndarray, space, alpha: float, weights: np.ndarray | None = None,
                graded: bool = False) -> np.ndarray:
    """G(k) = Σ_{a∈A(i_k)} w_a·ĝ_k·(1−α)^{c_{a,k−1}}, c = Σ_{l<k} ĝ_l [a∈A(i_l)] (§C.1/C.2/C.8), for (n, K) lists.

    g (n, K): relevance weights ĝ (0/1 when not `graded`; binary gains count any ĝ > 0 as 1);
    weights (n, A) or None (all 1). Numba kernel, one pass per list.
    """
    has_w = weights is not None
    w = np.ascontiguousarray(weights, dtype=np.float64) if has_w else _NO_WEIGHTS
    return alpha_gains_kernel(np.ascontiguousarray(items, dtype=np.int64), np.ascontiguousarray(g, dtype=np.float64),
                              aspect_table(space), space.n_aspects, float(alpha), graded, w, has_w,
                              _powers(alpha, items.shape[1]))


def _powers(alpha: float, k: int) -> np.ndarray:
    """(1−α)^c for c = 0..k, computed as the former vectorised code did (numpy power of float counts)."""
    return (1.0 - float(alpha)) ** np.arange(k + 1, dtype=np.float64)


def log_discount(k: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, k + 2))


def alpha_ideal_lists(view, alpha: float, graded: bool, ties: str, steps: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy α-ideal lists (§C.1) of every evaluated user: (items (n, L) −1 padded, gains (n, L)).

    Candidates are the user's relevant items having aspects (all other judged items have gain 0 and
    only pad the list). `steps=None` builds the whole list. Cached per qrels object; a cached longer
    list is reused (greedy ideals of different lengths share their prefix).
    """
    space = aspect_space(view)
    r_max = view.max_grade
    key = (alpha, graded, ties, view.threshold, view.context.population, r_max if graded else None)
    per_q = _IDEAL.setdefault(view.qrels, {})
    hit = per_q.get(key)
    if hit is not None and hit[0] is space and (hit[1] or (steps is not None and hit[2].shape[1] >= steps)):
        items, gains = hit[2], hit[3]
        return (items, gains) if steps is None else (items[:, :steps], gains[:, :steps])
    check_ideal_ties("ideal list", ties)
    q_ptr, q_idx, q_val = qrels_csr(view.qrels)
    rank = view.qrels.items.string_rank
    keys = rank if ties == "max_id" else len(rank) - 1 - rank
    out_i, out_g, widths, n_rel_asp = greedy_alpha_ideal(
        view.users.astype(np.int64), q_ptr, q_idx, q_val, float(view.threshold), graded, float(r_max),
        aspect_table(space), space.n_aspects, np.ascontiguousarray(keys, dtype=np.int64), float(alpha),
        -1 if steps is None else int(steps))
    full = out_i.shape[1] == max(int(widths.max()) if len(widths) else 0, 1)
    per_q[key] = (space, full, out_i, out_g)
    n_rel_asp.flags.writeable = False
    per_q[_rel_asp_key(view)] = (space, n_rel_asp)
    return out_i, out_g


def _rel_asp_key(view) -> tuple:
    return ("|A_u^rel|", view.threshold, view.context.population)


class _AspectMeasure(Measure):
    KIND = "intent-aware"
    NEEDS = ("aspects",)

    def _check_choice(self, key: str, choices: tuple[str, ...]) -> None:
        if self.params[key] not in choices:
            raise ConfigError(f"{self.NAME}: {key} must be one of {', '.join(choices)}, got {self.params[key]!r}")

    def _chunks(self, view, k: int):
        """Yield (slice, items (c,K), grades (c,K), asp (c,K,A)) over chunks of the evaluated users."""
        space = aspect_space(view)
        dense = aspect_matrix(space)
        items, grades = run_arrays(view, k)
        for sl in row_chunks(len(items), k * max(space.n_aspects, 1)):
            yield sl, items[sl], grades[sl], gather_aspects(dense, items[sl])


# --------------------------------------------------------------------------------------------------
# α-nDCG family
# --------------------------------------------------------------------------------------------------
@register
class AlphaNDCG(_AspectMeasure):
    """α-nDCG: novelty- and redundancy-aware nDCG over aspects (Clarke et al., SIGIR 2008).

    gain=binary: G(k) = Σ_{a∈A(i_k)} rel(u,i_k)(1−α)^{c_{a,k−1}}, c = relevant items above k having a;
    gain=graded [RECON, §C.2]: ĝ = r/r_max for relevant items in the gain and in the counts.
    α-nDCG@K = Σ_{k≤K} G(k)/log2(k+1) / the same over the greedy ideal list (ties: §0.6, `ideal_ties`).
    Equals ndeval's alpha-nDCG@K (binary relevance) at K = 5, 10, 20 — and is defined at any K.
    """

    NAME = "alpha-nDCG"
    PARAMS: ClassVar[dict] = {"alpha": 0.5, "gain": "binary", "ideal_ties": "max_id"}
    FORMULA = "Σ_k Σ_{a∈A(i_k)} rel·(1−α)^{c_{a,k−1}} / log2(k+1), over the greedy ideal"
    CITATION = "Clarke et al., SIGIR 2008; Vargas 2012 thesis §3.5; ndeval"
    SECTION = "C.1, C.2"

    def validate(self):
        self._check_choice("gain", ("binary", "graded"))
        check_ideal_ties(self.NAME, self.ideal_ties)
        if not 0 <= self.alpha <= 1:
            raise ConfigError(f"{self.NAME}: alpha must be in [0, 1]")

    def compute(self, view):
        k = cutoff_of(self, view)
        graded = self.gain == "graded"
        disc = log_discount(k)
        dcg = _alpha_dcg(view, k, self.alpha, graded, disc)
        _, ig = alpha_ideal_lists(view, self.alpha, graded, self.ideal_ties, k)
        idcg = ig @ disc[: ig.shape[1]]
        return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)


@register
class AlphaDCG(_AspectMeasure):
    """α-DCG, unnormalised (norm=none) or with ndeval's collection-independent "ideal-ideal" normalisation.

    norm=ndeval: α-DCG@K / Σ_{k≤K} |A_u^rel|(1−α)^{k−1}/log2(k+1) — exactly ndeval's alpha-DCG@K column
    (binary relevance); 0 when A_u^rel = ∅. (Clarke et al. 2008; METRICS.md §C.1.)
    """

    NAME = "alpha-DCG"
    PARAMS: ClassVar[dict] = {"alpha": 0.5, "gain": "binary", "norm": "none"}
    FORMULA = "Σ_k Σ_{a∈A(i_k)} rel·(1−α)^{c_{a,k−1}} / log2(k+1) [/ ideal-ideal]"
    CITATION = "Clarke et al., SIGIR 2008; ndeval"
    SECTION = "C.1"

    def validate(self):
        self._check_choice("gain", ("binary", "graded"))
        self._check_choice("norm", ("none", "ndeval"))

    def compute(self, view):
        k = cutoff_of(self, view)
        graded = self.gain == "graded"
        disc = log_discount(k)
        dcg = _alpha_dcg(view, k, self.alpha, graded, disc)
        if self.norm == "none":
            return dcg
        n_rel = n_relevant_aspects(view)
        ii = n_rel * (((1.0 - self.alpha) ** np.arange(k)) @ disc)
        return np.divide(dcg, ii, out=np.zeros_like(dcg), where=ii > 0)


def _alpha_dcg(view, k: int, alpha: float, graded: bool, disc: np.ndarray) -> np.ndarray:
    """Σ_{k≤K} G(k)·disc_k of the run for every evaluated user."""
    return alpha_run_gains(view, k, alpha, graded) @ disc


def _alpha_err(view, measure, k: int) -> np.ndarray:
    """E@K = Σ_{k≤K} G(k)/k with the binary α-nDCG gain (ndeval's ERR-IA numerator)."""
    return _alpha_dcg(view, k, measure.alpha, False, 1.0 / np.arange(1, k + 1))


@register
class ERRIA(_AspectMeasure):
    """ERR-IA: intent-aware expected reciprocal rank (Chapelle et al. 2009; Agrawal et al. 2009).

    variant=ranksys (default): ERR-IA@K = Σ_a w_a Σ_{k≤K} (1/k) R(i_k,a) Π_{l<k}(1 − R(i_l,a)),
    R(i,a) = (2^g − 1)/2^{g_max}·[a∈A(i)], g = rating if ≥ τ else 0, g_max = r_max; unnormalised
    (RankSys `ERRIA`, thesis §2.2.1.3). variant=ndeval: Σ_{k≤K} G_α(k)/k over binary α-nDCG gains divided by
    the ideal-ideal Σ_{k≤K}|A_u^rel|(1−α)^{k−1}/k (ndeval's ERR-IA@K; `alpha` used, `weights` ignored).
    METRICS.md §C.3.
    """

    NAME = "ERR-IA"
    PARAMS: ClassVar[dict] = {"weights": "profile", "variant": "ranksys", "alpha": 0.5}
    FORMULA = "Σ_a w_a Σ_k (1/k) R(i_k,a) Π_{l<k}(1 − R(i_l,a))"
    CITATION = "Chapelle et al., CIKM 2009; Agrawal et al., WSDM 2009; RankSys ERRIA; ndeval"
    SECTION = "C.3"

    def validate(self):
        self._check_choice("weights", WEIGHTS)
        self._check_choice("variant", ("ranksys", "ndeval"))

    def compute(self, view):
        k = cutoff_of(self, view)
        if self.variant == "ndeval":
            e = _alpha_err(view, self, k)
            n_rel = n_relevant_aspects(view)
            ii = n_rel * (((1.0 - self.alpha) ** np.arange(k)) @ (1.0 / np.arange(1, k + 1)))
            return np.divide(e, ii, out=np.zeros_like(e), where=ii > 0)
        w = intent_weights(view, self.weights, str(self))
        space = aspect_space(view)
        items, grades = run_arrays(view, k)
        g = np.where(np.nan_to_num(grades, nan=-np.inf) >= view.threshold, np.nan_to_num(grades), 0.0)
        r = (2.0**g - 1.0) / 2.0**view.max_grade
        u, pos, a, gstart = aspect_pairs(items, r > 0, aspect_index(space), space.n_aspects)
        rv = r[u, pos]
        surv = np.exp(exclusive_group_sum(np.log1p(-rv), gstart))  # Π_{l<k, a∈A(i_l)} (1 − R(i_l,a))
        return np.bincount(u, weights=w[u, a] * rv * surv / (pos + 1.0), minlength=len(items))


@register
class NERRIA(_AspectMeasure):
    """nERR-IA (ndeval): E@K = Σ_{k≤K} G_α(k)/k with binary α-nDCG gains, divided by E@K of the greedy α-ideal.

    Chapelle et al. 2009 with ndeval's collection-dependent normalisation; METRICS.md §C.3.
    """

    NAME = "nERR-IA"
    PARAMS: ClassVar[dict] = {"alpha": 0.5, "ideal_ties": "max_id"}
    FORMULA = "Σ_k G_α(k)/k / Σ_k G_α*(k)/k"
    CITATION = "Chapelle et al., CIKM 2009; ndeval"
    SECTION = "C.3"

    def validate(self):
        check_ideal_ties(self.NAME, self.ideal_ties)

    def compute(self, view):
        k = cutoff_of(self, view)
        e = _alpha_err(view, self, k)
        _, ig = alpha_ideal_lists(view, self.alpha, False, self.ideal_ties, k)
        ie = ig @ (1.0 / np.arange(1, ig.shape[1] + 1))
        return np.divide(e, ie, out=np.zeros_like(e), where=ie > 0)


@register
class NDCGIA(_AspectMeasure):
    """nDCG-IA = Σ_a w_a nDCG@K(u|a), nDCG(u|a) counting as relevant only items of Rel_u having a.

    gain=binary (default) or rating (the rating of relevant items); per-aspect ideal from u's relevant
    items having a; aspects without such items contribute 0 (no renormalisation).
    Agrawal et al., WSDM 2009; thesis §3.5; METRICS.md §C.4.
    """

    NAME = "nDCG-IA"
    PARAMS: ClassVar[dict] = {"weights": "profile", "gain": "binary"}
    FORMULA = "Σ_a w_a · DCG@K(u|a) / IDCG@K(u|a)"
    CITATION = "Agrawal et al., WSDM 2009; Vargas 2012 thesis §3.5"
    SECTION = "C.4"

    def validate(self):
        self._check_choice("weights", WEIGHTS)
        self._check_choice("gain", ("binary", "rating"))

    def _gain(self, grades, threshold):
        rel = np.nan_to_num(grades, nan=-np.inf) >= threshold
        return np.where(rel, 1.0 if self.gain == "binary" else np.nan_to_num(grades), 0.0)

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        space = aspect_space(view)
        dense = aspect_matrix(space)
        disc = log_discount(k)
        dcg = np.zeros((len(view.users), space.n_aspects))
        for sl, _items, grades, asp in self._chunks(view, k):
            dcg[sl] = np.einsum("nka,k->na", asp * self._gain(grades, view.threshold)[:, :, None], disc)
        cand, cgrades = padded_rows(view.qrels.matrix, view.users, keep_cols=dense.any(axis=1),
                                    min_value=view.threshold)
        widths = (cand >= 0).sum(axis=1)
        idcg = np.zeros_like(dcg)
        for idx in chunks_by_width(widths, space.n_aspects):
            wc = max(int(widths[idx].max()), 1)
            ga = gather_aspects(dense, cand[idx, :wc]) * self._gain(cgrades[idx, :wc], view.threshold)[:, :, None]
            top = -np.sort(-ga, axis=1)[:, :k]
            idcg[idx] = np.einsum("nja,j->na", top, disc[: top.shape[1]])
        nd = np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)
        return (nd * w).sum(axis=1)


@register
class PIA(_AspectMeasure):
    """P-IA@K = Σ_a w_a |{k ≤ K : i_k ∈ Rel_u, a ∈ A(i_k)}| / K (Agrawal et al. 2009; ndeval with uniform weights).

    METRICS.md §C.5.
    """

    NAME = "P-IA"
    PARAMS: ClassVar[dict] = {"weights": "profile"}
    FORMULA = "Σ_a w_a |{k≤K: i_k ∈ Rel_u, a ∈ A(i_k)}| / K"
    CITATION = "Agrawal et al., WSDM 2009; ndeval"
    SECTION = "C.5"

    def validate(self):
        self._check_choice("weights", WEIGHTS)

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        space = aspect_space(view)
        items, grades = run_arrays(view, k)
        rel = np.nan_to_num(grades, nan=-np.inf) >= view.threshold
        u, _pos, a, _ = aspect_pairs(items, rel, aspect_index(space), space.n_aspects)
        return np.bincount(u, weights=w[u, a], minlength=len(items)) / k


def _coverage(view, measure, k):
    """(first covering position (0-based) of each covered (user, aspect), its user, and |target aspects| per user)."""
    judged = measure.rel == "judged"
    n_target = relevant_aspects(view, judged=judged).sum(axis=1)
    space = aspect_space(view)
    items, grades = run_arrays(view, k)
    ok = ~np.isnan(grades) if judged else np.nan_to_num(grades, nan=-np.inf) >= view.threshold
    u, pos, _a, gstart = aspect_pairs(items, ok, aspect_index(space), space.n_aspects)
    first = gstart == np.arange(len(u))
    return pos[first], u[first], n_target


@register
class SRecall(_AspectMeasure):
    """Subtopic recall: S-recall@K = |∪_{k≤K, i_k∈Rel_u} A(i_k) ∩ A_u^rel| / |A_u^rel| (Zhai et al., SIGIR 2003).

    rel=judged counts any judged item as covering its aspects (denominator: aspects of J_u), reproducing
    P&R's relevance-agnostic reading. ndeval's strec@K (rel=binary). METRICS.md §C.6.
    """

    NAME = "S-recall"
    PARAMS: ClassVar[dict] = {"rel": "binary"}
    FORMULA = "|∪_{k≤K, i_k relevant} A(i_k)| / |A_u^rel|"
    CITATION = "Zhai, Cohen, Lafferty, SIGIR 2003; ndeval strec"
    SECTION = "C.6"

    def validate(self):
        self._check_choice("rel", ("binary", "judged"))

    def compute(self, view):
        _pos, u, tot = _coverage(view, self, cutoff_of(self, view))
        covered = np.bincount(u, minlength=len(tot)).astype(np.float64)
        return np.divide(covered, tot, out=np.zeros(len(tot)), where=tot > 0)


@register
class SRR(_AspectMeasure):
    """Subtopic reciprocal rank: 1/min{k : S-recall@k = 1} if that rank is ≤ K, else 0 (Zhai et al. 2003).

    METRICS.md §C.7 (P&R §4.2); `rel=` as S-recall.
    """

    NAME = "S-RR"
    PARAMS: ClassVar[dict] = {"rel": "binary"}
    FORMULA = "1 / min{k : S-recall@k = 1}"
    CITATION = "Zhai, Cohen, Lafferty, SIGIR 2003; Parapar & Radlinski 2021 §4.2"
    SECTION = "C.7"

    def validate(self):
        self._check_choice("rel", ("binary", "judged"))

    def compute(self, view):
        pos, u, tot = _coverage(view, self, cutoff_of(self, view))
        covered = np.bincount(u, minlength=len(tot))
        last = np.zeros(len(tot))
        np.maximum.at(last, u, pos + 1.0)  # rank at which the last aspect got covered
        full = (covered == tot) & (tot > 0)
        return np.where(full, 1.0 / np.maximum(last, 1.0), 0.0)


# --------------------------------------------------------------------------------------------------
# rank-biased utilities
# --------------------------------------------------------------------------------------------------
def _weighted_alpha_gains(view, items, grades, alpha, w):
    """G(k) = Σ_a w_a rel (1−α)^c of an arbitrary (n, L) item array with its grades (NaN unjudged)."""
    g = relevance_weights(grades, view.threshold, False, 1.0)
    return alpha_gains(items, g, aspect_space(view), alpha, w)


def _nrbp(gains: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    return (1.0 - (1.0 - alpha) * beta) * (gains @ (beta ** np.arange(gains.shape[1])))


@register
class NRBP(_AspectMeasure):
    """Novelty- and rank-biased precision (Clarke, Kolla, Vechtomova, ICTIR 2009).

    NRBP = (1 − (1−α)β) Σ_k β^{k−1} Σ_{a∈A(i_k)} w_a rel(u,i_k)(1−α)^{c_{a,k−1}}, w = 1/|A_u^rel| (uniform,
    default) or profile weights. The whole list is used unless a cutoff is given. ndeval's NRBP (uniform).
    METRICS.md §C.8.
    """

    NAME = "NRBP"
    PARAMS: ClassVar[dict] = {"alpha": 0.25, "beta": 0.9, "weights": "uniform"}
    FORMULA = "(1−(1−α)β) Σ_k β^{k−1} Σ_a w_a rel (1−α)^{c_{a,k−1}}"
    CITATION = "Clarke, Kolla, Vechtomova, ICTIR 2009; ndeval"
    SECTION = "C.8"

    def validate(self):
        self._check_choice("weights", WEIGHTS)

    def _gains(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        return alpha_run_gains(view, k, self.alpha, weights=w), w

    def compute(self, view):
        return _nrbp(self._gains(view)[0], self.alpha, self.beta)


@register
class NNRBP(NRBP):
    """nNRBP = NRBP / NRBP of the greedy α-ideal list (§C.1) built over all judged items (ndeval's nNRBP).

    Clarke, Kolla, Vechtomova, ICTIR 2009; METRICS.md §C.8.
    """

    NAME = "nNRBP"
    PARAMS: ClassVar[dict] = {"alpha": 0.25, "beta": 0.9, "weights": "uniform", "ideal_ties": "max_id"}
    FORMULA = "NRBP / NRBP(greedy α-ideal)"

    def validate(self):
        super().validate()
        check_ideal_ties(self.NAME, self.ideal_ties)

    def compute(self, view):
        gains, w = self._gains(view)
        nrbp = _nrbp(gains, self.alpha, self.beta)
        ii, _ = alpha_ideal_lists(view, self.alpha, False, self.ideal_ties, self.cutoff)
        ideal = _weighted_alpha_gains(view, ii, view.qrels.lookup(view.users, ii), self.alpha, w)
        inrbp = _nrbp(ideal, self.alpha, self.beta)
        return np.divide(nrbp, inrbp, out=np.zeros_like(nrbp), where=inrbp > 0)


@register
class EU(_AspectMeasure):
    """Expected Utility [RECON: reconstructed definition — Amigó et al.'s formalisation was not available].

    EU@K = (1−p) Σ_{k≤min(K,n)} p^{k−1} [Σ_{a∈A(i_k)} w_a rel(u,i_k)(1−α)^{c_{a,k−1}} − e]: geometric stopping,
    nugget redundancy (1−α)^count and a reading cost e per inspected item; w = profile weights. Can be
    negative. Yang & Lad, ICTIR 2009, as formalised by Amigó et al., SIGIR 2018; METRICS.md §C.9 and G.3.2.
    Report EU values as coming from a reconstructed definition.
    """

    NAME = "EU"
    PARAMS: ClassVar[dict] = {"p": 0.99, "alpha": 0.25, "e": 0.05, "weights": "profile"}
    FORMULA = "(1−p) Σ_k p^{k−1} [Σ_a w_a rel (1−α)^{c_{a,k−1}} − e]  [RECON]"
    CITATION = "Yang & Lad, ICTIR 2009; Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018 (reconstructed)"
    SECTION = "C.9"

    def validate(self):
        self._check_choice("weights", WEIGHTS)

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        items = view.at(view.items, k, fill=-1)
        gains = alpha_run_gains(view, k, self.alpha, weights=w)
        disc = self.p ** np.arange(k)
        return (1.0 - self.p) * ((gains - self.e * (items >= 0)) @ disc)


@register
class RBU(_AspectMeasure):
    """Rank-Biased Utility (Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018; code rmit-ir/RBU).

    r(i,a) = (2^{g(u,i,a)} − 1)/2^{g_max(a)}, g = grade of judged i having a (rating, or binary rel ≥ τ),
    g_max(a) = max grade among u's judged items having a;
    RBU@K = Σ_a w_a (1−p) Σ_{k≤K} p^{k−1} r(i_k,a) Π_{l<k}(1 − r(i_l,a)) − e(1−p) Σ_{k≤min(K,n)} p^{k−1},
    w = profile weights. METRICS.md §C.10.
    """

    NAME = "RBU"
    PARAMS: ClassVar[dict] = {"p": 0.99, "e": 0.05, "grade": "rating", "weights": "profile"}
    FORMULA = "Σ_a w_a (1−p) Σ_k p^{k−1} r(i_k,a) Π_{l<k}(1 − r(i_l,a)) − e (1−p) Σ_k p^{k−1}"
    CITATION = "Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018"
    SECTION = "C.10"

    def validate(self):
        self._check_choice("weights", WEIGHTS)
        self._check_choice("grade", ("rating", "binary"))

    def _grade(self, grades, threshold):
        if self.grade == "binary":
            return (np.nan_to_num(grades, nan=-np.inf) >= threshold).astype(np.float64)
        return np.nan_to_num(grades, nan=0.0)

    def _gmax(self, view) -> np.ndarray:
        space = aspect_space(view)
        dense = aspect_matrix(space)
        cand, cg = padded_rows(view.qrels.matrix, view.users, keep_cols=dense.any(axis=1))
        widths = (cand >= 0).sum(axis=1)
        gmax = np.zeros((len(cand), space.n_aspects))
        for idx in chunks_by_width(widths, space.n_aspects):
            wc = max(int(widths[idx].max()), 1)
            asp = gather_aspects(dense, cand[idx, :wc])
            gmax[idx] = np.where(asp, self._grade(cg[idx, :wc], view.threshold)[:, :, None], 0.0).max(axis=1)
        return gmax

    def compute(self, view):
        k = cutoff_of(self, view)
        w = intent_weights(view, self.weights, str(self))
        gmax = self._gmax(view)
        space = aspect_space(view)
        items, grades = run_arrays(view, k)
        g = self._grade(grades, view.threshold)
        u, pos, a, gstart = aspect_pairs(items, g > 0, aspect_index(space), space.n_aspects)
        rv = (2.0 ** g[u, pos] - 1.0) / 2.0 ** gmax[u, a]
        surv = np.exp(exclusive_group_sum(np.log(np.maximum(1.0 - rv, 1e-300)), gstart))
        util = np.bincount(u, weights=w[u, a] * rv * surv * self.p**pos, minlength=len(items))
        cost = (items >= 0) @ (self.p ** np.arange(k))
        return (1.0 - self.p) * (util - self.e * cost)
