"""Item novelty models for NGD (METRICS.md §B.5), by the names NGD uses: IUF, PC, FD.

The formulas live once, in `recdiv.models.novelty` (shared with the EPC/EFD metrics).
"""

from __future__ import annotations

import numpy as np

from recdiv.data.interactions import Interactions
from recdiv.models.novelty import free_discovery, inverse_user_frequency, popularity_complement

KINDS = ("IUF", "PC", "FD")


def item_novelty(train: Interactions, kind: str) -> np.ndarray:
    """nov(i) for every item of `train` by model `kind` ∈ {IUF, PC, FD} (`recdiv.models.novelty`)."""

    fns = {"IUF": inverse_user_frequency, "PC": popularity_complement, "FD": free_discovery}
    if kind not in fns:
        raise ValueError(f"unknown novelty model {kind!r} ({', '.join(KINDS)})")
    return np.asarray(fns[kind](train), dtype=np.float64)
