"""`Rankings`: top-k lists for many users as (users, items, scores) arrays, best first, -1 padded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from recdiv.data.vocab import Vocab

if TYPE_CHECKING:
    import pandas as pd
    import scipy.sparse as sp

PAD = -1


def top_k(
    scores: np.ndarray,
    k: int,
    tiebreak: np.ndarray | None = None,
    *,
    chunk: int = 4096,
) -> tuple[np.ndarray, np.ndarray]:
    """Indices and values of the k best columns of every row of `scores` (n × m), best first.

    Ties are broken by `tiebreak` (length m; larger wins), default: larger column index wins; columns with equal
    tiebreak keep column order. Pass `Vocab.string_rank` to get the tie rule of METRICS.md §0.5 (score descending,
    then external id in descending string order). Entries equal to -inf (or NaN) are never returned: such slots
    are padded with -1 and NaN. (+inf entries are not returned either: they count towards the k-th largest value
    but are dropped from the result.)

    Cost: a partial selection per row (numba, parallel over rows when there are many) and a sort of the k best
    (plus entries tied with the k-th), not a full sort of the row. `chunk` rows are processed per kernel call.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n, m = scores.shape
    k = min(k, m)
    tb = np.arange(m) if tiebreak is None else np.asarray(tiebreak)
    out_i = np.full((n, k), PAD, dtype=np.int64)
    out_s = np.full((n, k), np.nan)
    if k == 0 or n == 0:
        return out_i, out_s
    # columns in decreasing tiebreak order (stable: equal tiebreaks keep column order); candidates are collected in
    # this order, so a stable sort by score descending yields the full tie rule
    perm = np.argsort(-tb, kind="stable").astype(np.int64)
    rank = np.empty(m, dtype=np.int64)
    rank[perm] = np.arange(m)
    from recdiv.data.rankings_kernels import top_k_rows

    for lo in range(0, n, max(1, chunk)):
        hi = min(n, lo + max(1, chunk))
        top_k_rows(hi - lo, scores[lo:hi], k, perm, rank, out_i[lo:hi], out_s[lo:hi], work=(hi - lo) * m)
    return out_i, out_s


def _rows_in_order(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether every row is already sorted by (first, second) ascending, NaN last (as np.lexsort sorts)."""
    if first.shape[1] < 2:
        return True
    a, b = first[:, :-1], first[:, 1:]
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    tie = (a == b) | (nan_a & nan_b)
    ok = ((a < b) & ~nan_b) | (~nan_a & nan_b) | (tie & (second[:, :-1] <= second[:, 1:]))
    return bool(ok.all())


def _group_starts(u: np.ndarray) -> np.ndarray:
    """Index of the first line of every run of equal values of u."""
    return np.flatnonzero(np.concatenate(([True], u[1:] != u[:-1]))) if len(u) else np.zeros(0, np.int64)


def _scatter(shape: tuple[int, int], flat: np.ndarray | None, values: np.ndarray, fill, dtype) -> np.ndarray:
    """A new matrix holding values[j] at flat index flat[j] and `fill` elsewhere; flat None: the values fill the
    matrix in order."""
    if flat is None:
        return np.array(values, dtype=dtype).reshape(shape)
    out = np.full(shape, fill, dtype=dtype)
    out.reshape(-1)[flat] = values
    return out


def _lines_in_order(key: np.ndarray, items: np.ndarray, item_vocab: Vocab, starts: np.ndarray, order: str) -> bool:
    """Whether each group of lines (from `starts`) already comes in ranking order — by score descending, then item
    id in descending string order ("score"), or by rank ascending ("rank"; ties keep the input order) — checked on
    the lines themselves. False when unsure (NaN keys): the rows are then checked as a matrix."""
    if len(key) < 2 or np.isnan(key).any():
        return len(key) < 2
    ok = np.less_equal(key[:-1], key[1:]) if order == "rank" else np.greater(key[:-1], key[1:])
    ok[starts[1:] - 1] = True  # the last line of a group and the first of the next are not compared
    if order == "rank" or ok.all():
        return bool(ok.all())
    j = np.flatnonzero(~ok)  # lines whose score is not above the next one's: equal scores, ids in string order?
    sr = item_vocab.string_rank
    return bool(((key[j] == key[j + 1]) & (sr[items[j]] >= sr[items[j + 1]])).all())


@dataclass(frozen=True, eq=False)
class Rankings:
    """Ranked lists for n users.

    users: (n,) dense user indices (unique); items: (n, k) dense item indices, best first, -1 padding at the
    end of short rows; scores: (n, k) float, NaN at padding. Vocabularies map to external ids.
    """

    users: np.ndarray
    items: np.ndarray
    scores: np.ndarray
    user_vocab: Vocab
    item_vocab: Vocab

    def __post_init__(self):
        if self.items.ndim != 2 or self.items.shape != self.scores.shape or len(self.users) != len(self.items):
            raise ValueError("Rankings needs users (n,), items (n, k) and scores (n, k)")
        if len(np.unique(self.users)) != len(self.users):
            raise ValueError("Rankings has a user twice")

    # basic views ---------------------------------------------------------------------------------
    @property
    def k(self) -> int:
        return self.items.shape[1]

    def __len__(self) -> int:
        return len(self.users)

    @property
    def lengths(self) -> np.ndarray:
        return (self.items != PAD).sum(axis=1)

    @property
    def valid(self) -> np.ndarray:
        """Boolean (n, k) mask of non-padding positions."""
        return self.items != PAD

    def truncate(self, k: int) -> Rankings:
        return Rankings(self.users, self.items[:, :k], self.scores[:, :k], self.user_vocab, self.item_vocab)

    def for_users(self, users: np.ndarray) -> Rankings:
        """Rows for the given dense user indices, in that order; users without a list get an empty row."""
        users = np.asarray(users, dtype=np.int64)
        pos = np.full(max(len(self.user_vocab), 1), -1, dtype=np.int64)
        pos[self.users] = np.arange(len(self.users))
        src = pos[users]
        has = src >= 0
        if has.all():  # fast path: every user has a list (a gather, no masked assignment)
            return Rankings(users, self.items[src], self.scores[src], self.user_vocab, self.item_vocab)
        items = np.full((len(users), self.k), PAD, dtype=np.int64)
        scores = np.full((len(users), self.k), np.nan)
        items[has] = self.items[src[has]]
        scores[has] = self.scores[src[has]]
        return Rankings(users, items, scores, self.user_vocab, self.item_vocab)

    def check(self) -> Rankings:
        """Validate: items in range, padding only at row ends, no item twice in a row. Returns self."""
        it = self.items
        if ((it < PAD) | (it >= len(self.item_vocab))).any():
            raise ValueError("Rankings has item indices out of range")
        v = it != PAD
        if (v[:, 1:] & ~v[:, :-1]).any():
            raise ValueError("Rankings has padding before an item")
        s = np.where(v, it, -np.arange(1, it.shape[1] + 1))
        s.sort(axis=1)
        dup = (s[:, 1:] == s[:, :-1]).any(axis=1)
        if dup.any():
            u = self.user_vocab.id_of(self.users[np.flatnonzero(dup)[0]])
            raise ValueError(f"user {u!r} has the same item twice in its ranking")
        return self

    def to_csr(self, values: str = "rank") -> sp.csr_matrix:
        """users(vocab) × items CSR holding the 1-based rank (or the score) of every ranked item."""
        import scipy.sparse as sp

        v = self.valid
        rows = np.repeat(self.users, v.sum(axis=1))
        cols = self.items[v]
        data = (np.nonzero(v)[1] + 1.0) if values == "rank" else self.scores[v]
        return sp.csr_matrix((data, (rows, cols)), shape=(len(self.user_vocab), len(self.item_vocab)))

    # construction --------------------------------------------------------------------------------
    @classmethod
    def from_scores(
        cls,
        users: np.ndarray,
        scores: np.ndarray,
        k: int,
        user_vocab: Vocab,
        item_vocab: Vocab,
        tiebreak: np.ndarray | None = None,
    ) -> Rankings:
        """Top-k of a dense users × items score matrix (-inf/NaN = not rankable), tie rule as `top_k`."""
        items, vals = top_k(scores, k, item_vocab.string_rank if tiebreak is None else tiebreak)
        return cls(np.asarray(users, dtype=np.int64), items, vals, user_vocab, item_vocab)

    @classmethod
    def from_frame(
        cls, frame: pd.DataFrame, user_vocab: Vocab, item_vocab: Vocab, *, order: str = "score"
    ) -> Rankings:
        """From columns user, item, score[, rank] (external ids); see `from_arrays`."""
        u = user_vocab.lookup(frame["user"].to_numpy())
        i = item_vocab.lookup(frame["item"].to_numpy())
        s = frame["score"].to_numpy(np.float64) if "score" in frame else None
        r = frame["rank"].to_numpy(np.float64) if "rank" in frame else None
        return cls.from_arrays(u, i, s, user_vocab, item_vocab, ranks=r, order=order)

    @classmethod
    def from_arrays(
        cls, user_index: np.ndarray, item_index: np.ndarray, scores: np.ndarray | None, user_vocab: Vocab,
        item_vocab: Vocab, *, ranks: np.ndarray | None = None, order: str = "score",
    ) -> Rankings:
        """From one (user, item, score[, rank]) per ranked item, dense indices.

        order="score": score descending, ties by external item id in descending string order (trec_eval,
        METRICS.md §0.5); order="rank": by the rank column (ndeval's default). Without scores, -rank is the score.
        """
        u, i = np.asarray(user_index), np.asarray(item_index)
        s = np.asarray(scores, dtype=np.float64) if scores is not None else -np.asarray(ranks, dtype=np.float64)
        r = np.asarray(ranks, dtype=np.float64) if order == "rank" else None
        # rows: the users with a list, ascending; each row filled in input order, then sorted within the row.
        # Written for 10 M-line runs: no sort when the input is grouped by user (runs are), none within the rows
        # when they come in order (runs written by score are), temporaries freed
        n = len(u)
        counts = np.bincount(u, minlength=len(user_vocab)) if n else np.zeros(len(user_vocab), np.int64)
        users = np.flatnonzero(counts)
        k = int(counts.max()) if n else 0
        starts = _group_starts(u)
        if len(starts) != len(users):  # a user's lines are in several places: group them (stable)
            perm = np.argsort(u, kind="stable")
            u, i, s, r = u[perm], i[perm], s[perm], None if r is None else r[perm]
            del perm
            starts = _group_starts(u)
        lengths = np.diff(np.append(starts, n))
        row = (np.cumsum(counts > 0) - 1)[u[starts]]  # the row of each group
        if (lengths == k).all():  # every list is k long: line j goes to row j // k in the input's row order
            flat = None if (np.diff(row) == 1).all() else (row[:, None] * k + np.arange(k)).ravel()
        else:
            flat = np.arange(n, dtype=np.int64)
            flat += np.repeat(row * k - starts, lengths)
        del row
        shape = (len(users), k)
        items = _scatter(shape, flat, i, PAD, np.int64)
        vals = _scatter(shape, flat, s, np.nan, np.float64)
        if not _lines_in_order(s if order == "score" else r, i, item_vocab, starts, order):
            if order == "rank":
                first = _scatter(shape, flat, r, np.inf, np.float64)
                second = np.zeros(shape)
            else:  # score descending, then item id in descending string order; padding (NaN, 1) last
                first = -vals
                second = _scatter(shape, flat, -item_vocab.string_rank[i], 1.0, np.float64)
            if not _rows_in_order(first, second):
                by = np.lexsort((second, first), axis=1)
                del first, second
                items = np.take_along_axis(items, by, axis=1)
                vals = np.take_along_axis(vals, by, axis=1)
        return cls(users, items, vals, user_vocab, item_vocab).check()

    def to_frame(self, external: bool = True) -> pd.DataFrame:
        """Columns user, item, score, rank (1-based), one row per ranked item, in ranking order."""
        import pandas as pd

        v = self.valid
        rows = np.repeat(self.users, v.sum(axis=1))
        items = self.items[v]
        return pd.DataFrame(
            {
                "user": self.user_vocab.id_of(rows) if external else rows,
                "item": self.item_vocab.id_of(items) if external else items,
                "score": self.scores[v],
                "rank": np.nonzero(v)[1] + 1,
            }
        )

    def __repr__(self) -> str:
        return f"Rankings({len(self)} users, k={self.k})"
