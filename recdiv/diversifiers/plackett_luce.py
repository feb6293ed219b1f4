"""PlackettLuce — a stochastic ranker: each list is a Plackett–Luce sample from the candidates' scores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.data.rankings import Rankings
from recdiv.data.samples import RankingSamples
from recdiv.diversifiers.base import CandidateBlock, Reranker, RerankerConfig, _positions_to_rankings
from recdiv.diversifiers.normalize import normalize
from recdiv.models.context import Context
from recdiv.models.stochastic import plackett_luce, plackett_luce_weights

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv

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

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of the Plackett–Luce sample (its oracle: `recdiv.diversifiers.reference`). It
        reproduces the draws: `env.rng` is the run's generator (seeded `seed`, or the context's), from which every
        user, in ascending user order, draws one uniform U per slot of the candidate table (`env.slots`). Weights
        w(i) from ŝ (`norm`) and β (`scale`): softmax exp(β·ŝ(i) − max β·ŝ)/Σ_j exp(β·ŝ(j) − max β·ŝ), linear
        (β·ŝ(i) − min)/Σ_j (β·ŝ(j) − min) (uniform when all are equal), or none max(β·ŝ(i), 0). Candidate i gets an
        exponential clock E_i = −log(U_i)/w(i) (rate w(i); a weight 0 counts as 1.18e−38); the clocks ring in the
        order of a Plackett–Luce sample, since the first of independent exponential clocks is i's with probability
        w(i)/Σ_j w(j) and the rest are again exponential (memorylessness): Plackett 1975, Luce 1959; Vieira 2019.
        The list is the candidates by increasing E (equal clocks in list order; an undefined clock last)."""
        import math

        from recdiv.diversifiers.reference import normalized

        beta = params.get("scale", 1.0)
        x = [beta * v for v in normalized(scores, params.get("norm", "zscore"))]
        transform = params.get("transform", "softmax")
        if transform == "softmax":
            top = max(x)
            e = [math.exp(v - top) for v in x]
            w = [v / sum(e) for v in e]
        elif transform == "linear":
            lo, total = min(x), sum(v - min(x) for v in x)
            w = [(v - lo) / total if max(x) > lo and total > 0 else 1 / len(x) for v in x]
        else:
            w = [max(v, 0.0) for v in x]
        uniforms = env.rng.random(env.slots or len(cands))
        tiny = 1.1754943508222875e-38  # the smallest normal float32

        def clock(i):
            if math.isnan(w[i]):
                return math.inf
            return -math.log(uniforms[i]) / max(w[i], tiny) if uniforms[i] > 0 else math.inf

        return sorted(range(len(cands)), key=clock)[:k]
