"""PM-2 — proportional diversification (Dang & Croft, SIGIR 2012; RankSys `PM`; docs/diversifiers.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import score_aspect_probabilities
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.greedy_kernels import pm2_greedy

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class PM2Config(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0)
    weighting: Literal["count", "rating", "fractional"] = "count"


class PM2(GreedyReranker):
    """Seat allocation by Sainte-Laguë quotients.

    Votes v_a = p(a|u)·k, seats s_a = 0. Each step: qt_a = v_a/(2 s_a + 1); a* = argmax_a qt_a (ties → first aspect);
    f(i) = λ·qt_{a*}·P(i|u,a*) + (1 − λ)·Σ_{a≠a*} qt_a·P(i|u,a) with P(i|u,a) as xQuAD; after picking i*:
    s_a ← s_a + P(i*|u,a)/Σ_{a'} P(i*|u,a'). Dang & Croft, "Diversity by proportionality", SIGIR 2012.
    docs/diversifiers.md
    """

    NAME = "PM2"
    FORMULA = "Sainte-Laguë quotients; λ·qt_{a*}P(i|u,a*) + (1−λ)Σ_{a≠a*} qt_a P(i|u,a)"
    CITATION = "Dang & Croft 2012"
    NEEDS = ("aspects", "train")
    Config = PM2Config
    DEPTH_FREE = False  # its votes are p(a|u)·k: the same order at any k in exact arithmetic, not in rounding

    def init_state(self, block: CandidateBlock):
        pua = score_aspect_probabilities(block)
        pu = block.user_distribution(self.config.weighting)
        return {"pua": pua, "votes": pu * block.cache.get("k", 1), "seats": np.zeros_like(pu)}

    def _rerank_block(self, block, k):
        block.cache["k"] = k
        return super()._rerank_block(block, k)

    def fused(self, block, k):  # called by _rerank_block after block.cache["k"] is set
        st = self.init_state(block)
        ell = st["pua"].ell(force=True)
        if ell is None or st["votes"].shape[1] > 128:
            return None
        out = np.full((block.n, k), -1, dtype=np.int64)
        pm2_greedy(*ell, st["votes"], self.config.lambda_, block.valid, out)
        return out

    def objective(self, st, block, remaining, t):
        lam = self.config.lambda_
        qt = st["votes"] / (2.0 * st["seats"] + 1.0)
        star = np.argmax(qt, axis=1)
        w = (1.0 - lam) * qt
        rows = np.arange(block.n)
        w[rows, star] = lam * qt[rows, star]
        return st["pua"].dot(w)

    def update(self, st, block, picked, t):
        p = st["pua"].rows(picked)
        tot = p.sum(axis=1, keepdims=True)
        st["seats"] += np.where(tot > 0, p / np.where(tot > 0, tot, 1.0), 0.0)

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of PM2's objective (its oracle: `recdiv.diversifiers.reference`)."""
        from recdiv.diversifiers.reference import aspect_probs, greedy_loop

        n = len(cands)
        lam = params.get("lambda", 0.5)
        P = aspect_probs(cands, scores, env)
        aspects = sorted(env.pu)
        votes = {a: env.pu[a] * min(k, n) for a in aspects}
        seats = {a: 0.0 for a in aspects}

        def value(rem, S):
            if S:  # fold in the last pick
                last = P[S[-1]]
                tot = sum(last.values())
                if tot > 0:
                    for a, p in last.items():
                        seats[a] += p / tot
            qt = {a: votes[a] / (2 * seats[a] + 1) for a in aspects}
            star = max(aspects, key=lambda a: (qt[a], -aspects.index(a)))
            return {i: sum((lam if a == star else 1 - lam) * qt[a] * P[i].get(a, 0.0) for a in aspects)
                    for i in rem}

        return greedy_loop(n, k, value)
