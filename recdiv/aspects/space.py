"""`AspectSpace`: items × aspects, shared by the diversifiers and the metrics (METRICS.md §E.11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data.interactions import Attribute, Interactions, build_csr
from recdiv.data.vocab import Vocab

UserWeighting = Literal["count", "rating", "fractional"]


@dataclass(frozen=True, eq=False)
class AspectSpace:
    """Aspects A(i) of every item (explicit genres/tags, or latent factors binarised to aspects).

    `membership` is items × aspects CSR; its non-zero pattern is A(i), its values are weights (1 for
    explicit aspects). p(a|i) = [a ∈ A(i)] / |A(i)| (§E.11), 0 for all a when A(i) = ∅.
    """

    items: Vocab
    names: Vocab
    membership: sp.csr_matrix
    name: str = "aspects"

    def __post_init__(self):
        if self.membership.shape != (len(self.items), len(self.names)):
            raise ValueError("membership must be items × aspects over the given vocabularies")

    @property
    def n_aspects(self) -> int:
        return len(self.names)

    @classmethod
    def from_attribute(cls, attribute: Attribute, items: Vocab, name: str = "aspects") -> AspectSpace:
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
        return np.diff(self.membership.indptr)

    @property
    def has_aspects(self) -> np.ndarray:
        return self.n_item_aspects > 0

    def item_distribution(self) -> sp.csr_matrix:
        """p(a|i) = [a ∈ A(i)] / |A(i)| as items × aspects CSR."""
        n = self.n_item_aspects
        m = self.indicator
        m.data = m.data / np.repeat(np.maximum(n, 1), n)
        return m

    def user_distribution(self, train: Interactions, weighting: UserWeighting = "count") -> np.ndarray:
        """p(a|u) for every user of `train` (dense users × aspects), METRICS.md §E.11.

        count: |{i∈P_u: a∈A(i)}| / Σ_a' |{i∈P_u: a'∈A(i)}|  (thesis; RankSys FeatureIntentModel)
        rating: the same counts weighted by training ratings (Parapar & Radlinski eq. 9)
        fractional: (1/|P_u|) Σ_{i∈P_u} p(a|i)  (Steck)
        Users whose profile has no aspects get the uniform distribution over A.
        """
        if train.items is not self.items and train.items != self.items:
            raise ValueError("training data and aspect space use different item vocabularies")
        prof = train.matrix.copy()
        if weighting == "count":
            prof.data = np.ones_like(prof.data)
            mass = prof @ self.indicator
        elif weighting == "rating":
            mass = prof @ self.indicator
        elif weighting == "fractional":
            prof.data = np.ones_like(prof.data)
            mass = prof @ self.item_distribution()
        else:
            raise ValueError(f"unknown user weighting {weighting!r}")
        mass = np.asarray(mass.todense(), dtype=np.float64)
        total = mass.sum(axis=1, keepdims=True)
        if weighting == "fractional":  # Steck: divide by |P_u| (items without aspects count), not by the mass
            total = np.where(total > 0, np.diff(prof.indptr)[:, None].astype(np.float64), 0.0)
        uniform = np.full(self.n_aspects, 1.0 / max(self.n_aspects, 1))
        return np.where(total > 0, mass / np.where(total > 0, total, 1), uniform)

    def dense(self, dtype=np.float64) -> np.ndarray:
        """0/1 items × aspects dense indicator (for small aspect sets such as genres)."""
        return np.asarray(self.indicator.todense(), dtype=dtype)
