"""Blocks of a `recdiv.data._read.Table`: row numbers without an array, a table's rows, two tables end to end
(what `recdiv.data.formats` needs to cut a file read in blocks at user boundaries)."""

from __future__ import annotations

from typing import Any

import numpy as np

from recdiv.data._read import Codes, Table


class _Rows:
    """Row numbers first..first+n-1 without an array of them (10^8 rows would be 800 MB)."""

    __slots__ = ("first", "n")

    def __init__(self, first: int, n: int):
        self.first, self.n = first, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, j):
        if isinstance(j, slice):
            lo, hi, _ = j.indices(self.n)
            return _Rows(self.first + lo, max(hi - lo, 0))
        if isinstance(j, np.ndarray) and j.dtype != bool:
            return j.astype(np.int64) + self.first
        return self.first + j if j >= 0 else self.first + self.n + j

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return np.arange(self.first, self.first + self.n, dtype=dtype or np.int64)


def take(table: Table, rows: slice) -> Table:
    """The rows `rows` of a table (ids keep their labels)."""
    cols = {n: Codes(c.codes[rows], c.labels) if isinstance(c, Codes) else c[rows] for n, c in table.columns.items()}
    return Table(table.path, cols, table.lineno[rows], unit=table.unit)


def concat(a: Table, b: Table) -> Table:
    """Rows of `a` then rows of `b` (`a` small: its ids are re-encoded into `b`'s labels)."""
    cols: dict[str, Any] = {}
    for name, col in b.columns.items():
        first = a.columns[name]
        if isinstance(col, Codes):
            index = {label: j for j, label in enumerate(col.labels.tolist())}
            labels = list(col.labels.tolist())
            used = first.labels[first.codes]
            codes = np.empty(len(used), dtype=np.int32)
            for j, label in enumerate(used.tolist()):
                if label not in index:
                    index[label] = len(labels)
                    labels.append(label)
                codes[j] = index[label]
            # b's labels object itself when `a` adds none (`recdiv.eval.ingest.Encoder` knows it then)
            kept = col.labels if len(labels) == len(col.labels) else np.array(labels, dtype=object)
            cols[name] = Codes(np.concatenate([codes, col.codes]).astype(np.int32), kept)
        else:
            cols[name] = np.concatenate([first, col])
    if isinstance(a.lineno, _Rows) and isinstance(b.lineno, _Rows) and a.lineno.first + a.lineno.n == b.lineno.first:
        lineno = _Rows(a.lineno.first, a.lineno.n + b.lineno.n)  # consecutive rows: no array of their numbers
    else:
        lineno = np.concatenate([np.asarray(a.lineno), np.asarray(b.lineno)])
    return Table(b.path, cols, lineno, unit=b.unit)
