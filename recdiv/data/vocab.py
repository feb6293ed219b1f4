"""`Vocab`: external id <-> dense index, for users and items."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

import numpy as np
import pandas as pd


class Vocab:
    """An immutable, ordered set of external ids; dense index = position.

    External ids keep their type (int for MovieLens ids, str for TREC files); `string_rank` gives the
    rank of each id in *string* order, used by the tie rules of METRICS.md §0.5 and §0.6.
    """

    __slots__ = ("__dict__", "_index")

    def __init__(self, ids: Iterable | np.ndarray | pd.Index):
        index = ids if isinstance(ids, pd.Index) else pd.Index(list(ids) if not isinstance(ids, np.ndarray) else ids)
        if not index.is_unique:
            dup = index[index.duplicated()][0]
            raise ValueError(f"duplicate id in vocabulary: {dup!r}")
        self._index = index

    @classmethod
    def from_values(cls, *columns: Iterable) -> Vocab:
        """Vocabulary of the distinct values of one or more columns, in sorted order (ids of one type)."""
        values = pd.Index(pd.concat([pd.Series(np.asarray(c)) for c in columns], ignore_index=True).unique())
        try:
            values = values.sort_values()
        except TypeError:  # mixed types: sort by string form
            values = pd.Index(sorted(values, key=str))
        return cls(values)

    @property
    def ids(self) -> np.ndarray:
        """External ids as an array (position = dense index)."""
        return self._index.to_numpy()

    @property
    def index(self) -> pd.Index:
        return self._index

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, ext_id) -> bool:
        return ext_id in self._index

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocab) and (self is other or self._index.equals(other._index))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        head = ", ".join(repr(x) for x in self._index[:3])
        return f"Vocab({len(self)} ids: {head}{', ...' if len(self) > 3 else ''})"

    def lookup(self, ext_ids, missing: str = "error") -> np.ndarray:
        """Dense indices of `ext_ids`; `missing="error"` raises KeyError, `"-1"` returns -1 for unknown ids."""
        idx = self._index.get_indexer(pd.Index(np.asarray(ext_ids)))
        if missing == "error" and (idx < 0).any():
            bad = np.asarray(ext_ids)[idx < 0][0]
            raise KeyError(f"unknown id {bad!r}")
        return idx.astype(np.int64)

    def id_of(self, idx) -> np.ndarray:
        """External ids of dense indices (array in, array out)."""
        return self._index.to_numpy()[np.asarray(idx)]

    @cached_property
    def string_rank(self) -> np.ndarray:
        """string_rank[i] = rank (0-based) of str(id_i) among all ids in string order."""
        order = np.argsort(self._index.astype(str).to_numpy(), kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    def extend(self, ext_ids: Iterable) -> Vocab:
        """A new vocabulary: this one followed by the ids not yet in it (in first-seen order)."""
        new = pd.Index(pd.unique(np.asarray(list(ext_ids) if not isinstance(ext_ids, np.ndarray) else ext_ids)))
        new = new[~new.isin(self._index)]
        return self if len(new) == 0 else Vocab(self._index.append(new))
