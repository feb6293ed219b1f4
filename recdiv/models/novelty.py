"""Item novelty models nov(i | θ) of the Vargas & Castells framework (METRICS.md §B.5, §B.6 EPD).

Popularity-based models are estimated on *training* data (thesis §4.8: discovery from training, relevance
from test data) and returned as plain arrays over the item vocabulary, so that metrics and rerankers (NGD)
share them:

- `popularity_complement(train)`: nov_PC(i) = 1 − |U_i| / |U| (forced discovery, EPC); absent items 1.
- `inverse_user_frequency(train)`: nov_IUF(i) = −log2(|U_i| / |U|) (EIP, MSI); absent items
  log2(|U| / min_j |U_j|).
- `free_discovery(train)`: nov_FD(i) = −log2(|U_i| / T), T = Σ_j |U_j| (EFD); absent items −log2(min_j |U_j| / T).

|U_i| = training users who interacted with i, |U| = users with ≥ 1 training interaction (RankSys
`numUsersWithPreferences`). `ProfileDistance` is the user-relative model of EPD: the mean distance between an
item and the items of the user's training profile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from recdiv.errors import ConfigError

if TYPE_CHECKING:
    from recdiv.aspects.similarity import ItemSimilarity
    from recdiv.data.interactions import Interactions

__all__ = [
    "ITEM_NOVELTY",
    "ProfileDistance",
    "SignatureDistances",
    "free_discovery",
    "gather",
    "inverse_user_frequency",
    "item_novelty",
    "popularity_complement",
    "short_head",
    "user_frequency",
]

_PAIRS = 2_000_000  # ProfileDistance blocks: item pairs per block (a similarity builds several such arrays)


def user_frequency(train: Interactions) -> tuple[np.ndarray, int, int]:
    """(|U_i| for every item, |U| users with ≥ 1 training interaction, T = Σ_i |U_i|)."""
    counts = train.item_counts().astype(np.float64)
    n_users = int((train.user_counts() > 0).sum())
    return counts, n_users, int(counts.sum())


def short_head(train: Interactions, share: float = 0.8) -> np.ndarray:
    """Boolean over items: the short head Φ — the most popular items (|U_i| descending) that together make up the
    first `share` of all training interactions: i ∈ Φ ⇔ |U_i| > 0 and Σ_{j: |U_j| > |U_i|} |U_j| < share·T.
    Items tied in popularity are in or out together (Elliot takes them in storage order until the share is
    reached). Abdollahpouri, Burke & Mobasher 2017/2019 (the 80/20 split); Elliot `Popularity.get_short_head`."""
    counts, _, total = user_frequency(train)
    levels, inverse = np.unique(-counts, return_inverse=True)  # popularity levels, most popular first
    mass = np.bincount(inverse, weights=counts, minlength=len(levels))
    above = np.concatenate([[0.0], np.cumsum(mass)[:-1]])  # interactions of strictly more popular items
    return (counts > 0) & (above[inverse] < share * total)


def popularity_complement(train: Interactions) -> np.ndarray:
    """nov_PC(i) = 1 − |U_i| / |U| (thesis eq. 4.3 with eq. 4.9); items absent from training get 1."""
    counts, n_users, _ = user_frequency(train)
    return 1.0 - counts / n_users if n_users else np.ones(len(counts))


def inverse_user_frequency(train: Interactions) -> np.ndarray:
    """nov_IUF(i) = −log2(|U_i| / |U|) (thesis eq. 4.4); absent items get the maximum log2(|U| / min_j |U_j|)."""
    counts, n_users, _ = user_frequency(train)
    return _neg_log2_share(counts, n_users)


def free_discovery(train: Interactions) -> np.ndarray:
    """nov_FD(i) = −log2(|U_i| / T) (thesis eq. 4.5, ICF); absent items get −log2(min_j |U_j| / T) (RankSys FD)."""
    counts, _, total = user_frequency(train)
    return _neg_log2_share(counts, total)


def _neg_log2_share(counts: np.ndarray, total: float) -> np.ndarray:
    seen = counts > 0
    if not seen.any():
        return np.zeros(len(counts))
    out = np.empty(len(counts))
    out[seen] = np.log2(total / counts[seen])
    out[~seen] = np.log2(total / counts[seen].min())
    return out


ITEM_NOVELTY: dict[str, Callable[[Interactions], np.ndarray]] = {
    "pc": popularity_complement,
    "iuf": inverse_user_frequency,
    "fd": free_discovery,
}


def item_novelty(name: str, train: Interactions) -> np.ndarray:
    """The popularity-based novelty array `pc`, `iuf` or `fd` of training data."""
    try:
        return ITEM_NOVELTY[name](train)
    except KeyError:
        raise ConfigError(f"unknown item novelty model {name!r} (pc, iuf, fd)") from None


def gather(values: np.ndarray, items: np.ndarray) -> np.ndarray:
    """values[items] for an (n, k) item array, 0 at padding (−1)."""
    return np.where(items >= 0, values[np.maximum(items, 0)], 0.0)


class SignatureDistances:
    """Distances between item *signatures*: distinct feature rows for feature-based similarities (genres give a
    few hundred), else the items themselves. d = 1 − sim of one representative per signature, NaN where
    undefined (or 1 with undefined="one"). `build` returns None when there are more than `limit` signatures
    (the matrix would be too large); callers then fall back to `ItemSimilarity.sim` blocks."""

    def __init__(self, similarity: ItemSimilarity, signature: np.ndarray, representative: np.ndarray,
                 undefined: str = "skip"):
        self.signature, self.representative = signature, representative
        reps = representative
        d = 1.0 - similarity.sim(reps[None], reps[None])[0] if len(reps) else np.zeros((0, 0))
        self.distance = np.nan_to_num(d, nan=1.0) if undefined == "one" else d

    @classmethod
    def build(cls, similarity: ItemSimilarity, n_items: int, undefined: str = "skip",
              limit: int = 4096) -> SignatureDistances | None:
        sig, reps = _signatures(similarity, n_items)
        return cls(similarity, sig, reps, undefined) if len(reps) <= limit else None

    def of(self, items: np.ndarray) -> np.ndarray:
        """Signature of every item of an (n, k) array; −1 at padding."""
        return np.where(items >= 0, self.signature[np.maximum(items, 0)], -1)


class ProfileDistance:
    """nov_PD(i | u) = Σ_{j∈P_u} w_uj d(i, j) / Σ_{j∈P_u} w_uj over pairs with a defined distance (thesis eq. 4.6
    and 4.15; RankSys `PDItemNovelty` with w ≡ 1). Undefined everywhere (or an empty profile) gives 0.

    Computed without a users × K × |P_u| tensor: items are grouped into signatures (`SignatureDistances`);
    the profile becomes a sparse users × signatures weight matrix W and, for each (user, item), the sums run
    over the user's distinct profile signatures (a compiled loop). With too many signatures the sums are
    sparse–dense products W · S over blocks of the similarity.

    weights: optional values aligned with `train.matrix.data` (p_P(j), e.g. a relevance model of the training
    ratings); undefined="one" counts undefined pairs as distance 1 instead of skipping them; signatures: a
    prebuilt `SignatureDistances`, "auto" (build one) or None (use similarity blocks).
    """

    def __init__(self, train: Interactions, similarity: ItemSimilarity, weights: np.ndarray | None = None,
                 undefined: str = "skip", signatures: SignatureDistances | str | None = "auto"):
        self.similarity = similarity
        self.undefined = undefined
        w = train.matrix.copy().astype(np.float64)
        w.data = np.ones(w.nnz) if weights is None else np.asarray(weights, dtype=np.float64)
        if isinstance(signatures, str):  # "auto": the signature matrix unless there are too many signatures
            signatures = SignatureDistances.build(similarity, train.n_items, undefined)
        self.signatures = signatures
        if self.signatures is not None:
            self.signature, self.representative = self.signatures.signature, self.signatures.representative
        else:
            self.signature, self.representative = _signatures(similarity, train.n_items)
        n_sig = len(self.representative)
        import scipy.sparse as sp

        onehot = sp.csr_matrix((np.ones(train.n_items), (np.arange(train.n_items), self.signature)),
                               shape=(train.n_items, n_sig))
        self.profile = (w @ onehot).tocsr()
        self.profile.sort_indices()

    def __call__(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """(n, k) mean profile distance of items[r, c] for users[r]; 0 at padding."""
        users = np.asarray(users, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        if self.signatures is not None:
            p = self.profile
            work = items.shape[1] * int(np.diff(p.indptr)[users].sum()) if len(users) else 0
            from recdiv.models.novelty_kernels import profile_distances  # numba loads when a kernel runs

            return profile_distances(len(users), p.indptr.astype(np.int64), p.indices.astype(np.int64), p.data,
                                     users, self.signatures.of(items), self.signatures.distance, work=work)
        return self._blocks(users, items)

    def _blocks(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """The sums with the similarities of each user's own pairs only, (list item, profile signature): sim of
        the (c, K) lists against the (c, P) padded profiles of a block of users, then Σ_j w_uj·sim and Σ_j w_uj over
        the profile in ascending signature order (the order of the sparse product W · Sᵀ)."""
        out = np.zeros(items.shape)
        valid = items >= 0
        p = self.profile
        lengths = np.diff(p.indptr)[users]
        width = int(lengths.max()) if len(users) else 0
        if not (valid.any() and width):
            return out
        reps = self.representative
        listed = np.where(valid, reps[self.signature[np.maximum(items, 0)]], -1)
        step = max(1, _PAIRS // (items.shape[1] * width))
        for lo in range(0, len(users), step):
            blk = slice(lo, lo + step)
            rows = p[users[blk]]
            counts = np.diff(rows.indptr)
            r = np.repeat(np.arange(len(counts)), counts)
            at = np.arange(rows.nnz) - np.repeat(rows.indptr[:-1], counts)
            profile = np.full((len(counts), width), -1, dtype=np.int64)
            profile[r, at] = reps[rows.indices]
            w = np.zeros((len(counts), width))
            w[r, at] = rows.data
            s = self.similarity.sim(listed[blk], profile)  # (c, K, P)
            defined = ~np.isnan(s) if self.undefined == "skip" else np.ones(s.shape, dtype=bool)
            s = np.nan_to_num(s, nan=0.0)
            num, den = np.zeros(s.shape[:2]), np.zeros(s.shape[:2])
            for j in range(width):  # one profile position at a time: the sparse product's order of addition
                wj = w[:, j][:, None]
                num += wj * s[:, :, j]  # Σ w · sim
                den += wj * defined[:, :, j]  # Σ w over defined pairs
            with np.errstate(invalid="ignore", divide="ignore"):
                val = np.where(den > 0, (den - num) / np.where(den > 0, den, 1.0), 0.0)
            out[blk] = np.where(valid[blk], val, 0.0)
        return out


def _signatures(similarity: ItemSimilarity, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """(signature of each item, one representative item per signature)."""
    features = getattr(similarity, "features", None)
    if isinstance(features, np.ndarray) and features.ndim == 2 and len(features) == n_items and n_items:
        _, first, inverse = np.unique(features, axis=0, return_index=True, return_inverse=True)
        return inverse.reshape(-1).astype(np.int64), first.astype(np.int64)
    return np.arange(n_items, dtype=np.int64), np.arange(n_items, dtype=np.int64)
