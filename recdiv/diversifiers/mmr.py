"""MMR — maximal marginal relevance (Carbonell & Goldstein 1998; Vargas 2012 thesis §3.4; docs/diversifiers.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.aspects.similarity import Jaccard, SetCosine
from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import BitmaskSlicer, similarity_slicer
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.normalize import normalize, zscore
from recdiv.jit import kernel

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class MMRConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0)
    variant: Literal["thesis", "ranksys"] = "thesis"
    norm: Literal["minmax", "max", "sum", "rank", "none"] = "minmax"


class MMR(GreedyReranker):
    """Maximal marginal relevance.

    variant=thesis (default): f(i|S) = λ·ŝ(i) − (1 − λ)·max_{j∈S} sim(i, j), max over ∅ = 0, ŝ = minmax (`norm`).
    variant=ranksys (RankSys 0.4.3 `MMR`): f(i|S) = (1 − λ)·z(s(i)) + λ·z(avg_{j∈S} (1 − sim(i, j))), z-scores over
    the remaining candidates at every step, raw scores s; λ weights diversity; λ = 0 returns the baseline order.
    The average is RankSys's running mean (avg ← avg + (d − avg)/|S|).
    Items without features: undefined similarities are skipped by the max (thesis). In the RankSys variant a
    distance involving a featureless item is NaN, so that item's average is NaN: z(avg) is taken over the
    defined averages only (RankSys `Stats` ignores NaN) and the item's own objective is NaN, so it is skipped
    while any candidate has a defined objective (once every remaining objective is NaN the earliest remaining
    candidate is taken). Only a featureless first pick makes every average NaN (then the baseline order follows).
    Carbonell & Goldstein, SIGIR 1998; Vargas 2012 thesis §3.4 and §4.8.2. docs/diversifiers.md
    """

    NAME = "MMR"
    PURE_RELEVANCE = ({"lambda": 1.0}, {"lambda": 0.0, "variant": "ranksys"})
    FORMULA = "thesis: λ·ŝ(i) − (1−λ)·max_{j∈S} sim(i,j); ranksys: (1−λ)·z(s) + λ·z(avg dist to S)"
    CITATION = "Carbonell & Goldstein 1998"
    NEEDS = ("similarity",)  # an item similarity: over aspects (cosine, jaccard), factors or ratings
    Config = MMRConfig

    def _rerank_block(self, block, k):
        if self.config.variant == "ranksys" and self.config.lambda_ == 0.0:
            return _baseline(block, k)
        return super()._rerank_block(block, k)

    def fused(self, block, k):
        if self.config.variant != "thesis":
            return None
        st = self.init_state(block)
        sl = st["slice"]
        if not (isinstance(sl, BitmaskSlicer) and st["nonneg"]):
            return None
        out = np.full((block.n, k), -1, dtype=np.int64)
        mmr_greedy = kernel("recdiv.diversifiers.greedy_kernels", "mmr_greedy")  # ahead of time if built
        mmr_greedy(*(np.ascontiguousarray(a) for a in (st["first"], st["base"])), 1.0 - self.config.lambda_,
                   *(np.ascontiguousarray(a) for a in (sl.masks, sl.inv, sl.size)), bool(sl.cosine),
                   np.ascontiguousarray(block.valid), out)
        return out

    def init_state(self, block: CandidateBlock):
        slicer, defined = similarity_slicer(block.context.item_similarity(), block.items)
        st = {"slice": slicer, "defined": defined}
        if self.config.variant == "thesis":
            lam = self.config.lambda_
            st["first"] = lam * normalize(block.scores, block.valid, self.config.norm)
            # items without features: NaN once S ≠ ∅ (unless λ = 1 gives the similarity term no weight)
            st["base"] = np.where(defined | (lam == 1.0), st["first"], np.nan)
            # (1 − λ)·max_{j∈S} sim; with non-negative similarities max over ∅ (= 0) needs no special case
            st["nonneg"] = isinstance(block.context.item_similarity(), (SetCosine, Jaccard))
            st["pen"] = np.zeros(block.items.shape) if st["nonneg"] else np.full(block.items.shape, -np.inf)
        else:
            st["avgdist"] = np.zeros(block.items.shape)
        return st

    def objective(self, st, block, remaining, t):
        lam = self.config.lambda_
        if self.config.variant == "thesis":
            if t == 0:
                return st["first"]
            pen = st["pen"]
            return st["base"] - (pen if st["nonneg"] else np.where(pen == -np.inf, 0.0, pen))
        nov = st["avgdist"]  # NaN for featureless candidates: no z-score, and left out of the others' statistics
        return (1.0 - lam) * zscore(block.scores, remaining) + lam * zscore(nov, remaining)

    def relevance_term(self, st, block, remaining, t):
        """λ·ŝ(i) (thesis) or (1 − λ)·z(s(i)) (ranksys); the rest of f is the similarity penalty / distance."""
        if self.config.variant == "thesis":
            return st["first"]
        return (1.0 - self.config.lambda_) * zscore(block.scores, remaining)

    def update(self, st, block, picked, t):
        s = st["slice"](picked)
        if self.config.variant == "thesis":
            s *= 1.0 - self.config.lambda_
            np.fmax(st["pen"], s, out=st["pen"])
        else:
            avg = st["avgdist"]  # RankSys UserMMR.update: the running mean over S, in its arithmetic
            avg += ((1.0 - s) - avg) / (t + 1.0)

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of MMR's objective (its oracle: `recdiv.diversifiers.reference`)."""
        import math

        from recdiv.diversifiers.reference import greedy_loop, lambda_values, minmax

        n = len(cands)
        lam = params.get("lambda", 0.5)
        if params.get("variant", "thesis") == "thesis":
            sh = minmax(scores)

            def value(rem, S):
                out = {}
                for i in rem:
                    sims = [env.sim(cands[i], cands[j]) for j in S]
                    defined = [x for x in sims if not math.isnan(x)]
                    if S and not env.aspects(cands[i]) and lam < 1:
                        out[i] = math.nan
                        continue
                    out[i] = lam * sh[i] - (1 - lam) * (max(defined) if defined else 0.0)
                return out

            return greedy_loop(n, k, value)
        if lam == 0:
            return list(range(min(k, n)))

        def value(rem, S):
            nov = {}
            for i in rem:  # RankSys UserMMR: running mean of the distances to S; NaN once one is undefined
                avg = 0.0
                for n, j in enumerate(S, 1):
                    avg += ((1 - env.sim(cands[i], cands[j])) - avg) / n
                nov[i] = avg
            return lambda_values(rem, scores, nov, lam)

        return greedy_loop(n, k, value)


def _baseline(block: CandidateBlock, k: int) -> np.ndarray:
    """Baseline order: the first k candidate positions (−1 beyond each user's list)."""
    pos = np.broadcast_to(np.arange(k), (block.n, k))
    return np.where(pos < block.lengths[:, None], pos, -1)
