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


def _find_tools() -> Path | None:
    for cand in (os.environ.get("RECDIV_TOOLS"), REPO_ROOT.parent / "shared" / "tools"):
        if cand and (Path(cand) / "build.sh").is_file():
            return Path(cand)
    return None


@pytest.fixture(scope="session")
def reference_tools(tmp_path_factory) -> Path:
    """Folder holding the trec_eval and ndeval binaries, compiled once per test session by the shared tools'
    build.sh (../shared/tools or RECDIV_TOOLS; needs cc and make). Under CI=true a missing folder or a failed
    build is an error, not a skip."""
    import subprocess

    tools = _find_tools()
    ci = os.environ.get("CI") == "true"
    if tools is None:
        if ci:
            pytest.fail("CI=true but the reference tools (../shared/tools/build.sh or RECDIV_TOOLS) are missing")
        pytest.skip("reference tools (trec_eval, ndeval sources) not available")
    out = tmp_path_factory.mktemp("reference-tools")
    proc = subprocess.run(["bash", str(tools / "build.sh"), str(out)], capture_output=True, text=True, timeout=600)
    built = out / "trec_eval", out / "ndeval"
    if proc.returncode != 0 or not all(p.is_file() for p in built):
        msg = f"building trec_eval/ndeval failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}"
        if ci:
            pytest.fail(msg)
        pytest.skip(msg)
    return out
