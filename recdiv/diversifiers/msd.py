"""MSD — max-sum diversification, greedy (Borodin, Lee & Ye, PODS 2012)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import BitmaskSlicer, similarity_slicer
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.normalize import normalize

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class MSDConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0, description="weight of relevance")
    norm: Literal["minmax", "max", "sum", "rank", "zscore", "none"] = "minmax"


class MSD(GreedyReranker):
    """Max-sum diversification: f(i | S) = λ·ŝ(i) + (1 − λ)·Σ_{j∈S} (1 − sim(i, j)), the greedy step for
    max_{|S|=k} λ·Σ_{i∈S} ŝ(i) + (1 − λ)·Σ_{i<j∈S} d(i, j) (Borodin et al.'s greedy adds the item maximising
    ½·f_S(i) + λ'·d(i, S), a 2-approximation; the weights here are λ and 1 − λ, as in MMR). Undefined similarities
    (items without features) are skipped: a featureless candidate is skipped once S ≠ ∅ (unless λ = 1), as in
    MMR. λ = 1 keeps the baseline order. Borodin, Lee & Ye, "Max-Sum diversification, monotone submodular
    functions and dynamic updates", PODS 2012; Pyversity's `msd` is the same step with diversity = 1 − λ and raw
    scores (`norm=none`).
    """

    NAME = "MSD"
    PURE_RELEVANCE = ({"lambda": 1.0},)
    FORMULA = "λ·ŝ(i) + (1−λ)·Σ_{j∈S} (1 − sim(i,j))"
    CITATION = "Borodin et al., PODS 2012"
    NEEDS = ("similarity",)
    Config = MSDConfig

    def fused(self, block, k):
        from recdiv.diversifiers.greedy_kernels import msd_greedy

        st = self.init_state(block)
        sl = st["slice"]
        if not isinstance(sl, BitmaskSlicer):
            return None
        out = np.full((block.n, k), -1, dtype=np.int64)
        msd_greedy(*(np.ascontiguousarray(a) for a in (st["first"], st["base"])), 1.0 - self.config.lambda_,
                   *(np.ascontiguousarray(a) for a in (sl.masks, sl.inv, sl.size)), bool(sl.cosine),
                   np.ascontiguousarray(block.valid), out)
        return out

    def init_state(self, block: CandidateBlock):
        slicer, defined = similarity_slicer(block.context.item_similarity(), block.items)
        lam = self.config.lambda_
        first = lam * normalize(block.scores, block.valid, self.config.norm)
        return {"slice": slicer, "first": first, "base": np.where(defined | (lam == 1.0), first, np.nan),
                "dist": np.zeros(block.items.shape)}

    def objective(self, st, block, remaining, t):
        if t == 0:
            return st["first"]
        return st["base"] + (1.0 - self.config.lambda_) * st["dist"]

    def relevance_term(self, st, block, remaining, t):
        """λ·ŝ(i); the rest of f is (1 − λ)·Σ_{j∈S} d(i, j)."""
        return st["first"]

    def update(self, st, block, picked, t):
        s = st["slice"](picked)
        st["dist"] += np.where(np.isnan(s), 0.0, 1.0 - s)

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of MSD's objective (its oracle: `recdiv.diversifiers.reference`): Borodin,
        Lee & Ye's (PODS 2012) greedy step λ·ŝ(i) + (1 − λ)·Σ_{j∈S} (1 − sim(i, j)), the distances to S summed in
        the order S was chosen, an undefined similarity left out; a candidate without features has no defined
        distance, so once S ≠ ∅ its objective is undefined (skipped) unless λ = 1."""
        import math

        from recdiv.diversifiers.reference import greedy_loop, normalized

        lam = params.get("lambda", 0.5)
        rel = normalized(scores, params.get("norm", "minmax"))

        def value(remaining, chosen):
            out = {}
            for i in remaining:
                if chosen and not env.aspects(cands[i]) and lam < 1:
                    out[i] = math.nan
                    continue
                dist = 0.0
                for j in chosen:
                    sim = env.sim(cands[i], cands[j])
                    if not math.isnan(sim):
                        dist += 1 - sim
                out[i] = lam * rel[i] + (1 - lam) * dist
            return out

        return greedy_loop(len(cands), k, value)
