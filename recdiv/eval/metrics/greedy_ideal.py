"""Vectorised greedy ideal lists for the redundancy-aware metrics (α-nDCG, nERR-IA, nNRBP, αβ-nDCG).

Computing the ideal ranking of α-nDCG is NP-hard; every reference (ndeval, RankSys, Parapar & Radlinski)
uses the greedy approximation: at each position append the candidate with the largest marginal gain
given the items already placed. Here the greedy loop runs over rank positions only and is vectorised
over users: candidates are each user's judged test items padded to users × max|J_u| (METRICS.md G.7).

Ties (METRICS.md §0.6): among candidates of equal gain, the item whose *external id is largest in string
order* wins (ndeval's rule), so values do not depend on how dense indices were assigned;
``ideal_ties="min_id"`` picks the smallest id instead (sensitivity checks). Gains are compared with a
relative tolerance of 1e-10 so that sums accumulated in a different order still tie.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import numpy as np

from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.models.relevance import is_relevant

if TYPE_CHECKING:
    import scipy.sparse as sp

#: libm's pow, as the compiled kernels compute (1−α)^ĝ (numpy's vectorised power can differ by one ulp)
_libm_pow = np.frompyfunc(math.pow, 2, 1)

IdealTies = Literal["max_id", "min_id"]
IDEAL_TIES = ("max_id", "min_id")
_REL_TOL = 1e-10
#: bound on users × candidates × aspects floats held at once by the greedy loops
CHUNK_ELEMS = 4_000_000
#: smaller chunks for the greedy loops, so that each chunk holds users with similar candidate counts
GREEDY_CHUNK_ELEMS = 100_000


def check_ideal_ties(name: str, value: str) -> None:
    if value not in IDEAL_TIES:
        raise ConfigError(f"{name}: ideal_ties must be one of {', '.join(IDEAL_TIES)}, got {value!r}")


def tie_keys(item_vocab: Vocab, items: np.ndarray, ideal_ties: str = "max_id") -> np.ndarray:
    """(n, J) integer keys of candidate items, larger key wins a tie; −1 at padding (items < 0)."""
    check_ideal_ties("ideal list", ideal_ties)
    rank = item_vocab.string_rank
    safe = np.where(items >= 0, items, 0)
    key = rank[safe] if ideal_ties == "max_id" else (len(rank) - 1 - rank[safe])
    return np.where(items >= 0, key, -1)


def padded_rows(matrix: sp.csr_matrix, rows: np.ndarray, keep_cols: np.ndarray | None = None,
                threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Stored entries of the given CSR rows as padded arrays: (columns (n, J) int −1 padded, values (n, J) NaN padded).

    `keep_cols` (bool over the matrix columns) keeps only those columns (e.g. items that have aspects);
    `threshold` keeps only the relevant judgments (grade ≥ τ).
    """
    sub = matrix[np.asarray(rows, dtype=np.int64)]
    cols, vals = sub.indices.astype(np.int64), sub.data.astype(np.float64)
    counts = np.diff(sub.indptr)
    row_of = np.repeat(np.arange(len(counts)), counts)
    mask = np.ones(len(cols), dtype=bool)
    if keep_cols is not None:
        mask &= keep_cols[cols]
    if threshold is not None:
        mask &= is_relevant(vals, threshold)
    if not mask.all():
        cols, vals, row_of = cols[mask], vals[mask], row_of[mask]
        counts = np.bincount(row_of, minlength=len(counts))
    width = max(int(counts.max()) if len(counts) else 0, 1)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    pos = np.arange(len(cols)) - starts[row_of]
    out_c = np.full((len(counts), width), -1, dtype=np.int64)
    out_v = np.full((len(counts), width), np.nan)
    out_c[row_of, pos] = cols
    out_v[row_of, pos] = vals
    return out_c, out_v


def chunks_by_width(widths: np.ndarray, per_column: int, budget: int = CHUNK_ELEMS) -> list[np.ndarray]:
    """Row indices split into chunks of similar width (rows sorted by `widths`), each padded chunk holding
    at most `budget` elements (rows × widest row × per_column), at least one row per chunk."""
    order = np.argsort(widths, kind="stable")
    w = np.maximum(np.asarray(widths)[order], 1) * max(per_column, 1)
    out, lo, n = [], 0, len(order)
    while lo < n:
        lo_hi, hi_hi = lo + 1, n  # largest hi with w[hi-1]·(hi−lo) ≤ budget (cost grows with hi)
        while lo_hi < hi_hi:
            mid = (lo_hi + hi_hi + 1) // 2
            if w[mid - 1] * (mid - lo) <= budget:
                lo_hi = mid
            else:
                hi_hi = mid - 1
        out.append(order[lo:lo_hi])
        lo = lo_hi
    return out


def greedy_select(
    gain: Callable[[int], np.ndarray],
    update: Callable[[int, np.ndarray, np.ndarray], None],
    valid: np.ndarray,
    keys: np.ndarray,
    steps: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Generic vectorised greedy argmax loop.

    gain(lo) -> (n − lo, J) marginal gains of the candidates of rows lo: given the current state;
    update(lo, j, active) adds candidate j[r] of every active row lo + r to the state. `valid` marks real
    candidates, `keys` breaks ties (larger wins). Rows that run out of candidates early should come first
    (callers sort rows by candidate count): step t only touches the rows that still have candidates.
    Returns (chosen column per step (n, steps), −1 when a row ran out; gain of each choice).
    """
    n = valid.shape[0]
    avail = valid.copy()
    remaining = valid.sum(axis=1)
    chosen = np.full((n, steps), -1, dtype=np.int64)
    gains = np.zeros((n, steps))
    for t in range(steps):
        live = np.flatnonzero(remaining > t)
        if not len(live):
            break
        lo = int(live[0])
        av = avail[lo:]
        has = av.any(axis=1)
        g = np.where(av, gain(lo), -np.inf)
        best = np.where(has, g.max(axis=1), 0.0)
        tied = av & (g >= (best - _REL_TOL * np.abs(best))[:, None])
        j = np.where(has, np.argmax(np.where(tied, keys[lo:], -2), axis=1), -1)
        chosen[lo:, t] = j
        gains[lo:, t] = np.where(has, best, 0.0)
        rows = np.flatnonzero(has)
        av[rows, j[rows]] = False
        update(lo, j, has)
    return chosen, gains


def alpha_ideal(aspects: np.ndarray, g: np.ndarray, alpha: float, keys: np.ndarray, steps: int,
                n_aspects: int) -> tuple[np.ndarray, np.ndarray]:
    """Greedy ideal of α-nDCG (METRICS.md §C.1/C.2) for one chunk of users.

    aspects (n, J, T): aspect indices of each candidate, padded with the sentinel A = `n_aspects`;
    g (n, J): ĝ(u,j) (1 for binary relevance). Marginal gain Σ_{a∈A(j)} ĝ_j·(1−α)^{c[u,a]}; the state
    pw[u,a] = (1−α)^{c[u,a]} is updated multiplicatively, exactly as ndeval does.
    """
    n, j_, t_ = aspects.shape
    n_asp = n_aspects
    pw = np.ones((n, n_asp + 1))
    pw[:, -1] = 0.0  # sentinel column: padding aspects contribute nothing
    sentinel = aspects >= n_asp
    flat = np.where(sentinel, n_asp, aspects).reshape(n, j_ * t_)
    rows = np.arange(n)
    base = 1.0 - alpha
    g = np.nan_to_num(g)

    def gain(lo):
        left = np.take_along_axis(pw[lo:], flat[lo:], axis=1).reshape(n - lo, j_, t_)
        acc = left[:, :, 0].copy()
        for t in range(1, t_):
            acc += left[:, :, t]
        return g[lo:] * acc

    def update(lo, j, act):
        r = rows[lo:][act]
        jj = j[act]
        a = np.where(sentinel[r, jj], n_asp, aspects[r, jj])
        pw[r[:, None], a] *= _libm_pow(base, g[r, jj]).astype(np.float64)[:, None]

    valid = (keys >= 0) & (g > 0) & ~sentinel.all(axis=2)
    return greedy_select(gain, update, valid, keys, steps)


def ab_ideal(aspects: np.ndarray, probs: np.ndarray, gamma: np.ndarray, keys: np.ndarray,
             steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Greedy ideal of αβ-nDCG (Parapar & Radlinski eq. 16, METRICS.md §C.11) for one chunk of users.

    aspects (n, J, T): aspect indices (sentinel A = padding); probs (n, J): P(a|u,j), the same for every
    aspect of j; gamma (n, A): γ_a^u. State S[u,a] = γ_a Π_{placed j}(1 − P(a|u,j));
    gain G = 1 − Π_{a∈A(j)} (1 − P(a|u,j)·S[u,a]).
    """
    n, j_, t_ = aspects.shape
    n_asp = gamma.shape[1]
    s = np.concatenate([gamma.astype(np.float64), np.zeros((n, 1))], axis=1)
    sentinel = aspects >= n_asp
    flat = np.where(sentinel, n_asp, aspects).reshape(n, j_ * t_)
    rows = np.arange(n)
    p = np.nan_to_num(probs)

    def gain(lo):
        left = np.take_along_axis(s[lo:], flat[lo:], axis=1).reshape(n - lo, j_, t_)
        pl = p[lo:]
        acc = 1.0 - pl * left[:, :, 0]
        for t in range(1, t_):
            acc *= 1.0 - pl * left[:, :, t]
        return 1.0 - acc

    def update(lo, j, act):
        r = rows[lo:][act]
        jj = j[act]
        a = np.where(sentinel[r, jj], n_asp, aspects[r, jj])
        s[r[:, None], a] *= (1.0 - p[r, jj])[:, None]
        s[r, n_asp] = 0.0

    valid = (keys >= 0) & (p > 0) & ~sentinel.all(axis=2)
    return greedy_select(gain, update, valid, keys, steps)
