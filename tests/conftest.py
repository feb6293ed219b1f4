"""Shared fixtures. Real-data tests read ../shared/data (or RECDIV_DATA); under CI=true a missing data
folder is an error, not a skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from recdiv.data.locate import REPO_ROOT


def _find_data() -> Path | None:
    for cand in (os.environ.get("RECDIV_DATA"), REPO_ROOT.parent / "shared" / "data"):
        if cand and Path(cand).is_dir():
            return Path(cand)
    return None


@pytest.fixture(scope="session")
def data_root() -> Path:
    root = _find_data()
    if root is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but the shared data folder is missing (../shared/data or RECDIV_DATA)")
        pytest.skip("shared data folder not available")
    return root


@pytest.fixture(scope="session")
def ml100k_dir(data_root: Path) -> Path:
    p = data_root / "ml-100k"
    if not p.is_dir():
        pytest.fail(f"{p} missing")
    return p


@pytest.fixture(scope="session")
def lastfm_dir(data_root: Path) -> Path:
    p = data_root / "hetrec2011-lastfm-2k"
    if not p.is_dir():
        pytest.fail(f"{p} missing")
    return p


@pytest.fixture(scope="session")
def mlsmall_dir(data_root: Path) -> Path:
    p = data_root / "ml-latest-small"
    if not p.is_dir():
        pytest.fail(f"{p} missing")
    return p
