"""IA-Select (Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009; recsys form of Vargas 2012 §3.4).

See docs/diversifiers.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import item_aspect_distribution
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.greedy_kernels import aspect_coverage_greedy
from recdiv.diversifiers.normalize import normalize

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class IASelectConfig(RerankerConfig):
    norm: Literal["minmax", "max", "sum", "rank", "none"] = "minmax"
    weighting: Literal["count", "rating", "fractional"] = "count"


class IASelect(GreedyReranker):
    """Intent-aware selection: maximise P(S|u) = Σ_a p(a|u)·(1 − Π_{j∈S}(1 − V(j|a))).

    V(i|a) = ŝ(i)·p(a|i); state U_a = Π_{j∈S}(1 − V(j|a)); f(i|S) = Σ_a p(a|u)·V(i|a)·U_a (the marginal gain);
    after picking i*: U_a ← U_a·(1 − V(i*|a)). ŝ = minmax, p(a|u) count-based (`weighting`). No trade-off parameter.
    Agrawal et al., "Diversifying search results", WSDM 2009. docs/diversifiers.md
    """

    NAME = "IASelect"
    FORMULA = "Σ_a p(a|u)·ŝ(i)p(a|i)·Π_{j∈S}(1 − ŝ(j)p(a|j))"
    CITATION = "Agrawal et al. 2009"
    NEEDS = ("aspects", "train")
    Config = IASelectConfig

    def init_state(self, block: CandidateBlock):
        shat = np.nan_to_num(normalize(block.scores, block.valid, self.config.norm), nan=0.0)
        pu = block.user_distribution(self.config.weighting)
        return {"shat": shat, "pai": item_aspect_distribution(block), "pu": pu, "U": np.ones_like(pu)}

    def fused(self, block, k):
        st = self.init_state(block)
        ell = st["pai"].ell(force=True)
        if ell is None:
            return None
        out = np.full((block.n, k), -1, dtype=np.int64)
        aspect_coverage_greedy(*ell, np.zeros_like(st["shat"]), st["shat"], st["pu"], st["shat"], block.valid, out)
        return out

    def objective(self, st, block, remaining, t):
        return st["shat"] * st["pai"].dot(st["pu"] * st["U"])

    def update(self, st, block, picked, t):
        v = st["shat"][np.arange(block.n), np.maximum(picked, 0)][:, None] * st["pai"].rows(picked)
        st["U"] *= 1.0 - v

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of IASelect's objective (its oracle: `recdiv.diversifiers.reference`)."""
        import math

        from recdiv.diversifiers.reference import greedy_loop, minmax

        n = len(cands)
        sh = minmax(scores)

        def V(i, a):
            A = env.aspects(cands[i])
            return sh[i] / len(A) if a in A else 0.0

        def value(rem, S):
            return {i: sum(p * V(i, a) * math.prod(1 - V(j, a) for j in S) for a, p in env.pu.items()) for i in rem}

        return greedy_loop(n, k, value)
