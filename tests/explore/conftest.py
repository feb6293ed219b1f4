"""Explorers for the tests: the synthetic dataset (no data files) and ML-100K from the shared data folder."""

from __future__ import annotations

import pytest

from recdiv.explore.catalog import Catalog, DatasetChoice, find_datasets
from recdiv.explore.engine import Engine
from recdiv.explore.state import Diversifier, State

SMALL = ("nDCG@10", "EPC@10", "ILD@10", "alpha-nDCG@10")


def synthetic_state(**over) -> State:
    fields = {"dataset": "synthetic:small", "split": "holdout:0.2", "recommender": "pop", "n": 50, "k": 10,
              "measures": SMALL, "a": Diversifier(reranker="MMR", params={"lambda": 0.5}),
              "b": Diversifier(reranker="xQuAD", params={"lambda": 0.5}), **over}
    return State(**fields)


@pytest.fixture(scope="session")
def synthetic_catalog() -> Catalog:
    return Catalog({"synthetic:small": DatasetChoice("synthetic:small", "synthetic:small")})


@pytest.fixture(scope="session")
def synthetic_engine(synthetic_catalog) -> Engine:
    return Engine(synthetic_catalog)


@pytest.fixture(scope="session")
def ml100k_catalog(data_root) -> Catalog:
    found = find_datasets(str(data_root))
    assert "ml-100k" in found
    return Catalog(found)


@pytest.fixture(scope="session")
def ml100k_engine(ml100k_catalog) -> Engine:
    return Engine(ml100k_catalog)
