"""Item–item similarities over aspects or factors (METRICS.md §E.11); distance d = 1 − sim.

All similarities are evaluated for many users at once: `sim(a, b)` takes item index arrays of shape
(n, k) and (n, m) (−1 = padding) and returns (n, k, m), NaN where undefined (an item without features,
or padding). The same objects serve the metrics (ILD, EILD, EPD) and the rerankers (MMR, DPP, ...).

`RatingPearson`: item–item Pearson similarity of training rating vectors, shifted to [0, 1] (METRICS.md §E.11).

sim(i, j) = (1 + ρ_ij) / 2, ρ_ij = the Pearson correlation of the ratings of i and j over the users who rated
both (co-rated users, means taken over those users, as `scipy.stats.pearsonr` on the co-rated vectors);
undefined (NaN) with fewer than `min_common` (default 2) co-rated users or a constant vector among them
(thesis Table 6, Last.fm; [CHOICE] co-rated users, ≥ 2 of them).

Vectorised with sparse products of item-centred ratings X and the indicator B (Pearson is invariant to a
per-item shift, and centring keeps the moment sums well conditioned): over co-rated users,
n = BᵀB, Sx = XᵀB, Sxx = (X∘X)ᵀB, Sxy = XᵀX, then cov = Sxy − Sx·Syᵀ/n, var_x = Sxx − Sx²/n. Catalogs of at
most 4,096 items keep the whole matrix; larger ones compute the same sums for the pairs asked only (a compiled
loop over co-rating users, in the order of the sparse products, so the values are the same).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.registry import Registry

_CHUNK_ELEMS = 20_000_000  # bound on n·k·m·features floats per chunk
_FULL_LIMIT = 4096  # Pearson: cache the whole item × item matrix up to this many items
_PAIRS = 2_000_000  # Pearson over larger catalogs: item pairs per call of the co-rating kernel


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

    def with_items(self, n_items: int) -> ItemSimilarity | None:
        """This similarity over `n_items` items, the first ones this one's: the items added have no features (no
        aspects, a zero factor vector, no rating), so their similarity to any item is undefined (NaN), as for an item
        that no file describes. None when the similarity cannot say (a plugin's)."""
        return None

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

    @cached_property
    def binary(self) -> bool:
        """Whether every feature is 0 or 1 (set features: the bit-mask kernels apply)."""
        f = self.features
        return bool(((f == 0) | (f == 1)).all())

    @cached_property
    def bitmasks(self) -> np.ndarray:
        """Each item's 0/1 features as the bits of one int64 (≤ 63 features)."""
        bits = np.left_shift(np.int64(1), np.arange(self.features.shape[1], dtype=np.int64))
        return (self.features.astype(np.int64) * bits).sum(axis=1)

    def with_items(self, n_items: int) -> _FeatureSimilarity:
        import copy

        out = copy.copy(self)  # the class and its parameters; the features and what derives from them anew
        for derived in ("binary", "bitmasks"):
            out.__dict__.pop(derived, None)
        extra = np.zeros((n_items - len(self.features), self.features.shape[1]))
        out.features = np.concatenate([self.features, extra])
        out.__post_init__()
        return out

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
    """`cosine`, `jaccard` over an aspect space; `latent-cosine` with factors=...; `pearson` with train=... (names
    in `SIMILARITIES`: any case and punctuation, did-you-mean for unknown ones)."""
    kind = SIMILARITIES.canonical(name)
    if kind in ("cosine", "jaccard"):
        return SIMILARITIES.get(kind)(space)
    return SIMILARITIES.get(kind)(kw["factors"] if kind == "latent-cosine" else kw["train"])


class RatingPearson(ItemSimilarity):
    """Pearson correlation on co-rated training users, mapped to [0, 1]; `sim(a, b)` as `ItemSimilarity`."""

    name = "pearson"

    def __init__(self, train: Interactions, min_common: int = 2):
        if min_common < 2:
            raise ValueError("Pearson correlation needs at least 2 co-rated users")
        self.min_common = int(min_common)
        m = train.matrix.tocsc().astype(np.float64)
        m.sum_duplicates()
        counts = np.diff(m.indptr)
        sums = np.add.reduceat(np.append(m.data, 0.0), m.indptr[:-1]) * (counts > 0)
        means = np.divide(sums, counts, out=np.zeros(len(counts)), where=counts > 0)
        centred = m.copy()
        centred.data = m.data - np.repeat(means, counts)
        ind = m.copy()
        ind.data = np.ones(m.nnz)
        self._x = centred
        self._b = ind
        self._n_items = m.shape[1]
        self._full: np.ndarray | None = None

    def with_items(self, n_items: int) -> RatingPearson:
        import copy

        import scipy.sparse as sp

        out = copy.copy(self)
        extra = n_items - self._n_items
        for name in ("_x", "_b"):
            m = getattr(self, name)
            indptr = np.concatenate([m.indptr, np.full(extra, m.indptr[-1], m.indptr.dtype)])
            setattr(out, name, sp.csc_matrix((m.data, m.indices, indptr), shape=(m.shape[0], n_items)))
        out._n_items, out._full = n_items, None
        return out

    def matrix(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Dense |a| × |b| similarity between item index vectors a and b (NaN where undefined)."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        xa, ba, xb, bb = self._x[:, a], self._b[:, a], self._x[:, b], self._b[:, b]
        xa2 = xa.multiply(xa).tocsc()
        xb2 = xb.multiply(xb).tocsc()

        def prod(p, q):
            return np.asarray((p.T @ q).toarray(), dtype=np.float64)

        n = prod(ba, bb)
        sx, sy = prod(xa, bb), prod(ba, xb)
        sxx, syy = prod(xa2, bb), prod(ba, xb2)
        return self._similarity(n, sx, sy, sxx, syy, prod(xa, xb))

    def paired(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(n, k, m) similarities of the pairs (a[r, p], b[r, q]) only (−1 = padding, NaN): the co-rating sums of
        each pair (`similarity_kernels.pearson_sums`), ~_PAIRS pairs at a time. The same values as `matrix`."""
        from recdiv.aspects.similarity_kernels import pearson_sums  # numba loads when a kernel runs

        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        n, k, m = a.shape[0], a.shape[1], b.shape[1]
        out = np.full((n, k, m), np.nan)
        if not (n and k and m):
            return out
        x = self._x
        indptr, users = x.indptr.astype(np.int64), x.indices.astype(np.int64)
        rows = max(1, _PAIRS // (k * m))
        cols = k if k * m <= _PAIRS else max(1, _PAIRS // m)
        for lo in range(0, n, rows):
            for c0 in range(0, k, cols):
                sums = pearson_sums(indptr, users, x.data, np.ascontiguousarray(a[lo : lo + rows, c0 : c0 + cols]),
                                    np.ascontiguousarray(b[lo : lo + rows]), x.shape[0])
                out[lo : lo + rows, c0 : c0 + cols] = self._similarity(*sums)
        return out

    def _similarity(self, n, sx, sy, sxx, syy, sxy) -> np.ndarray:
        """(1 + ρ) / 2 from the co-rating sums (module docstring), NaN where undefined."""
        with np.errstate(invalid="ignore", divide="ignore"):
            cov = sxy - sx * sy / n
            vx = sxx - sx * sx / n
            vy = syy - sy * sy / n
            ok = (n >= self.min_common) & (vx > 1e-9 * sxx) & (vy > 1e-9 * syy) & (vx > 0) & (vy > 0)
            rho = np.clip(cov / np.sqrt(np.where(ok, vx * vy, 1.0)), -1.0, 1.0)
        return np.where(ok, (1.0 + rho) / 2.0, np.nan)

    def full(self) -> np.ndarray:
        """The cached items × items matrix (only for catalogs of at most 4,096 items)."""
        if self._full is None:
            every = np.arange(self._n_items)
            self._full = self.matrix(every, every)
        return self._full

    def sim(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        if a.ndim == 1:
            return self.sim(a[None], b[None])[0]
        if self._n_items <= _FULL_LIMIT:
            full = self.full()
            va, vb = a >= 0, b >= 0
            s = full[np.maximum(a, 0)[:, :, None], np.maximum(b, 0)[:, None, :]]
            return np.where(va[:, :, None] & vb[:, None, :], s, np.nan)
        return self.paired(a, b)


#: the item similarities by name (`recdiv.registry`): cosine and jaccard over an aspect space, latent-cosine over
#: item factors, pearson over training ratings
SIMILARITIES: Registry[type[ItemSimilarity]] = Registry("item similarity")
SIMILARITIES.add("cosine", SetCosine, aliases=("set-cosine",))
SIMILARITIES.add("jaccard", Jaccard)
SIMILARITIES.add("latent-cosine", LatentCosine)
SIMILARITIES.add("pearson", RatingPearson)
