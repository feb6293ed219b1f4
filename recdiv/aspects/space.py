"""`AspectSpace`: items × aspects, shared by the diversifiers and the metrics (METRICS.md §E.11)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from recdiv.data.csr import CSRArrays
from recdiv.data.interactions import Attribute, build_csr
from recdiv.data.vocab import Vocab

if TYPE_CHECKING:
    import pandas as pd
    import scipy.sparse as sp


class AspectSpace:
    """Aspects A(i) of every item (explicit genres/tags, or latent factors binarised to aspects).

    `membership` is items × aspects CSR; its non-zero pattern is A(i), its values are weights (1 for
    explicit aspects). The aspect distributions p(a|i) and p(a|u) are intent models (`recdiv.models.intent`).
    Aspects read from files hold plain CSR arrays and build the SciPy matrix on first use (`pattern` needs none).
    """

    def __init__(self, items: Vocab, names: Vocab, membership: sp.csr_matrix | CSRArrays, name: str = "aspects"):
        if membership.shape != (len(items), len(names)):
            raise ValueError("membership must be items × aspects over the given vocabularies")
        from recdiv.limits import MAX_ASPECTS_PER_ITEM, at_most

        per_item = np.diff(membership.indptr)
        if len(per_item) and per_item.max() > MAX_ASPECTS_PER_ITEM:
            item = items.id_of(np.array([int(per_item.argmax())]))[0]
            at_most(f"aspects of item {str(item)!r} ({name})", int(per_item.max()), MAX_ASPECTS_PER_ITEM)
        self.items, self.names, self.name = items, names, name
        self._arrays = membership if isinstance(membership, CSRArrays) else None
        self._matrix = None if isinstance(membership, CSRArrays) else membership

    def __repr__(self) -> str:
        return f"AspectSpace({self.name!r}: {len(self.items)} items × {len(self.names)} aspects)"

    @property
    def membership(self) -> sp.csr_matrix:
        if self._matrix is None:
            self._matrix = self._arrays.to_scipy()
        return self._matrix

    def pattern(self) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, indices) int64 of A(i), indices ascending in every row."""
        m = self._arrays
        if m is None:
            m = self._matrix.tocsr().sorted_indices()
        return m.indptr.astype(np.int64, copy=False), m.indices.astype(np.int64, copy=False)

    @property
    def n_aspects(self) -> int:
        return len(self.names)

    def with_items(self, items: Vocab) -> AspectSpace:
        """This space over `items`, a vocabulary that starts with this space's items (`Vocab.extend`): the items
        added have no aspect (an empty A(i), as an item missing from an aspect file)."""
        if items is self.items or items == self.items:
            return self
        if len(items) < len(self.items) or not np.array_equal(items.ids[:len(self.items)], self.items.ids):
            raise ValueError("with_items takes a vocabulary that extends the space's own")
        m = self._arrays if self._arrays is not None else self.membership.tocsr()
        indptr = np.concatenate([m.indptr, np.full(len(items) - len(self.items), m.indptr[-1], m.indptr.dtype)])
        return AspectSpace(items, self.names, CSRArrays(indptr, m.indices, m.data, (len(items), len(self.names))),
                           self.name)

    @classmethod
    def from_attribute(cls, attribute: Attribute, items: Vocab, name: str = "aspects") -> AspectSpace:
        import scipy.sparse as sp

        return cls(items, attribute.names, sp.csr_matrix(attribute.matrix), name)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, items: Vocab, name: str = "aspects",
                   unknown: str = "error") -> AspectSpace:
        """From columns item, aspect[, weight] (external ids). Items not in `items`: `error` or `drop`."""
        idx = items.lookup(frame["item"].to_numpy(), missing="-1")
        if (idx < 0).any():
            if unknown == "error":
                raise KeyError(f"aspect file names unknown item {frame['item'].to_numpy()[idx < 0][0]!r}")
            frame, idx = frame[idx >= 0], idx[idx >= 0]
        names = Vocab.from_values(frame["aspect"])
        w = frame["weight"].to_numpy(np.float64) if "weight" in frame else np.ones(len(frame))
        m, _ = build_csr(idx, names.lookup(frame["aspect"].to_numpy()), w, (len(items), len(names)))
        return cls(items, names, m, name)

    def to_frame(self) -> pd.DataFrame:
        """Columns item, aspect, weight (external ids), one row per (item, aspect) of `membership`, by item index
        then aspect index: the inverse of `from_frame`."""
        import pandas as pd
        import scipy.sparse as sp

        m = sp.csr_matrix(self.membership)
        m.sort_indices()
        rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        return pd.DataFrame({"item": self.items.id_of(rows), "aspect": self.names.id_of(m.indices),
                             "weight": m.data.astype(np.float64)})

    @property
    def indicator(self) -> sp.csr_matrix:
        """0/1 items × aspects matrix of A(i)."""
        m = self.membership.copy()
        m.data = np.ones_like(m.data)
        return m

    @property
    def n_item_aspects(self) -> np.ndarray:
        """|A(i)| per item."""
        return np.diff((self._arrays if self._arrays is not None else self._matrix).indptr)

    @property
    def has_aspects(self) -> np.ndarray:
        return self.n_item_aspects > 0

    def dense(self, dtype=np.float64) -> np.ndarray:
        """0/1 items × aspects dense indicator (for small aspect sets such as genres); from the CSR arrays without
        SciPy when the space holds them (no repeated pairs there)."""
        from recdiv.limits import check_cells

        check_cells(f"items × aspects of {self.name}", len(self.items), len(self.names))
        if self._arrays is None:
            return np.asarray(self.indicator.todense(), dtype=dtype)
        out = np.zeros((len(self.items), len(self.names)), dtype=dtype)
        out[np.repeat(np.arange(len(self.items)), np.diff(self._arrays.indptr)), self._arrays.indices] = 1
        return out
