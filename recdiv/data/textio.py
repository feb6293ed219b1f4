"""Reading and writing recdiv's text formats, with errors that name file, line and problem.

Formats (fields separated by spaces or tabs, `#` lines are comments, ids are strings; gzip-compressed files are
read transparently, and written when the target name ends in `.gz`):

- TREC run: ``user Q0 item rank score tag``
- TREC qrels: ``user 0 item grade`` (three columns ``user item grade`` are accepted too); grades are finite
  numbers in trec_eval's range -127..127 (negative grades are read, and kept)
- interactions TSV: ``user item value [timestamp]``
- item-aspect TSV: ``item aspect [weight]``; a file whose lines hold a tab is tab-separated, so that aspect
  names may contain spaces (Last.fm tags such as ``hip hop``; `recdiv data export` writes such files)

The readers are `recdiv.data._read.parse_table` layouts (pyarrow's CSV parser, vectorised checks); `parse_*`
return the compact `Table` (ids dictionary-encoded), `read_*` a pandas DataFrame. Writers format whole columns
at once and are atomic: a file is written beside its target and renamed into place. Ids containing whitespace
cannot be written (the formats are whitespace-separated): that is a `DataError` naming the id and the file.
"""

from __future__ import annotations

import gzip
import math
import re
from pathlib import Path

import numpy as np

from recdiv.data._read import Codes, Layouts, Table, parse_table
from recdiv.errors import DataError
from recdiv.outputs import atomic_write as _atomic_write
from recdiv.outputs import write_bytes

RUN_LAYOUT: Layouts = {6: [("user", "id"), ("q0", "skip"), ("item", "id"), ("rank", "int"), ("score", "float"),
                           ("tag", "skip")]}
QRELS_LAYOUTS: Layouts = {4: [("user", "id"), ("iter", "skip"), ("item", "id"), ("grade", "float")],
                          3: [("user", "id"), ("item", "id"), ("grade", "float")]}
INTERACTIONS_LAYOUTS: Layouts = {3: [("user", "id"), ("item", "id"), ("value", "float")],
                                 4: [("user", "id"), ("item", "id"), ("value", "float"), ("timestamp", "int")]}
ASPECTS_LAYOUTS: Layouts = {2: [("item", "id"), ("aspect", "id")],
                            3: [("item", "id"), ("aspect", "id"), ("weight", "float")]}
#: the one atomic writer lives in recdiv.outputs; this name is kept for code written before it moved
atomic_write = _atomic_write
GRADE_RANGE = (-127, 127)  # trec_eval's: relevance judgements are integers in -127..127


# readers ------------------------------------------------------------------------------------------------------
def _grouped_and_distinct(group: Codes, key: Codes) -> bool:
    """True when the rows come grouped by `group` (each value in one run of lines, as in TREC files), the groups are
    of similar sizes, and no group repeats a value of `key`: shown by sorting each group's keys in a padded
    (groups × longest) matrix, cheaper than one sort of all rows. False when that is not shown (then
    `first_duplicate` sorts all rows, and finds the repeat if there is one)."""
    g, n = group.codes, len(group.codes)
    if n < 2:
        return False
    starts = np.flatnonzero(g[1:] != g[:-1]) + 1
    starts = np.concatenate(([0], starts))
    if len(starts) != np.count_nonzero(np.bincount(g)):  # some value of `group` has lines in two places
        return False
    lengths = np.diff(np.append(starts, n))
    width = int(lengths.max())
    if len(starts) * width > 2 * n:
        return False
    if (lengths == width).all():  # e.g. every user's top-N
        matrix = key.codes.reshape(len(starts), width).copy()
    else:
        matrix = np.empty((len(starts), width), dtype=key.codes.dtype)
        matrix[:] = -1 - np.arange(width, dtype=key.codes.dtype)  # padding: distinct, below every code
        row = np.zeros(n, dtype=np.int64)
        row[starts[1:]] = 1
        np.cumsum(row, out=row)
        matrix[row, np.arange(n) - starts[row]] = key.codes
        del row
    matrix.sort(axis=1)
    return not (matrix[:, 1:] == matrix[:, :-1]).any()


def first_duplicate(*keys: Codes | np.ndarray) -> int | None:
    """Row of the first repeat (in file order) of the combined key, or None. Rows grouped by the first of two
    dictionary-encoded keys (TREC runs and qrels) are checked group by group; otherwise one sort of the keys. The
    rows are located (a second, stable sort) only when there is a repeat."""
    if len(keys) == 2 and all(isinstance(k, Codes) for k in keys) and _grouped_and_distinct(*keys):
        return None
    key = np.zeros(len(keys[0]), dtype=np.int64)
    for k in keys:
        codes = k.codes if isinstance(k, Codes) else np.unique(k, return_inverse=True)[1]
        n = len(k.labels) if isinstance(k, Codes) else int(codes.max(initial=-1)) + 1
        key *= max(n, 1)
        key += codes
    sk = np.sort(key)
    if not (sk[1:] == sk[:-1]).any():
        return None
    del sk
    order = np.argsort(key, kind="stable")
    sk = key[order]
    return int(order[1:][sk[1:] == sk[:-1]].min())


def check_duplicates(table: Table, keys: list[str], what: str) -> None:
    j = first_duplicate(*(table[k] for k in keys))
    if j is not None:
        vals = ", ".join(f"{k} {_value(table[k], j)!r}" for k in keys)
        raise table.error(f"duplicate {what} ({vals})", j)


def _value(col: Codes | np.ndarray, j: int):
    return col.labels[col.codes[j]] if isinstance(col, Codes) else col[j]


def parse_trec_run(path: str | Path) -> Table:
    """TREC run -> Table (user, item, rank, score). A repeated (user, item) is an error."""
    table = parse_table(path, RUN_LAYOUT, sep=None, comments=True, what="TREC run (user Q0 item rank score tag)")
    check_duplicates(table, ["user", "item"], "item in a user's ranking")
    return table


def parse_trec_qrels(path: str | Path) -> Table:
    """TREC qrels (user 0 item grade, or user item grade) -> Table (user, item, grade)."""
    table = parse_table(path, QRELS_LAYOUTS, sep=None, comments=True, what="qrels file (user 0 item grade)")
    check_grades(table)
    check_duplicates(table, ["user", "item"], "judgment")
    return table


def check_grades(table: Table, row=None) -> None:
    """DataError at the first grade outside trec_eval's range −127..127; a grade that looks like a Unix time says
    that the file looks like ratings (user item rating timestamp, MovieLens' u.data) and how to make qrels of it.
    `row(bad)` gives the index of the first bad row (default: the first True)."""
    g = table["grade"]
    bad = (g < GRADE_RANGE[0]) | (g > GRADE_RANGE[1])
    if not bad.any():
        return
    j = row(bad) if row is not None else int(np.flatnonzero(bad)[0])
    msg = f"grade must be between {GRADE_RANGE[0]} and {GRADE_RANGE[1]} (trec_eval's range), got {float(g[j]):g}"
    if float(g[j]) >= 1e8:
        msg += ("; this looks like user item rating timestamp (a ratings file such as MovieLens' u.data), not "
                "qrels (user 0 item grade): awk '{print $1, 0, $2, $3}' RATINGS > QRELS makes qrels of it")
    raise table.error(msg, j)


def parse_interactions_tsv(path: str | Path) -> Table:
    """Interactions file (user item value [timestamp]) -> Table (user, item, value[, timestamp])."""
    table = parse_table(path, INTERACTIONS_LAYOUTS, sep=None, comments=True,
                        what="interactions file (user item value [timestamp])")
    check_duplicates(table, ["user", "item"], "(user, item) pair")
    return table


_SPACE_AROUND_TAB = re.compile(rb" *\t *")
_SPACE_AT_EDGE = re.compile(rb"(?m)^ +| +(?=\r?$)")


def parse_item_aspects_tsv(path: str | Path) -> Table:
    """Item-aspect file (item aspect [weight]) -> Table (item, aspect, weight; weight 1 when absent). Fields are
    separated by tabs if the file holds a tab (aspect names may then contain spaces), else by spaces and tabs."""
    from recdiv.data._source import lone_cr_to_nl, read_source

    raw = read_source(path)
    tabs = b"\t" in raw
    if tabs:  # spaces around a field, and lines of spaces only, are not data (as in the whitespace-separated form)
        raw = _SPACE_AT_EDGE.sub(b"", _SPACE_AROUND_TAB.sub(b"\t", lone_cr_to_nl(raw)))
    table = parse_table(path, ASPECTS_LAYOUTS, sep="\t" if tabs else None, comments=True,
                        what="item-aspect file (item aspect [weight])", data=raw)
    if "weight" not in table.columns:
        table.columns["weight"] = np.ones(len(table))
    check_duplicates(table, ["item", "aspect"], "(item, aspect) pair")
    return table


def read_trec_run(path: str | Path):
    """TREC run file -> DataFrame with columns user, item, rank, score (ids as strings)."""
    return parse_trec_run(path).frame()


def read_trec_qrels(path: str | Path):
    """TREC qrels (user 0 item grade, or user item grade) -> DataFrame with columns user, item, grade."""
    return parse_trec_qrels(path).frame()


def read_interactions_tsv(path: str | Path):
    """Interactions file (user item value [timestamp]) -> DataFrame with columns user, item, value[, timestamp]."""
    return parse_interactions_tsv(path).frame()


def read_item_aspects_tsv(path: str | Path):
    """Item-aspect file (item aspect [weight]) -> DataFrame with columns item, aspect, weight (default 1)."""
    return parse_item_aspects_tsv(path).frame()


# writers ------------------------------------------------------------------------------------------------------
_UNWRITABLE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
_UNWRITABLE_TSV = re.compile(r"[^\S ]|[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")  # whitespace but the space


def _checked_labels(distinct, path: str | Path, what: str, spaces: bool = False) -> np.ndarray:
    """str() of each distinct id, refusing ids a whitespace-separated file cannot hold. `spaces`: the id goes into a
    tab-separated file, where inner spaces survive (not at either end)."""
    labels = np.array([str(x) for x in distinct], dtype=object)
    rule = _UNWRITABLE_TSV if spaces else _UNWRITABLE
    bad = np.fromiter(map(bool, map(rule.search, labels)), bool, len(labels)) | (labels == "")
    if spaces:
        bad |= np.fromiter((x != x.strip(" ") for x in labels), bool, len(labels))
    if bad.any():
        x = labels[np.flatnonzero(bad)[0]]
        where = ("this tab-separated format cannot be empty, contain tabs or control characters, or start or end "
                 "with a space" if spaces else "this whitespace-separated format cannot be empty or contain "
                 "whitespace or control characters")
        raise DataError(f"cannot write {what} {x!r}: ids in {where}", path)
    return labels


def _id_codes(values, path: str | Path, what: str, spaces: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(labels, codes): each distinct id of `values` formatted and checked once (`_checked_labels`), and the row's
    index into them."""
    import pandas as pd

    codes, uniques = pd.factorize(np.asarray(values), sort=False)
    return _checked_labels(uniques, path, what, spaces), codes


def id_strings(values, path: str | Path, what: str = "id", *, spaces: bool = False) -> np.ndarray:
    """The ids of `values` as strings (object array), each distinct id formatted and checked once (an id that is
    empty or holds whitespace or a control character: DataError naming it and the file; `spaces`: inner spaces
    allowed, for tab-separated files)."""
    labels, codes = _id_codes(values, path, what, spaces)
    return labels[codes]


def _vocab_codes(vocab, index: np.ndarray, path: str | Path, what: str) -> tuple[np.ndarray, np.ndarray]:
    """`_id_codes` of vocabulary entries given by dense index (no pandas: the distinct indices are integers)."""
    index = np.asarray(index)
    used = np.flatnonzero(np.bincount(index, minlength=len(vocab)))  # O(n): dense indices need no sort
    code = np.zeros(len(vocab), dtype=np.int64)
    code[used] = np.arange(len(used))
    return _checked_labels(vocab.ids[used].tolist(), path, what), code[index]


def _number_codes(values: np.ndarray, style: str) -> tuple[list[str], np.ndarray]:
    """(labels, codes) of numbers: '%.17g' of every distinct value, their repr ('repr'), or ('short') integers
    without a decimal point and other values as repr. Values are told apart by their bits (-0.0 is not 0.0), each
    formatted once."""
    v = np.ascontiguousarray(values, dtype=np.float64)
    whole = _whole_range(v)
    if whole is not None:  # e.g. a reranker's scores k, k-1, ..., 1: no sort
        distinct, codes = whole
    else:
        bits, codes = np.unique(v.view(np.uint64), return_inverse=True)
        distinct = bits.view(np.float64).tolist()
    if style == "17g":
        return list(map("%.17g".__mod__, distinct)), codes
    if style == "repr":
        return list(map(repr, distinct)), codes
    return [str(int(x)) if math.isfinite(x) and x == round(x) else repr(x) for x in distinct], codes


def _whole_range(v: np.ndarray) -> tuple[list[float], np.ndarray] | None:
    """(every number from min to max, each value's offset from min) when the values are whole numbers (no -0.0)
    spanning a range no longer than their count; else None."""
    if len(v) == 0:
        return None
    lo, hi = float(v.min()), float(v.max())
    if not (-(2.0**53) < lo <= hi < 2.0**53) or hi - lo > len(v) or (v != np.round(v)).any():
        return None  # NaN or inf, a wide range, or a fraction
    if lo <= 0.0 <= hi and np.signbit(v[v == 0.0]).any():
        return None
    return np.arange(lo, hi + 1.0).tolist(), (v - lo).astype(np.int64)


def _strings(labels, end: str):
    """pyarrow large_string array of each label followed by `end`, built from its buffers (`pa.array` would import
    pandas, a second of start-up)."""
    import pyarrow as pa

    text = end.join(labels) + end if len(labels) else ""
    data = text.encode("utf-8")
    if len(data) == len(text):  # ASCII: bytes = characters
        lengths = np.fromiter(map(len, labels), np.int64, len(labels))
    else:
        lengths = np.fromiter((len(x.encode("utf-8")) for x in labels), np.int64, len(labels))
    offsets = np.zeros(len(labels) + 1, dtype=np.int64)
    np.cumsum(lengths + len(end.encode("utf-8")), out=offsets[1:])
    return pa.LargeStringArray.from_buffers(len(labels), pa.py_buffer(offsets), pa.py_buffer(data))


def _write_columns(path: str | Path, columns: list[tuple[list[str] | np.ndarray, np.ndarray, str]]) -> None:
    """Write one line per row: for each column (labels, codes, end), the row's label labels[codes[row]] followed by
    `end` (the field separator, or the rest of the line). Atomic; gzip when `path` ends in .gz."""
    _write_bytes(path, format_lines(columns))


def format_lines(columns: list[tuple[list[str] | np.ndarray, np.ndarray, str]]):
    """The bytes of one line per row (see `_write_columns`), assembled by pyarrow in C from each column's distinct
    labels."""
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = []
    for labels, codes, end in columns:
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        index = pa.Array.from_buffers(pa.int64(), len(codes), [None, pa.py_buffer(codes)])
        parts.append(_strings(labels, end).take(index))
    lines = pc.binary_join_element_wise(*parts, _strings([""], "")[0])
    del parts
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64, count=len(lines) + 1, offset=lines.offset * 8)
    return memoryview(lines.buffers()[2])[offsets[0]:offsets[-1]] if len(lines) else b""


def _write_bytes(path: str | Path, data) -> None:
    """Write `data` atomically; gzip-compressed (reproducibly: no name, no time stamp) when `path` ends in .gz."""
    if str(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    write_bytes(path, data)


def write_trec_run(frame, path: str | Path, tag: str = "recdiv") -> None:
    """Write columns user, item, rank, score as a TREC run (atomically; gzip when `path` ends in .gz)."""
    (tag_text,) = _checked_labels([tag], path, "run tag")
    ranks, rank_codes = np.unique(np.asarray(frame["rank"], dtype=np.int64), return_inverse=True)
    _write_columns(path, [(*_id_codes(frame["user"].to_numpy(), path, "user id"), " Q0 "),
                          (*_id_codes(frame["item"].to_numpy(), path, "item id"), " "),
                          (list(map(str, ranks.tolist())), rank_codes, " "),
                          (*_number_codes(frame["score"].to_numpy(), "17g"), f" {tag_text}\n")])


def write_rankings(rankings, path: str | Path, tag: str = "recdiv") -> None:
    """Write `Rankings` as a TREC run (atomically; gzip when `path` ends in .gz); byte for byte what
    `write_trec_run(rankings.to_frame(), path, tag)` writes, without building the frame."""
    (tag_text,) = _checked_labels([tag], path, "run tag")
    valid = rankings.valid
    rows, pos = np.nonzero(valid)
    user_labels, user_codes = _vocab_codes(rankings.user_vocab, rankings.users, path, "user id")
    _write_columns(path, [(user_labels, user_codes[rows], " Q0 "),
                          (*_vocab_codes(rankings.item_vocab, rankings.items[valid], path, "item id"), " "),
                          ([str(j) for j in range(1, rankings.k + 1)], pos, " "),
                          (*_number_codes(rankings.scores[valid], "17g"), f" {tag_text}\n")])


def write_trec_qrels(frame, path: str | Path) -> None:
    """Write columns user, item, grade as TREC qrels (atomically); integral grades print as integers."""
    _write_columns(path, [(*_id_codes(frame["user"].to_numpy(), path, "user id"), " 0 "),
                          (*_id_codes(frame["item"].to_numpy(), path, "item id"), " "),
                          (*_number_codes(frame["grade"].to_numpy(), "short"), "\n")])


def write_interactions_tsv(frame, path: str | Path) -> None:
    """Write columns user, item, value[, timestamp] as TSV (atomically)."""
    cols = [_id_codes(frame["user"].to_numpy(), path, "user id"), _id_codes(frame["item"].to_numpy(), path,
                                                                            "item id"),
            _number_codes(frame["value"].to_numpy(), "short")]
    if "timestamp" in frame:
        stamps, codes = np.unique(np.asarray(frame["timestamp"], dtype=np.int64), return_inverse=True)
        cols.append((list(map(str, stamps.tolist())), codes))
    _write_columns(path, [(*c, "\t") for c in cols[:-1]] + [(*cols[-1], "\n")])


def write_item_aspects_tsv(frame, path: str | Path) -> None:
    """Write columns item, aspect[, weight] as TSV (atomically); aspect names may contain spaces (the reader
    splits tab-separated files on tabs only)."""
    cols = [_id_codes(frame["item"].to_numpy(), path, "item id"),
            _id_codes(frame["aspect"].to_numpy(), path, "aspect", spaces=True)]
    if "weight" in frame:
        cols.append(_number_codes(frame["weight"].to_numpy(), "17g"))
    _write_columns(path, [(*c, "\t") for c in cols[:-1]] + [(*cols[-1], "\n")])
