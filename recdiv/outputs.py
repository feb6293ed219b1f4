"""Output boundaries: check an output path before any work, and turn the operating system's refusals at a write
(permission, disk full, not a directory, ...) into one clean error that names the path.

Every command checks its output (`-o FILE`, `--out DIR`) with `check_output_file` / `check_output_dir` before it
reads or computes anything, so a typo costs nothing; `write_error` is what the writers raise when a write fails
anyway (the disk fills up, the folder disappears).
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from recdiv.errors import ConfigError, DataError


def write_error(e: OSError, path: str | Path) -> DataError:
    """A DataError naming `path` for an OSError raised while writing it (never a traceback for the user's disk)."""
    return DataError(f"cannot write: {_reason(e)}", path)


def _reason(e: OSError) -> str:
    return {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
            errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
            errno.EROFS: "read-only file system", errno.ENOTDIR: "a part of the path is not a folder",
            errno.EISDIR: "is a folder, expected a file", errno.ENOENT: "a part of the path does not exist",
            errno.ENAMETOOLONG: "file name too long",
            errno.EEXIST: "a file is in the way of a folder of the path"}.get(e.errno, e.strerror or str(e))


def _nearest_existing(path: Path) -> Path:
    p = path
    while not (p.exists() or p.is_symlink()) and p != p.parent:
        p = p.parent
    return p


def _check_parent(path: Path, option: str) -> None:
    """`path`'s nearest existing ancestor is a folder we may create entries in."""
    base = _nearest_existing(path.parent)
    if not base.is_dir():
        raise ConfigError(f"{option} {path}: cannot write there: {base} is not a folder")
    _check_writable(base, f"{option} {path}: cannot write there")


def _check_writable(folder: Path, what: str) -> None:
    """We may create files in `folder`: the permission bits, then a real (anonymous) temporary file, which also
    catches what the bits do not show (a read-only file system, a virtual one such as /proc, ACLs, root on NFS)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{what}: no permission to create files in {folder}")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        reason = "" if e.errno == errno.ENOENT else f" ({_reason(e)})"  # what /proc answers: nothing to add
        raise ConfigError(f"{what}: cannot create files in {folder}{reason}") from None


def check_output_file(path: str | Path, option: str = "-o") -> Path:
    """The output file of an option, checked before work: not a folder, not a device or pipe (files are written
    beside their target and renamed into place), in a folder that exists or can be created and is writable."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{option} {path}: is a folder, expected a file to write")
    if path.exists() and not path.is_file():
        raise ConfigError(f"{option} {path}: not a regular file (outputs are written beside the target and renamed "
                          "into place)")
    _check_parent(path, option)
    return path


def check_output_dir(path: str | Path, option: str = "--out") -> Path:
    """The output folder of an option, checked before work: a folder (or creatable as one) that we may write in."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise ConfigError(f"{option} {path}: not a folder")
        _check_writable(path, f"{option} {path}")
        return path
    _check_parent(path, option)
    return path
