"""SSD — sliding spectrum decomposition (Huang, Wang, Zhang & Xu, KDD 2021)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.blocks import BitmaskSlicer, orthogonal_coefficients, similarity_slicer
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.normalize import normalize

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
