"""`Vocab`: external id <-> dense index, for users and items.

NumPy only (no pandas at import or construction: `recdiv eval` starts in a fraction of a second). Numeric ids
are looked up by binary search over a sorted copy, other ids (strings) through a hash table; both are built
lazily, on the first lookup.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from itertools import repeat

import numpy as np


def _infer(values: np.ndarray) -> np.ndarray:
    """An object array of ints (or of floats) as int64 (float64), like pandas' type inference; else unchanged."""
    if values.dtype != object or len(values) == 0:
        return values
    types = set(map(type, values))
    if all(issubclass(t, int | np.integer) and not issubclass(t, bool | np.bool_) for t in types):
        try:
            return values.astype(np.int64)
        except OverflowError:
            return values
    if all(issubclass(t, float | np.floating) for t in types):
        return values.astype(np.float64)
    return values


def as_ids(values) -> np.ndarray:
    """External ids as a 1-d array: numbers keep a numeric dtype, text (and anything mixed) is an object array."""
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):  # pandas Index / Series / Categorical
        values = values.to_numpy()
    if isinstance(values, np.ndarray):
        arr = values.ravel()
    else:
        items = values if isinstance(values, list | tuple) else list(values)
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
    if arr.dtype.kind in "USO":
        return _infer(arr.astype(object, copy=False))
    return arr


class Vocab:
    """An immutable, ordered set of external ids; dense index = position.

    External ids keep their type (int for MovieLens ids, str for TREC files); `string_rank` gives the
    rank of each id in *string* order, used by the tie rules of docs/metrics.md
    """

    __slots__ = ("__dict__", "_ids")

    def __init__(self, ids: Iterable | np.ndarray):
        self._ids = as_ids(ids)
        table = self._lookup_table()
        if len(table if isinstance(table, dict) else table[0]) != len(self._ids):
            raise ValueError(f"duplicate id in vocabulary: {self._first_duplicate()!r}")

    @classmethod
    def from_values(cls, *columns: Iterable) -> Vocab:
        """Vocabulary of the distinct values of one or more columns, in sorted order (ids of one type)."""
        arrays = [as_ids(c) for c in columns]
        values = np.concatenate(arrays) if arrays else np.array([], dtype=object)
        if values.dtype != object:
            return cls(np.unique(values))
        distinct = list(dict.fromkeys(values.tolist()))
        try:
            distinct.sort()
        except TypeError:  # mixed types: sort by string form
            distinct.sort(key=str)
        return cls(distinct)

    # lookup structures, built on first use -----------------------------------------------------------
    def _lookup_table(self):
        """Numeric ids: (sorted ids, their positions); other ids: {id: position}."""
        table = self.__dict__.get("_table")
        if table is None:
            if self._ids.dtype == object:
                table = dict(zip(self._ids.tolist(), range(len(self._ids))))
            else:
                order = np.argsort(self._ids, kind="stable")
                table = (self._ids[order], order)
                if len(order) > 1 and (table[0][1:] == table[0][:-1]).any():
                    table = {}  # duplicates: reported by the constructor
            self.__dict__["_table"] = table
        return table

    def _first_duplicate(self):
        seen = set()
        for x in self._ids.tolist():
            if x in seen:
                return x
            seen.add(x)
        return None

    # views -----------------------------------------------------------------------------------------
    @property
    def ids(self) -> np.ndarray:
        """External ids as an array (position = dense index)."""
        return self._ids

    @cached_property
    def index(self):
        """The ids as a pandas Index (for pandas code)."""
        import pandas as pd

        return pd.Index(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, ext_id) -> bool:
        return bool(self.lookup([ext_id], missing="-1")[0] >= 0)

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocab) and (self is other or (len(self) == len(other) and
                                                               bool(np.all(self._ids == other._ids))))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        head = ", ".join(repr(x) for x in self._ids[:3].tolist())
        return f"Vocab({len(self)} ids: {head}{', ...' if len(self) > 3 else ''})"

    def lookup(self, ext_ids, missing: str = "error") -> np.ndarray:
        """Dense indices of `ext_ids`; `missing="error"` raises KeyError, `"-1"` returns -1 for unknown ids."""
        query = as_ids(ext_ids)
        table = self._lookup_table()
        if isinstance(table, tuple) and query.dtype == object:  # text among numbers: by hash, so only numbers match
            table = self.__dict__.get("_hash") or self.__dict__.setdefault(
                "_hash", dict(zip(self._ids.tolist(), range(len(self._ids)))))
        if isinstance(table, dict):
            idx = np.fromiter(map(table.get, query.tolist(), repeat(-1)), dtype=np.int64, count=len(query))
        elif len(self._ids) == 0:
            idx = np.full(len(query), -1, dtype=np.int64)
        else:
            keys, order = table
            pos = np.minimum(np.searchsorted(keys, query), len(keys) - 1)
            idx = np.where(keys[pos] == query, order[pos], -1).astype(np.int64)
        if missing == "error" and (idx < 0).any():
            raise KeyError(f"unknown id {query[idx < 0][0]!r}")
        return idx

    def id_of(self, idx) -> np.ndarray:
        """External ids of dense indices (array in, array out)."""
        return self._ids[np.asarray(idx)]

    @cached_property
    def string_rank(self) -> np.ndarray:
        """string_rank[i] = rank (0-based) of str(id_i) among all ids in string order."""
        order = np.argsort(self._ids.astype(str), kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    def extend(self, ext_ids: Iterable) -> Vocab:
        """A new vocabulary: this one followed by the ids not yet in it (in first-seen order)."""
        new = as_ids(ext_ids)
        new = np.asarray(list(dict.fromkeys(new.tolist())), dtype=new.dtype) if len(new) else new
        new = new[self.lookup(new, missing="-1") < 0] if len(new) else new
        if len(new) == 0:
            return self
        return Vocab(np.concatenate([self._ids.astype(object), new.astype(object)])
                     if self._ids.dtype != new.dtype else np.concatenate([self._ids, new]))
