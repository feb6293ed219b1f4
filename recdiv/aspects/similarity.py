"""Item–item similarities over aspects or factors (METRICS.md §E.11); distance d = 1 − sim.

All similarities are evaluated for many users at once: `sim(a, b)` takes item index arrays of shape
(n, k) and (n, m) (−1 = padding) and returns (n, k, m), NaN where undefined (an item without features,
or padding). The same objects serve the metrics (ILD, EILD, EPD) and the rerankers (MMR, DPP, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from recdiv.aspects.space import AspectSpace

_CHUNK_ELEMS = 20_000_000  # bound on n·k·m·features floats per chunk


class ItemSimilarity:
    """Base: subclasses implement `_features` (items × F float rows) and `_combine`."""

    name = "similarity"

    def sim(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        if a.ndim == 1:
            return self.sim(a[None], b[None])[0]
        n = len(a)
        out = np.empty((n, a.shape[1], b.shape[1]))
        per_user = max(1, a.shape[1] * b.shape[1] * self._width)
        step = max(1, _CHUNK_ELEMS // per_user)
        for lo in range(0, n, step):
            out[lo : lo + step] = self._block(a[lo : lo + step], b[lo : lo + step])
        return out

    def dist(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return 1.0 - self.sim(a, b)

    # to implement
    _width = 1

    def _block(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(eq=False)
class _FeatureSimilarity(ItemSimilarity):
    """Similarity computed from dense feature rows X (items × F); rows of zeros = featureless."""

    features: np.ndarray
    _norm: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.features = np.asarray(self.features, dtype=np.float64)
        self._norm = np.einsum("if,if->i", self.features, self.features)
        self._width = self.features.shape[1]

    def _gather(self, idx: np.ndarray):
        safe = np.where(idx >= 0, idx, 0)
        x = self.features[safe]
        nrm = np.where(idx >= 0, self._norm[safe], 0.0)
        return x, nrm

    def _block(self, a, b):
        xa, na = self._gather(a)
        xb, nb = self._gather(b)
        dot = np.einsum("nkf,nmf->nkm", xa, xb)
        with np.errstate(invalid="ignore", divide="ignore"):
            s = self._combine(dot, na[:, :, None], nb[:, None, :])
        undefined = (na[:, :, None] == 0) | (nb[:, None, :] == 0)
        return np.where(undefined, np.nan, s)

    def _combine(self, dot, na, nb):  # pragma: no cover - abstract
        raise NotImplementedError


class SetCosine(_FeatureSimilarity):
    """sim(i,j) = |A(i)∩A(j)| / √(|A(i)|·|A(j)|) (thesis §3.6.1; Table 1 ILD)."""

    name = "cosine"

    def __init__(self, space: AspectSpace):
        super().__init__(space.dense())

    def _combine(self, dot, na, nb):
        return dot / np.sqrt(na * nb)


class Jaccard(_FeatureSimilarity):
    """sim(i,j) = |A(i)∩A(j)| / |A(i)∪A(j)| (thesis Table 6; RankSys JaccardFeatureItemDistanceModel)."""

    name = "jaccard"

    def __init__(self, space: AspectSpace):
        super().__init__(space.dense())

    def _combine(self, dot, na, nb):
        return dot / (na + nb - dot)


class LatentCosine(_FeatureSimilarity):
    """sim(i,j) = ⟨q_i,q_j⟩ / (‖q_i‖·‖q_j‖) over latent factor vectors (thesis §3.6.2, typo corrected)."""

    name = "latent-cosine"

    def __init__(self, factors: np.ndarray):
        super().__init__(factors)

    def _combine(self, dot, na, nb):
        return dot / np.sqrt(na * nb)


def similarity_from_name(name: str, space: AspectSpace | None = None, **kw) -> ItemSimilarity:
    """`cosine`, `jaccard` over an aspect space; `latent-cosine` with factors=...; `pearson` with train=..."""
    if name == "cosine":
        return SetCosine(space)
    if name == "jaccard":
        return Jaccard(space)
    if name == "latent-cosine":
        return LatentCosine(kw["factors"])
    if name == "pearson":
        from recdiv.aspects.pearson import RatingPearson  # provided with the aspect spaces

        return RatingPearson(kw["train"])
    raise ValueError(f"unknown item similarity {name!r} (cosine, jaccard, latent-cosine, pearson)")
