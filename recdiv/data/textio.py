"""Reading and writing recdiv's text formats, with errors that name file, line and problem.

Formats (whitespace-separated, `#` lines are comments, ids are strings):

- TREC run: ``user Q0 item rank score tag``
- TREC qrels: ``user 0 item grade`` (three columns ``user item grade`` are accepted too)
- interactions TSV: ``user item value [timestamp]``
- item-aspect TSV: ``item aspect [weight]``

Writers are atomic: a file is written beside its target and renamed into place.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from recdiv.data._read import Lines
from recdiv.errors import DataError
from recdiv.outputs import write_error


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[io.IOBase]:
    """Open a temporary file beside `path`; on success rename it over `path`, on error remove it."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:  # the user's disk or path refuses: a clean error naming the file (recdiv.outputs)
        raise write_error(e, path) from None
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file ordinary permissions
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise write_error(e, path) from None
        raise


def _lines(path: Path, encoding: str) -> list[str]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    except IsADirectoryError:
        raise DataError("is a directory, expected a file", path) from None
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise DataError(f"not valid {encoding} text (byte {raw[e.start]:#04x})", path, line) from None
    return text.splitlines()


def read_columns(
    path: str | Path,
    names: list[str],
    *,
    optional: int = 0,
    numeric: dict[str, str] | None = None,
    encoding: str = "utf-8",
    what: str = "file",
) -> pd.DataFrame:
    """Parse a whitespace-separated file into a DataFrame with columns `names`.

    The last `optional` columns may be missing (then absent from the frame if missing everywhere).
    `numeric` maps column name to "int" or "float"; other columns stay strings. Empty files, wrong column
    counts and non-numeric values raise DataError naming the line.
    """
    path = Path(path)
    numeric = numeric or {}
    lines = _lines(path, encoding)
    rows: list[list[str]] = []
    lineno: list[int] = []
    lo, hi = len(names) - optional, len(names)
    width = None
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        parts = s.split()
        if not lo <= len(parts) <= hi:
            expect = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise DataError(f"expected {expect} columns ({' '.join(names)}) in a {what}, found {len(parts)}", path, n)
        if width is None:
            width = len(parts)
        elif len(parts) != width:
            raise DataError(f"expected {width} columns like the first line, found {len(parts)}", path, n)
        rows.append(parts)
        lineno.append(n)
    if not rows:
        raise DataError(f"empty {what}: no data lines", path)
    frame = pd.DataFrame(rows, columns=names[:width])
    for col, kind in numeric.items():
        if col not in frame:
            continue
        conv = pd.to_numeric(frame[col], errors="coerce")
        bad = conv.isna().to_numpy() | (~np.isfinite(conv.to_numpy(dtype=float, na_value=np.nan)))
        if kind == "int" and not bad.any():
            bad = conv.to_numpy(dtype=float) != np.round(conv.to_numpy(dtype=float))
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise DataError(f"{col} must be {'an integer' if kind == 'int' else 'a number'}, got "
                            f"{frame[col].iloc[j]!r}", path, lineno[j])
        frame[col] = conv.astype(np.int64 if kind == "int" else np.float64)
    frame.attrs["lineno"] = Lines(lineno)  # not a bare array: pandas compares attrs when combining frames
    frame.attrs["path"] = str(path)
    return frame


def _check_duplicates(frame: pd.DataFrame, keys: list[str], what: str) -> None:
    dup = frame.duplicated(keys).to_numpy()
    if dup.any():
        j = int(np.flatnonzero(dup)[0])
        vals = ", ".join(f"{k} {frame[k].iloc[j]!r}" for k in keys)
        raise DataError(f"duplicate {what} ({vals})", frame.attrs["path"], int(frame.attrs["lineno"][j]))


def read_trec_run(path: str | Path) -> pd.DataFrame:
    """TREC run file -> columns user, item, rank, score, tag. A repeated (user, item) is an error."""
    frame = read_columns(path, ["user", "q0", "item", "rank", "score", "tag"],
                         numeric={"rank": "int", "score": "float"}, what="TREC run (user Q0 item rank score tag)")
    _check_duplicates(frame, ["user", "item"], "item in a user's ranking")
    return frame.drop(columns="q0")


def read_trec_qrels(path: str | Path) -> pd.DataFrame:
    """TREC qrels (user 0 item grade, or user item grade) -> columns user, item, grade."""
    path = Path(path)
    frame = read_columns(path, ["user", "iter", "item", "grade"], optional=1, numeric={},
                         what="qrels file (user 0 item grade)")
    if "grade" not in frame:  # three columns: user item grade
        frame = frame.rename(columns={"iter": "item", "item": "grade"})
    else:
        frame = frame.drop(columns="iter")
    conv = pd.to_numeric(frame["grade"], errors="coerce")
    if conv.isna().any():
        j = int(np.flatnonzero(conv.isna().to_numpy())[0])
        raise DataError(f"grade must be a number, got {frame['grade'].iloc[j]!r}", path,
                        int(frame.attrs["lineno"][j]))
    frame["grade"] = conv.astype(np.float64)
    _check_duplicates(frame, ["user", "item"], "judgment")
    return frame


def read_interactions_tsv(path: str | Path) -> pd.DataFrame:
    """Interactions file (user item value [timestamp]) -> columns user, item, value[, timestamp]."""
    frame = read_columns(path, ["user", "item", "value", "timestamp"], optional=1,
                         numeric={"value": "float", "timestamp": "int"},
                         what="interactions file (user item value [timestamp])")
    _check_duplicates(frame, ["user", "item"], "(user, item) pair")
    return frame


def read_item_aspects_tsv(path: str | Path) -> pd.DataFrame:
    """Item-aspect file (item aspect [weight]) -> columns item, aspect, weight (default 1)."""
    frame = read_columns(path, ["item", "aspect", "weight"], optional=1, numeric={"weight": "float"},
                         what="item-aspect file (item aspect [weight])")
    if "weight" not in frame:
        frame["weight"] = 1.0
    _check_duplicates(frame, ["item", "aspect"], "(item, aspect) pair")
    return frame


def _fmt_id(x) -> str:
    s = str(x)
    if not s or any(c.isspace() for c in s):
        raise ValueError(f"id {x!r} cannot be written to a whitespace-separated file")
    return s


def write_trec_run(frame: pd.DataFrame, path: str | Path, tag: str = "recdiv") -> None:
    """Write columns user, item, rank, score as a TREC run (atomically)."""
    with atomic_write(path) as fh:
        for u, i, r, s in zip(frame["user"], frame["item"], frame["rank"], frame["score"]):
            fh.write(f"{_fmt_id(u)} Q0 {_fmt_id(i)} {int(r)} {float(s):.17g} {tag}\n")


def write_trec_qrels(frame: pd.DataFrame, path: str | Path) -> None:
    """Write columns user, item, grade as TREC qrels (atomically); integral grades print as integers."""
    with atomic_write(path) as fh:
        for u, i, g in zip(frame["user"], frame["item"], frame["grade"]):
            g = float(g)
            fh.write(f"{_fmt_id(u)} 0 {_fmt_id(i)} {int(g) if g.is_integer() else repr(g)}\n")


def write_interactions_tsv(frame: pd.DataFrame, path: str | Path) -> None:
    """Write columns user, item, value[, timestamp] as TSV (atomically)."""
    cols = ["user", "item", "value"] + (["timestamp"] if "timestamp" in frame else [])
    with atomic_write(path) as fh:
        for row in zip(*(frame[c] for c in cols)):
            v = float(row[2])
            parts = [_fmt_id(row[0]), _fmt_id(row[1]), str(int(v)) if v.is_integer() else repr(v)]
            if len(row) > 3:
                parts.append(str(int(row[3])))
            fh.write("\t".join(parts) + "\n")


def write_item_aspects_tsv(frame: pd.DataFrame, path: str | Path) -> None:
    """Write columns item, aspect[, weight] as TSV (atomically)."""
    with atomic_write(path) as fh:
        has_w = "weight" in frame
        for row in zip(frame["item"], frame["aspect"], frame["weight"] if has_w else frame["item"]):
            line = f"{_fmt_id(row[0])}\t{_fmt_id(row[1])}"
            fh.write(line + (f"\t{float(row[2]):.17g}\n" if has_w else "\n"))
