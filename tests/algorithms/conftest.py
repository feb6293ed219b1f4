"""Small hand-built data for the recommender tests."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from recdiv.data import Attribute, Interactions, Vocab


def random_interactions(n_users=30, n_items=40, density=0.3, kind="explicit", seed=0) -> Interactions:
    rng = np.random.default_rng(seed)
    mask = rng.random((n_users, n_items)) < density
    mask[np.arange(n_users), rng.integers(0, n_items, n_users)] = True  # everyone has data
    u, i = np.nonzero(mask)
    vals = rng.integers(1, 6, len(u)).astype(float) if kind == "explicit" else rng.integers(1, 500, len(u))
    return Interactions.from_arrays(u, i, vals, Vocab(np.arange(100, 100 + n_users)), Vocab(np.arange(1, n_items + 1)),
                                    kind=kind, scale=(1, 5) if kind == "explicit" else None)


def random_attribute(n_items=40, n_values=6, seed=1) -> Attribute:
    rng = np.random.default_rng(seed)
    m = (rng.random((n_items, n_values)) < 0.35).astype(float)
    return Attribute(sp.csr_matrix(m), Vocab([f"g{j}" for j in range(n_values)]))


@pytest.fixture
def explicit_data() -> Interactions:
    return random_interactions()


@pytest.fixture
def implicit_data() -> Interactions:
    return random_interactions(kind="implicit", seed=3)
