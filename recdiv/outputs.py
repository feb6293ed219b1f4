"""Outputs: the one guard that refuses an output path before any work, and the one atomic writer.

The guard (`guard_outputs`) is called once per command with the command's inputs and outputs, before anything is
read or computed. It refuses, each as a one-line `ConfigError` naming the option:

- an output file that is a folder, a device or a pipe, or that lies in a folder we cannot create files in
  (`check_output_file`); an output folder that is a file or not writable (`check_output_dir`);
- an output that **is one of the inputs** — the same file by device and inode, so a symbolic link or a hard link
  to an input is that input too (`recdiv rerank RUN -o RUN`, `-o LINK-TO-RUN`);
- a folder output that would write over an input: an input that is (or whose target is) one of the names the
  folder output writes (`--plots DIR` writes ``DIR/*.svg``; `recdiv data export -o DIR` writes four named files);
- two outputs that are the same file (`-o F --factors-out F`, `--html F -o F`), or an output file that a folder
  output of the same command writes;
- a folder output inside a folder the command reads (a dataset's folder): writing there would change the dataset;
- standard output redirected into an input (`recdiv eval QRELS RUN >> RUN`).

The writer (`atomic_write`, `write_text`, `write_bytes`) writes a file beside its target (a temporary name in the
same folder), flushes it to the disk (fsync) and renames it over the target (`os.replace`, atomic on POSIX):
a reader, or a run killed at any moment, sees the previous file or the new one, never a part. An existing target
keeps its permission bits. Operating-system refusals during a write (disk full, read-only file system, permission)
become one `DataError` naming the path (`write_error`). A folder of outputs (`--plots DIR`, an experiment folder)
is written file by file with this writer, so each of its files is absent, old or complete.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from recdiv.errors import ConfigError, DataError

PathLike = str | os.PathLike


# errors ---------------------------------------------------------------------------------------------------------------
def write_error(e: OSError, path: PathLike) -> DataError:
    """A DataError naming `path` for an OSError raised while writing it (never a traceback for the user's disk)."""
    return DataError(f"cannot write: {reason(e)}", path)


def reason(e: OSError) -> str:
    """A short, plain statement of what an OSError means."""
    return {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
            errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
            errno.EROFS: "read-only file system", errno.ENOTDIR: "a part of the path is not a folder",
            errno.EISDIR: "is a folder, expected a file", errno.ENOENT: "a part of the path does not exist",
            errno.ENAMETOOLONG: "file name too long", errno.EFBIG: "file too large",
            errno.EIO: "input/output error",
            errno.EEXIST: "a file is in the way of a folder of the path"}.get(e.errno, e.strerror or str(e))


# the atomic writer ----------------------------------------------------------------------------------------------------
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode_of(path: Path) -> int:
    """The permission bits the new file gets: the existing target's, else an ordinary file's (0666 & ~umask)."""
    try:
        st = os.stat(path)
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o666 & ~_umask()


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (the rename) to the disk; not every file system allows it (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[io.IOBase]:
    """Open a temporary file beside `path` for writing (text with `encoding`, or bytes with mode "wb"); when the
    block ends without an error, flush it to the disk and rename it over `path`; on any error (or a kill) remove it,
    leaving `path` as it was. Missing parent folders are created."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes whole files: mode 'w' or 'wb', not {mode!r}")
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp", dir=path.parent)
    except OSError as e:  # the user's disk or path refuses: a clean error naming the file
        raise write_error(e, path) from None
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding, newline=None if "b" in mode else "") \
                as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_of(path))  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise write_error(e, path) from None
        raise
    _sync_folder(path.parent)


def write_bytes(path: PathLike, data: bytes | bytearray | memoryview) -> None:
    """Write `data` to `path` atomically (`atomic_write`)."""
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def write_text(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write `text` to `path` atomically (`atomic_write`), newlines as given."""
    with atomic_write(path, "w", encoding) as fh:
        fh.write(text)


# checks of one output -----------------------------------------------------------------------------------------------
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
        detail = "" if e.errno == errno.ENOENT else f" ({reason(e)})"  # what /proc answers: nothing to add
        raise ConfigError(f"{what}: cannot create files in {folder}{detail}") from None


def check_output_file(path: PathLike, option: str = "-o") -> Path:
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


def check_output_dir(path: PathLike, option: str = "--out") -> Path:
    """The output folder of an option, checked before work: a folder (or creatable as one) that we may write in."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise ConfigError(f"{option} {path}: not a folder")
        _check_writable(path, f"{option} {path}")
        return path
    _check_parent(path, option)
    return path


# the guard ------------------------------------------------------------------------------------------------------------
def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file `path` names, through symbolic links; None when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _input_files(inputs: Iterable[PathLike | None]) -> tuple[list[tuple[Path, tuple[int, int]]], list[Path]]:
    """(path, identity) of every existing input file — a folder input stands for every file under it — and the input
    folders."""
    out, folders = [], []
    for p in inputs:
        if p is None or str(p) == "-":
            continue
        p = Path(p)
        if p.is_dir():
            folders.append(p)
            for root, _dirs, names in os.walk(p):
                for n in names:
                    ident = _identity(Path(root) / n)
                    if ident is not None:
                        out.append((Path(root) / n, ident))
            continue
        ident = _identity(p)
        if ident is not None:
            out.append((p, ident))
    return out, folders


def _under(path: Path, folder: Path) -> bool:
    rel = os.path.relpath(_real(path), _real(folder))
    return not (rel.startswith(os.pardir) or os.path.isabs(rel))


def _same(a: Path, b: Path) -> bool:
    """Two paths name one file: the same inode (an existing file), or the same resolved path (files to come)."""
    ia, ib = _identity(a), _identity(b)
    if ia is not None and ib is not None:
        return ia == ib
    return _real(a) == _real(b)


def _in_folder(path: Path, folder: Path, patterns: Sequence[str]) -> str | None:
    """The name relative to `folder` under which a folder output writing `patterns` would write `path` (resolved,
    and as given — a link inside the folder is replaced too), or None."""
    real_folder = _real(folder)
    for candidate in (_real(path), os.path.join(_real(path.parent), path.name)):
        rel = os.path.relpath(candidate, real_folder)
        if rel.startswith(os.pardir) or os.path.isabs(rel):
            continue
        if any(fnmatch.fnmatchcase(rel, pat) for pat in patterns):
            return rel
    return None


def _redirect_damage() -> str:
    """What a redirection into an input has done or would do: the shell's ``>`` empties the file before any command
    starts (nothing a command can undo), ``>>`` would append the output to it."""
    import fcntl

    try:
        appending = bool(fcntl.fcntl(sys.stdout.fileno(), fcntl.F_GETFL) & os.O_APPEND)
    except (OSError, ValueError, AttributeError):
        appending = False
    return ("writing it would corrupt it" if appending else
            "the shell emptied that file before recdiv started (`>` truncates it): recreate it")


def _stdout_identity() -> tuple[int, int] | None:
    """(device, inode) of standard output when it is a regular file (a `>` or `>>` redirection)."""
    try:
        st = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def guard_outputs(inputs: Iterable[PathLike | None] = (), files: Mapping[str, PathLike | None] | None = None,
                  folders: Mapping[str, tuple[PathLike | None, Sequence[str]]] | None = None, *,
                  stdout: bool = True) -> None:
    """Refuse, before any work, outputs that would destroy an input or each other (module docstring).

    `inputs`: the files (and folders: every file under them) the command reads; `files`: option → output file;
    `folders`: option → (output folder, glob patterns of the names it writes there, relative to it: ``"*.svg"``,
    ``"train.tsv"``, ``"cache/*"``). None values are options not given. `stdout`: also refuse a standard output
    redirected into an input."""
    files = {k: Path(v) for k, v in (files or {}).items() if v is not None}
    folders = {k: (Path(v[0]), tuple(v[1])) for k, v in (folders or {}).items() if v[0] is not None}
    for option, path in files.items():
        check_output_file(path, option)
    for option, (path, _) in folders.items():
        check_output_dir(path, option)
    sources, input_folders = _input_files(inputs)
    for option, (path, _) in folders.items():
        for folder in input_folders:
            if _under(path, folder):
                raise ConfigError(f"{option} {path}: is inside the input folder {folder}; writing there would change "
                                  "what the command reads: choose a folder outside it")
    for option, path in files.items():
        ident = _identity(path)
        for src, src_ident in sources:
            if ident is not None and ident == src_ident:
                same = "" if _real(src) == _real(path) and str(src) == str(path) else f" ({src})"
                raise ConfigError(f"{option} {path}: is an input of this command{same}; writing it would destroy "
                                  "it: choose another output file")
    for option, (folder, patterns) in folders.items():
        for src, src_ident in sources:
            rel = _in_folder(src, folder, patterns)
            if rel is not None or any(_identity(entry) == src_ident for pat in patterns if "/" not in pat
                                      for entry in folder.glob(pat)):
                raise ConfigError(f"{option} {folder}: would write over the input {src}: choose another folder")
    names = list(files.items())
    for i, (opt_a, a) in enumerate(names):
        for opt_b, b in names[i + 1:]:
            if _same(a, b):
                raise ConfigError(f"{opt_a} {a} and {opt_b} {b} are the same file: give each output its own file")
        for opt_f, (folder, patterns) in folders.items():
            if _in_folder(a, folder, patterns) is not None:
                raise ConfigError(f"{opt_a} {a}: {opt_f} {folder} writes that file too: give each output its own "
                                  "file")
    folder_list = list(folders.items())
    for i, (opt_a, (a, _)) in enumerate(folder_list):
        for opt_b, (b, _) in folder_list[i + 1:]:
            if _real(a) == _real(b):
                raise ConfigError(f"{opt_a} {a} and {opt_b} {b} are the same folder: give each output its own")
    out = _stdout_identity() if stdout else None
    if out is not None:
        for src, src_ident in sources:
            if src_ident == out:
                raise ConfigError(f"standard output is redirected into the input {src}: {_redirect_damage()}; "
                                  "redirect the output to another file")
