"""Strict, fast readers for the delimited files of the public datasets (MovieLens, Last.fm).

The fast path is pandas' C parser with explicit column types. When it fails (or leaves a required value
empty), a slow line-by-line diagnosis finds the first bad line and raises `DataError` naming the file, the
1-based line number and the problem. Duplicated (user, item) rows are resolved by an explicit policy.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from recdiv.errors import DataError

# column kinds: "int", "float", "str" (required, non-empty) and "str?" (may be empty)
Column = tuple[str, str]
Duplicates = Literal["error", "first", "last", "sum", "mean"]
DUPLICATE_POLICIES = ("error", "first", "last", "sum", "mean")


class Lines:
    """1-based line numbers of a frame's rows, kept in `DataFrame.attrs` (identity equality, so pandas can
    compare attrs when it combines frames)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = np.asarray(array, dtype=np.int64)

    def __getitem__(self, j):
        return self.array[j]

    def __len__(self) -> int:
        return len(self.array)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.array if dtype is None else self.array.astype(dtype)

    def __copy__(self) -> Lines:
        return self

    def __deepcopy__(self, memo) -> Lines:  # pandas deep-copies attrs into every derived frame: share instead
        return self


def line_of(frame: pd.DataFrame, j: int) -> int | None:
    """Line number of row j of a parsed frame (None when unknown)."""
    lines = frame.attrs.get("lineno")
    return None if lines is None else int(lines[j])


def read_bytes(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    except IsADirectoryError:
        raise DataError("is a directory, expected a file", path) from None


def decode(raw: bytes, encoding: str, path: Path) -> str:
    """Decode `raw`, raising DataError with the line of the first undecodable byte."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise DataError(f"not valid {encoding} text (byte {raw[e.start]:#04x}); wrong encoding?", path, line) from None


def _convert(value: str, kind: str) -> str | None:
    """None if `value` is acceptable for `kind`, else the problem."""
    if kind == "str?":
        return None
    if value == "":
        return "is empty"
    if kind == "int":
        try:
            int(value)
        except ValueError:
            return f"must be an integer, got {value!r}"
    elif kind == "float":
        try:
            x = float(value)
        except ValueError:
            return f"must be a number, got {value!r}"
        if not np.isfinite(x):
            return f"must be a finite number, got {value!r}"
    if kind == "int" and abs(int(value)) > 2**53:
        return f"is too large an integer ({value})"
    return None


def diagnose(
    text: str, columns: list[Column], sep: str, header: int, path: Path, what: str, quoted: bool, shown_sep: str = ""
) -> None:
    """Raise DataError for the first malformed data line of `text` (slow; only run after a failed fast parse)."""
    names = " ".join(n for n, _ in columns)
    if quoted:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        rows = ((reader.line_num, r) for r in reader)
    else:
        rows = ((n, line.rstrip("\r").split(sep)) for n, line in enumerate(text.split("\n"), 1))
    for n, parts in rows:
        if n <= header or (not parts or parts == [""]):
            continue
        if len(parts) != len(columns):
            raise DataError(f"expected {len(columns)} {(shown_sep or sep)!r}-separated columns ({names}) in {what}, "
                            f"found {len(parts)}", path, n)
        for (name, kind), value in zip(columns, parts):
            problem = _convert(value.strip() if kind != "str?" else value, kind)
            if problem:
                raise DataError(f"{name} {problem}", path, n)


def read_table(
    path: str | Path,
    columns: list[Column],
    *,
    sep: str = "\t",
    header: bool = False,
    encoding: str = "utf-8",
    what: str = "file",
    quoted: bool = False,
    text: str | None = None,
    replace_sep: str | None = None,
) -> pd.DataFrame:
    """Read a delimited file with exactly `columns` (name, kind) into a DataFrame.

    `header=True`: the first line must name the columns (checked). `quoted`: CSV quoting (MovieLens CSVs);
    otherwise quotes are data. `replace_sep`: a multi-character separator (MovieLens `::`) replaced by `sep`
    before parsing. Blank lines are skipped. `frame.attrs["lineno"]` holds each row's 1-based line number.
    """
    path = Path(path)
    raw, text_src = None, text
    if text is None:
        if replace_sep is not None:
            raw = read_bytes(path).replace(replace_sep.encode(), sep.encode())
        elif not path.is_file():
            read_bytes(path)  # raises the right DataError
    names = [n for n, _ in columns]
    if header:
        if text_src is not None:
            first = text_src
        else:
            with open(path, "rb") as fh:
                head = fh.readline(65536) if raw is None else raw[:65536]
            first = decode(head.split(b"\n", 1)[0], encoding, path)
        first = first.split("\n", 1)[0].strip().lstrip("\ufeff")
        got = next(csv.reader([first], delimiter=sep)) if quoted else first.split(sep)
        if [g.strip() for g in got] != names:
            if not first:
                raise DataError(f"empty {what}: no header line ({sep.join(names)})", path, 1)
            raise DataError(f"expected the header {sep.join(names)!r} in {what}, found {first!r}", path, 1)
    # integers parse as float64 (the C parser's fast path, and blank lines become NaN rows); they are checked
    # to be whole and below 2**53 (exact in float64), then converted to int64 once blank rows are dropped
    dtypes = {n: (np.float64 if k in ("int", "float") else object) for n, k in columns}
    src = io.StringIO(text_src) if text_src is not None else io.BytesIO(raw) if raw is not None else str(path)
    try:
        frame = pd.read_csv(
            src, sep=sep, header=None, names=names, skiprows=1 if header else 0, dtype=dtypes,
            encoding=encoding, quoting=csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE, keep_default_na=False,
            na_values={n: [""] for n in names}, skip_blank_lines=False, engine="c",
        )
        ok = True
    except (ValueError, TypeError, pd.errors.ParserError, UnicodeDecodeError, OverflowError):
        frame, ok = None, False
    except pd.errors.EmptyDataError:
        raise DataError(f"empty {what}: no data lines", path) from None
    if ok:
        blank = frame.isna().all(axis=1).to_numpy()
        required = [n for n, k in columns if k != "str?"]
        if (frame[required].isna().to_numpy() & ~blank[:, None]).any():
            ok = False
        for n, k in columns:
            if ok and k == "int":
                v = frame[n].to_numpy()
                v = v[~np.isnan(v)]
                if (v != np.round(v)).any() or (np.abs(v) > 2.0**53).any():
                    ok = False
    if not ok:
        if text_src is None:
            text_src = decode(raw if raw is not None else read_bytes(path), encoding, path)
        full = text_src
        diagnose(full, columns, sep, int(header), path, what, quoted, replace_sep or sep)
        raise DataError(f"could not parse {what} (no single bad line found)", path)
    lineno = np.arange(len(frame), dtype=np.int64) + (2 if header else 1)
    if blank.any():
        frame = frame.loc[~blank].reset_index(drop=True)
        lineno = lineno[~blank]
    if len(frame) == 0:
        raise DataError(f"empty {what}: no data lines", path)
    for n, k in columns:
        if k == "str?":
            frame[n] = frame[n].fillna("")
        elif k == "int":
            frame[n] = frame[n].to_numpy(np.int64)
    frame.attrs["lineno"] = Lines(lineno)
    frame.attrs["path"] = str(path)
    return frame


def resolve_duplicates(
    frame: pd.DataFrame, keys: list[str], value: str | None, policy: str, what: str = "(user, item) pair"
) -> pd.DataFrame:
    """Apply the duplicates policy to rows repeating `keys`.

    error: DataError at the line of the first repeat; first/last: keep that row; sum/mean: combine `value`
    (other columns from the last row; a timestamp column takes the latest time).
    """
    if policy not in DUPLICATE_POLICIES:
        raise DataError(f"unknown duplicates policy {policy!r}; use one of {', '.join(DUPLICATE_POLICIES)}")
    dup = frame.duplicated(keys, keep="first").to_numpy()
    if not dup.any():
        return frame
    attrs = dict(frame.attrs)
    if policy == "error":
        j = int(np.flatnonzero(dup)[0])
        vals = ", ".join(f"{k} {frame[k].iloc[j]!r}" for k in keys)
        first = int(np.flatnonzero((frame[keys] == frame[keys].iloc[j]).all(axis=1).to_numpy())[0])
        lineno = attrs.get("lineno")
        first_line = f" (first at line {int(lineno[first])})" if lineno is not None else ""
        raise DataError(f"duplicate {what} ({vals}){first_line}; pass duplicates='last'|'first'|'sum'|'mean' to "
                        f"combine them", attrs.get("path"), None if lineno is None else int(lineno[j]))
    lineno = attrs.get("lineno")
    if lineno is not None:
        frame = frame.assign(_line=np.asarray(lineno.array))
    if policy in ("first", "last"):
        out = frame.drop_duplicates(keys, keep=policy)
    else:
        g = frame.groupby(keys, sort=False)
        out = g.last()
        out[value] = g[value].sum() if policy == "sum" else g[value].mean()
        if "timestamp" in frame:
            out["timestamp"] = g["timestamp"].max()
        out = out.reset_index()[frame.columns]
    out = out.reset_index(drop=True)
    if lineno is not None:
        attrs["lineno"] = Lines(out.pop("_line").to_numpy())
    out.attrs.update(attrs)
    return out


def plain(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """`frame` without the parser's attrs (line numbers), as stored in a Dataset."""
    if frame is not None:
        frame.attrs = {}
    return frame
