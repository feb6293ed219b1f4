"""`Interactions`, `Dataset` and `Split`: the users × items data every part of recdiv reads."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from recdiv.data.csr import csr_arrays
from recdiv.data.vocab import Vocab

if TYPE_CHECKING:
    import pandas as pd
    import scipy.sparse as sp

Kind = Literal["explicit", "implicit"]


def build_csr(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]
) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR with sorted indices from coordinate arrays; returns (matrix, order) where order sorts the input.

    Duplicated (row, col) pairs raise ValueError: callers decide a policy before building.
    Explicit zero values are kept (a 0 play count or rating is data, not absence).
    """
    arrays, order = csr_arrays(rows, cols, values, shape)
    return arrays.to_scipy(), order


@dataclass(frozen=True, eq=False)
class Interactions:
    """User × item values (ratings or play counts) as CSR over shared vocabularies.

    `timestamps`, when present, is aligned with `matrix.data` (same order). `scale` is the rating scale
    (min, max) of explicit data; `kind` tells ratings ("explicit") from counts/clicks ("implicit").
    """

    users: Vocab
    items: Vocab
    matrix: sp.csr_matrix
    kind: Kind = "explicit"
    scale: tuple[float, float] | None = None
    timestamps: np.ndarray | None = None

    def __post_init__(self):
        if self.matrix.shape != (len(self.users), len(self.items)):
            raise ValueError(f"matrix shape {self.matrix.shape} != vocab sizes ({len(self.users)}, {len(self.items)})")
        if self.timestamps is not None and len(self.timestamps) != self.matrix.nnz:
            raise ValueError("timestamps must align with the stored values")

    def with_items(self, items: Vocab) -> Interactions:
        """These interactions over `items`, a vocabulary that starts with this one's items (`Vocab.extend`): the
        items added have no interaction (zero popularity, in no profile)."""
        if items is self.items or items == self.items:
            return self
        if len(items) < len(self.items) or not np.array_equal(items.ids[:len(self.items)], self.items.ids):
            raise ValueError("with_items takes a vocabulary that extends the interactions' own")
        import scipy.sparse as sp

        m = self.matrix
        wider = sp.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], len(items)))
        return replace(self, items=items, matrix=wider)

    # construction ---------------------------------------------------------------------------------
    @classmethod
    def from_arrays(
        cls,
        user_index: np.ndarray,
        item_index: np.ndarray,
        values: np.ndarray | None,
        users: Vocab,
        items: Vocab,
        *,
        timestamps: np.ndarray | None = None,
        kind: Kind = "explicit",
        scale: tuple[float, float] | None = None,
    ) -> Interactions:
        """From dense-index coordinate arrays (values default to 1). Duplicate pairs raise ValueError."""
        if values is None:
            values = np.ones(len(user_index))
        m, order = build_csr(user_index, item_index, values, (len(users), len(items)))
        ts = None if timestamps is None else np.asarray(timestamps, dtype=np.int64)[order]
        return cls(users, items, m, kind=kind, scale=scale, timestamps=ts)

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        users: Vocab | None = None,
        items: Vocab | None = None,
        kind: Kind = "explicit",
        scale: tuple[float, float] | None = None,
    ) -> Interactions:
        """From a DataFrame with columns `user`, `item`, optional `value` and `timestamp` (external ids)."""
        users = users or Vocab.from_values(frame["user"])
        items = items or Vocab.from_values(frame["item"])
        values = frame["value"].to_numpy(np.float64) if "value" in frame else None
        ts = frame["timestamp"].to_numpy(np.int64) if "timestamp" in frame else None
        return cls.from_arrays(
            users.lookup(frame["user"].to_numpy()), items.lookup(frame["item"].to_numpy()), values,
            users, items, timestamps=ts, kind=kind, scale=scale,
        )

    # views ----------------------------------------------------------------------------------------
    @property
    def n_users(self) -> int:
        return self.matrix.shape[0]

    @property
    def n_items(self) -> int:
        return self.matrix.shape[1]

    @property
    def nnz(self) -> int:
        return self.matrix.nnz

    @property
    def user_index(self) -> np.ndarray:
        """Dense user index of each stored value (aligned with `matrix.data`)."""
        return np.repeat(np.arange(self.n_users), np.diff(self.matrix.indptr))

    @property
    def item_index(self) -> np.ndarray:
        return self.matrix.indices.astype(np.int64, copy=False)

    @property
    def values(self) -> np.ndarray:
        return self.matrix.data

    def to_frame(self, external: bool = True) -> pd.DataFrame:
        """Columns user, item, value[, timestamp]; external ids unless `external=False`."""
        import pandas as pd

        u, i = self.user_index, self.item_index
        frame = pd.DataFrame(
            {
                "user": self.users.id_of(u) if external else u,
                "item": self.items.id_of(i) if external else i,
                "value": self.values,
            }
        )
        if self.timestamps is not None:
            frame["timestamp"] = self.timestamps
        return frame

    def select(self, mask: np.ndarray) -> Interactions:
        """The stored values where `mask` (aligned with `matrix.data`) is true, over the same vocabularies."""
        mask = np.asarray(mask, dtype=bool)
        ts = None if self.timestamps is None else self.timestamps[mask]
        return Interactions.from_arrays(
            self.user_index[mask], self.item_index[mask], self.values[mask], self.users, self.items,
            timestamps=ts, kind=self.kind, scale=self.scale,
        )

    def with_values(self, values: np.ndarray, kind: Kind | None = None, scale=None) -> Interactions:
        """Same pattern, new values (e.g. play counts mapped to ratings)."""
        m = self.matrix.copy()
        m.data = np.asarray(values, dtype=np.float64)
        return replace(self, matrix=m, kind=kind or self.kind, scale=scale if scale is not None else self.scale)

    def item_counts(self) -> np.ndarray:
        """|U_i|: number of users with a stored value for each item."""
        return np.bincount(self.item_index, minlength=self.n_items)

    def user_counts(self) -> np.ndarray:
        return np.diff(self.matrix.indptr)

    def __repr__(self) -> str:
        return f"Interactions({self.n_users} users × {self.n_items} items, {self.nnz} {self.kind} values)"


@dataclass(frozen=True, eq=False)
class Attribute:
    """Item attribute as a sparse items × values matrix of weights (e.g. genres, tags), with value names."""

    matrix: sp.csr_matrix
    names: Vocab

    @property
    def n_values(self) -> int:
        return self.matrix.shape[1]


@dataclass(frozen=True, eq=False)
class Dataset:
    """Interactions + item attributes + side tables, under one name."""

    name: str
    interactions: Interactions
    attributes: dict[str, Attribute] = field(default_factory=dict)
    item_info: pd.DataFrame | None = None
    user_info: pd.DataFrame | None = None
    extras: dict[str, object] = field(default_factory=dict)
    splits: dict[str, Split] = field(default_factory=dict)

    @property
    def users(self) -> Vocab:
        return self.interactions.users

    @property
    def items(self) -> Vocab:
        return self.interactions.items

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}: {a.n_values}" for k, a in self.attributes.items())
        return f"Dataset({self.name!r}, {self.interactions!r}, attributes {{{attrs}}})"


@dataclass(frozen=True, eq=False)
class Split:
    """Train and test (and optional validation) interactions over the same vocabularies."""

    train: Interactions
    test: Interactions
    validation: Interactions | None = None
    name: str = ""

    def __post_init__(self):
        parts = [self.train, self.test] + ([self.validation] if self.validation is not None else [])
        for p in parts[1:]:
            if p.users is not self.train.users and p.users != self.train.users:
                raise ValueError("split parts must share the user vocabulary")
            if p.items is not self.train.items and p.items != self.train.items:
                raise ValueError("split parts must share the item vocabulary")
