"""SSD — sliding spectrum decomposition (Huang, Wang, Zhang & Xu, KDD 2021)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import BitmaskSlicer, orthogonal_coefficients, similarity_slicer
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.normalize import normalize

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv

#: a picked item whose residual is below this squared norm adds no direction (it lies in the window's span)
TINY = 1e-12


class SSDConfig(RerankerConfig):
    lambda_: float = Field(0.5, alias="lambda", ge=0.0, le=1.0, description="weight of relevance")
    gamma: float = Field(1.0, gt=0.0, description="scale of the diversity term")
    window: int | None = Field(None, ge=1, description="directions kept (the last w picks); None = all")
    bias: bool = Field(True, description="append a constant dimension to the item vectors (kernel sim + 1)")
    norm: Literal["minmax", "max", "sum", "rank", "zscore", "none"] = "minmax"


class SSD(GreedyReranker):
    """Sliding spectrum decomposition: f(i | S) = λ·ŝ(i) + (1 − λ)·γ·‖r_i‖, r_i the residual of item i's vector after
    projecting out the directions of the last w picks (Gram–Schmidt over the window: each pick adds its own residual
    as a direction; when the window is full the oldest direction is dropped and its projection given back). Item
    vectors are known through the item similarity as a kernel: K(i, j) = sim(i, j) (+ 1 with `bias`, the paper's
    appended constant dimension; undefined similarities count 0), so ‖r_i‖² = K(i, i) − Σ_{s∈window} e_{s,i}² with
    the coefficients e of `blocks.orthogonal_coefficients` (the incremental Cholesky of DPP). The volume of the
    window's parallelotope grows by ‖r_i‖ when i is added: the stabilised SSD* of the paper (eq. 12). A pick whose
    residual vanishes (‖r‖² ≤ 1e−12: its vector lies in the window's span) adds a zero direction (which still takes
    its place in a finite window). Over 0/1 aspect masks a compiled loop (`ssd_kernels.py`) runs the same
    arithmetic per user and per distinct aspect set. Huang et al.,
    "Sliding Spectrum Decomposition for Diversified Recommendation", KDD 2021; Pyversity's `ssd` is this step with
    diversity = 1 − λ and z-scored scores (population sd).
    """

    NAME = "SSD"
    PURE_RELEVANCE = ({"lambda": 1.0},)
    FORMULA = "λ·ŝ(i) + (1−λ)·γ·‖r_i‖, r_i the residual of i after the last w picks' directions"
    CITATION = "Huang et al., KDD 2021"
    NEEDS = ("similarity",)
    Config = SSDConfig
    BLOCK_USERS = 128  # the window's coefficients are users × w × N

    def init_state(self, block: CandidateBlock):
        slicer, defined = similarity_slicer(block.context.item_similarity(), block.items)
        bias = 1.0 if self.config.bias else 0.0
        return {"slice": slicer, "rel": self.config.lambda_ * normalize(block.scores, block.valid, self.config.norm),
                "d2": np.where(block.valid, defined.astype(np.float64) + bias, 0.0), "bias": bias,
                "c": np.zeros((block.n, 0, block.N)), "filled": 0, "head": 0}

    def objective(self, st, block, remaining, t):
        return st["rel"] + (1.0 - self.config.lambda_) * self.config.gamma * np.sqrt(st["d2"])

    def relevance_term(self, st, block, remaining, t):
        """λ·ŝ(i); the rest of f is (1 − λ)·γ·‖r_i‖."""
        return st["rel"]

    def update(self, st, block, picked, t):
        rows = np.arange(block.n)
        d2p = st["d2"][rows, np.maximum(picked, 0)]
        live = (picked >= 0) & (d2p > TINY)
        c, filled = st["c"], st["filled"]
        w = self.config.window
        if w is None and not live.any():  # no user adds a direction (the picks lie in the span): nothing changes
            return
        if filled == c.shape[1] and (w is None or filled < w):  # grow the window's buffer geometrically
            cap = max(4, 2 * filled) if w is None else min(w, max(4, 2 * filled))
            grown = np.zeros((block.n, cap, block.N))
            grown[:, :filled] = c
            st["c"] = c = grown
        kernel = np.nan_to_num(st["slice"](picked), nan=0.0) + st["bias"]
        e = orthogonal_coefficients(c[:, :filled, :], kernel, picked, d2p, live)
        if w is not None and filled == w:  # the oldest direction leaves the window: give back its projection
            head = st["head"]
            st["d2"] = st["d2"] + c[:, head, :] * c[:, head, :]
            c[:, head, :] = e
            st["head"] = (head + 1) % w
        else:
            c[:, filled, :] = e
            st["filled"] = filled + 1
        st["d2"] = np.maximum(st["d2"] - e * e, 0.0)

    def fused(self, block, k):
        slicer, _ = similarity_slicer(block.context.item_similarity(), block.items)
        if not isinstance(slicer, BitmaskSlicer):
            return None
        from recdiv.diversifiers.ssd_kernels import ssd_greedy_masks

        cfg = self.config
        out = np.full((block.n, k), -1, dtype=np.int64)
        rel = np.ascontiguousarray(cfg.lambda_ * normalize(block.scores, block.valid, cfg.norm))
        ssd_greedy_masks(rel, slicer.masks, slicer.inv, slicer.size, slicer.defined, slicer.cosine,
                         (1.0 - cfg.lambda_) * cfg.gamma, 1.0 if cfg.bias else 0.0, cfg.window or 0, TINY,
                         np.ascontiguousarray(block.valid), out)
        return out

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of SSD's objective (its oracle: `recdiv.diversifiers.reference`): Huang et
        al.'s (KDD 2021) sliding spectrum decomposition, λ·ŝ(i) + (1 − λ)·γ·‖r_i‖ with r_i the residual of item i's
        vector after the window's orthonormal directions. Item vectors are seen through the kernel
        K(i, j) = sim(i, j) (+ 1 with `bias`; an undefined similarity counts 0). Every direction is kept as its
        inner products with the candidates: the pick p adds u = r_p/‖r_p‖, with ⟨v_i, u⟩ =
        (K(p, i) − Σ_{q in the window} ⟨v_p, q⟩⟨v_i, q⟩)/‖r_p‖ (Gram–Schmidt; a zero direction when ‖r_p‖² ≤ 1e−12),
        so ‖r_i‖² = K(i, i) − Σ_q ⟨v_i, q⟩²; when the window holds w directions the oldest leaves and gives its
        ⟨v_i, q⟩² back."""
        import math

        from recdiv.diversifiers.reference import greedy_loop, normalized

        lam, gamma = params.get("lambda", 0.5), params.get("gamma", 1.0)
        window, bias = params.get("window"), 1.0 if params.get("bias", True) else 0.0
        rel = normalized(scores, params.get("norm", "minmax"))
        n = len(cands)

        def kernel(i, j):
            sim = env.sim(cands[i], cands[j])
            return (0.0 if math.isnan(sim) else sim) + bias

        residual2 = [kernel(i, i) for i in range(n)]  # ‖r_i‖²
        directions: list[list[float]] = []  # each: ⟨v_i, q⟩ for every candidate i, oldest first

        def add_direction(p):
            if residual2[p] > TINY:
                norm = math.sqrt(residual2[p])
                new = [(kernel(p, i) - sum(q[p] * q[i] for q in directions)) / norm for i in range(n)]
            else:  # v_p lies in the window's span: a zero direction
                new = [0.0] * n
            if window is not None and len(directions) == window:
                oldest = directions.pop(0)
                for i in range(n):
                    residual2[i] += oldest[i] ** 2
            directions.append(new)
            for i in range(n):
                residual2[i] = max(residual2[i] - new[i] ** 2, 0.0)

        def value(remaining, chosen):
            if chosen:
                add_direction(chosen[-1])  # the loop asks once per step: fold in the last pick
            return {i: lam * rel[i] + (1 - lam) * gamma * math.sqrt(residual2[i]) for i in remaining}

        return greedy_loop(n, k, value)
