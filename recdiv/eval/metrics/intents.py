"""Shared machinery of the intent-aware and unified metrics (METRICS.md §C): users play queries, aspects play
intents. A(i) is the membership pattern of the evaluation's aspect space (`EvalContext.aspects`); an item
relevant to u is relevant to every aspect it has (§C.0).

Intent weights w_a (``weights=``): ``profile`` = count-based p(a|u) from `EvalContext.train`
(`recdiv.models.intent`, uniform over A for an empty profile), ``uniform`` = 1/|A_u^rel| over
the aspects of the user's relevant test items (TREC / ndeval convention).

Arrays: the redundancy-aware gains (α-nDCG family, ERR-IA ndeval, NRBP, EU), A_u^rel and the greedy α-ideal
lists are computed by numba kernels (`recdiv.eval.metrics.intents_kernels`, obtained through
`recdiv.jit.kernel`: compiled ahead of time when built, so that numba need not load) in one pass per user over
the user's qrels CSR row and a padded items × aspects table — no users × K × |A| tensor. Unweighted run gains
(shared by α-nDCG, α-DCG, ERR-IA(ndeval), nERR-IA), greedy ideals, |A_u^rel| and the kernels' tables are kept
in the context's cache (`context.cache.clear()` forgets them). The other measures gather (user, position,
aspect) pairs or a dense items × aspects indicator for a chunk of users (memory bound METRICS.md G.7).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.measure import Measure, PerUserMeasure
from recdiv.eval.metrics.greedy_ideal import CHUNK_ELEMS, check_ideal_ties
from recdiv.jit import kernel
from recdiv.limits import check_cells
from recdiv.models.intent import rows_or_uniform, uniform_over, user_aspect_distribution
from recdiv.models.relevance import is_relevant

# --------------------------------------------------------------------------------------------------
# shared helpers (also used by recdiv.eval.metrics.unified)
# --------------------------------------------------------------------------------------------------
_NO_WEIGHTS = np.zeros((0, 0))
_KERNELS = "recdiv.eval.metrics.intents_kernels"


def aspect_space(view):
    """The context's aspect space, checked against the run's item vocabulary."""
    space = view.context.aspects
    if space is None:
        raise ConfigError("this measure needs `aspects` in the evaluation context (e.g. --aspects FILE)")
    if space.items is not view.qrels.items and space.items != view.qrels.items:
        raise ConfigError("the aspect space and the qrels use different item vocabularies")
    return space


def local_aspects(view, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The aspects of the items of a chunk of users, and the chunk's indicator over those aspects only:
    (cols (m,) ascending aspect indices, asp (..., m') with asp[..., j] = [cols[j] ∈ A(items[...])], False at
    padding (−1)). Work and memory ∝ the chunk's own aspects, not |A| — with subtopic qrels every user has
    aspects of their own, and |A| grows with the users.

    m' = max(m, 2) when the space has two aspects or more (the extra columns are False): NumPy's einsum then
    sums each column in rank order, as it does over all |A| columns, so values do not depend on the chunk."""
    space = aspect_space(view)
    n_asp = space.n_aspects
    tab = aspect_table(view)[items]  # item −1 reads the table's last row: padding (all sentinel)
    hit = tab < n_asp
    cols = np.unique(tab[hit])
    asp = np.zeros((*items.shape, max(len(cols), min(2, n_asp))), dtype=bool)
    where = np.nonzero(hit)
    asp[(*where[:-1], np.searchsorted(cols, tab[hit]))] = True
    return cols, asp


def has_aspects(view) -> np.ndarray:
    """(items,) bool: the item has at least one aspect."""
    return np.diff(aspect_space(view).pattern()[0]) > 0


def user_rows(view, interactions) -> np.ndarray:
    """Row of each evaluated user in `interactions` (−1 if absent)."""
    if interactions.users is view.qrels.users or interactions.users == view.qrels.users:
        return view.users.astype(np.int64)
    return interactions.users.lookup(view.qrels.users.id_of(view.users), missing="-1")


def user_distribution(view, weighting: str, measure: str = "this measure",
                      instead: str = "weights=uniform") -> np.ndarray:
    """(n, A) p(a|u) from the training profile (`count` or `rating` weighting, §E.11); uniform if absent.
    Without training data: ConfigError naming the measure and the parameter setting (`instead`) that needs none."""
    train = view.context.train
    if train is None:
        raise ConfigError(f"{measure} needs `train` in the evaluation context for profile intent weights "
                          f"(e.g. --train FILE), or use {instead}")
    space = aspect_space(view)
    dist = view.context.cache.get(("p(a|u)", weighting, space, train),
                                  lambda: user_aspect_distribution(space, train, weighting))
    return rows_or_uniform(dist, user_rows(view, train))


def aspect_table(view) -> np.ndarray:
    """(items + 1, T) int64: the aspects of every item in ascending order, padded with the sentinel n_aspects,
    T = max(1, max |A(i)|); the extra last row (all sentinel) stands for padding (item −1). For the kernels
    (`recdiv.eval.metrics.intents_kernels`); cached."""
    space = aspect_space(view)

    def build():
        indptr, indices = space.pattern()
        n_items = len(indptr) - 1
        counts = np.diff(indptr)
        t = max(int(counts.max()) if n_items else 0, 1)
        check_cells("the aspect table (items × most aspects of an item)", n_items + 1, t)
        out = np.full((n_items + 1, t), space.n_aspects, dtype=np.int64)
        rows = np.repeat(np.arange(n_items), counts)
        out[rows, np.arange(len(indices)) - np.repeat(indptr[:-1], counts)] = indices
        return out

    return view.context.cache.get(("aspect table", space), build)


def qrels_csr(view) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, indices, grades) of the qrels matrix as int64, int64, float64 arrays for the kernels (the types
    they are compiled ahead of time for) — the qrels' own arrays when they have these types (read from files),
    without building a SciPy matrix; cached."""
    m = view.qrels.csr
    return view.context.cache.get(("qrels arrays", m), lambda: (m.indptr.astype(np.int64, copy=False),
                                                                m.indices.astype(np.int64, copy=False),
                                                                m.data.astype(np.float64, copy=False)))


def relevant_aspects(view, judged: bool = False) -> np.ndarray:
    """(n, A) bool: A_u^rel = ∪_{i ∈ Rel_u} A(i) (or the aspects of all judged items when `judged`)."""
    space = aspect_space(view)
    return kernel(_KERNELS, "relevant_aspect_kernel")(view.users.astype(np.int64), *qrels_csr(view),
                                                      float(view.threshold), bool(judged), aspect_table(view),
                                                      space.n_aspects)


def n_relevant_aspects(view) -> np.ndarray:
    """|A_u^rel| of every evaluated user (the ndeval "ideal-ideal" normalisations); a by-product of the greedy
    ideal kernel, so kept with the ideal lists in the context's cache."""
    space = aspect_space(view)
    hit = view.context.cache.peek(_rel_asp_key(view, space))
    if hit is not None:
        return hit
    return kernel(_KERNELS, "relevant_aspect_counts")(view.users.astype(np.int64), *qrels_csr(view),
                                                      float(view.threshold), aspect_table(view), space.n_aspects)


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
    key = view.key("alpha run gains", int(k), float(alpha), bool(graded), space)
    hit = None if has_w else view.context.cache.peek(key)
    if hit is not None:
        return hit
    items = np.ascontiguousarray(view.rankings.items, dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64) if has_w else _NO_WEIGHTS
    out = run_gains(items, run_rows(view), int(k), view.users.astype(np.int64), *qrels_csr(view),
                    aspect_table(view), space.n_aspects, float(view.threshold), float(alpha), graded,
                    float(view.max_grade), w, has_w, _powers(alpha, k))
    if not has_w:
        out.flags.writeable = False
        view.context.cache.put(key, out)
    return out


def run_gains(run_items, src, k_cut, users, q_indptr, q_indices, q_data, atab, n_asp, threshold, alpha, graded,
              r_max, w, has_w, powtab, parallel=None) -> np.ndarray:
    """(n, K) gains of the run rows `src` (−1: no list) of the evaluated `users`, ĝ from the qrels CSR.

    powtab[c] = (1−α)^c for c = 0..K (binary gains); w (n, A) intent weights when `has_w`. `parallel`: None =
    over blocks of users when there are at least `intents_kernels.PARALLEL_USERS` users.
    """
    out = np.zeros((len(users), k_cut))
    args = (run_items, src, users, q_indptr, q_indices, q_data, atab, n_asp, threshold, alpha, graded, r_max, w,
            has_w, powtab, out)
    kernel(_KERNELS, "run_gains_blocks")(len(users), *args, parallel=parallel)
    return out


def intent_weights(view, how: str, measure: str = "this measure") -> np.ndarray:
    """(n, A) intent weights: `profile` (count-based p(a|u)) or `uniform` (1/|A_u^rel| on A_u^rel)."""
    if how == "profile":
        return user_distribution(view, "count", measure)
    return uniform_over(relevant_aspects(view))


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
    rel = is_relevant(grades, threshold)
    if not graded:
        return rel.astype(np.float64)
    return np.where(rel, np.nan_to_num(grades) / r_max, 0.0)


def aspect_index(view) -> np.ndarray:
    """(items, T) aspect indices of every item (T = max(1, max |A(i)|)), padded with the sentinel n_aspects: the
    rows of `aspect_table` without its padding row."""
    return aspect_table(view)[:-1]


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
    """Σ of `values` over the earlier members of each element's group (groups contiguous; `gstart`: each element's
    group start), added member by member within the group only: level j of every group at once, so an element's
    sum never depends on another group's values (a cumulative sum over all groups would carry their rounding)."""
    n = len(values)
    out = np.zeros(n)
    if n == 0:
        return out
    offset = np.arange(n) - np.asarray(gstart)
    by_level = np.argsort(offset, kind="stable")
    bounds = np.searchsorted(offset[by_level], np.arange(int(offset.max()) + 2))
    for j in range(1, len(bounds) - 1):
        sel = by_level[bounds[j]:bounds[j + 1]]
        out[sel] = out[sel - 1] + values[sel - 1]
    return out


def alpha_gains(view, items: np.ndarray, g: np.ndarray, alpha: float, weights: np.ndarray | None = None,
                graded: bool = False) -> np.ndarray:
    """G(k) = Σ_{a∈A(i_k)} w_a·ĝ_k·(1−α)^{c_{a,k−1}}, c = Σ_{l<k} ĝ_l [a∈A(i_l)] (§C.1/C.2/C.8), for (n, K) lists.

    g (n, K): relevance weights ĝ (0/1 when not `graded`; binary gains count any ĝ > 0 as 1);
    weights (n, A) or None (all 1). Numba kernel, one pass per list.
    """
    space = aspect_space(view)
    has_w = weights is not None
    w = np.ascontiguousarray(weights, dtype=np.float64) if has_w else _NO_WEIGHTS
    return kernel(_KERNELS, "alpha_gains_kernel")(np.ascontiguousarray(items, dtype=np.int64),
                                                  np.ascontiguousarray(g, dtype=np.float64), aspect_table(view),
                                                  space.n_aspects, float(alpha), bool(graded), w, has_w,
                                                  _powers(alpha, items.shape[1]))


def ideal_ideal(view, alpha: float, disc: np.ndarray) -> np.ndarray:
    """ndeval's collection-independent "ideal-ideal" normaliser of every evaluated user: Σ_{k≤K} |A_u^rel|
    (1−α)^{k−1} disc(k) — every relevant aspect covered again at every rank (α-DCG norm=ndeval with the log
    discount, ERR-IA variant=ndeval with the reciprocal one; METRICS.md §C.1, §C.3)."""
    return n_relevant_aspects(view) * (_powers(alpha, len(disc) - 1) @ disc)


def _powers(alpha: float, k: int) -> np.ndarray:
    """(1−α)^c for c = 0..k, computed as the former vectorised code did (numpy power of float counts)."""
    return (1.0 - float(alpha)) ** np.arange(k + 1, dtype=np.float64)


def alpha_ideal_lists(view, alpha: float, graded: bool, ties: str, steps: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy α-ideal lists (§C.1) of every evaluated user: (items (n, L) −1 padded, gains (n, L)).

    Candidates are the user's relevant items having aspects (all other judged items have gain 0 and
    only pad the list). `steps=None` builds the whole list. Kept in the context's cache; a cached longer
    list is reused (greedy ideals of different lengths share their prefix).
    """
    space = aspect_space(view)
    r_max = view.max_grade
    key = ("alpha ideal", view.qrels, space, alpha, graded, ties, view.threshold, view.context.population,
           r_max if graded else None)
    cache = view.context.cache
    hit = cache.peek(key)
    if hit is not None and (hit[0] or (steps is not None and hit[1].shape[1] >= steps)):
        items, gains = hit[1], hit[2]
        return (items, gains) if steps is None else (items[:, :steps], gains[:, :steps])
    check_ideal_ties("ideal list", ties)
    q_ptr, q_idx, q_val = qrels_csr(view)
    rank = view.qrels.items.string_rank
    keys = rank if ties == "max_id" else len(rank) - 1 - rank
    out_i, out_g, widths, n_rel_asp = greedy_alpha_ideal(
        view.users.astype(np.int64), q_ptr, q_idx, q_val, float(view.threshold), graded, float(r_max),
        aspect_table(view), space.n_aspects, np.ascontiguousarray(keys, dtype=np.int64), float(alpha),
        -1 if steps is None else int(steps))
    full = out_i.shape[1] == max(int(widths.max()) if len(widths) else 0, 1)
    cache.put(key, (full, out_i, out_g))
    n_rel_asp.flags.writeable = False
    cache.put(_rel_asp_key(view, space), n_rel_asp)
    return out_i, out_g


def greedy_alpha_ideal(users, q_indptr, q_indices, q_data, threshold, graded, r_max, atab, n_asp, keys, alpha, cap,
                       parallel=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Greedy α-ideal lists (§C.1/C.2) of at most `cap` steps (−1: all): (items (n, L) −1 padded, gains (n, L),
    widths (n,), |A_u^rel| (n,)), L = min(cap, max width), width = number of candidates (relevant judged items
    having aspects).

    At each step the candidate with the largest ĝ_j·Σ_{a∈A(j)} (1−α)^{c_a} wins; candidates within a relative
    1e-10 of the best tie and the largest `keys[item]` among them wins (§0.6). State pw[a] = (1−α)^{c_a},
    updated multiplicatively by (1−α)^{ĝ_j} as in ndeval. Each candidate's aspects are padded to T with the
    sentinel aspect (pw 0) and summed in ascending aspect order: the same arithmetic as
    `recdiv.eval.metrics.greedy_ideal.alpha_ideal`. Placed candidates are swap-removed (the winner does not depend on
    candidate order, since keys are distinct).
    """
    if cap >= 0:  # widths come out of the greedy pass; its output is cut to the real length afterwards
        widths = np.zeros(len(users), dtype=np.int64)
        max_j = int((q_indptr[users + 1] - q_indptr[users]).max()) if len(users) else 0  # bound: judged items
    else:
        widths = kernel(_KERNELS, "ideal_widths")(users, q_indptr, q_indices, q_data, threshold, atab, n_asp)
        max_j = int(widths.max()) if len(widths) else 0
    length = min(cap, max(max_j, 1)) if cap >= 0 else max(max_j, 1)
    out_i = np.full((len(users), length), -1, dtype=np.int64)
    out_g = np.zeros((len(users), length))
    if cap < 0:
        max_j = int((q_indptr[users + 1] - q_indptr[users]).max()) if len(users) else 0
    n_rel_asp = np.zeros(len(users), dtype=np.int64)
    args = (users, q_indptr, q_indices, q_data, threshold, graded, r_max, atab, n_asp, keys, alpha, max_j, out_i,
            out_g, widths, n_rel_asp)
    kernel(_KERNELS, "ideal_blocks")(len(users), *args, parallel=parallel)
    real = min(cap, max(int(widths.max()) if len(widths) else 0, 1)) if cap >= 0 else length
    if real < length:
        out_i, out_g = out_i[:, :real].copy(), out_g[:, :real].copy()
    return out_i, out_g, widths, n_rel_asp


def _rel_asp_key(view, space) -> tuple:
    return ("|A_u^rel|", view.qrels, space, view.threshold, view.context.population)


class _AspectMeasure(PerUserMeasure):
    FAMILY = "intent-aware"
    NEEDS = ("aspects",)
