"""Item novelty models of the training data (METRICS.md §B.5), for NGD.

Uses `recdiv.eval.novelty` when that module provides the functions; otherwise the one-line formulas below.
|U_i| = training users of i; |U| = users with ≥ 1 training interaction; T = Σ_j |U_j|.
nov_PC = 1 − |U_i|/|U| (absent items 1); nov_IUF = −log2(|U_i|/|U|); nov_FD = −log2(|U_i|/T); items absent from
training get the maximum over training items.
"""

from __future__ import annotations

import numpy as np

from recdiv.data.interactions import Interactions

KINDS = ("IUF", "PC", "FD")


def _local(train: Interactions, kind: str) -> np.ndarray:
    ui = train.item_counts().astype(np.float64)
    n_users = float((train.user_counts() > 0).sum())
    seen = ui > 0
    out = np.empty(len(ui))
    if kind == "PC":
        out = 1.0 - ui / max(n_users, 1.0)
        out[~seen] = 1.0
        return out
    if not seen.any():
        return np.zeros(len(ui))
    denom = n_users if kind == "IUF" else ui.sum()
    out[seen] = -np.log2(ui[seen] / denom)
    out[~seen] = -np.log2(ui[seen].min() / denom)
    return out


def item_novelty(train: Interactions, kind: str) -> np.ndarray:
    """nov(i) for every item of `train` by model `kind` ∈ {IUF, PC, FD}."""
    if kind not in KINDS:
        raise ValueError(f"unknown novelty model {kind!r} ({', '.join(KINDS)})")
    try:
        from recdiv.eval import novelty as shared
    except ImportError:
        shared = None
    fn = {"IUF": "inverse_user_frequency", "PC": "popularity_complement", "FD": "free_discovery"}[kind]
    if shared is not None and hasattr(shared, fn):
        return np.asarray(getattr(shared, fn)(train), dtype=np.float64)
    return _local(train, kind)
