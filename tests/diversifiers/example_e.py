"""METRICS.md "Example E": N = 5 candidates c1..c5 for one user, k = 3."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers.base import RerankContext

ASPECTS = {"c1": "A", "c2": "A", "c3": "C", "c4": "AC", "c5": "D", "p1": "A", "p2": "AC", "p3": "D"}
SCORES = [0.9, 0.8, 0.7, 0.6, 0.5]
POPULARITY = [8, 6, 3, 2, 1]  # |U_i| of c1..c5 among |U| = 10 training users


def example_e() -> tuple[Rankings, RerankContext]:
    items = Vocab(["c1", "c2", "c3", "c4", "c5", "p1", "p2", "p3"])
    users = Vocab(["u", *(f"o{j}" for j in range(1, 10))])
    rows = [("u", "p1", 5.0), ("u", "p2", 4.0), ("u", "p3", 2.0)]
    for c, pop in zip(["c1", "c2", "c3", "c4", "c5"], POPULARITY):
        rows += [(f"o{j}", c, 3.0) for j in range(1, pop + 1)]
    rows += [(f"o{j}", "p1", 3.0) for j in range(1, 10) if j > 8]  # o9 needs a training interaction
    frame = pd.DataFrame(rows, columns=["user", "item", "value"])
    train = Interactions.from_frame(frame, users=users, items=items)
    asp = pd.DataFrame([(i, a) for i, s in ASPECTS.items() for a in s], columns=["item", "aspect"])
    space = AspectSpace.from_frame(asp, items)
    cands = Rankings(np.array([0]), np.array([[0, 1, 2, 3, 4]]), np.array([SCORES]), users, items)
    return cands, RerankContext(train=train, aspects=space, seed=42)


def ids(r: Rankings, row: int = 0) -> tuple[str, ...]:
    return tuple(str(x) for x in r.item_vocab.id_of(r.items[row][r.items[row] >= 0]))
