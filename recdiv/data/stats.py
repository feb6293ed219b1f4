"""Dataset statistics in the style of Valcarce et al. (2018), Table 2: users, items, interactions, density,
Gini of item popularity, rating scale and the number of aspects of each item attribute."""

from __future__ import annotations

from recdiv.arrays.concentration import gini
from recdiv.data.interactions import Dataset, Interactions


def interaction_stats(inter: Interactions) -> dict:
    """users, items, interactions, density, gini, rating_scale, kind, rated_items, min/max per user."""
    n_u, n_i, nnz = inter.n_users, inter.n_items, inter.nnz
    per_user = inter.user_counts()
    counts = inter.item_counts()
    scale = None if inter.scale is None else [float(inter.scale[0]), float(inter.scale[1])]
    return {
        "users": int(n_u),
        "items": int(n_i),
        "interactions": int(nnz),
        "density": float(nnz / (n_u * n_i)) if n_u and n_i else 0.0,
        "gini": gini(counts),
        "rating_scale": scale,
        "kind": inter.kind,
        "rated_items": int((counts > 0).sum()),
        "min_per_user": int(per_user.min()) if n_u else 0,
        "max_per_user": int(per_user.max()) if n_u else 0,
    }


def dataset_stats(dataset: Dataset) -> dict:
    """Table-2-style statistics of a dataset.

    Keys: name, users, items, interactions, density (interactions / (users × items), over the full
    vocabularies), gini (of item popularity = number of users per item, all items), rating_scale
    ([min, max] or None for implicit data), kind, rated_items, min_per_user, max_per_user, aspects
    ({attribute: number of values}), and source_counts (raw file counts a loader reported, if any).
    """
    out = {"name": dataset.name, **interaction_stats(dataset.interactions)}
    out["aspects"] = {name: int(a.n_values) for name, a in dataset.attributes.items()}
    counts = dataset.extras.get("source_counts")
    if counts:
        out["source_counts"] = {k: int(v) for k, v in counts.items()}
    if dataset.splits:
        out["splits"] = list(dataset.splits)
    return out
