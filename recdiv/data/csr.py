"""Compressed sparse rows as plain NumPy arrays, for code paths that should not import SciPy (`recdiv eval`
with accuracy measures starts in a fraction of a second without it); `to_scipy` gives the SciPy matrix."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class CSRArrays:
    """indptr (rows + 1,), indices (nnz,) with sorted columns in every row, data (nnz,), shape (rows, columns)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]
    has_sorted_indices = True

    @property
    def nnz(self) -> int:
        return len(self.data)

    def to_scipy(self):
        import scipy.sparse as sp

        m = sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)
        m.has_sorted_indices = True
        return m


def csr_arrays(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]
               ) -> tuple[CSRArrays, np.ndarray]:
    """CSR arrays with sorted indices from coordinate arrays; returns (arrays, order) where order sorts the input.

    Duplicated (row, col) pairs raise ValueError: callers decide a policy before building.
    Explicit zero values are kept (a 0 play count or rating is data, not absence).
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if shape[0] * shape[1] < 2**62 and (not len(cols) or 0 <= cols.min() <= cols.max() < shape[1]):
        order = np.argsort(rows * shape[1] + cols, kind="stable")  # lexsort's order, one key: faster
    else:
        order = np.lexsort((cols, rows))
    r, c = rows[order], cols[order]
    if len(r) > 1:
        dup = (r[1:] == r[:-1]) & (c[1:] == c[:-1])
        if dup.any():
            j = int(np.flatnonzero(dup)[0])
            raise ValueError(f"duplicate (user, item) pair at dense indices ({r[j]}, {c[j]})")
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=shape[0]), out=indptr[1:])
    return CSRArrays(indptr, c, np.asarray(values, dtype=np.float64)[order], tuple(shape)), order
