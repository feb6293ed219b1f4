"""One strict, fast reader for every delimited text file recdiv reads: TREC runs and qrels, recdiv's TSV files
and the public datasets' files (MovieLens, Last.fm).

The parser is pyarrow's CSV reader (C++, multi-threaded; docs/data.md says why): it enforces the number of
fields on every line, converts numbers, validates UTF-8 and dictionary-encodes ids, so a 604,000-line run is
read in about a tenth of a second into compact arrays. Everything around it is vectorised too: `_source`
prepares the bytes and numbers the lines; the checks below are numpy masks over whole columns. When the parser
or a check refuses the file, the first offending row is found (by the parser's own row callback, by value, or
by mask) and mapped to its line: every error is `DataError(problem, file, line)`.

Column kinds: "int" (whole number, |x| ≤ 2**53, parsed as float64 then checked), "float" (finite number),
"id" (a non-empty identifier without control characters; dictionary-encoded), "str" (non-empty text),
"str?" (any text, may be empty) and "skip" (a field that must be there but is not read, e.g. TREC's Q0).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from recdiv.data._source import (
    TextLines,
    check_bytes,
    cut_header,
    iter_source,
    line_at,
    line_bounds,
    lone_cr_to_nl,
    read_source,
    regular_lines,
    split_lines,
)
from recdiv.errors import DataError

Column = tuple[str, str]
Layouts = dict[int, list[Column]]
Duplicates = Literal["error", "first", "last", "sum", "mean"]
DUPLICATE_POLICIES = ("error", "first", "last", "sum", "mean")
KINDS = ("int", "float", "id", "str", "str?", "skip")
# control characters (C0, DEL, C1), line/paragraph separators and byte-order marks have no place in an id
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


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


def line_of(frame, j: int) -> int | None:
    """Line number of row j of a parsed frame (None when unknown)."""
    lines = frame.attrs.get("lineno")
    return None if lines is None else int(lines[j])


@dataclass
class Codes:
    """A dictionary-encoded string column: row r holds labels[codes[r]] (labels distinct)."""

    codes: np.ndarray
    labels: np.ndarray

    def values(self) -> np.ndarray:
        return self.labels[self.codes]

    def __len__(self) -> int:
        return len(self.codes)


@dataclass
class Table:
    """Parsed columns (numpy arrays; "id" columns as `Codes`) and each row's line number in `path`."""

    path: str
    columns: dict[str, np.ndarray | Codes]
    lineno: np.ndarray
    extra: dict = field(default_factory=dict)
    unit: str = "line"  # what `lineno` numbers: lines of a text file, or rows of a table (Parquet, a DataFrame)

    def __len__(self) -> int:
        return len(self.lineno)

    def __getitem__(self, name: str) -> np.ndarray | Codes:
        return self.columns[name]

    def error(self, problem: str, row: int) -> DataError:
        if self.unit == "row":
            return DataError(f"row {int(self.lineno[row])}: {problem}", self.path)
        return DataError(problem, self.path, int(self.lineno[row]))

    def frame(self):
        """The table as a pandas DataFrame (ids as strings), with attrs `path` and `lineno`."""
        import pandas as pd

        frame = pd.DataFrame({n: (c.values() if isinstance(c, Codes) else c) for n, c in self.columns.items()})
        frame.attrs["lineno"] = Lines(self.lineno)
        frame.attrs["path"] = self.path
        return frame


# reading ----------------------------------------------------------------------------------------------------
def _transcode(raw: bytes, encoding: str, path: Path) -> bytes:
    """UTF-8 bytes of a file in `encoding` ("utf-8", "latin-1", or "utf-8|latin-1": UTF-8 when it decodes)."""
    if encoding == "utf-8":
        return raw
    if encoding == "utf-8|latin-1":
        try:
            raw.decode("utf-8")
            return raw
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1").encode("utf-8")


def _layout_problem(layouts: Layouts, found: int, sep: str | None, what: str, width: int | None) -> str:
    widest = layouts[max(layouts)]
    names = " ".join(n for n, _ in widest)
    if width is not None and found in layouts:
        return f"expected {width} columns like the first line, found {found}"
    lo, hi = min(layouts), max(layouts)
    expect = f"{lo}" if lo == hi else f"{lo} to {hi}"
    if sep is None:
        return f"expected {expect} columns ({names}) in a {what}, found {found}"
    return f"expected {expect} {sep!r}-separated columns ({names}) in {what}, found {found}"


def _arrow_read(data, columns: list[Column], delim: bytes, quoted: bool, *, handler=None, only: str | None = None,
                read_skipped: bool = False, serial: bool = False):
    """pyarrow's CSV reader on `data` (every line a row: a blank line is an invalid row). `read_skipped`: "skip"
    columns are read too (dictionary-encoded, cheap), to see whether they are empty. `serial` (and `handler`):
    one thread, so that the first error reported is the first in the file."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = [n for n, _ in columns]
    dictionary = pa.dictionary(pa.int32(), pa.string())
    arrow_type = {"int": pa.float64(), "float": pa.float64(), "id": dictionary, "str": pa.string(),
                  "str?": pa.string(), "skip": dictionary}
    types = {n: arrow_type[k] for n, k in columns if k != "skip" or read_skipped}
    include = list(types)
    if only is not None:  # one column as raw text, no conversion (used to find a bad value)
        types, include = {only: pa.string()}, [only]
    return pcsv.read_csv(
        pa.py_buffer(data),
        read_options=pcsv.ReadOptions(column_names=names, use_threads=handler is None and not serial),
        parse_options=pcsv.ParseOptions(delimiter=delim.decode(), quote_char='"' if quoted else False,
                                        double_quote=quoted, escape_char=False, newlines_in_values=False,
                                        ignore_empty_lines=False, invalid_row_handler=handler),
        convert_options=pcsv.ConvertOptions(column_types=types, include_columns=include, null_values=[],
                                            strings_can_be_null=False, quoted_strings_can_be_null=False,
                                            check_utf8=only is None),
    )


def _utf8_error(raw: bytes, path: Path, first_line: int) -> DataError | None:
    """DataError at the first byte of `raw` that is not UTF-8 (None if it all decodes)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as u:
        return DataError(f"not valid utf-8 text (byte {raw[u.start]:#04x}); wrong encoding?", path,
                         line_at(raw, u.start, first_line))
    return None


def _diagnose(e: Exception, raw: bytes, lines: TextLines, delim: bytes, columns: list[Column], layouts: Layouts,
              *, path: Path, sep: str | None, what: str, quoted: bool, first_line: int) -> DataError:
    """The DataError (with its line) for a file pyarrow refused with `e`."""
    import pyarrow as pa

    msg = str(e)
    width = len(columns) if len(layouts) > 1 else None
    if "Expected" in msg and "columns, got" in msg:
        first_bad: list = []

        def handler(row):
            first_bad.append(row)
            return "error"

        try:
            _arrow_read(lines.data, columns, delim, quoted, handler=handler, only=columns[0][0])
        except pa.ArrowInvalid:
            pass
        if first_bad and first_bad[0].number is not None:
            row = first_bad[0]
            return DataError(_layout_problem(layouts, row.actual_columns, sep, what, width), path,
                             int(lines.lineno[row.number - 1]))
    if "CSV conversion error" in msg:  # parsed in parallel: ask again in file order for the first bad value
        try:
            _arrow_read(lines.data, columns, delim, quoted, serial=True)
        except pa.ArrowInvalid as first:
            msg = str(first)
    m = re.match(r"In CSV column #(\d+): (?:Row #(\d+): )?CSV conversion error to \w+: invalid value '(.*)'$", msg,
                 re.S)
    if m:
        name, kind = columns[int(m.group(1))]
        value = m.group(3)
        if m.group(2) is not None:  # serial parsing names the row
            row = int(m.group(2)) - 1
        else:
            text = _arrow_read(lines.data, columns, delim, quoted, only=name).column(name)
            hit = np.flatnonzero(text.to_numpy(zero_copy_only=False) == value)
            row = int(hit[0]) if len(hit) else None
        problem = f"{name} is empty" if value.strip() == "" else \
            f"{name} must be {'an integer' if kind == 'int' else 'a number'}, got {value!r}"
        return DataError(problem, path, None if row is None else int(lines.lineno[row]))
    if "invalid UTF8" in msg:
        error = _utf8_error(raw, path, first_line)
        if error is not None:
            return error
    return DataError(f"cannot parse {what}: {msg}", path)


def _field_count(lines: TextLines, delim: bytes) -> int:
    """Number of fields on the first data line."""
    nl = lines.data.find(b"\n")
    return (lines.data if nl < 0 else lines.data[:nl]).rstrip(b"\r").count(delim) + 1


def _check_header(header: str | None, names: list[str], sep: str | None, quoted: bool, path: Path, what: str):
    first = (header or "").strip()
    got = [g.strip().strip('"') if quoted else g.strip() for g in first.split(sep or None)]
    if got != names:
        shown = (sep or " ").join(names)
        if not first:
            raise DataError(f"empty {what}: no header line ({shown})", path, 1)
        raise DataError(f"expected the header {shown!r} in {what}, found {first!r}", path, 1)


def _fixed(chunks, part, dtype) -> np.ndarray:
    """The values of fixed-width pyarrow arrays (no nulls), concatenated: read from their buffers directly
    (pyarrow's `to_numpy` imports pandas when it is installed)."""
    size = np.dtype(dtype).itemsize
    arrays = [np.frombuffer(part(c).buffers()[1], dtype=dtype, count=len(c), offset=part(c).offset * size)
              for c in chunks]
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def _text(array) -> np.ndarray:
    """A pyarrow string array as an object array of str. Through Python lists: pyarrow's own conversion would
    import pandas (a second of start-up for `recdiv eval`); these arrays are the distinct ids, or the
    dictionary of a column."""
    return np.array(array.to_pylist(), dtype=object)


def _bad_label(labels: np.ndarray, name: str) -> tuple[int, str] | None:
    """(index, problem) of the first label that is empty or holds a control character; None if all are fine."""
    if len(labels) == 0:
        return None
    empty = np.flatnonzero(labels == "")
    if len(empty):
        return int(empty[0]), f"{name} is empty"
    hit = _CONTROL.search(" ".join(labels))  # one C-speed scan of all distinct labels
    if not hit:
        return None
    ends = np.cumsum(np.fromiter(map(len, labels), np.int64, len(labels)) + 1)
    j = int(np.searchsorted(ends, hit.start(), side="right"))
    return j, (f"{name} {labels[j]!r} contains a control character (U+{ord(hit.group()):04X}); ids must be "
               f"printable text")


def check_ids(values: np.ndarray, name: str, source) -> None:
    """DataError at the first row of `source` (a Table or a parsed DataFrame) whose id in `values` is empty or
    holds a control character."""
    import pandas as pd

    codes, labels = pd.factorize(values)
    bad = _bad_label(np.asarray(labels, dtype=object), name)
    if bad is not None:
        row = int(np.flatnonzero(codes == bad[0])[0])
        lineno = source.lineno if isinstance(source, Table) else source.attrs.get("lineno")
        path = source.path if isinstance(source, Table) else source.attrs.get("path")
        raise DataError(bad[1], path, None if lineno is None else int(lineno[row]))


def _ids(col, name: str, lineno: np.ndarray, path: Path) -> Codes:
    col = col.unify_dictionaries()
    chunks = col.chunks
    if chunks:
        labels = _text(chunks[0].dictionary)
        codes = _fixed(chunks, lambda c: c.indices, np.int32)
    else:
        labels, codes = np.array([], dtype=object), np.array([], dtype=np.int32)
    bad = _bad_label(labels, name)
    if bad is not None:
        row = int(np.flatnonzero(codes == bad[0])[0])
        raise DataError(bad[1], path, int(lineno[row]))
    return Codes(codes, labels)


def _numbers(values: np.ndarray, name: str, kind: str, lineno: np.ndarray, path: Path) -> np.ndarray:
    bad = ~np.isfinite(values)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise DataError(f"{name} must be a finite number, got {float(values[j])!r}", path, int(lineno[j]))
    if kind == "int":
        bad = (values != np.round(values)) | (np.abs(values) > 2.0**53)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            v = float(values[j])
            problem = f"is too large an integer ({v:.0f})" if v == np.round(v) else f"must be an integer, got {v!r}"
            raise DataError(f"{name} {problem}", path, int(lineno[j]))
        return values.astype(np.int64)
    return values


def _chunked_numbers(col, name: str, kind: str, lineno: np.ndarray, path: Path) -> np.ndarray:
    """`_numbers` of a parsed float64 column, chunk by chunk into one array: no concatenated copy, and temporaries
    the size of a parser block (a 3 M-line run would otherwise fault in ~100 MB of fresh pages)."""
    out = np.empty(len(col), dtype=np.int64 if kind == "int" else np.float64)
    pos = 0
    for chunk in col.chunks:
        m = len(chunk)
        values = np.frombuffer(chunk.buffers()[1], dtype=np.float64, count=m, offset=chunk.offset * 8)
        out[pos:pos + m] = _numbers(values, name, kind, lineno[pos:pos + m], path)
        pos += m
    return out


def _has_empty(table, columns: list[Column], whitespace: bool) -> bool:
    """Whether a required text field of the parsed table is empty: a blank line (the parser makes it a row of
    empty fields) or, in whitespace formats, a run of blanks."""
    import pyarrow as pa

    for name, kind in columns:
        if kind in ("id", "str") or (kind == "skip" and whitespace):
            col = table.column(name)
            if pa.types.is_dictionary(col.type):
                if any(len(c.dictionary) and (_text(c.dictionary) == "").any()
                       for c in col.chunks):
                    return True
            elif (col.to_numpy(zero_copy_only=False) == "").any():
                return True
    return False


def _parse_regular(raw: bytes, layouts: Layouts, delim: bytes, quoted: bool, whitespace: bool):
    """(parsed table, columns) of a file read as it is, or None when it needs the line model (a blank line, runs of
    blanks, a field count that is off): the parser decides in one pass, the line model is built only then."""
    import pyarrow as pa

    nl = raw.find(b"\n")
    width = (raw if nl < 0 else raw[:nl]).rstrip(b"\r").count(delim) + 1 if len(layouts) > 1 else max(layouts)
    columns = layouts.get(width)
    if columns is None or not raw:
        return None
    try:
        table = _arrow_read(raw, columns, delim, quoted, read_skipped=whitespace)
    except pa.ArrowInvalid:
        return None
    if _has_empty(table, columns, whitespace):
        return None
    return table, columns


def _convert(arrays: dict, columns: list[Column], lineno: np.ndarray, path: Path) -> dict[str, np.ndarray | Codes]:
    """The parsed columns (pyarrow, taken out of `arrays` one by one so that each is freed once converted) as
    numpy arrays (ids as Codes), checked: numbers finite (and whole for "int"), ids printable, required text
    non-empty."""
    out: dict[str, np.ndarray | Codes] = {}
    for name, kind in columns:
        if kind == "skip":
            continue
        col = arrays.pop(name)
        if kind == "id":
            out[name] = _ids(col, name, lineno, path)
        elif kind in ("int", "float"):
            out[name] = _chunked_numbers(col, name, kind, lineno, path)
        else:
            values = col.to_numpy(zero_copy_only=False)
            if kind == "str":
                empty = values == ""
                if empty.any():
                    raise DataError(f"{name} is empty", path, int(lineno[int(np.flatnonzero(empty)[0])]))
            out[name] = values
        del col
    return out


def parse_table(
    path: str | Path,
    layouts: list[Column] | Layouts,
    *,
    sep: str | None = "\t",
    header: bool = False,
    quoted: bool = False,
    comments: bool = False,
    encoding: str = "utf-8",
    replace_sep: str | None = None,
    what: str = "file",
    data: bytes | None = None,
    first_line: int = 1,
    allow_empty: bool = False,
) -> Table:
    """Read a delimited file into a `Table` with the columns of `layouts` (name, kind).

    `layouts`: one list of columns, or {number of fields: columns} for formats with optional trailing fields
    (the first data line decides; every line must then have as many fields). `sep=None`: fields separated by runs
    of spaces and tabs (TREC, recdiv's TSV). `header`: the first line must name the columns. `quoted`: CSV quoting
    (MovieLens CSVs); otherwise quotes are data. `comments`: lines starting with `#` are skipped.
    `replace_sep`: a multi-character separator (MovieLens `::`) replaced by `sep` first. `encoding`: "utf-8",
    "latin-1" or "utf-8|latin-1" (UTF-8 when it decodes). Blank lines are skipped. `data` (the file's bytes from
    `first_line` on, for files read in blocks) replaces reading `path`.
    """
    import pyarrow as pa

    path = Path(path)
    if isinstance(layouts, list):
        layouts = {len(layouts): layouts}
    raw = read_source(path) if data is None else data
    if replace_sep is not None:
        stray = raw.find((sep or " ").encode())  # it would split a field once the separator is replaced
        if stray >= 0:
            raise DataError(f"a {sep!r} character in a {replace_sep!r}-separated file", path,
                            line_at(raw, stray, first_line))
        raw = raw.replace(replace_sep.encode(), (sep or " ").encode())
    raw = lone_cr_to_nl(_transcode(raw, encoding, path))
    check_bytes(raw, path, first_line, utf8=encoding == "utf-8")
    if header and first_line == 1:
        head, raw, first_line = cut_header(raw, first_line)
        _check_header(head, [n for n, _ in layouts[max(layouts)]], sep, quoted, path, what)
    whitespace = sep is None
    delim = regular_lines(raw, comments=comments, whitespace=whitespace)
    lines = None
    regular = None if delim is None else _parse_regular(raw, layouts, sep.encode() if sep else delim, quoted,
                                                         whitespace)
    if regular is not None:
        table, columns = regular
        lineno = np.arange(first_line, first_line + table.num_rows, dtype=np.int64)
    else:
        lines = split_lines(raw, comments=comments, whitespace=whitespace, first_line=first_line)
        lineno = lines.lineno
        if len(lineno) == 0:
            if allow_empty:
                return Table(str(path), {}, lineno)
            raise DataError(f"empty {what}: no data lines", path)
        delim = sep.encode() if sep else b" "
        width = _field_count(lines, delim) if len(layouts) > 1 else max(layouts)
        if width not in layouts:
            raise DataError(_layout_problem(layouts, width, replace_sep or sep, what, None), path, int(lineno[0]))
        columns = layouts[width]
        try:
            table = _arrow_read(lines.data, columns, delim, quoted)
        except pa.ArrowInvalid as e:
            raise _diagnose(e, raw, lines, delim, columns, layouts, path=path, sep=replace_sep or sep, what=what,
                            quoted=quoted, first_line=first_line) from None
        if table.num_rows != len(lineno):  # the line model and the parser disagree: a bug, not bad data
            raise AssertionError(f"{path}: {table.num_rows} rows parsed from {len(lineno)} data lines")
    arrays = {n: table.column(n) for n, k in columns if k != "skip"}
    del table, regular, raw, lines  # the file's bytes and the parser's other columns are freed before converting
    out = _convert(arrays, columns, lineno, path)
    pa.default_memory_pool().release_unused()  # give the parser's memory back (its allocator keeps it otherwise)
    return Table(str(path), out, lineno)


def iter_tables(
    path: str | Path, layouts: list[Column] | Layouts, *, block: int = 64 << 20, **options
) -> Iterator[Table]:
    """`parse_table` over a large file in blocks of whole lines (line numbers continue across blocks)."""
    line = 1
    for data in iter_source(path, block):
        table = parse_table(path, layouts, data=data, first_line=line, allow_empty=True, **options)
        if len(table):
            yield table
        line += lone_cr_to_nl(data).count(b"\n")


def read_lines(path: str | Path, *, encoding: str = "utf-8", what: str = "file") -> Table:
    """Every non-blank line of a file as one text field: column "line", a pyarrow string array (for formats whose
    fields are found by a pattern, not a delimiter; e.g. ML-10M tags, which may contain the separator)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    path = Path(path)
    raw = _transcode(read_source(path), encoding, path)
    check_bytes(raw, path, utf8=encoding == "utf-8")
    lines = split_lines(raw)
    if len(lines.lineno) == 0:
        raise DataError(f"empty {what}: no data lines", path)
    starts, _ = line_bounds(np.frombuffer(lines.data, dtype=np.uint8))
    offsets = np.append(starts, len(lines.data)).astype(np.int64)
    text = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets), pa.py_buffer(lines.data))
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        raise _utf8_error(raw, path, 1) or DataError(f"cannot read {what}: not valid text", path) from None
    return Table(str(path), {"line": pc.utf8_rtrim(text, characters="\r\n")}, lines.lineno)


def read_table(path: str | Path, columns: list[Column], **options):
    """`parse_table` as a pandas DataFrame (attrs: `path`, `lineno`)."""
    return parse_table(path, columns, **options).frame()


# duplicates ---------------------------------------------------------------------------------------------------
def resolve_duplicates(frame, keys: list[str], value: str | None, policy: str, what: str = "(user, item) pair"):
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


def plain(frame):
    """`frame` without the parser's attrs (line numbers), as stored in a Dataset."""
    if frame is not None:
        frame.attrs = {}
    return frame
