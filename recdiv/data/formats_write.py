"""Writing runs and qrels block by block in the formats of `recdiv.data.formats`: TREC text, CSV, TSV (with a
header line), Parquet (one row group per block of whole users) and Arrow IPC files. Every target is written
beside itself and renamed into place when complete (`recdiv.outputs.atomic_write`); ``.gz`` text is gzipped.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from recdiv.data._read import Codes, Table
from recdiv.data.textio import _checked_labels, _number_codes, format_lines
from recdiv.outputs import atomic_write

_RUN = ("user", "item", "rank", "score")
_QRELS = ("user", "item", "grade")


def _ranks(table: Table) -> np.ndarray:
    """The rank column, or each row's 1-based position among its user's consecutive rows."""
    if "rank" in table.columns:
        return np.asarray(table["rank"], dtype=np.int64)
    u = table["user"].codes
    n = len(u)
    starts = np.flatnonzero(np.concatenate(([True], u[1:] != u[:-1]))) if n else np.zeros(0, np.int64)
    return np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n))) + 1


def _id_column(col: Codes, path: Path, what: str, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    if fmt == "csv":
        return _csv_labels(col, path, what), col.codes
    return _checked_labels(col.labels.tolist(), path, what, spaces=fmt == "tsv"), col.codes


def _csv_labels(col: Codes, path: Path, what: str) -> np.ndarray:
    """Ids for a CSV field: quoted when they hold a comma or a quote (refused: control characters, empty ids)."""
    from recdiv.data._read import _bad_label
    from recdiv.errors import DataError

    labels = np.array([str(x) for x in col.labels.tolist()], dtype=object)
    bad = _bad_label(labels, what)
    if bad is not None:
        raise DataError(f"cannot write {what} {labels[bad[0]]!r}: {bad[1]}", path)
    return np.array([f'"{x.replace(chr(34), chr(34) * 2)}"' if ("," in x or '"' in x or x != x.strip()) else x
                     for x in labels], dtype=object)


def _text_lines(table: Table, path: Path, kind: str, fmt: str, tag: str):
    if fmt == "trec":
        (tag_text,) = _checked_labels([tag], path, "run tag") if kind == "run" else ("",)
        user, item = (_id_column(table[c], path, f"{c} id", fmt) for c in ("user", "item"))
        if kind == "run":
            ranks, rank_codes = np.unique(_ranks(table), return_inverse=True)
            return format_lines([(*user, " Q0 "), (*item, " "), (list(map(str, ranks.tolist())), rank_codes, " "),
                                 (*_number_codes(table["score"], "17g"), f" {tag_text}\n")])
        return format_lines([(*user, " 0 "), (*item, " "), (*_number_codes(table["grade"], "short"), "\n")])
    sep = "," if fmt == "csv" else "\t"
    user, item = (_id_column(table[c], path, f"{c} id", fmt) for c in ("user", "item"))
    cols = [(*user, sep), (*item, sep)]
    if kind == "run":
        ranks, rank_codes = np.unique(_ranks(table), return_inverse=True)
        cols += [(list(map(str, ranks.tolist())), rank_codes, sep), (*_number_codes(table["score"], "17g"), "\n")]
    else:
        cols.append((*_number_codes(table["grade"], "short"), "\n"))
    return format_lines(cols)


def write_blocks(blocks: Iterator[Table], path: Path, kind: str, fmt: str, tag: str = "recdiv") -> int:
    """Write the blocks of a run or qrels to `path` in `fmt`; returns the number of rows written."""
    if fmt in ("parquet", "arrow"):
        return _write_arrow(blocks, path, kind, fmt)
    if fmt == "json":
        return _write_json(blocks, path, kind)
    n = 0
    with atomic_write(path, "wb") as fh:
        out = gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") if str(path).endswith(".gz") else fh
        if fmt in ("csv", "tsv"):
            sep = "," if fmt == "csv" else "\t"
            out.write((sep.join(_RUN if kind == "run" else _QRELS) + "\n").encode())
        for table in blocks:
            out.write(_text_lines(table, path, kind, fmt, tag))
            n += len(table)
        if out is not fh:
            out.close()
    return n


def _write_json(blocks: Iterator[Table], path: Path, kind: str) -> int:
    """ranx's JSON (also ir_measures' dict of dicts): {user: {item: score or grade}}, users and items in input
    order; whole grades as integers. Held in memory: JSON cannot be written block by block."""
    import json

    out: dict[str, dict[str, float | int]] = {}
    n = 0
    value = "score" if kind == "run" else "grade"
    for table in blocks:
        users, items = table["user"].values(), table["item"].values()
        for u, i, v in zip(users.tolist(), items.tolist(), np.asarray(table[value], dtype=np.float64).tolist()):
            out.setdefault(str(u), {})[str(i)] = int(v) if kind == "qrels" and float(v).is_integer() else v
        n += len(table)
    with atomic_write(path) as f:
        json.dump(out, f, ensure_ascii=False)
    return n


def _arrow_block(table: Table, kind: str):
    import pyarrow as pa

    cols = {}
    for name in _RUN if kind == "run" else _QRELS:
        if name == "rank":
            cols[name] = pa.array(_ranks(table), pa.int64())
        elif name in ("user", "item"):
            col = table[name]
            cols[name] = pa.DictionaryArray.from_arrays(pa.array(col.codes, pa.int32()),
                                                        pa.array([str(x) for x in col.labels.tolist()], pa.string()))
        else:
            cols[name] = pa.array(np.asarray(table[name], dtype=np.float64), pa.float64())
    return pa.table(cols)


def _write_arrow(blocks: Iterator[Table], path: Path, kind: str, fmt: str) -> int:
    import pyarrow as pa

    n, writer = 0, None
    with atomic_write(path, "wb") as fh:
        sink = pa.PythonFile(fh, mode="w")
        try:
            for table in blocks:
                block = _arrow_block(table, kind)
                if writer is None:
                    writer = _open_writer(sink, block.schema, fmt)
                if fmt == "parquet":
                    writer.write_table(block, row_group_size=max(len(block), 1))
                else:
                    writer.write_table(block)
                n += len(table)
            if writer is None:  # no rows: an empty table with the columns
                empty = _arrow_block(_empty(kind), kind)
                writer = _open_writer(sink, empty.schema, fmt)
                writer.write_table(empty)
        finally:
            if writer is not None:
                writer.close()
    return n


def _open_writer(sink, schema, fmt: str):
    import pyarrow as pa

    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetWriter(sink, schema, compression="snappy")
    return pa.ipc.new_file(sink, schema)


def _empty(kind: str) -> Table:
    none = Codes(np.zeros(0, np.int32), np.array([], dtype=object))
    cols = {"user": none, "item": none}
    cols.update({"rank": np.zeros(0, np.int64), "score": np.zeros(0)} if kind == "run" else {"grade": np.zeros(0)})
    return Table("", cols, np.zeros(0, np.int64))


def ranking_blocks(rankings, rows: int = 1 << 20) -> Iterator[Table]:
    """`Rankings` as run tables of about `rows` rows each (whole users, in the rankings' user order; rank = the
    1-based position in the list), for `write_blocks`."""
    valid = rankings.valid
    step = max(1, rows // max(rankings.k, 1))
    for lo in range(0, len(rankings), step):
        block = valid[lo:lo + step]
        r, pos = np.nonzero(block)
        users, items = rankings.users[lo:lo + step][r], rankings.items[lo:lo + step][block]
        cols = {name: Codes(*_labelled(vocab.ids, index)) for name, vocab, index in
                (("user", rankings.user_vocab, users), ("item", rankings.item_vocab, items))}
        cols["rank"] = pos.astype(np.int64) + 1
        cols["score"] = rankings.scores[lo:lo + step][block].astype(np.float64)
        yield Table("", cols, np.arange(len(r), dtype=np.int64))


def _labelled(ids: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, labels) of the vocabulary entries `index`: the distinct ones as strings (integers in decimal)."""
    used, codes = np.unique(index, return_inverse=True)
    return codes.astype(np.int32), np.array([str(x) for x in ids[used].tolist()], dtype=object)
