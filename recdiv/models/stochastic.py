"""Plackett–Luce sampling of rankings from scores, written once: the stochastic reranker (`PlackettLuce`) and the
expected-exposure measures (EE-L, EE-D, EE-R with `samples=`) both sample through `plackett_luce`.

A Plackett–Luce ranking over candidates with weights w_i > 0 draws the first item with probability
w_i / Σ_j w_j, the second among the rest likewise, and so on (Plackett 1975; Luce 1959). It is sampled exactly by
the exponential trick: draw U_i ~ Uniform(0, 1) and sort the keys log(U_i) / w_i in decreasing order (−log U_i / w_i
is an exponential variable of rate w_i, and the smallest of independent exponentials is the one of item i with
probability w_i / Σ_j w_j; Vieira 2019, "Algorithms for sampling without replacement"; LensKit's
`StochasticTopNRanker` samples the same way).

Weights from scores s (`transform`, after multiplying the scores by `scale`, the inverse temperature β):

| transform | w_i |
|---|---|
| softmax | exp(β s_i) / Σ_j exp(β s_j) (LensKit's default) |
| linear | (β s_i − min β s) / Σ_j (β s_j − min β s); uniform when all scores are equal |
| none | β s_i (scores that are already weights; negative ones count as 0) |

A weight of 0 is raised to the smallest normal float32 (1.18e−38), so such items come last in random order, as in
LensKit. Scores are the candidates' scores over a user's list; NaN marks padding.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

__all__ = ["TRANSFORMS", "Transform", "plackett_luce", "plackett_luce_keys", "plackett_luce_weights"]

Transform = Literal["softmax", "linear", "none"]
TRANSFORMS: tuple[str, ...] = ("softmax", "linear", "none")
_TINY = float(np.finfo(np.float32).smallest_normal)


def plackett_luce_weights(scores: np.ndarray, valid: np.ndarray, transform: str = "softmax",
                          scale: float = 1.0) -> np.ndarray:
    """Selection weights w (n, N) of every row's valid candidates (0 at padding), see the module table."""
    s = np.where(valid, np.asarray(scores, dtype=np.float64) * scale, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if transform == "softmax":
            top = np.nanmax(np.where(valid, s, -np.inf), axis=1, keepdims=True)
            e = np.where(valid, np.exp(s - np.where(np.isfinite(top), top, 0.0)), 0.0)
            w = e / np.sum(e, axis=1, keepdims=True)
        elif transform == "linear":
            lo = np.min(np.where(valid, s, np.inf), axis=1, keepdims=True)
            hi = np.max(np.where(valid, s, -np.inf), axis=1, keepdims=True)
            shifted = np.where(valid, s - lo, 0.0)
            tot = np.sum(shifted, axis=1, keepdims=True)
            count = np.maximum(valid.sum(axis=1, keepdims=True), 1)
            w = np.where((hi > lo) & (tot > 0), shifted / np.where(tot > 0, tot, 1.0), 1.0 / count)
        elif transform == "none":
            w = np.maximum(np.where(valid, s, 0.0), 0.0)
        else:
            raise ValueError(f"unknown transform {transform!r} ({', '.join(TRANSFORMS)})")
    return np.where(valid, w, 0.0)


def plackett_luce_keys(weights: np.ndarray, valid: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Sort keys log(U) / max(w, 1.18e−38) (decreasing = the sampled order); −inf at padding. `uniforms` has the
    shape of `weights` (or a leading sample axis) with values in [0, 1)."""
    with np.errstate(divide="ignore"):
        keys = np.log(uniforms) / np.maximum(weights, _TINY)
    return np.where(valid, keys, -np.inf)  # a valid candidate drawn with U = 0 also gets −inf: it sorts before padding


def plackett_luce(weights: np.ndarray, valid: np.ndarray, k: int, rng: np.random.Generator,
                  samples: int | None = None) -> np.ndarray:
    """Sampled rankings as candidate positions: (n, k) — or (n, samples, k) when `samples` is given — best first,
    −1 beyond a row's valid candidates. The uniforms are drawn row by row (each row's samples × N at once, in C
    order), so that a seed gives the same rankings whether the rows come in one block or several."""
    n, N = weights.shape
    S = 1 if samples is None else samples
    keys = plackett_luce_keys(weights[:, None, :], valid[:, None, :], rng.random((n, S, N)))
    k = min(k, N)
    if k < N:
        part = np.argpartition(-keys, k - 1, axis=-1)[..., :k]
        top = np.take_along_axis(keys, part, axis=-1)
        order = np.take_along_axis(part, np.argsort(-top, axis=-1, kind="stable"), axis=-1)
    else:
        order = np.argsort(-keys, axis=-1, kind="stable")
    chosen = np.take_along_axis(np.broadcast_to(valid[:, None, :], keys.shape), order, axis=-1)
    out = np.where(chosen, order, -1)
    return out[:, 0, :] if samples is None else out
