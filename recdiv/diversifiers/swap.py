"""Swap — diversification by swapping items into the top-k (Yu, Lakshmanan & Amer-Yahia, EDBT 2009)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, Reranker, RerankerConfig
from recdiv.diversifiers.blocks import BitmaskSlicer, similarity_slicer
from recdiv.diversifiers.normalize import normalize

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class SwapConfig(RerankerConfig):
    threshold: float = Field(0.5, ge=0.0, le=1.0, description="relevance bound: candidates with ŝ below it are "
                                                               "not swapped in")
    norm: Literal["minmax", "max", "sum", "rank", "zscore", "none"] = "minmax"


class Swap(Reranker):
    """Swap: start from the k best candidates R; then for every other candidate c in baseline order, while
    ŝ(c) ≥ `threshold`: take the member i* of R that contributes least to R's diversity,
    i* = argmin_{i∈R} Σ_{j∈R∖{i}} d(i, j) (ties: the lowest-ranked member), and replace it by c when
    Σ_{j∈R∖{i*}} d(c, j) > Σ_{j∈R∖{i*}} d(i*, j), i.e. when the swap increases the sum of pairwise distances
    Σ_{i<j∈R} d(i, j), d = 1 − sim (undefined similarities are skipped). The list is R in baseline order.
    Contributions are updated incrementally after each swap (+ d(j, c) − d(j, i*)) and compared rounded to 12
    decimals, so that mathematically equal sums tie whatever their rounding (`tie_key`). `threshold` = 1 keeps the
    baseline list (only candidates as relevant as the best are swapped in). Yu, Lakshmanan & Amer-Yahia, "It takes
    variety to make a world: diversification in recommender systems", EDBT 2009 (the Swap algorithm, with the
    relevance bound as a threshold on the normalised score).
    """

    NAME = "Swap"
    PURE_RELEVANCE = ({"threshold": 1.0},)
    FORMULA = ("start from the top k; swap in each candidate with ŝ ≥ threshold for the member of least "
               "diversity contribution when Σ d grows")
    CITATION = "Yu, Lakshmanan & Amer-Yahia, EDBT 2009"
    NEEDS = ("similarity",)
    Config = SwapConfig

    def _rerank_block(self, block: CandidateBlock, k: int) -> np.ndarray:
        slicer, _ = similarity_slicer(block.context.item_similarity(), block.items)
        relevant = normalize(block.scores, block.valid, self.config.norm) >= self.config.threshold
        if isinstance(slicer, BitmaskSlicer):
            from recdiv.diversifiers.greedy_kernels import swap_select

            members = np.zeros(block.items.shape, dtype=bool)
            swap_select(slicer.masks, slicer.inv, slicer.size, slicer.defined, slicer.cosine, block.valid,
                        np.ascontiguousarray(relevant), k, members)
        else:
            members = self._select(slicer, block, relevant, k)
        return _in_order(members, k)

    def _select(self, slicer, block: CandidateBlock, relevant: np.ndarray, k: int) -> np.ndarray:
        """Members (n, N) of R after the swaps: the readable form of `greedy_kernels.swap_select`."""
        n, N = block.items.shape
        rows = np.arange(n)
        members = block.valid & (np.arange(N)[None, :] < k)
        contrib = np.zeros((n, N))
        for p in range(min(k, N)):  # Σ_{j∈R∖{i}} d(i, j), j in position order
            d = distance(slicer(np.where(members[:, p], p, -1)))
            contrib += np.where(members & (np.arange(N)[None, :] != p), d, 0.0)
        running = np.ones(n, dtype=bool)
        for c in range(k, N):
            running &= block.valid[:, c] & relevant[:, c]
            if not running.any():
                break
            key = np.where(members, tie_key(contrib), np.inf)
            worst = N - 1 - np.argmin(key[:, ::-1], axis=1)  # ties: the lowest-ranked member
            dc = distance(slicer(np.where(running, c, -1)))
            keep = members & (np.arange(N)[None, :] != worst[:, None])
            gain = _ordered_sum(dc, keep)
            swap = running & (tie_key(gain) > tie_key(contrib[rows, worst]))
            if not swap.any():
                continue
            dw = distance(slicer(np.where(swap, worst, -1)))
            contrib = np.where(swap[:, None] & keep, contrib + dc - dw, contrib)
            contrib[rows[swap], c] = gain[swap]
            members[rows[swap], worst[swap]] = False
            members[rows[swap], c] = True
        return members

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of Swap (its oracle: `recdiv.diversifiers.reference`): Yu, Lakshmanan &
        Amer-Yahia's (EDBT 2009) Swap, the relevance bound a threshold on ŝ. R = the first k positions; for each
        later candidate c while ŝ(c) ≥ threshold: the member i* of least contribution Σ_{j∈R∖{i}} d(i, j)
        (d = 1 − sim, an undefined similarity left out; ties: the lowest-ranked member) is replaced by c when c's
        contribution to R ∖ {i*} is larger. Every contribution is summed afresh over R in list order and compared
        rounded to 12 decimals (sums equal up to rounding tie). Returns R in list order."""
        import math

        from recdiv.diversifiers.reference import normalized

        threshold = params.get("threshold", 0.5)
        rel = normalized(scores, params.get("norm", "minmax"))

        def d(i, j):
            sim = env.sim(cands[i], cands[j])
            return 0.0 if math.isnan(sim) else 1 - sim

        def contribution(i, members):
            total = 0.0
            for j in members:
                if j != i:
                    total += d(i, j)
            return round(total * 1e12) / 1e12

        members = list(range(min(k, len(cands))))
        for c in range(len(members), len(cands)):
            if not rel[c] >= threshold:
                break
            worst = min(reversed(members), key=lambda i: contribution(i, members))  # min keeps the first found
            rest = [j for j in members if j != worst]
            if contribution(c, rest) > contribution(worst, rest):
                members = sorted([*rest, c])
        return members


def tie_key(x: np.ndarray) -> np.ndarray:
    """x rounded to 12 decimals as rint(x·10¹²)/10¹² (the compiled loop's `_tie_key`): sums equal up to rounding
    compare equal."""
    return np.rint(x * 1e12) / 1e12


def distance(sim: np.ndarray) -> np.ndarray:
    """d = 1 − sim, 0 where the similarity is undefined (skipped in every sum)."""
    return np.where(np.isnan(sim), 0.0, 1.0 - sim)


def _ordered_sum(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Σ over the masked entries of every row, left to right (as the compiled loop sums)."""
    return np.cumsum(np.where(mask, values, 0.0), axis=1)[:, -1] if values.shape[1] else np.zeros(len(values))


def _in_order(members: np.ndarray, k: int) -> np.ndarray:
    """The member positions of every row in baseline order, −1 padded to k."""
    N = members.shape[1]
    pos = np.where(members, np.arange(N)[None, :], N)
    pos = np.sort(pos, axis=1)[:, :k]
    return np.where(pos < N, pos, -1)
