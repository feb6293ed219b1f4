"""xQuAD (Santos, Macdonald & Ounis, WWW 2010; recsys instantiation of Vargas et al. / RankSys).

See docs/diversifiers.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import score_aspect_probabilities
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.greedy_kernels import aspect_coverage_greedy
from recdiv.diversifiers.mmr import _baseline
from recdiv.diversifiers.normalize import normalize, probability, zscore

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class XQuADConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0)
    alpha: float = Field(1.0, gt=0.0, le=1.0)
    norm: Literal["sum", "minmax", "max", "rank", "zscore", "none"] = "sum"
    weighting: Literal["count", "rating", "fractional"] = "count"


class XQuAD(GreedyReranker):
    """Explicit query aspect diversification.

    f(i|S) = (1 − λ)·P(i|u) + λ·Σ_a p(a|u)·P(i|u,a)·Π_{j∈S}(1 − α·P(j|u,a)), with
    P(i|u) = s⁺(i) / Σ_{j∈C} s⁺(j) (norm=sum, the default) and P(i|u,a) = s⁺(i)[a∈A(i)] / Σ_{j∈C: a∈A(j)} s⁺(j):
    relevance and coverage are probabilities from the same normalisation of the baseline scores, as Santos et al.
    define them (both sum to one over the candidates); p(a|u) count-based. α < 1 is RankSys `AlphaXQuAD`.
    Other `norm` values put P(i|u) = ŝ(i) on another scale: norm=minmax (the default of docs/diversifiers.md
    [CHOICE] and of recdiv before issue #16) weighs relevance ~N times more than coverage on an N-candidate
    list, so λ = 0.5 hardly moves it;
    norm=zscore reproduces RankSys with norm=true: both terms (raw score and diversity) are z-scored over the
    remaining candidates at every step, and λ = 0 returns the baseline order.
    Santos et al., "Exploiting query reformulations for web search result diversification", WWW 2010.
    docs/diversifiers.md
    """

    NAME = "xQuAD"
    PURE_RELEVANCE = ({"lambda": 0.0}, {"lambda": 0.0, "norm": "zscore"})
    FORMULA = "(1−λ)·P(i|u) + λ·Σ_a p(a|u)P(i|u,a)Π_{j∈S}(1 − αP(j|u,a)), P(i|u) = s⁺(i)/Σ_C s⁺"
    CITATION = "Santos et al. 2010"
    NEEDS = ("aspects", "train")
    Config = XQuADConfig

    def _rerank_block(self, block, k):
        if self.config.norm == "zscore" and self.config.lambda_ == 0.0:
            return _baseline(block, k)
        return super()._rerank_block(block, k)

    def init_state(self, block: CandidateBlock):
        pua = score_aspect_probabilities(block)
        pu = block.user_distribution(self.config.weighting)
        norm = self.config.norm
        if norm == "sum":
            rel = probability(block.scores, block.valid)
        else:
            rel = None if norm == "zscore" else normalize(block.scores, block.valid, norm)
        return {"pua": pua, "pu": pu, "U": np.ones_like(pu), "rel": rel}

    def fused(self, block, k):
        if self.config.norm == "zscore":
            return None
        st = self.init_state(block)
        ell = st["pua"].ell(force=True)
        if ell is None:
            return None
        out = np.full((block.n, k), -1, dtype=np.int64)
        lam, shape = self.config.lambda_, block.items.shape
        aspect_coverage_greedy(*ell, (1.0 - lam) * st["rel"], np.broadcast_to(lam, shape), st["pu"],
                               np.broadcast_to(self.config.alpha, shape), block.valid, out)
        return out

    def objective(self, st, block, remaining, t):
        lam = self.config.lambda_
        div = st["pua"].dot(st["pu"] * st["U"])
        if self.config.norm == "zscore":
            return (1.0 - lam) * zscore(block.scores, remaining) + lam * zscore(div, remaining)
        return (1.0 - lam) * st["rel"] + lam * div

    def relevance_term(self, st, block, remaining, t):
        """(1 − λ)·P(i|u) (or its z-score); the rest of f is the aspect-coverage term."""
        if self.config.norm == "zscore":
            return (1.0 - self.config.lambda_) * zscore(block.scores, remaining)
        return (1.0 - self.config.lambda_) * st["rel"]

    def update(self, st, block, picked, t):
        st["U"] *= 1.0 - self.config.alpha * st["pua"].rows(picked)

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of xQuAD's objective (its oracle: `recdiv.diversifiers.reference`)."""
        import math

        from recdiv.diversifiers.reference import aspect_probs, greedy_loop, lambda_values, minmax, probability

        n = len(cands)
        lam = params.get("lambda", 0.5)
        alpha = params.get("alpha", 1.0)
        P = aspect_probs(cands, scores, env)

        def div(i, S):
            return sum(p * P[i].get(a, 0.0) * math.prod(1 - alpha * P[j].get(a, 0.0) for j in S)
                       for a, p in env.pu.items() if p > 0)

        if params.get("norm", "sum") == "zscore":
            if lam == 0:
                return list(range(min(k, n)))
            return greedy_loop(n, k, lambda rem, S: lambda_values(rem, scores, {i: div(i, S) for i in rem}, lam))
        sh = probability(scores) if params.get("norm", "sum") == "sum" else minmax(scores)
        return greedy_loop(n, k, lambda rem, S: {i: (1 - lam) * sh[i] + lam * div(i, S) for i in rem})
