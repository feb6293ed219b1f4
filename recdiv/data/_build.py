"""Small builders shared by the loaders: interactions and item attributes from parsed frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.data._read import line_of
from recdiv.data.interactions import Attribute, Interactions, Kind
from recdiv.data.vocab import Vocab
from recdiv.errors import DataError


def interactions_from_frame(
    frame: pd.DataFrame,
    users: Vocab,
    items: Vocab,
    *,
    user: str = "user",
    item: str = "item",
    value: str | None = "value",
    timestamp: str | None = "timestamp",
    kind: Kind = "explicit",
    scale: tuple[float, float] | None = None,
) -> Interactions:
    """Interactions over the given vocabularies (every id of the frame must be in them)."""
    u = users.lookup(frame[user].to_numpy(), missing="-1")
    i = items.lookup(frame[item].to_numpy(), missing="-1")
    bad = (u < 0) | (i < 0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise DataError(f"{user} {frame[user].iloc[j]!r} / {item} {frame[item].iloc[j]!r} is not in the vocabulary",
                        frame.attrs.get("path"), line_of(frame, j))
    values = frame[value].to_numpy(np.float64) if value is not None and value in frame else None
    ts = frame[timestamp].to_numpy(np.int64) if timestamp is not None and timestamp in frame else None
    return Interactions.from_arrays(u, i, values, users, items, timestamps=ts, kind=kind, scale=scale)


def check_scale(frame: pd.DataFrame, column: str, scale: tuple[float, float], step: float | None = None) -> None:
    """DataError at the first value outside the rating scale (or off its step grid)."""
    v = frame[column].to_numpy(np.float64)
    bad = (v < scale[0]) | (v > scale[1])
    if step is not None:
        bad |= np.abs(v / step - np.round(v / step)) > 1e-9
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        grid = f" in steps of {step:g}" if step is not None else ""
        raise DataError(f"{column} {v[j]:g} is outside the rating scale {scale[0]:g}–{scale[1]:g}{grid}",
                        frame.attrs.get("path"), line_of(frame, j))


def attribute_from_pairs(
    item_index: np.ndarray, value_labels: np.ndarray, n_items: int, weights: np.ndarray | None = None,
    names: Vocab | None = None,
) -> Attribute:
    """Items × values attribute from (item dense index, value label) pairs; repeated pairs add their weights.

    Value names default to the sorted distinct labels; with `names`, labels outside it are dropped.
    """
    item_index = np.asarray(item_index, dtype=np.int64)
    value_labels = np.asarray(value_labels)
    w = np.ones(len(item_index)) if weights is None else np.asarray(weights, dtype=np.float64)
    names = names if names is not None else Vocab.from_values(value_labels) if len(value_labels) else Vocab([])
    col = names.lookup(value_labels, missing="-1") if len(value_labels) else np.zeros(0, dtype=np.int64)
    keep = (col >= 0) & (item_index >= 0)
    m = sp.csr_matrix((w[keep], (item_index[keep], col[keep])), shape=(n_items, len(names)))
    m.sum_duplicates()
    m.sort_indices()
    return Attribute(m, names)


def split_labels(items: pd.Series, labels: pd.Series, sep: str = "|", drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """Explode `sep`-joined labels (MovieLens genres) into (item, label) rows, dropping empty and `drop` labels."""
    pairs = pd.DataFrame({"item": items.to_numpy(), "label": labels.fillna("").str.split(sep)}).explode("label")
    pairs["label"] = pairs["label"].astype(str).str.strip()
    return pairs[(pairs["label"] != "") & ~pairs["label"].isin(drop)].reset_index(drop=True)
