"""`Qrels`: graded test relevance as CSR users × items."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data.interactions import Interactions, build_csr
from recdiv.data.vocab import Vocab


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
        m.data = (m.data >= threshold).astype(np.float64)
        m.eliminate_zeros()
        return m

    def n_relevant(self, threshold: float = 4) -> np.ndarray:
        """|Rel_u| for every user of the vocabulary."""
        m = self.matrix
        return np.add.reduceat(np.append(m.data >= threshold, False).astype(np.int64), m.indptr[:-1]) * (
            np.diff(m.indptr) > 0
        )

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
    """Values of CSR `m` (sorted indices) at (users[r], items[r, c]); NaN where absent or item < 0.

    Vectorised: one searchsorted over the concatenated (row-offset) index keys.
    """
    items = np.asarray(items, dtype=np.int64)
    users = np.asarray(users, dtype=np.int64)
    out = np.full(items.shape, np.nan)
    if m.nnz == 0 or items.size == 0:
        return out
    n_cols = m.shape[1]
    m_rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    keys = m_rows * n_cols + m.indices  # sorted because rows ascend and indices are sorted
    q = users[:, None] * n_cols + np.where(items >= 0, items, 0)
    pos = np.searchsorted(keys, q.ravel()).reshape(items.shape)
    pos = np.minimum(pos, len(keys) - 1)
    hit = (keys[pos] == q) & (items >= 0)
    out[hit] = m.data[pos[hit]]
    return out
