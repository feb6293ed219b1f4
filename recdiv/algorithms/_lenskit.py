"""Bridges to LensKit 2025.8: recdiv `Interactions` -> LensKit `Dataset`, and per-user scoring through a scorer."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recdiv.data.interactions import Interactions


def to_lenskit(train: Interactions, explicit: bool):
    """A LensKit Dataset whose user/item ids are recdiv's dense indices (so LensKit numbers == recdiv indices)."""
    from lenskit.data import from_interactions_df

    frame = pd.DataFrame({"user_id": train.user_index, "item_id": train.item_index})
    if explicit:
        frame["rating"] = train.values.astype(np.float64)
    return from_interactions_df(frame, users=np.arange(train.n_users), items=np.arange(train.n_items))


def lenskit_score_users(scorer, users: np.ndarray, n_items: int, history=None) -> np.ndarray:
    """Dense scores from a trained LensKit scorer, one call per user (LensKit scores one query at a time).

    `history`: a LensKit Dataset whose user rows are passed as the query's history (item-kNN needs them)."""
    from lenskit.data import ItemList, RecQuery

    items = ItemList(item_ids=np.arange(n_items))
    out = np.full((len(users), n_items), np.nan)
    for r, u in enumerate(users):  # LensKit's component API is per query
        hist = None if history is None else history.user_row(int(u))
        out[r] = scorer(RecQuery(user_id=int(u), history_items=hist), items).scores()
    return out
