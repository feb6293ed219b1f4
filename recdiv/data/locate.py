"""Finding the shared data folder: `RECDIV_DATA`, else `../shared/data` beside the repository root."""

from __future__ import annotations

import os
from pathlib import Path

from recdiv.errors import DataError

REPO_ROOT = Path(__file__).resolve().parents[2]


def data_dir(explicit: str | Path | None = None) -> Path:
    """The folder holding datasets by name (`ml-100k/`, `hetrec2011-lastfm-2k/`, ...)."""
    for cand in (explicit, os.environ.get("RECDIV_DATA"), REPO_ROOT.parent / "shared" / "data"):
        if cand and Path(cand).is_dir():
            return Path(cand)
    raise DataError("no data folder: pass --data-dir, set RECDIV_DATA, or put datasets in ../shared/data")


def dataset_path(name_or_path: str | Path, data_root: str | Path | None = None) -> Path:
    """A dataset folder from a path, or from a name looked up under the data folder."""
    p = Path(name_or_path)
    if p.is_dir():
        return p
    root = data_dir(data_root)
    aliases = {"ml100k": "ml-100k", "lastfm-2k": "hetrec2011-lastfm-2k", "hetrec-lastfm": "hetrec2011-lastfm-2k",
               "ml-latest": "ml-latest-small"}
    q = root / aliases.get(str(name_or_path), str(name_or_path))
    if q.is_dir():
        return q
    raise DataError(f"no dataset {str(name_or_path)!r}: not a folder, and not found under {root}")
