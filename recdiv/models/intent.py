"""Intent models (METRICS.md §E.11, §C.0): the aspect distributions p(a|i) of items and p(a|u) of users, written
once and shared by the rerankers (IA-Select, xQuAD, PM-2, calibration) and the metrics (intent-aware weights,
αβ-nDCG's γ).

- `item_aspect_distribution(space)`: p(a|i) = [a ∈ A(i)] / |A(i)|, 0 for every a when A(i) = ∅.
- `user_aspect_distribution(space, train, weighting)`: p(a|u) of every training user —
  ``count``: |{i∈P_u: a∈A(i)}| / Σ_a' |{i∈P_u: a'∈A(i)}| (thesis; RankSys FeatureIntentModel);
  ``rating``: the same counts weighted by the training ratings (Parapar & Radlinski eq. 9);
  ``fractional``: (1/|P_u|) Σ_{i∈P_u} p(a|i) (Steck).
  A profile without aspects gives the uniform distribution over A.
- `aspect_distribution(mass, total)`: the normalisation those share (rows of `mass` / `total`, uniform where the
  total is 0); `rows_or_uniform(dist, rows)`: the rows of known users, uniform for unknown ones (−1);
  `uniform_over(mask)`: 1/|M_u| on a set of aspects (the TREC / ndeval intent weights over A_u^rel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from recdiv.errors import ConfigError

if TYPE_CHECKING:
    import scipy.sparse as sp

    from recdiv.aspects.space import AspectSpace
    from recdiv.data.interactions import Interactions

__all__ = ["WEIGHTINGS", "aspect_distribution", "item_aspect_distribution", "rows_or_uniform", "uniform_over",
           "user_aspect_distribution"]

UserWeighting = Literal["count", "rating", "fractional"]
WEIGHTINGS = ("count", "rating", "fractional")


def item_aspect_distribution(space: AspectSpace) -> sp.csr_matrix:
    """p(a|i) = [a ∈ A(i)] / |A(i)| as items × aspects CSR."""
    n = space.n_item_aspects
    m = space.indicator
    m.data = m.data / np.repeat(np.maximum(n, 1), n)
    return m


def aspect_distribution(mass: np.ndarray, total: np.ndarray, n_aspects: int) -> np.ndarray:
    """Rows mass / total (total: a column), the uniform distribution 1/|A| where total = 0."""
    uniform = np.full(n_aspects, 1.0 / max(n_aspects, 1))
    return np.where(total > 0, mass / np.where(total > 0, total, 1), uniform)


def user_aspect_distribution(space: AspectSpace, train: Interactions,
                             weighting: UserWeighting = "count") -> np.ndarray:
    """p(a|u) for every user of `train` (dense users × aspects); see the module docstring."""
    if train.items is not space.items and train.items != space.items:
        raise ConfigError("training data and aspect space use different item vocabularies")
    prof = train.matrix.copy()
    if weighting == "count":
        prof.data = np.ones_like(prof.data)
        mass = prof @ space.indicator
    elif weighting == "rating":
        mass = prof @ space.indicator
    elif weighting == "fractional":
        prof.data = np.ones_like(prof.data)
        mass = prof @ item_aspect_distribution(space)
    else:
        raise ConfigError(f"unknown user weighting {weighting!r} ({', '.join(WEIGHTINGS)})")
    mass = np.asarray(mass.todense(), dtype=np.float64)
    total = mass.sum(axis=1, keepdims=True)
    if weighting == "fractional":  # Steck: divide by |P_u| (items without aspects count), not by the mass
        total = np.where(total > 0, np.diff(prof.indptr)[:, None].astype(np.float64), 0.0)
    return aspect_distribution(mass, total, space.n_aspects)


def rows_or_uniform(dist: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(n, A) rows `dist[rows]`, the uniform distribution where a row is −1 (a user unknown to the model)."""
    out = np.full((len(rows), dist.shape[1]), 1.0 / max(dist.shape[1], 1))
    ok = rows >= 0
    out[ok] = dist[rows[ok]]
    return out


def uniform_over(mask: np.ndarray) -> np.ndarray:
    """(n, A) weights 1/|M_u| on each user's aspects M_u (a boolean mask), 0 elsewhere."""
    n = mask.sum(axis=1, keepdims=True)
    return np.where(mask, 1.0 / np.maximum(n, 1), 0.0)
