"""Random reranking instances: (candidates, context) with the cases a reranker must handle — ragged candidate lists
(some users have fewer candidates than others), items without aspects (every 7th item), and users without a training
profile (the last two users) — stored in descending user order, so that a reranker cannot rely on sorted rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.models.context import Context


def random_instance(seed: int, n_users: int = 6, n_items: int = 40, n_aspects: int = 5, N: int = 15,
                    ragged: bool = True) -> tuple[Rankings, Context]:
    """(candidates, context): `n_users` users with training ratings and two without, N candidates per user (fewer
    for two users in three when `ragged`), scores sorted best first; the context holds the training ratings, the
    aspects and `seed`. The same seed gives the same instance."""
    rng = np.random.default_rng(seed)
    items = Vocab([f"i{j:03d}" for j in range(n_items)])
    users = Vocab([f"u{j}" for j in range(n_users + 2)])  # the last two users have no training data
    rows = []
    for i in range(n_items):
        m = rng.choice([0, 1, 1, 2, 2, 3]) if i % 7 else 0  # every 7th item has no aspects
        for a in rng.choice(n_aspects, size=m, replace=False):
            rows.append((items.ids[i], f"a{a}"))
    space = AspectSpace.from_frame(pd.DataFrame(rows, columns=["item", "aspect"]), items)
    tr = []
    for u in range(n_users):
        for i in rng.choice(n_items, size=rng.integers(1, 8), replace=False):
            tr.append((users.ids[u], items.ids[i], float(rng.integers(1, 6))))
    train = Interactions.from_frame(pd.DataFrame(tr, columns=["user", "item", "value"]), users=users, items=items)
    n_rows = len(users)
    cand = np.full((n_rows, N), -1)
    sc = np.full((n_rows, N), np.nan)
    for u in range(n_rows):
        length = max(1, N - (u % 3) * (N // 4)) if ragged else N
        cand[u, :length] = rng.choice(n_items, size=length, replace=False)
        sc[u, :length] = np.sort(rng.normal(size=length))[::-1]
    cands = Rankings(np.arange(n_rows)[::-1].copy(), cand[::-1].copy(), sc[::-1].copy(), users, items)
    protected = np.random.default_rng(seed + 10_000).random(n_items) < 0.3  # FA*IR's group (a separate stream)
    groups = AspectSpace.from_frame(pd.DataFrame({"item": np.asarray(items.ids)[protected], "aspect": "protected"}),
                                    items)
    return cands, Context(train=train, aspects=space, seed=seed, item_groups=groups)
