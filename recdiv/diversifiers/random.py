"""Random reranking (docs/diversifiers.md): a seeded random permutation of each user's candidates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, Reranker, RerankerConfig

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class RandomConfig(RerankerConfig):
    seed: int | None = Field(None, description="seed; None = the context's seed")


class Random(Reranker):
    """perm = default_rng(seed).permutation(N_u) per user, users in ascending dense index, one generator per run;
    output the first k. A lower bound for diversity/novelty comparisons. docs/diversifiers.md"""

    NAME = "Random"
    FORMULA = "a seeded permutation"
    NEEDS = ()
    Config = RandomConfig
    BLOCK_USERS = 1 << 62  # one block: the generator stream runs over all users in order

    def _rerank_block(self, block: CandidateBlock, k: int) -> np.ndarray:
        seed = self.config.seed if self.config.seed is not None else block.context.seed
        rng = np.random.default_rng(seed)
        out = np.full((block.n, k), -1, dtype=np.int64)
        lengths = block.lengths
        order = np.argsort(block.ids if block.ids is not None else np.arange(block.n), kind="stable")
        if (lengths == block.N).all():  # equal lengths: one call, same stream as per-user permutation(N)
            perm = rng.permuted(np.tile(np.arange(block.N), (block.n, 1)), axis=1)
            out[order] = perm[:, :k]
            return out
        for r in order:  # ragged lists: one permutation per user, in the same stream order
            out[r, : min(k, lengths[r])] = rng.permutation(int(lengths[r]))[:k]
        return out

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of Random's objective (its oracle: `recdiv.diversifiers.reference`)."""

        n = len(cands)
        return [int(x) for x in env.rng.permutation(n)[:k]]
