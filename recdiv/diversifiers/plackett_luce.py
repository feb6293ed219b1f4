"""PlackettLuce — a stochastic ranker: each list is a Plackett–Luce sample from the candidates' scores."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from recdiv.data.rankings import Rankings
from recdiv.data.samples import RankingSamples
from recdiv.diversifiers.base import CandidateBlock, Reranker, RerankerConfig, _positions_to_rankings
from recdiv.diversifiers.normalize import normalize
from recdiv.models.context import Context
from recdiv.models.stochastic import plackett_luce, plackett_luce_weights

#: the most rankings one reranking samples per user (checked before any work)
MAX_SAMPLES = 10_000


class PlackettLuceConfig(RerankerConfig):
    norm: Literal["zscore", "minmax", "max", "sum", "rank", "none"] = Field(
        "zscore", description="score normalisation before the transform (none: LensKit's raw scores)")
    transform: Literal["softmax", "linear", "none"] = Field("softmax", description="scores → selection weights")
    scale: float = Field(1.0, gt=0.0, description="inverse temperature β: weights of β·score")
    samples: int = Field(1, ge=1, le=MAX_SAMPLES, description="rankings sampled per user (> 1: a RankingSamples)")
    seed: int | None = Field(None, ge=0, description="seed; None = the context's seed")


class PlackettLuce(Reranker):
    """Stochastic reranking: P(π) = Π_{t=1}^{k} w(π_t) / Σ_{j ∉ π_<t} w(j), the Plackett–Luce distribution over the
    candidates with weights w from the normalised scores ŝ (`norm`: z-scores by default, so that β does not depend
    on the baseline's score scale; `norm=none` takes the raw scores, as LensKit) and `transform`: softmax(β·ŝ) by
    default, or min–max linear, or ŝ itself (`recdiv.models.stochastic`), sampled exactly by sorting log(U)/w, U ~
    Uniform(0, 1) (the exponential trick). One generator seeded `seed` (or the context's) draws every user's
    uniforms in ascending user order. `samples` = S > 1 returns S independent rankings per user as `RankingSamples`
    — the input of the expected-exposure measures (EE-L, EE-D, EE-R). Plackett 1975, Luce 1959; as a stochastic
    ranker for expected exposure: Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020; LensKit
    `StochasticTopNRanker`.
    """

    NAME = "PlackettLuce"
    FORMULA = "a Plackett–Luce sample: P(π) = Π_t w(π_t)/Σ_{j∉π_<t} w(j), w = softmax(β·s)"
    CITATION = "Plackett 1975; Luce 1959; Diaz et al. 2020"
    NEEDS = ()
    Config = PlackettLuceConfig
    BLOCK_USERS = 1 << 62  # one block: the generator stream runs over all users in order

    def rerank(self, candidates: Rankings, k: int, context: Context | None = None) -> Rankings | RankingSamples:
        if self.config.samples == 1:
            return super().rerank(candidates, k, context)
        context = context if context is not None else Context()
        if k < 0:
            raise ValueError("k must be non-negative")
        valid = candidates.items >= 0
        pos = self._positions(candidates.scores, valid, np.asarray(candidates.users), min(k, candidates.k),
                              context, self.config.samples)
        return RankingSamples([_positions_to_rankings(candidates, pos[:, s]) for s in range(pos.shape[1])])

    def _rerank_block(self, block: CandidateBlock, k: int) -> np.ndarray:
        ids = block.ids if block.ids is not None else np.arange(block.n)
        return self._positions(block.scores, block.valid, ids, k, block.context, None)

    def _positions(self, scores, valid, ids, k, context, samples):
        """Sampled candidate positions, (n, k) or (n, samples, k), users drawn in ascending `ids` order."""
        seed = self.config.seed if self.config.seed is not None else context.seed
        rng = np.random.default_rng(seed)
        order = np.argsort(ids, kind="stable")
        shat = normalize(scores[order], valid[order], self.config.norm)
        weights = plackett_luce_weights(shat, valid[order], self.config.transform, self.config.scale)
        S = 1 if samples is None else samples
        out = np.empty((len(order), *(() if samples is None else (S,)), k), dtype=np.int64)
        step = max(1, 4_000_000 // max(1, S * scores.shape[1]))  # users per draw: bounded memory
        for lo in range(0, len(order), step):
            sl = slice(lo, lo + step)
            out[order[sl]] = plackett_luce(weights[sl], valid[order[sl]], k, rng, samples)
        return out
