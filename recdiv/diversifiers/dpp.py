"""DPP — fast greedy MAP inference (Chen, Zhang & Zhou, NeurIPS 2018; `laming-chen/fast-map-dpp`).

See docs/diversifiers.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import orthogonal_coefficients, similarity_slicer
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.mmr import _baseline
from recdiv.diversifiers.normalize import normalize

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv

EPSILON = 1e-10


class DPPConfig(RerankerConfig):
    theta: float | None = Field(0.5, ge=0.0, le=1.0)
    norm: Literal["minmax", "max", "sum", "rank", "zscore", "none"] = "minmax"
    epsilon: float = Field(EPSILON, gt=0.0)


class DPP(GreedyReranker):
    """Greedy MAP of a DPP with kernel L = diag(q)·S·diag(q), S_ij = ⟨f̂_i, f̂_j⟩ (the item similarity, NaN ⇒ 0).

    theta=None: q = s (plain). theta ∈ [0, 1): q = exp(α·ŝ), α = θ/(2(1 − θ)), i.e. maximise
    θ·Σ_{i∈Y} ŝ(i) + (1 − θ)·log det S_Y; θ = 1 returns the baseline order.
    Incremental Cholesky, vectorised over users (c: users × k × N, d²: users × N): j = argmax d²; then for all i
    e_i = (L_ji − ⟨c_j, c_i⟩)/d_j, c_i ← [c_i, e_i], d_i² ← d_i² − e_i²; stop when max d² < ε and fill the rest in
    baseline order. Chen et al., "Fast greedy MAP inference for determinantal point process to improve
    recommendation diversity", NeurIPS 2018. docs/diversifiers.md
    """

    NAME = "DPP"
    PURE_RELEVANCE = ({"theta": 1.0},)
    FORMULA = "greedy MAP of det(L_Y), L = diag(q)·S·diag(q)"
    CITATION = "Chen et al. 2018"
    NEEDS = ("similarity",)  # an item similarity: over aspects (cosine, jaccard), factors or ratings
    Config = DPPConfig
    BLOCK_USERS = 128  # c is users × k × N

    def _rerank_block(self, block, k):
        if self.config.theta == 1.0:
            return _baseline(block, k)
        return super()._rerank_block(block, k)

    def init_state(self, block: CandidateBlock):
        th = self.config.theta
        if th is None:
            q = np.nan_to_num(block.scores, nan=0.0)
        else:
            alpha = th / (2.0 * (1.0 - th))
            q = np.where(block.valid, np.exp(alpha * np.nan_to_num(normalize(block.scores, block.valid,
                                                                              self.config.norm), nan=0.0)), 0.0)
        slicer, defined = similarity_slicer(block.context.item_similarity(), block.items)
        sdiag = defined.astype(np.float64)  # S_ii = 1 for items with features, 0 without
        return {"q": q, "slice": slicer, "d2": q * q * sdiag, "c": np.zeros((block.n, 0, block.N)),
                "stopped": np.zeros(block.n, dtype=bool), "k": 0}

    def objective(self, st, block, remaining, t):
        d2 = st["d2"]
        if t > 0:
            best = np.max(np.where(remaining, d2, -np.inf), axis=1)
            st["stopped"] |= best < self.config.epsilon
        return np.where(st["stopped"][:, None], np.nan, d2)

    def update(self, st, block, picked, t):
        rows = np.arange(block.n)
        p = np.maximum(picked, 0)
        d2j = st["d2"][rows, p]
        st["stopped"] |= (picked < 0) | ~(d2j >= self.config.epsilon)
        live = ~st["stopped"]
        if not live.any():
            return
        c = st["c"]
        if c.shape[1] == t:  # grow c geometrically: users × (capacity) × N
            grown = np.zeros((block.n, max(4, 2 * t), block.N))
            grown[:, :t] = c
            st["c"] = c = grown
        q = st["q"]
        lj = q[rows, p][:, None] * np.nan_to_num(st["slice"](picked), nan=0.0) * q
        e = orthogonal_coefficients(c[:, :t, :], lj, picked, d2j, live)
        c[:, t, :] = e
        st["d2"] = st["d2"] - e * e

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of DPP's objective (its oracle: `recdiv.diversifiers.reference`)."""
        import math

        from recdiv.diversifiers.reference import minmax

        n = len(cands)
        th = params.get("theta", 0.5)
        n = len(cands)
        if th == 1.0:
            return list(range(min(k, n)))
        q = np.array(scores, float) if th is None else np.exp(th / (2 * (1 - th)) * np.array(minmax(scores)))
        S = np.array([[np.nan_to_num(env.sim(a, b)) for b in cands] for a in cands])
        L = q[:, None] * S * q[None, :]
        eps = params.get("epsilon", 1e-10)
        cis = np.zeros((k, n))
        di2s = np.copy(np.diag(L))
        selected = [int(np.argmax(di2s))]
        if di2s[selected[0]] >= eps:
            while len(selected) < min(k, n):
                t = len(selected) - 1
                j = selected[-1]
                eis = (L[j, :] - cis[:t, j] @ cis[:t, :]) / math.sqrt(di2s[j])
                cis[t, :] = eis
                di2s = di2s - eis**2
                di2s[selected] = -np.inf
                j = int(np.argmax(di2s))
                if di2s[j] < eps:
                    break
                selected.append(j)
        rest = [i for i in range(n) if i not in selected]
        return (selected + rest)[: min(k, n)]
