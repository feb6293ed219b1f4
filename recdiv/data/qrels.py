"""`Qrels`: graded test relevance as CSR users × items."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from recdiv.data.csr import CSRArrays, csr_arrays
from recdiv.data.vocab import Vocab

if TYPE_CHECKING:
    import pandas as pd
    import scipy.sparse as sp

    from recdiv.data.interactions import Interactions


def is_relevant(grades, threshold: float) -> np.ndarray:
    """The binary relevance rule of docs/metrics.md, written once: relevant ⇔ grade ≥ τ; unjudged items (NaN
    grades) are not relevant, nor are negative labels (TREC: pooled but unjudged), so a τ below 0 acts as 0.
    (The compiled kernels apply the same comparison to judged grades, with `relevance_threshold(τ)`.)"""
    with np.errstate(invalid="ignore"):
        return np.asarray(grades) >= relevance_threshold(threshold)


def relevance_threshold(threshold):
    """The τ the relevance rule compares with: τ, or 0 if τ < 0 (a negative label is never relevant)."""
    return np.maximum(threshold, 0.0) if np.ndim(threshold) else max(float(threshold), 0.0)


def is_judged(grades) -> np.ndarray:
    """Judged ⇔ grade ≥ 0: NaN (not in the qrels) and negative labels (pooled but unjudged, trec_eval 10.0) are not."""
    with np.errstate(invalid="ignore"):
        return np.asarray(grades) >= 0.0


class Qrels:
    """Judged test items of every user with their grade (rating, or mapped play count).

    Unjudged items are absent. `relevant(threshold)` gives the binary relevance of docs/metrics.md
    (relevant ⇔ grade ≥ τ, default τ = 4 on 1–5 scales). `matrix` is a SciPy CSR matrix (users × items); qrels
    read from files hold plain CSR arrays (`csr`) and build the SciPy matrix on first use.

    A grade below 0 is a TREC label meaning "pooled but unjudged" (trec_eval 10.0, `form_res_rels.c`: sampled
    infAP pools, ClueWeb's −2 spam label): such an item is in the qrels but neither judged nor relevant, whatever
    the threshold. `n_judged` counts grades ≥ 0, `n_labels` every line.
    """

    def __init__(self, users: Vocab, items: Vocab, matrix: sp.csr_matrix | CSRArrays,
                 scale: tuple[float, float] | None = None):
        self.users, self.items, self.scale = users, items, scale
        self._arrays = matrix if isinstance(matrix, CSRArrays) else None
        self._matrix = None if isinstance(matrix, CSRArrays) else matrix

    @property
    def matrix(self) -> sp.csr_matrix:
        if self._matrix is None:
            self._matrix = self._arrays.to_scipy()
        return self._matrix

    @property
    def csr(self) -> CSRArrays | sp.csr_matrix:
        """The judgments as CSR (indptr, indices, data, shape), without building a SciPy matrix if there is none."""
        return self._arrays if self._arrays is not None else self._matrix

    def __repr__(self) -> str:
        return f"Qrels({len(self.users)} users, {len(self.items)} items, {self.csr.nnz} judgments)"

    @classmethod
    def from_interactions(cls, test: Interactions) -> Qrels:
        return cls(test.users, test.items, test.matrix, test.scale)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, users: Vocab | None = None, items: Vocab | None = None) -> Qrels:
        """From columns user, item, grade (external ids)."""
        users = users or Vocab.from_values(frame["user"])
        items = items or Vocab.from_values(frame["item"])
        return cls.from_arrays(users.lookup(frame["user"].to_numpy()), items.lookup(frame["item"].to_numpy()),
                               frame["grade"].to_numpy(np.float64), users, items)

    @classmethod
    def from_arrays(cls, user_index: np.ndarray, item_index: np.ndarray, grades: np.ndarray, users: Vocab,
                    items: Vocab) -> Qrels:
        """From dense-index coordinate arrays (a repeated (user, item) raises ValueError)."""
        m, _ = csr_arrays(user_index, item_index, np.asarray(grades, dtype=np.float64), (len(users), len(items)))
        return cls(users, items, m)

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = np.repeat(np.arange(self.matrix.shape[0]), np.diff(self.matrix.indptr))
        return pd.DataFrame(
            {"user": self.users.id_of(rows), "item": self.items.id_of(self.matrix.indices), "grade": self.matrix.data}
        )

    def relevant(self, threshold: float = 4) -> sp.csr_matrix:
        """Boolean CSR of relevant (grade ≥ threshold, and ≥ 0) judgments."""
        m = self.matrix.copy()
        m.data = is_relevant(m.data, threshold).astype(np.float64)
        m.eliminate_zeros()
        return m

    def n_relevant(self, threshold: float = 4) -> np.ndarray:
        """|Rel_u| (grade ≥ threshold; a negative label is never relevant) for every user of the vocabulary."""
        m = self.csr
        rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        return np.bincount(rows[is_relevant(m.data, threshold)], minlength=m.shape[0]).astype(np.int64)

    def n_judged(self) -> np.ndarray:
        """|J_u|: judged test items (grade ≥ 0; negative labels are pooled but unjudged) of every user."""
        m = self.csr
        rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        return np.bincount(rows[is_judged(m.data)], minlength=m.shape[0]).astype(np.int64)

    def n_labels(self) -> np.ndarray:
        """Qrels lines of every user, negative labels included."""
        return np.diff(self.csr.indptr)

    def population(self, threshold: float = 4, which: str = "relevant") -> np.ndarray:
        """Dense indices of the evaluated users (docs/metrics.md): `relevant` (|Rel_u| ≥ 1) or `judged` (≥ 1 line
        in the qrels, negative labels included: trec_eval evaluates every topic of its qrels)."""
        counts = self.n_relevant(threshold) if which == "relevant" else self.n_labels()
        return np.flatnonzero(counts > 0)

    def lookup(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Grades at (users[r], items[r, c]) for an (n, k) item array; NaN where unjudged or padding (-1)."""
        return lookup_csr(self.csr, users, items)


def lookup_csr(m: sp.csr_matrix | CSRArrays, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Values of CSR `m` at (users[r], items[r, c]); NaN where absent or item < 0 (or out of range).

    One binary search per cell among the stored (row, column) keys, which a CSR with sorted indices holds in
    ascending order: O(n·k·log nnz), vectorised (no compiled kernel, so no JIT start-up in `recdiv eval`).
    """
    items = np.asarray(items, dtype=np.int64)
    users = np.asarray(users, dtype=np.int64)
    out = np.full(items.shape, np.nan)
    if m.nnz == 0 or items.size == 0:
        return out
    if items.ndim != 2 or len(users) != len(items):
        raise ValueError("lookup_csr needs users (n,) and items (n, k)")
    if len(users) and (users.min() < 0 or users.max() >= m.shape[0]):
        raise IndexError("user index out of range")
    if not m.has_sorted_indices:
        m = m.sorted_indices()
    n_cols = m.shape[1]
    keys = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr)) * n_cols + m.indices
    valid = (items >= 0) & (items < n_cols)
    query = users[:, None] * n_cols + np.where(valid, items, 0)
    pos = np.minimum(np.searchsorted(keys, query), len(keys) - 1)
    hit = valid & (keys[pos] == query)
    out[hit] = m.data[pos[hit]]
    return out
