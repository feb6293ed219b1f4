"""Finding datasets by name: the folders the loaders search, in order.

- a given `--data-dir` (`data_root`) alone — it must exist (no silent fallback to another folder);
- otherwise `$RECDIV_DATA` (which, when set, must exist), `../shared/data` beside the repository, and
  `~/.cache/recdiv/data` — where `recdiv data fetch` stores datasets when `RECDIV_DATA` is not set
  (`recdiv.data.fetch.default_dir`), so that a fetched dataset is found by name.

A name is looked up in each folder in turn; a name or alias of `recdiv.data.datasets.DATASETS` (`ml100k`, `lastfm-2k`,
`hetrec-lastfm`, `ml-latest`, ...) stands for its dataset's folder.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from recdiv.data.datasets import DATASETS
from recdiv.errors import DataError

REPO_ROOT = Path(__file__).resolve().parents[2]
#: where `recdiv data fetch` unpacks datasets when RECDIV_DATA is not set
FETCH_HOME = Path.home() / ".cache" / "recdiv" / "data"


def search_dirs(explicit: str | Path | None = None) -> list[Path]:
    """The existing folders that hold datasets by name, in search order (see the module docstring). A given
    `explicit` folder or `$RECDIV_DATA` that does not exist is a DataError."""
    if explicit is not None:
        if not Path(explicit).is_dir():
            raise DataError(f"--data-dir {explicit}: no such folder")
        return [Path(explicit)]
    env = os.environ.get("RECDIV_DATA")
    if env and not Path(env).is_dir():
        raise DataError(f"RECDIV_DATA={env}: no such folder")
    cands = ([Path(env)] if env else []) + [REPO_ROOT.parent / "shared" / "data", FETCH_HOME]
    return [p for p in cands if p.is_dir()]


def data_dir(explicit: str | Path | None = None) -> Path:
    """The first folder holding datasets by name (`ml-100k/`, `hetrec2011-lastfm-2k/`, ...)."""
    dirs = search_dirs(explicit)
    if not dirs:
        raise DataError("no data folder: pass --data-dir, set RECDIV_DATA, put datasets in ../shared/data, or "
                        "download one with `recdiv data fetch NAME`")
    return dirs[0]


def dataset_path(name_or_path: str | Path, data_root: str | Path | None = None) -> Path:
    """A dataset folder from a path, or from a name looked up in each of `search_dirs(data_root)`."""
    p = Path(name_or_path)
    if p.is_dir():
        return p
    dirs = search_dirs(data_root)
    name = str(name_or_path)
    if ":" not in name and name in DATASETS:  # (module:attribute is not a dataset name)
        name = DATASETS.get(name).folder
    for root in dirs:
        if (root / name).is_dir():
            return root / name
    where = (f"not found in {', '.join(map(str, dirs))}" if dirs else
             f"no data folder exists (searched {', '.join(_default_places())})")
    if str(name_or_path) in DATASETS:  # an official dataset that is not here yet
        raise DataError(f"dataset {str(name_or_path)!r} is not downloaded: {where}; `recdiv data fetch "
                        f"{name_or_path}` downloads it, or pass --data-dir / set RECDIV_DATA")
    known = sorted({*DATASETS.names(), *(p.name for root in dirs for p in root.iterdir() if p.is_dir())})
    close = difflib.get_close_matches(str(name_or_path), known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise DataError(f"no dataset {str(name_or_path)!r}{hint}: not a folder, and {where} "
                    f"(`recdiv data fetch NAME` downloads one of {', '.join(DATASETS.names())})")


def _default_places() -> list[str]:
    """The folders searched when neither --data-dir nor RECDIV_DATA is given, for messages."""
    return ["$RECDIV_DATA", str(REPO_ROOT.parent / "shared" / "data"), "~/.cache/recdiv/data"]
