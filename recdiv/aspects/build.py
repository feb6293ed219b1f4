"""Explicit aspect spaces from a `Dataset` attribute (METRICS.md §E.11; Vargas 2012 thesis §3.6.1).

MovieLens: `genre_space(ds)` (attribute "genres"); Last.fm: `tag_space(ds, top_tags=…, min_users=…)` (attribute
"tags", weight = number of users who applied the tag to the artist). User distributions p(a|u) (count, rating,
fractional) come from `recdiv.models.intent.user_aspect_distribution`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Attribute, Dataset
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError


def space_from_attribute(
    dataset: Dataset,
    attribute: str,
    *,
    top: int | None = None,
    min_weight: float | None = None,
    drop_empty_aspects: bool = True,
    name: str | None = None,
) -> AspectSpace:
    """Aspect space from `dataset.attributes[attribute]` (items × values, weights).

    min_weight: keep an (item, value) entry only if its weight ≥ min_weight (for Last.fm tags: the number of users
    who applied the tag). top: then keep, per item, the `top` entries of largest weight (ties → lower value index).
    drop_empty_aspects: remove values no item keeps. The resulting aspects are explicit: A(i) = kept values.
    """
    if attribute not in dataset.attributes:
        known = ", ".join(dataset.attributes) or "none"
        raise ConfigError(f"dataset {dataset.name!r} has no attribute {attribute!r} (attributes: {known})")
    if top is not None and top < 1:
        raise ConfigError("top must be ≥ 1")
    attr: Attribute = dataset.attributes[attribute]
    m = sp.csr_matrix(attr.matrix, dtype=np.float64)
    m.sort_indices()
    keep = np.ones(m.nnz, dtype=bool)
    if min_weight is not None:
        keep &= m.data >= min_weight
    if top is not None:
        rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        w = np.where(keep, m.data, -np.inf)
        order = np.lexsort((m.indices, -w, rows))  # per item: weight descending, then value index
        rank = np.empty(m.nnz, dtype=np.int64)
        starts = m.indptr[rows[order]]
        rank[order] = np.arange(m.nnz) - starts
        keep &= rank < top
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))[keep]
    cols, data = m.indices[keep], m.data[keep]
    names = attr.names
    if drop_empty_aspects:
        used = np.unique(cols)
        remap = np.full(m.shape[1], -1)
        remap[used] = np.arange(len(used))
        cols = remap[cols]
        names = Vocab(names.ids[used])
    out = sp.csr_matrix((data, (rows, cols)), shape=(m.shape[0], len(names)))
    out.sort_indices()
    return AspectSpace(dataset.items, names, out, name or attribute)


def genre_space(dataset: Dataset, *, drop_empty_aspects: bool = False) -> AspectSpace:
    """MovieLens genres (attribute "genres"); every listed genre is kept, including `unknown` / unused ones."""
    return space_from_attribute(dataset, "genres", drop_empty_aspects=drop_empty_aspects, name="genres")


def tag_space(dataset: Dataset, *, top_tags: int | None = None, min_users: int | None = None) -> AspectSpace:
    """Last.fm tags (attribute "tags"): tags applied by ≥ `min_users` users, then the `top_tags` most used per
    artist. Aspects no artist keeps are dropped."""
    return space_from_attribute(dataset, "tags", top=top_tags, min_weight=min_users, name="tags")
