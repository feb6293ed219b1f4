"""Fixtures of the experiment tests: a small experiment on the seeded synthetic:tiny dataset."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from recdiv.experiment.spec.experiment import ExperimentConfig, validate

#: 20 candidates cut to 5 and genre aspects: the tables of the small test experiments
CANDIDATES_AND_GENRES = """
[candidates]
n = 20
k = 5

[[aspects]]
name = "genres"
kind = "explicit"
attribute = "genres"
"""
#: the tables the small test experiments share: the above, and MMR (λ = 0.5) over the genres
SHARED_TABLES = CANDIDATES_AND_GENRES + """
[[diversifiers]]
name = "MMR"
grid = { lambda = [0.5] }
aspects = ["genres"]
"""


def small_toml(head: str, metrics: str, tail: str = "") -> str:
    """A small experiment file: `head` (name, seed, datasets, recommenders), the shared tables, the [metrics] table
    with the lines `metrics`, then `tail`."""
    return f"{head.rstrip()}\n{SHARED_TABLES}\n[metrics]\n{metrics.strip()}\n{tail}"


TINY_TOML = """
name = "tiny"
seed = 3

[[datasets]]
name = "synthetic:tiny"
splits = ["kfold:2:1", "kfold:2:2"]

[[recommenders]]
name = "pop"

[[recommenders]]
name = "pure-svd"
label = "SVD"
params = { factors = 8 }

[candidates]
n = 30
k = 5

[[aspects]]
name = "genres"
kind = "explicit"
attribute = "genres"

[[aspects]]
name = "latent"
kind = "latent"
recommender = "SVD"
l = 2

[[diversifiers]]
name = "MMR"
grid = { lambda = [0.2, 0.6] }
aspects = ["genres", "latent"]

[[diversifiers]]
name = "IASelect"
aspects = ["genres"]
recommenders = ["SVD"]

[metrics]
measures = ["P@5", "nDCG@5", "ILD@5", "alpha-nDCG@5", "EPC@5", "AggregateDiversity@5"]
threshold = 4
population = "judged"

[statistics]
test = "t"
correction = "holm"
"""


def tiny_data() -> dict:
    return tomllib.loads(TINY_TOML)


@pytest.fixture
def tiny_config() -> ExperimentConfig:
    return validate(tiny_data(), "tiny.toml")


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.toml"
    p.write_text(TINY_TOML, "utf-8")
    return p
