"""The one reader layer for runs and qrels: TREC text, CSV and TSV files with a header, Parquet, Arrow IPC
(Feather) files, and tables in memory (pandas or polars DataFrames, pyarrow Tables) — read whole or in blocks of
whole users, and written in any of the file formats.

    read_run(source, format=None) -> Table      read_qrels(source, format=None) -> Table
    iter_run(source, format=None, rows=...)     iter_qrels(...)        blocks of whole users, in input order
    write_run(table, path, format=None)         write_qrels(...)       convert(source, target, kind=...)
    write_rankings(rankings, path, tag=...)     a recommender's or reranker's lists, in the format of `path`

`source` is a path or a table in memory; `format` one of `FORMATS`, else the name decides (`file_format`): Parquet
(.parquet/.pq), Arrow IPC (.arrow/.feather/.ipc), delimited text with a header (.csv, .tsv; a .tsv without one is
TREC text), else TREC text (``user Q0 item rank score tag``, qrels ``user 0 item grade``). Columns in any order with
a spelling of `COLUMNS` (recdiv's, ir_measures', LensKit's); a run ordered by score, else by rank (score −rank).
Every door gives the same `recdiv.data._read.Table` (ids as dictionary-encoded strings: 7 and "7" are one id;
scores and grades float64, ranks int64, each row's line or row number). Bad input is one `DataError` naming the
source, line or row and the problem (missing column, empty id, non-finite score, non-integer rank, a grade outside
−127..127 as in trec_eval, a repeated (user, item)); nothing is dropped silently. Other libraries' objects come in
through `add_door(name, accepts, to_table)` (`to_table(obj, kind)`: a pyarrow Table or a DataFrame as above).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from recdiv.data._read import Codes, Table, _bad_label, _fixed, iter_tables, parse_table
from recdiv.data.blocks import _Rows, concat, take
from recdiv.errors import ConfigError, DataError

if TYPE_CHECKING:
    import pyarrow as pa

FORMATS = ("trec", "csv", "tsv", "parquet", "arrow", "json")
KINDS = ("run", "qrels")
_EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow",
               ".csv": "csv", ".tsv": "tsv", ".json": "json"}
#: canonical column -> the names it may have in a table (recdiv's, ir_measures', LensKit's)
COLUMNS: dict[str, tuple[str, ...]] = {
    "user": ("user", "query_id", "user_id", "q_id"), "item": ("item", "doc_id", "item_id"),
    "score": ("score",), "rank": ("rank",), "grade": ("grade", "relevance", "rating")}
_REQUIRED = {"run": ("user", "item"), "qrels": ("user", "item", "grade")}
_OPTIONAL = {"run": ("rank", "score"), "qrels": ()}
_NUMBER_KIND = {"score": "float", "rank": "int", "grade": "float"}
GRADE_RANGE = (-127, 127)  # trec_eval's: relevance judgements are integers in -127..127
#: rows per block when a table is read in blocks (a block holds whole users, so it may be larger)
BLOCK_ROWS = 1 << 20


def file_format(path: str | Path, format: str | None = None) -> str:
    """The format of `path`: `format` when given (checked), else by extension (TREC text by default)."""
    if format is not None:
        if format not in FORMATS:
            raise ConfigError(f"unknown format {format!r}; formats: {', '.join(FORMATS)}")
        return format
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return _EXTENSIONS.get(Path(name).suffix, "trec")


def input_format(path: str | Path, format: str | None = None) -> str:
    """`file_format`, except that a .tsv file whose first line names no column is TREC text (recdiv's old runs)."""
    fmt = file_format(path, format)
    if format is None and fmt == "tsv" and Path(path).is_file():
        from recdiv.data._source import iter_source

        first = set(next(iter_source(path, 1 << 16), b"").split(b"\n", 1)[0].decode("utf-8", "replace").split())
        return "trec" if first and not first & {name for names in COLUMNS.values() for name in names} else fmt
    return fmt


def rankings_format(path: str | Path, format: str | None = None) -> str:
    """`file_format`, except that lists written to ``run.tsv`` stay a TREC run, as recdiv always wrote them."""
    return "trec" if format is None and file_format(path) == "tsv" else file_format(path, format)


# doors for other libraries' objects ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Door:
    name: str
    accepts: Callable[[Any], bool]
    to_table: Callable[[Any, str], Any]


_DOORS: list[Door] = []
_BUILT_IN: list[bool] = []  # the doors of `recdiv.data.doors` (ranx, LensKit) are added on first use


def add_door(name: str, accepts: Callable[[Any], bool], to_table: Callable[[Any, str], Any]) -> None:
    """Let `read_run`/`read_qrels` accept objects for which `accepts(obj)` is true: `to_table(obj, kind)` (kind
    "run" or "qrels") returns a pyarrow Table or a DataFrame with the columns of `COLUMNS`. Checked before the
    built-in doors; `accepts` should not import its library (test the type's module name)."""
    _DOORS.insert(0, Door(name, accepts, to_table))


def _module(obj) -> str:
    return type(obj).__module__.split(".")[0]


def _as_arrow(obj, kind: str) -> tuple[pa.Table, str] | None:
    """(pyarrow Table, name for messages) of a table in memory, or None when `obj` is not one."""
    import pyarrow as pa

    if not _BUILT_IN:
        from recdiv.data.doors import OBJECT_DOORS

        _DOORS.extend(Door(*d) for d in OBJECT_DOORS)  # after the doors added by `add_door`
        _BUILT_IN.append(True)
    for door in _DOORS:
        if door.accepts(obj):
            converted = _as_arrow(door.to_table(obj, kind), kind)
            if converted is None:
                raise ConfigError(f"the {door.name} door returned {type(obj).__name__}, not a table")
            return converted[0], f"{door.name} {kind}"
    if isinstance(obj, pa.RecordBatch):
        obj = pa.Table.from_batches([obj])
    if isinstance(obj, pa.Table):
        return obj, f"Arrow {kind} table"
    if _module(obj) == "polars" and hasattr(obj, "to_arrow"):
        return obj.to_arrow(), f"polars {kind} frame"
    if _module(obj) == "pandas" and hasattr(obj, "columns"):
        obj = obj.copy(deep=False)
        obj.attrs = {}  # a parsed frame's line numbers are no table metadata
        try:
            return pa.Table.from_pandas(obj, preserve_index=False), f"pandas {kind} frame"
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise DataError(f"cannot read the {kind} frame: {e}") from None
    return None


# column names ------------------------------------------------------------------------------------------------
def _columns(names: list[str], kind: str, where: str) -> dict[str, str]:
    """{canonical column: its name in the table} for a run or qrels table with columns `names`."""
    found: dict[str, str] = {}
    for canon in (*_REQUIRED[kind], *_OPTIONAL[kind]):
        hits = [n for n in COLUMNS[canon] if n in names]
        if len(hits) > 1:
            raise DataError(f"{' and '.join(map(repr, hits))} both name the {canon} column; keep one", where)
        if hits:
            found[canon] = hits[0]
    missing = [f"{c} (or {' / '.join(COLUMNS[c][1:])})" if len(COLUMNS[c]) > 1 else c
               for c in _REQUIRED[kind] if c not in found]
    if kind == "run" and "rank" not in found and "score" not in found:
        missing.append("a score or a rank")
    if missing:
        shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        raise DataError(f"a {kind} needs the column{'s' if len(missing) > 1 else ''} {' and '.join(missing)}; "
                        f"found {shown or 'no columns'}", where)
    return found


# Arrow tables -> Table -----------------------------------------------------------------------------------------
def _first_row(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask))[0])


def _arrow_ids(col: pa.ChunkedArray, name: str, table: Table, memo: dict | None = None) -> Codes:
    import pyarrow as pa
    import pyarrow.compute as pc

    t = col.type
    value_type = t.value_type if pa.types.is_dictionary(t) else t
    if not (pa.types.is_string(value_type) or pa.types.is_large_string(value_type)
            or pa.types.is_integer(value_type)):
        raise DataError(f"the {name} column must hold text or integer ids, not {value_type}", table.path)
    if col.null_count:
        raise table.error(f"{name} is missing (null)", _first_row(col.is_null()))
    if pa.types.is_integer(value_type):
        col = pc.cast(col.dictionary_decode() if pa.types.is_dictionary(t) else col, pa.string())
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col)
    col = col.unify_dictionaries() if col.num_chunks else col
    if col.num_chunks == 0:
        return Codes(np.zeros(0, np.int32), np.array([], dtype=object))
    dictionary = col.chunk(0).dictionary
    codes = _fixed(col.chunks, lambda c: pc.cast(c.indices, pa.int32()), np.int32)  # from the buffers: no pandas
    known = memo.get(name) if memo is not None else None
    if known is not None and known[0].equals(dictionary):  # the batches of one Parquet row group share it
        return Codes(codes, known[1])
    labels = np.array(dictionary.to_pylist(), dtype=object)
    bad = _bad_label(labels, name)
    if bad is not None:
        raise table.error(bad[1], _first_row(codes == bad[0]))
    if memo is not None:
        memo[name] = (dictionary, labels)
    return Codes(codes, labels)


def _arrow_numbers(col: pa.ChunkedArray, name: str, table: Table) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type)):
        raise DataError(f"the {name} column must hold numbers, not {col.type}", table.path)
    if col.null_count:  # pandas' NaN becomes a null in Arrow
        raise table.error(f"{name} is missing (null or NaN)", _first_row(col.is_null()))
    values = _fixed(col.chunks, lambda c: c if c.type == pa.float64() else pc.cast(c, pa.float64()), np.float64)
    return _checked_numbers(values, name, table)


def _checked_numbers(values: np.ndarray, name: str, table: Table) -> np.ndarray:
    bad = ~np.isfinite(values)
    if bad.any():
        j = _first_row(bad)
        raise table.error(f"{name} must be a finite number, got {float(values[j])!r}", j)
    if _NUMBER_KIND[name] == "int":
        bad = (values != np.round(values)) | (np.abs(values) > 2.0**53)
        if bad.any():
            j = _first_row(bad)
            raise table.error(f"{name} must be an integer, got {float(values[j])!r}", j)
        return values.astype(np.int64)
    return values


def from_arrow(arrow: pa.Table, kind: str, where: str, first_row: int = 1, *, finish: bool = True,
               memo: dict | None = None) -> Table:
    """A run or qrels `Table` from a pyarrow Table (rows numbered from `first_row` in messages), checked
    (`finish=False`: all but the checks across rows, done once a block holds whole users). Other libraries'
    layouts (LensKit's native item lists, ranx's qrels) are rewritten first (`recdiv.data.doors.adapt`).
    `memo` (a dict kept across the blocks of one file) keeps the last labels of each id column: a block with
    the same dictionary gets the very same labels array, unchecked again."""
    from recdiv.data.doors import adapt

    arrow = adapt(arrow, kind, where)
    names = _columns(list(arrow.column_names), kind, where)
    table = Table(where, {}, _Rows(first_row, arrow.num_rows), unit="row")  # type: ignore[arg-type]
    for canon, name in names.items():
        col = arrow.column(name)
        if canon in ("user", "item"):
            table.columns[canon] = _arrow_ids(col, canon, table, memo)
        else:
            table.columns[canon] = _arrow_numbers(col, canon, table)
    return _finish(table, kind) if finish else table


def _finish(table: Table, kind: str) -> Table:
    """The checks every door shares, and a run's score from its ranks when it has none."""
    from recdiv.data.textio import check_duplicates, check_grades

    if kind == "qrels":
        check_grades(table, _first_row)
        check_duplicates(table, ["user", "item"], "judgment")
    else:
        if "score" not in table.columns:
            table.columns["score"] = -table["rank"].astype(np.float64)
        check_duplicates(table, ["user", "item"], "item in a user's ranking")
    return table


# files ---------------------------------------------------------------------------------------------------------
def _text_layout(path: Path, kind: str, sep: str, quoted: bool) -> list[tuple[str, str]]:
    """The layout of a CSV/TSV file from its header line: (header name, kind) per field."""
    from recdiv.data._source import iter_source

    first = next(iter_source(path, 1 << 16), b"").split(b"\n", 1)[0].rstrip(b"\r")
    try:
        header = [h.strip().strip('"') if quoted else h.strip() for h in first.decode("utf-8").split(sep)]
    except UnicodeDecodeError:
        raise DataError("the header line is not valid utf-8 text", path, 1) from None
    if first.strip() == b"":
        raise DataError(f"empty {kind} file: no header line", path, 1)
    if len(set(header)) != len(header):
        raise DataError(f"the header names a column twice: {first.decode()!r}", path, 1)
    names = {v: k for k, v in _columns(header, kind, str(path)).items()}
    return [(h, "id" if names.get(h) in ("user", "item") else _NUMBER_KIND.get(names.get(h, ""), "skip"))
            for h in header]


def _renamed(table: Table, kind: str) -> Table:
    names = _columns(list(table.columns), kind, table.path)
    table.columns = {canon: table.columns[name] for canon, name in names.items()}
    return table


def _delimited(path: Path, fmt: str) -> dict:
    return {"sep": "," if fmt == "csv" else "\t", "quoted": fmt == "csv", "header": True}


def _read_file(path: Path, kind: str, fmt: str) -> Table:
    from recdiv.data import textio

    if fmt == "trec":
        return textio.parse_trec_run(path) if kind == "run" else textio.parse_trec_qrels(path)
    if fmt in ("csv", "tsv"):
        options = _delimited(path, fmt)
        layout = _text_layout(path, kind, options["sep"], options["quoted"])
        table = parse_table(path, layout, what=f"{fmt.upper()} {kind} file", **options)
        return _finish(_renamed(table, kind), kind)
    if fmt == "json":
        from recdiv.data.doors import read_json

        return from_arrow(read_json(path, kind), kind, str(path))
    return from_arrow(_read_arrow_file(path, fmt, kind), kind, str(path))


def _arrow_columns(names: list[str], kind: str, path: Path) -> list[str]:
    """The columns to read: those the reader uses, or all of a layout `recdiv.data.doors.adapt` rewrites."""
    from recdiv.data.doors import rewritten

    return list(names) if rewritten(names, kind) else list(_columns(names, kind, str(path)).values())


def _read_arrow_file(path: Path, fmt: str, kind: str) -> pa.Table:
    import pyarrow as pa

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(path)
            names = _arrow_columns(pf.schema_arrow.names, kind, path)
            return pf.read(columns=names)
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_file(source)
            return reader.read_all().select(_arrow_columns(reader.schema.names, kind, path))
    except FileNotFoundError:
        raise DataError("no such file", path) from None
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"cannot read it as {'Parquet' if fmt == 'parquet' else 'an Arrow IPC file'}: {e}",
                        path) from None


def read_run(source, *, format: str | None = None) -> Table:
    """A run as a `Table` (user, item: `Codes`; score: float64; rank: int64 when the source has one) from a file
    (`format`, or by extension) or a table in memory."""
    return _read(source, "run", format)


def read_qrels(source, *, format: str | None = None) -> Table:
    """Qrels as a `Table` (user, item: `Codes`; grade: float64) from a file or a table in memory."""
    return _read(source, "qrels", format)


def _read(source, kind: str, format: str | None) -> Table:
    if isinstance(source, Table):
        return source
    if isinstance(source, str | Path):
        return _read_file(Path(source), kind, input_format(source, format))
    converted = _as_arrow(source, kind)
    if converted is None:
        raise ConfigError(f"cannot read a {kind} from {type(source).__name__}: give a file name, a pandas or polars "
                          "DataFrame or a pyarrow Table")
    return from_arrow(*converted[:1], kind, converted[1])


# blocks of whole users -----------------------------------------------------------------------------------------
def iter_run(source, *, format: str | None = None, rows: int = BLOCK_ROWS) -> Iterator[Table]:
    """The run in blocks of about `rows` rows, in input order, each holding whole users: a user's lines that come
    together are never split between two blocks (a user whose lines are in several places of the input is in
    several blocks). Row numbers continue across blocks; each block is checked as `read_run` checks."""
    return _iter(source, "run", format, rows)


def iter_qrels(source, *, format: str | None = None, rows: int = BLOCK_ROWS) -> Iterator[Table]:
    """The qrels in blocks of whole users, as `iter_run`."""
    return _iter(source, "qrels", format, rows)


def _iter(source, kind: str, format: str | None, rows: int) -> Iterator[Table]:
    if rows < 1:
        raise ConfigError(f"rows per block must be positive, got {rows}")
    return whole_users(_raw_blocks(source, kind, format, rows), lambda table: _finish(table, kind))


def _raw_blocks(source, kind: str, format: str | None, rows: int) -> Iterator[Table]:
    """Blocks in input order (users may be cut at a block's end), columns renamed, numbers checked."""
    from recdiv.data import textio

    if isinstance(source, Table):
        yield source
        return
    if not isinstance(source, str | Path):
        converted = _as_arrow(source, kind)
        if converted is None:
            _read(source, kind, format)  # raises the error
        arrow, where = converted
        for lo in range(0, max(arrow.num_rows, 1), rows):
            yield from_arrow(arrow.slice(lo, rows), kind, where, lo + 1, finish=False)
        return
    path, fmt = Path(source), input_format(source, format)
    block_bytes = max(rows * 40, 256)  # about 40 bytes a text line
    if fmt == "trec":
        layout = textio.RUN_LAYOUT if kind == "run" else textio.QRELS_LAYOUTS
        what = "TREC run (user Q0 item rank score tag)" if kind == "run" else "qrels file (user 0 item grade)"
        yield from iter_tables(path, layout, block=block_bytes, sep=None, comments=True, what=what)
    elif fmt in ("csv", "tsv"):
        options = _delimited(path, fmt)
        layout = _text_layout(path, kind, options["sep"], options["quoted"])
        for table in iter_tables(path, layout, block=block_bytes, what=f"{fmt.upper()} {kind} file", **options):
            yield _renamed(table, kind)
    elif fmt == "json":  # a JSON object is read whole
        from recdiv.data.doors import read_json

        yield from_arrow(read_json(path, kind), kind, str(path), finish=False)
    else:
        first, memo = 1, {}
        for batch in _arrow_batches(path, fmt, kind, rows):
            yield from_arrow(batch, kind, str(path), first, finish=False, memo=memo)
            first += batch.num_rows


def _arrow_batches(path: Path, fmt: str, kind: str, rows: int) -> Iterator[pa.Table]:
    import pyarrow as pa

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            # pre-buffering would keep every row group's compressed bytes until the file is closed (the whole file)
            pf = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
            names = _arrow_columns(pf.schema_arrow.names, kind, path)
            for batch in pf.iter_batches(batch_size=rows, columns=names):
                yield pa.Table.from_batches([batch])
            return
        with pa.OSFile(str(path)) as source:  # one record batch at a time (mapped, every page read stays resident)
            reader = pa.ipc.open_file(source)
            names = _arrow_columns(reader.schema.names, kind, path)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
            for batch in batches:
                for lo in range(0, batch.num_rows, rows):
                    yield pa.Table.from_batches([batch.slice(lo, rows)]).select(names)
    except FileNotFoundError:
        raise DataError("no such file", path) from None
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"cannot read it as {'Parquet' if fmt == 'parquet' else 'an Arrow IPC file'}: {e}",
                        path) from None


def whole_users(blocks: Iterator[Table], finish: Callable[[Table], Table]) -> Iterator[Table]:
    """Blocks cut at user boundaries (a block's last user is carried into the next), each through `finish`."""
    carry = None
    for table in blocks:
        if not len(table):
            continue
        if carry is not None:
            table = concat(carry, table)
        u = table["user"].codes
        cut = len(u) - int(np.argmax(u[::-1] != u[-1])) if (u != u[-1]).any() else 0
        if cut == 0:
            carry = table
            continue
        carry = take(table, slice(cut, None))
        yield finish(take(table, slice(0, cut)))
    if carry is not None:
        yield finish(carry)


# writing -------------------------------------------------------------------------------------------------------
def to_arrow(table: Table, kind: str) -> pa.Table:
    """A checked `Table` as a pyarrow Table with recdiv's column names (user, item, rank, score / grade); ids as
    dictionary-encoded strings."""
    import pyarrow as pa

    cols = {}
    for name in ("user", "item", "rank", "score") if kind == "run" else ("user", "item", "grade"):
        col = table.columns.get(name)
        if col is None:
            continue
        if isinstance(col, Codes):
            cols[name] = pa.DictionaryArray.from_arrays(pa.array(col.codes, pa.int32()),
                                                        pa.array(col.labels.tolist(), pa.string()))
        else:
            cols[name] = pa.array(col)
    return pa.table(cols)


def write_run(source, path: str | Path, *, format: str | None = None, source_format: str | None = None,
              tag: str = "recdiv") -> int:
    """Write a run (a file, a table in memory or a `Table`) to `path` in `format` (by extension by default),
    block by block, atomically; returns the number of rows. TREC runs get `tag` as their last column."""
    return _write(source, path, "run", format, source_format, tag)


def write_rankings(rankings, path: str | Path, *, tag: str = "recdiv", format: str | None = None) -> int:
    """Write `Rankings` (a recommender's or reranker's lists) as a run in `format` (by extension by default),
    atomically; TREC text byte for byte as `recdiv.data.textio.write_rankings`. Returns the number of rows."""
    from recdiv.data import textio
    from recdiv.data.formats_write import ranking_blocks, write_blocks

    fmt = rankings_format(path, format)
    if fmt == "trec":
        textio.write_rankings(rankings, path, tag=tag)
        return int(rankings.valid.sum())
    return write_blocks(ranking_blocks(rankings, BLOCK_ROWS), Path(path), "run", fmt, tag)


def write_qrels(source, path: str | Path, *, format: str | None = None, source_format: str | None = None) -> int:
    """Write qrels to `path` in `format` (by extension by default), block by block, atomically."""
    return _write(source, path, "qrels", format, source_format, "")


def _write(source, path, kind: str, format: str | None, source_format: str | None, tag: str) -> int:
    from recdiv.data.formats_write import write_blocks

    if isinstance(source, str | Path) and Path(source).resolve() == Path(path).resolve():
        raise ConfigError(f"{path}: the output would overwrite its input")
    fmt = file_format(path, format)
    blocks = _iter(source, kind, source_format, BLOCK_ROWS)
    return write_blocks(blocks, Path(path), kind, fmt, tag)


def convert(source, target: str | Path, *, kind: str | None = None, source_format: str | None = None,
            format: str | None = None, tag: str = "recdiv") -> tuple[str, int]:
    """Convert a run or qrels between formats; `kind` None: a run, unless the source looks like qrels (a TREC
    file of 3-4 columns, or a table with a grade column). Returns (kind, rows written)."""
    kind = kind or guess_kind(source, source_format)
    if kind not in KINDS:
        raise ConfigError(f"kind must be run or qrels, got {kind!r}")
    if kind == "run":
        return kind, write_run(source, target, format=format, source_format=source_format, tag=tag)
    return kind, write_qrels(source, target, format=format, source_format=source_format)


def guess_kind(source, format: str | None = None) -> str:
    """"qrels" for a TREC file whose first data line has 3 or 4 fields or a table with a grade column; "run"."""
    if isinstance(source, str | Path):
        fmt = input_format(source, format)
        if fmt == "trec":
            from recdiv.data._source import iter_source

            for line in next(iter_source(source, 1 << 16), b"").splitlines():
                fields = line.split()
                if fields and not fields[0].startswith(b"#"):
                    return "qrels" if len(fields) in (3, 4) else "run"
            return "run"
        names = _schema_names(Path(source), fmt)
    else:
        converted = _as_arrow(source, "run")
        names = list(converted[0].column_names) if converted is not None else []
    return "qrels" if any(n in names for n in COLUMNS["grade"]) else "run"


def _schema_names(path: Path, fmt: str) -> list[str]:
    import pyarrow as pa

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return list(pq.ParquetFile(path).schema_arrow.names)
        if fmt == "arrow":
            with pa.memory_map(str(path)) as source:
                return list(pa.ipc.open_file(source).schema.names)
    except FileNotFoundError:
        raise DataError("no such file", path) from None
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"cannot read its columns: {e}", path) from None
    from recdiv.data._source import iter_source

    first = next(iter_source(path, 1 << 16), b"").split(b"\n", 1)[0].decode("utf-8", "replace")
    return [h.strip().strip('"') for h in first.split("," if fmt == "csv" else "\t")]


__all__ = ["COLUMNS", "FORMATS", "add_door", "concat", "convert", "file_format", "from_arrow", "guess_kind",
           "input_format", "iter_qrels", "iter_run", "rankings_format", "read_qrels", "read_run", "take", "to_arrow",
           "whole_users", "write_qrels", "write_run"]
