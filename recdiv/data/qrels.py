"""`Qrels`: graded test relevance as CSR users × items."""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data.interactions import Interactions, build_csr
from recdiv.data.vocab import Vocab


def is_relevant(grades, threshold: float) -> np.ndarray:
    """The binary relevance rule of METRICS.md §0, written once: relevant ⇔ grade ≥ τ; unjudged items (NaN
    grades) are not relevant. (The compiled kernels apply the same comparison to judged grades.)"""
    with np.errstate(invalid="ignore"):
        return np.asarray(grades) >= threshold


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judged test items of every user with their grade (rating, or mapped play count).

    Unjudged items are absent. `relevant(threshold)` gives the binary relevance of METRICS.md §0
    (relevant ⇔ grade ≥ τ, default τ = 4 on 1–5 scales).
    """

    users: Vocab
    items: Vocab
    matrix: sp.csr_matrix
    scale: tuple[float, float] | None = None

    @classmethod
    def from_interactions(cls, test: Interactions) -> Qrels:
        return cls(test.users, test.items, test.matrix, test.scale)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, users: Vocab | None = None, items: Vocab | None = None) -> Qrels:
        """From columns user, item, grade (external ids)."""
        users = users or Vocab.from_values(frame["user"])
        items = items or Vocab.from_values(frame["item"])
        m, _ = build_csr(
            users.lookup(frame["user"].to_numpy()), items.lookup(frame["item"].to_numpy()),
            frame["grade"].to_numpy(np.float64), (len(users), len(items)),
        )
        return cls(users, items, m)

    def to_frame(self) -> pd.DataFrame:
        rows = np.repeat(np.arange(self.matrix.shape[0]), np.diff(self.matrix.indptr))
        return pd.DataFrame(
            {"user": self.users.id_of(rows), "item": self.items.id_of(self.matrix.indices), "grade": self.matrix.data}
        )

    def relevant(self, threshold: float = 4) -> sp.csr_matrix:
        """Boolean CSR of relevant (grade ≥ threshold) judgments."""
        m = self.matrix.copy()
        m.data = is_relevant(m.data, threshold).astype(np.float64)
        m.eliminate_zeros()
        return m

    def n_relevant(self, threshold: float = 4) -> np.ndarray:
        """|Rel_u| for every user of the vocabulary."""
        m = self.matrix
        return _count_at_least(m.indptr, m.data.astype(np.float64, copy=False), float(threshold))

    def n_judged(self) -> np.ndarray:
        return np.diff(self.matrix.indptr)

    def population(self, threshold: float = 4, which: str = "relevant") -> np.ndarray:
        """Dense indices of the evaluated users (METRICS.md §0.2): `relevant` (|Rel_u| ≥ 1) or `judged`."""
        counts = self.n_relevant(threshold) if which == "relevant" else self.n_judged()
        return np.flatnonzero(counts > 0)

    def lookup(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Grades at (users[r], items[r, c]) for an (n, k) item array; NaN where unjudged or padding (-1)."""
        return lookup_csr(self.matrix, users, items)


def lookup_csr(m: sp.csr_matrix, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Values of CSR `m` at (users[r], items[r, c]); NaN where absent or item < 0 (or out of range).

    One pass per row with a dense item table (numba): scatter the row's stored values, gather the
    ranked items, clear the table — O(nnz of the rows + n·k), about 15× faster than a global searchsorted.
    """
    items = np.ascontiguousarray(items, dtype=np.int64)
    users = np.ascontiguousarray(users, dtype=np.int64)
    out = np.full(items.shape, np.nan)
    if m.nnz == 0 or items.size == 0:
        return out
    if items.ndim != 2 or len(users) != len(items):
        raise ValueError("lookup_csr needs users (n,) and items (n, k)")
    if len(users) and (users.min() < 0 or users.max() >= m.shape[0]):
        raise IndexError("user index out of range")
    _gather_rows(m.indptr, m.indices, m.data.astype(np.float64, copy=False), m.shape[1], users, items, out)
    return out


@numba.njit(cache=True, nogil=True)
def _gather_rows(indptr, indices, data, n_cols, users, items, out):  # pragma: no cover - compiled
    table = np.full(n_cols, np.nan)
    n, k = items.shape
    for r in range(n):
        lo, hi = indptr[users[r]], indptr[users[r] + 1]
        for j in range(lo, hi):
            table[indices[j]] = data[j]
        for c in range(k):
            it = items[r, c]
            if 0 <= it < n_cols:
                out[r, c] = table[it]
        for j in range(lo, hi):
            table[indices[j]] = np.nan


@numba.njit(cache=True, nogil=True)
def _count_at_least(indptr, data, threshold):  # pragma: no cover - compiled
    out = np.zeros(len(indptr) - 1, dtype=np.int64)
    for r in range(len(out)):
        c = 0
        for j in range(indptr[r], indptr[r + 1]):
            c += data[j] >= threshold
        out[r] = c
    return out
