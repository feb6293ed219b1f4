"""Conversions between recdiv's data model and LensKit 2025.8 (`lenskit.data`).

- `rankings_to_itemlists`: `Rankings` -> `ItemListCollection` keyed by `user_id` (external ids), one ordered
  `ItemList` per user with `score` (users with an empty ranking get an empty list);
- `rankings_from_itemlists`: back to `Rankings` (list order when the list is ordered, else score descending
  with the tie rule of METRICS.md §0.5);
- `qrels_from_itemlists`: test lists with a `rating` field (or another grade field) -> `Qrels`;
- `interactions_to_lenskit` / `interactions_from_lenskit`: `Interactions` <-> `lenskit.data.Dataset`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recdiv.data.interactions import Interactions
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import PAD, Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import DataError


def _ld():
    import lenskit.data as ld  # deferred: importing lenskit pulls in torch

    return ld


def rankings_to_itemlists(rankings: Rankings):
    """An `ItemListCollection` (key `user_id`) of ordered `ItemList`s with item ids and scores."""
    ld = _ld()
    ilc = ld.ListILC(["user_id"])
    user_ids = rankings.user_vocab.id_of(rankings.users)
    valid = rankings.valid
    for r, uid in enumerate(user_ids):
        v = valid[r]
        items = rankings.item_vocab.id_of(rankings.items[r, v])
        ilc.add(ld.ItemList(item_ids=items, scores=rankings.scores[r, v], ordered=True), user_id=uid)
    return ilc


def _list_frame(ilc, user_vocab: Vocab, item_vocab: Vocab, fields: tuple[str, ...]) -> pd.DataFrame:
    if "user_id" not in ilc.key_fields:
        raise DataError(f"item list collection is keyed by {ilc.key_fields}, expected user_id")
    rows = []
    for key, il in ilc:
        n = len(il)
        frame = pd.DataFrame({"user": np.repeat(np.asarray([key.user_id], dtype=object), n),
                              "item": il.ids(), "pos": np.arange(n)})
        for f in fields:
            val = il.scores() if f == "score" else il.field(f)
            frame[f] = np.full(n, np.nan) if val is None else np.asarray(val, dtype=np.float64)
        frame["ordered"] = il.ordered
        rows.append(frame)
    frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["user", "item", "pos", *fields, "ordered"])
    for col, vocab in (("user", user_vocab), ("item", item_vocab)):
        values = frame[col].to_numpy()
        if len(values) and vocab.ids.dtype.kind in "iu":
            values = values.astype(vocab.ids.dtype)
        idx = vocab.lookup(values, missing="-1") if len(values) else np.zeros(0, dtype=np.int64)
        if (idx < 0).any():
            raise DataError(f"{col} {values[np.flatnonzero(idx < 0)[0]]!r} of an item list is not in the vocabulary")
        frame[col] = idx
    return frame


def rankings_from_itemlists(ilc, user_vocab: Vocab, item_vocab: Vocab) -> Rankings:
    """`Rankings` from an `ItemListCollection` keyed by user_id. Ordered lists keep their order; unordered
    ones are sorted by score (descending; ties by external item id in descending string order)."""
    frame = _list_frame(ilc, user_vocab, item_vocab, ("score",))
    ordered = frame["ordered"].to_numpy(bool)
    key_score = np.where(ordered, -frame["pos"].to_numpy(np.float64), frame["score"].to_numpy(np.float64))
    key_score = np.nan_to_num(key_score, nan=-np.inf)
    u, i = frame["user"].to_numpy(np.int64), frame["item"].to_numpy(np.int64)
    o = np.lexsort((-np.where(ordered, 0, item_vocab.string_rank[i] if len(i) else 0), -key_score, u))
    u, i, s = u[o], i[o], frame["score"].to_numpy(np.float64)[o]
    empty_users = [user_vocab.lookup(np.asarray([k.user_id]))[0] for k, il in ilc if len(il) == 0]
    users, starts, counts = np.unique(u, return_index=True, return_counts=True)
    all_users = np.union1d(users, np.asarray(empty_users, dtype=np.int64))
    k = int(counts.max()) if len(counts) else 0
    items = np.full((len(all_users), k), PAD, dtype=np.int64)
    scores = np.full((len(all_users), k), np.nan)
    row = np.searchsorted(all_users, u)
    pos = np.arange(len(u)) - np.repeat(starts, counts)
    items[row, pos] = i
    scores[row, pos] = s
    return Rankings(all_users, items, scores, user_vocab, item_vocab).check()


def qrels_from_itemlists(ilc, user_vocab: Vocab, item_vocab: Vocab, field: str = "rating") -> Qrels:
    """`Qrels` from test item lists; grades from `field` (default `rating`; 1 where the lists lack it)."""
    frame = _list_frame(ilc, user_vocab, item_vocab, (field,))
    grade = frame[field].to_numpy(np.float64)
    grade = np.where(np.isnan(grade), 1.0, grade)
    inter = Interactions.from_arrays(frame["user"].to_numpy(np.int64), frame["item"].to_numpy(np.int64), grade,
                                     user_vocab, item_vocab)
    return Qrels(user_vocab, item_vocab, inter.matrix)


def interactions_to_lenskit(interactions: Interactions):
    """A `lenskit.data.Dataset` with every user and item of the vocabularies (same order) and the values as
    `rating` (explicit) or `count` (implicit), plus `timestamp` when present."""
    ld = _ld()
    frame = interactions.to_frame()
    value = "rating" if interactions.kind == "explicit" else "count"
    frame = frame.rename(columns={"user": "user_id", "item": "item_id", "value": value})
    dsb = ld.DatasetBuilder()
    dsb.add_entities("user", interactions.users.ids)
    dsb.add_entities("item", interactions.items.ids)
    dsb.add_interactions("rating", frame, entities=["user", "item"], missing="error", allow_repeats=False,
                         default=True)
    return dsb.build()


def interactions_from_lenskit(dataset, field: str | None = None) -> Interactions:
    """`Interactions` from a `lenskit.data.Dataset` (its default interaction class): values from `field`
    (default `rating` if present, else `count`, else 1 = implicit), timestamps when present."""
    frame = dataset.interaction_matrix(format="pandas", original_ids=True)
    cols = set(frame.columns)
    if field is None:
        field = "rating" if "rating" in cols else "count" if "count" in cols else None
    users = Vocab(dataset.users.ids())
    items = Vocab(dataset.items.ids())
    values = frame[field].to_numpy(np.float64) if field is not None else None
    ts = None
    if "timestamp" in cols:
        t = frame["timestamp"]
        ts = (t.astype("int64") // 10**9 if pd.api.types.is_datetime64_any_dtype(t) else t).to_numpy(np.int64)
    kind = "explicit" if field == "rating" else "implicit"
    scale = None
    if kind == "explicit" and values is not None and len(values):
        scale = (float(values.min()), float(values.max()))
    u, i = users.lookup(frame["user_id"].to_numpy()), items.lookup(frame["item_id"].to_numpy())
    return Interactions.from_arrays(u, i, values, users, items, timestamps=ts, kind=kind, scale=scale)
