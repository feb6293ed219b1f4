"""Per-block candidate structures that make one greedy step cost O(users × N × aspects-per-item).

`BlockSparse` stacks the (sparse) feature rows of every user's candidates into one block-diagonal CSR
(n·N) × (n·F): `dot(w)` gives Σ_a X[c, a]·w[u, a] for all users and candidates with one sparse mat-vec, `rows(pos)`
the feature rows of the picked candidates. Aspect-based objectives (IA-Select, xQuAD, PM-2, calibration) and
feature-based similarity slices (MMR, Ziegler, DPP) are both built on it. SciPy and the numba kernels are imported
where they are used: MMR over aspect bit masks needs neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from recdiv.aspects.similarity import ItemSimilarity, Jaccard, SetCosine, _FeatureSimilarity

if TYPE_CHECKING:
    import scipy.sparse as sp


class BlockSparse:
    """Block-diagonal CSR whose row u·N + c holds the feature row of candidate c of user u (zeros at padding)."""

    def __init__(self, features: sp.csr_matrix, items: np.ndarray, values: np.ndarray | None = None,
                 columns: np.ndarray | None = None, width: int | None = None):
        """`values`/`columns` (aligned with the gathered non-zeros) override data and per-user column indices."""
        import scipy.sparse as sp

        features = sp.csr_matrix(features)
        n, N = items.shape
        F = width if width is not None else features.shape[1]
        flat = items.ravel()
        safe = np.where(flat >= 0, flat, 0)
        counts = np.where(flat >= 0, np.diff(features.indptr)[safe], 0)
        indptr = np.zeros(n * N + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        total = int(indptr[-1])
        src = np.repeat(features.indptr[safe] - indptr[:-1], counts) + np.arange(total)
        self.row_of = np.repeat(np.arange(n * N), counts)  # (u, c) row of every non-zero
        self.aspect = features.indices[src].astype(np.int64)  # aspect of every non-zero
        cols = self.aspect if columns is None else columns
        data = features.data[src] if values is None else values
        idx_t = np.int32 if max(n * F, total) < 2**31 - 1 else np.int64
        self.matrix = sp.csr_matrix(
            (np.asarray(data, dtype=np.float64), (cols + (self.row_of // N) * F).astype(idx_t), indptr.astype(idx_t)),
            shape=(n * N, n * F),
        )
        self.n, self.N, self.F = n, N, F
        self._ell_cache: tuple | None = None

    def with_values(self, data: np.ndarray, columns: np.ndarray | None = None, width: int | None = None) -> BlockSparse:
        """Same non-zero pattern with new values (and optionally remapped columns / width)."""
        import scipy.sparse as sp

        out = object.__new__(BlockSparse)
        out.row_of, out.aspect, out.n, out.N = self.row_of, self.aspect, self.n, self.N
        out.F = self.F if width is None else width
        out._ell_cache = None
        if columns is None and width is None:
            out.matrix = sp.csr_matrix((np.asarray(data, np.float64), self.matrix.indices, self.matrix.indptr),
                                       shape=self.matrix.shape)
        else:
            cols = self.aspect if columns is None else columns
            idx = (cols + (self.row_of // self.N) * out.F).astype(self.matrix.indices.dtype)
            out.matrix = sp.csr_matrix((np.asarray(data, np.float64), idx, self.matrix.indptr),
                                       shape=(self.n * self.N, self.n * out.F))
        return out

    @property
    def data(self) -> np.ndarray:
        return self.matrix.data

    def user_of_nz(self) -> np.ndarray:
        return self.row_of // self.N

    def ell(self, force: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
        """Padded layout (rows × longest row) `cols`, `vals`: block column u·F + a and value of each stored entry in
        stored order; padding slots hold column n·F (a zero appended to w) and value 0. None when padding would
        more than double the stored entries, unless `force`; None also when a row has more than 64 entries."""
        if self._ell_cache is not None:
            return self._ell_cache
        m = self.matrix
        counts = np.diff(m.indptr)
        L = int(counts.max(initial=0))
        if L > 64 or (not force and L * len(counts) > 2 * m.nnz + len(counts)):
            return None
        cols = np.full((len(counts), max(L, 1)), self.n * self.F, dtype=m.indices.dtype)
        vals = np.zeros(cols.shape)
        slot = np.arange(m.nnz) - np.repeat(m.indptr[:-1], counts)
        cols[self.row_of, slot], vals[self.row_of, slot] = m.indices, m.data
        self._ell_cache = (cols, vals)
        return self._ell_cache

    def dot(self, w: np.ndarray) -> np.ndarray:
        """(n, N) with entry Σ_a X[c_uc, a]·w[u, a]; w is (n, F). One pass over the non-zeros (numba), each row
        summed in stored order."""
        from recdiv.diversifiers.blocks_kernels import csr_row_dot, ell_row_dot

        out = np.empty(self.n * self.N)
        ell = self.ell()
        wf = np.empty(self.n * self.F + 1)
        wf[:-1] = np.asarray(w, dtype=np.float64).ravel()
        wf[-1] = 0.0
        if ell is not None:
            ell_row_dot(ell[0], ell[1], wf, out)
        else:
            m = self.matrix
            csr_row_dot(m.indptr, m.indices, m.data, wf, out)
        return out.reshape(self.n, self.N)

    def column_sums(self, weights: np.ndarray) -> np.ndarray:
        """(n, F) with entry Σ_c X[c_uc, a]·weights[u, c]."""
        return (self.matrix.T @ np.nan_to_num(weights, nan=0.0).ravel()).reshape(self.n, self.F)

    def rows(self, pos: np.ndarray) -> np.ndarray:
        """Dense (n, F) feature rows of the candidates at positions `pos` (−1 ⇒ zeros)."""
        pos = np.asarray(pos)
        out = np.zeros(self.n * self.F)
        ok = pos >= 0
        r = (np.arange(self.n) * self.N + np.where(ok, pos, 0))[ok]
        ip = self.matrix.indptr
        starts, counts = ip[r], ip[r + 1] - ip[r]
        total = int(counts.sum())
        idx = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts) + np.arange(total)
        out[self.matrix.indices[idx]] = self.matrix.data[idx]
        return out.reshape(self.n, self.F)


SimSlicer = Callable[[np.ndarray], np.ndarray]


def similarity_slicer(sim: ItemSimilarity, items: np.ndarray) -> tuple[SimSlicer, np.ndarray]:
    """(slice, defined): slice(pos) = sim(c_{u,pos_u}, c_{u,·}) as (n, N), NaN where undefined; defined (n, N) is
    True where the candidate has features (sim with itself defined).

    Feature-based similarities (set cosine, Jaccard, latent cosine) use one sparse mat-vec per slice; any other
    `ItemSimilarity` falls back to its `sim` method.
    """
    n, N = items.shape
    rows = np.arange(n)
    if isinstance(sim, (SetCosine, Jaccard)) and sim.features.shape[1] <= 63 and sim.binary:
        return _bitmask_slicer(sim, items)
    if isinstance(sim, _FeatureSimilarity):
        import scipy.sparse as sp

        block = BlockSparse(sp.csr_matrix(sim.features), items)
        nrm = np.where(items >= 0, sim._norm[np.maximum(items, 0)], 0.0)
        defined = nrm > 0

        def slice_(pos: np.ndarray) -> np.ndarray:
            p = np.maximum(pos, 0)
            dot = block.dot(block.rows(pos))
            na = nrm[rows, p][:, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                s = sim._combine(dot, na, nrm)
            return np.where(defined & (na > 0) & (pos >= 0)[:, None], s, np.nan)

        return slice_, defined

    diag = sim.sim(items.reshape(-1, 1), items.reshape(-1, 1)).reshape(n, N)
    defined = ~np.isnan(diag) & (items >= 0)

    def generic(pos: np.ndarray) -> np.ndarray:
        picked = items[rows, np.maximum(pos, 0)]
        picked = np.where(pos >= 0, picked, -1)
        return sim.sim(picked[:, None], items)[:, 0, :]

    return generic, defined


class BitmaskSlicer:
    """0/1 features with ≤ 63 columns: |A(i) ∩ A(j)| = popcount(mask_i & mask_j), one numba pass per slice.

    masks (n, N) int64 aspect bit masks, size (n, N) |A(c)|, inv (n, N) 1/√|A(c)| (NaN without features), defined
    (n, N), cosine (set cosine, else Jaccard); calling it with picked positions (n,) gives the (n, N) slice."""

    def __init__(self, sim: _FeatureSimilarity, items: np.ndarray):
        masks = sim.bitmasks
        safe = np.maximum(items, 0)
        self.shape = items.shape
        self.masks = np.where(items >= 0, masks[safe], 0)
        self.size = np.where(items >= 0, sim._norm[safe], 0.0)  # |A(c)|
        self.defined = self.size > 0
        self.cosine = isinstance(sim, SetCosine)
        with np.errstate(divide="ignore"):
            self.inv = np.where(self.defined, 1.0 / np.sqrt(self.size), np.nan)

    def pairs(self, picked: np.ndarray, others: np.ndarray) -> np.ndarray:
        """(n, a, b): sim(c_{u,picked[u,x]}, c_{u,others[u,y]}) for candidate positions (n, a) and (n, b) ≥ 0, NaN
        where undefined (the arithmetic of a call)."""
        from recdiv.diversifiers.blocks_kernels import set_similarity_pairs

        out = np.empty((self.shape[0], picked.shape[1], others.shape[1]))
        set_similarity_pairs(self.masks, self.inv, self.size, self.defined, np.ascontiguousarray(picked, np.int64),
                             np.ascontiguousarray(others, np.int64), self.cosine, out)
        return out

    def __call__(self, pos: np.ndarray) -> np.ndarray:
        from recdiv.diversifiers.blocks_kernels import set_similarity

        out = np.empty(self.shape)
        set_similarity(self.masks, self.inv, self.size, self.defined, np.asarray(pos, dtype=np.int64), self.cosine,
                       out)
        return out


def _bitmask_slicer(sim: _FeatureSimilarity, items: np.ndarray) -> tuple[SimSlicer, np.ndarray]:
    slicer = BitmaskSlicer(sim, items)
    return slicer, slicer.defined


def aspect_indicator(block) -> BlockSparse:
    """0/1 block of A(c) for the candidates of a `CandidateBlock` (cached on the block)."""
    if "aspect_indicator" not in block.cache:
        space = block.context.require_aspects("this reranker")
        block.cache["aspect_indicator"] = BlockSparse(space.indicator, block.items)
    return block.cache["aspect_indicator"]


def item_aspect_distribution(block) -> BlockSparse:
    """p(a|c) of the candidates: the intent model p(a|i) of the context (`Context.item_distribution`, METRICS.md
    §E.11) gathered into the block (cached on the block)."""
    if "item_aspect_distribution" not in block.cache:
        block.context.require_aspects("this reranker")
        block.cache["item_aspect_distribution"] = BlockSparse(block.context.item_distribution(), block.items)
    return block.cache["item_aspect_distribution"]


def aspect_probabilities(block, nonneg_scores: np.ndarray) -> BlockSparse:
    """P(c|u,a) = s⁺(c)·[a∈A(c)] / Σ_{j∈C: a∈A(j)} s⁺(j), uniform over the candidates with a when that sum is 0
    (METRICS.md §E.4; RankSys `ScoresAspectModel`)."""
    ind = aspect_indicator(block)
    s = np.nan_to_num(nonneg_scores, nan=0.0)
    z = ind.column_sums(s).ravel()
    cnt = ind.column_sums(block.valid.astype(np.float64)).ravel()
    col = ind.matrix.indices.astype(np.int64)
    sv = s.ravel()[ind.row_of]
    zc = z[col]
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.where(zc > 0, sv / np.where(zc > 0, zc, 1.0), 1.0 / np.maximum(cnt[col], 1.0))
    return ind.with_values(vals)


def score_aspect_probabilities(block) -> BlockSparse:
    """`aspect_probabilities` of the block's own scores made non-negative (xQuAD, PM-2; cached on the block, read
    only)."""
    if "aspect_probabilities" not in block.cache:
        from recdiv.diversifiers.normalize import nonnegative

        block.cache["aspect_probabilities"] = aspect_probabilities(block, nonnegative(block.scores, block.valid))
    return block.cache["aspect_probabilities"]


def orthogonal_coefficients(basis: np.ndarray, kernel_row: np.ndarray, picked: np.ndarray, d2_picked: np.ndarray,
                            live: np.ndarray) -> np.ndarray:
    """One Gram–Schmidt step in kernel form, for every user of a block: the coefficients of the candidates on the
    new orthonormal direction u = r_p / ‖r_p‖, r_p the residual of the picked candidate p against the current
    directions, e_i = ⟨v_i, u⟩ = (K(p, i) − Σ_s e_{s,p}·e_{s,i}) / √d²_p, where `basis` (n, s, N) holds the
    coefficients e_{s,·} on the current directions, `kernel_row` (n, N) = K(p, ·), `d2_picked` = d²_p = ‖r_p‖²;
    0 for users not `live`. The squared residual norms then drop by e_i² (DPP's incremental Cholesky, Chen et al.
    2018; SSD's sliding-window orthogonalisation, Huang et al. 2021). The sum over s runs in order from 0.0
    (`blocks_kernels.orthogonal_step`; not a BLAS product, whose order depends on the BLAS build), so SSD's compiled
    loop repeats it exactly."""
    from recdiv.diversifiers.blocks_kernels import orthogonal_step

    out = np.empty(kernel_row.shape)
    orthogonal_step(basis, np.ascontiguousarray(kernel_row, dtype=np.float64), np.maximum(picked, 0).astype(np.int64),
                    np.asarray(d2_picked, dtype=np.float64), np.asarray(live, dtype=np.bool_), out)
    return out
