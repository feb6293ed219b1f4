"""Calibrated recommendations (Steck, RecSys 2018; docs/diversifiers.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import aspect_indicator
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.greedy_kernels import calibrated_step
from recdiv.diversifiers.normalize import normalize

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv


class CalibratedConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0)
    alpha: float = Field(0.01, gt=0.0, le=1.0)
    norm: Literal["minmax", "max", "sum", "rank", "none"] = "minmax"
    weighting: Literal["count", "rating", "fractional"] = "fractional"


class Calibrated(GreedyReranker):
    """Greedy calibration: I* = argmax (1 − λ)·Σ_{i∈I} s(i) − λ·C_KL(p, q̃(I)).

    p(g|u) = (1/|P_u|) Σ_{i∈P_u} p(g|i) (Steck, `weighting=fractional`); q(g|I) = (1/|I|) Σ_{i∈I} p(g|i);
    q̃ = (1 − α)·q + α·p; C_KL = Σ_{g: p(g|u)>0} p(g|u)·ln(p(g|u)/q̃(g|I)) (natural log). s = ŝ, min–max
    normalised scores (`norm=minmax`, the default): Steck's raw scores (`norm=none`, docs/diversifiers.md) make λ depend
    on the baseline's score scale (popularity counts in the hundreds swamp the KL term, so λ = 0.5 barely moves a
    popularity list).
    Each step adds the candidate maximising the objective of S ∪ {i}; users without a training profile (and λ = 0)
    keep the baseline order. Per step only the aspects of i change q̃, so the KL of S ∪ {i} is the KL of S plus a
    sum over A(i) — one sparse mat-vec per step. Steck, "Calibrated recommendations", RecSys 2018. docs/diversifiers.md
    """

    NAME = "Calibrated"
    PURE_RELEVANCE = ({"lambda": 0.0},)
    FORMULA = "(1−λ)·Σ ŝ − λ·KL(p ‖ q̃) of S ∪ {i}"
    CITATION = "Steck 2018"
    NEEDS = ("aspects", "train")
    Config = CalibratedConfig

    def init_state(self, block: CandidateBlock):
        ind = aspect_indicator(block)
        per_row = np.diff(ind.matrix.indptr)
        m = np.repeat(per_row, per_row)  # |A(c)| of every non-zero
        L = int(per_row.max()) if len(per_row) else 0
        F = ind.F
        # column (|A(c)| − 1)·F + g: one weight table per aspect-set size
        cal = ind.with_values(np.ones(ind.matrix.nnz), columns=(m - 1) * F + ind.aspect, width=max(L, 1) * F)
        p = block.user_distribution(self.config.weighting)
        s = np.nan_to_num(normalize(block.scores, block.valid, self.config.norm), nan=0.0)
        off = (self.config.lambda_ == 0.0) | ~block.has_profile
        with np.errstate(divide="ignore", invalid="ignore"):
            plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
        return {"cal": cal, "L": max(L, 1), "p": p, "s": s, "Q": np.zeros_like(p), "sum_s": np.zeros(block.n),
                "off": off, "plogp": plogp}

    def _weights(self, st, n: int, t: int) -> tuple[np.ndarray, np.ndarray]:
        """w (n, L·F): Δ p log q̃ when a candidate with |A| aspects adds aspect g; b_term (n,): Σ p log q̃ without i."""
        a, p = self.config.alpha, st["p"]
        base = (1.0 - a) * st["Q"] / (t + 1) + a * p  # q̃ of S ∪ {i} on aspects i does not have
        pos = p > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            logb = np.log(np.where(pos, base, 1.0))
            b_term = np.where(pos, p * logb, 0.0).sum(axis=1)
            sizes = np.arange(1, st["L"] + 1)[:, None, None]
            w = np.where(pos, p * (np.log(np.where(pos, base, 1.0) + (1.0 - a) / (sizes * (t + 1))) - logb), 0.0)
        return np.transpose(w, (1, 0, 2)).reshape(n, -1), b_term

    def objective(self, st, block, remaining, t):
        lam = self.config.lambda_
        w, b_term = self._weights(st, block.n, t)
        gain = st["cal"].dot(w)  # Σ_{g∈A(i)} Δ p log q̃
        kl = st["plogp"][:, None] - b_term[:, None] - gain
        f = (1.0 - lam) * (st["sum_s"][:, None] + st["s"]) - lam * kl
        return np.where(st["off"][:, None], np.nan, f)

    def relevance_term(self, st, block, remaining, t):
        """(1 − λ)·Σ_{j∈S∪{i}} ŝ(j); the rest of f is −λ·C_KL (NaN where the user keeps the baseline order)."""
        f = (1.0 - self.config.lambda_) * (st["sum_s"][:, None] + st["s"])
        return np.where(st["off"][:, None], np.nan, f)

    def update(self, st, block, picked, t):
        rows = np.arange(block.n)
        ind = aspect_indicator(block)
        row = ind.rows(picked)
        cnt = row.sum(axis=1, keepdims=True)
        st["Q"] += np.where(cnt > 0, row / np.where(cnt > 0, cnt, 1.0), 0.0)
        st["sum_s"] += np.where(picked >= 0, st["s"][rows, np.maximum(picked, 0)], 0.0)

    def fused(self, block, k):
        """The template's loop with objective, selection and update of each step in one numba pass
        (`fused.calibrated_step`); the small (users × aspects) log tables stay in NumPy (`_weights`)."""
        st = self.init_state(block)
        cal, ind = st["cal"].ell(force=True), aspect_indicator(block).ell(force=True)
        if cal is None or ind is None or st["p"].shape[1] > 128:
            return None
        remaining = block.valid.copy()
        left = block.valid.sum(axis=1)
        out = np.full((block.n, k), -1, dtype=np.int64)
        best = np.empty(block.n, dtype=np.int64)
        for t in range(k):
            has = left > t
            if not has.any():
                break
            w, b_term = self._weights(st, block.n, t)
            calibrated_step(cal[0], *ind, np.append(w.ravel(), 0.0), st["s"], st["sum_s"], st["plogp"] - b_term,
                            self.config.lambda_, st["off"], remaining, has, st["Q"], best)
            out[:, t] = best
        return out

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of Calibrated's objective (its oracle: `recdiv.diversifiers.reference`)."""
        import math

        from recdiv.diversifiers.reference import greedy_loop, minmax

        n = len(cands)
        lam = params.get("lambda", 0.5)
        if lam == 0 or not env.has_profile:
            return list(range(min(k, n)))
        alpha = params.get("alpha", 0.01)
        p = env.pu_frac
        sh = scores if params.get("norm", "minmax") == "none" else minmax(scores)

        def pgi(c):
            A = env.aspects(c)
            return {a: 1.0 / len(A) for a in A}

        def objective(items):
            q: dict = {}
            for c in items:
                for a, v in pgi(c).items():
                    q[a] = q.get(a, 0.0) + v / len(items)
            kl = sum(pa * math.log(pa / ((1 - alpha) * q.get(a, 0.0) + alpha * pa)) for a, pa in p.items() if pa > 0)
            return (1 - lam) * sum(sh[cands.index(c)] for c in items) - lam * kl

        return greedy_loop(n, k, lambda rem, S: {i: objective([cands[j] for j in S] + [cands[i]]) for i in rem})
