"""Per-user values out: one row per (run, user, measure) with its value, as a pyarrow Table, a pandas DataFrame, or a
Parquet, Arrow IPC, CSV, TSV or JSON file (`write_user_values`), so that other tools can test them.

The columns are run, user, measure, value (float64; NaN where a measure skips a user, null in JSON). Users come
in the order of `Evaluation.users`, measures in the order asked; the JSON file is {run: {measure: {user:
value}}}, the shape of `recdiv eval --format json --per-user`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from recdiv.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from recdiv.eval.evaluate import Evaluation

FORMATS = ("parquet", "arrow", "csv", "tsv", "json")
_EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow",
               ".csv": "csv", ".tsv": "tsv", ".json": "json"}


def output_format(path: str | Path, format: str | None = None) -> str:
    """The format of a per-user output file: `format`, else its extension (ConfigError when neither says)."""
    if format is not None:
        if format not in FORMATS:
            raise ConfigError(f"unknown per-user output format {format!r}; formats: {', '.join(FORMATS)}")
        return format
    fmt = _EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ConfigError(f"{path}: name the per-user output .parquet, .arrow, .csv, .tsv or .json")
    return fmt


def _measures(evaluation: Evaluation, run: str) -> list[str]:
    return [str(m) for m in evaluation.measures if str(m) in evaluation.per_user[run]]


def user_values_table(evaluation: Evaluation) -> pa.Table:
    """Per-user values as a pyarrow Table (run, user, measure: dictionary-encoded strings; value: float64)."""
    import pyarrow as pa

    users = pa.array([str(u) for u in evaluation.users], pa.string())
    n = len(users)
    runs, user_idx, measures, values = [], [], [], []
    run_names = list(evaluation.runs)
    measure_names: list[str] = []
    for r, run in enumerate(run_names):
        for m in _measures(evaluation, run):
            if m not in measure_names:
                measure_names.append(m)
            runs.append(np.full(n, r, np.int32))
            measures.append(np.full(n, measure_names.index(m), np.int32))
            user_idx.append(np.arange(n, dtype=np.int32))
            values.append(np.asarray(evaluation.per_user[run][m], dtype=np.float64))

    def cat(parts, dtype):
        return np.concatenate(parts) if parts else np.zeros(0, dtype)

    return pa.table({
        "run": pa.DictionaryArray.from_arrays(pa.array(cat(runs, np.int32)), pa.array(run_names, pa.string())),
        "user": pa.DictionaryArray.from_arrays(pa.array(cat(user_idx, np.int32)), users),
        "measure": pa.DictionaryArray.from_arrays(pa.array(cat(measures, np.int32)),
                                                  pa.array(measure_names, pa.string())),
        "value": pa.array(cat(values, np.float64), pa.float64()),
    })


def user_values_frame(evaluation: Evaluation) -> pd.DataFrame:
    """Per-user values as a pandas DataFrame in long form (run, user, measure, value)."""
    frame = user_values_table(evaluation).to_pandas()
    for c in ("run", "user", "measure"):
        frame[c] = frame[c].astype(str)
    return frame


def _json_text(evaluation: Evaluation) -> str:
    ids = [str(u) for u in evaluation.users]
    out = {run: {m: {u: (None if math.isnan(v) else v) for u, v in zip(ids, evaluation.per_user[run][m].tolist())}
                 for m in _measures(evaluation, run)} for run in evaluation.runs}
    return json.dumps(out, indent=1, allow_nan=False) + "\n"


def write_user_values(evaluation: Evaluation, path: str | Path, format: str | None = None) -> None:
    """Write the per-user values to `path` (atomically) in `format` (by extension by default)."""
    from recdiv.data.textio import atomic_write

    fmt = output_format(path, format)
    if fmt == "json":
        with atomic_write(path) as fh:
            fh.write(_json_text(evaluation))
        return
    table = user_values_table(evaluation)
    if fmt in ("csv", "tsv"):
        _write_delimited(table, path, "," if fmt == "csv" else "\t")
        return
    import pyarrow as pa

    with atomic_write(path, "wb") as fh:
        sink = pa.PythonFile(fh, mode="w")
        if fmt == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(table, sink, compression="snappy")
        else:
            with pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)


def _field(text: str, sep: str) -> str:
    if sep == "," and ("," in text or '"' in text or text != text.strip()):
        return '"' + text.replace('"', '""') + '"'
    if sep == "\t" and ("\t" in text or "\n" in text):
        raise ConfigError(f"cannot write {text!r} in a tab-separated file: it holds a tab or a line break")
    return text


def _write_delimited(table: pa.Table, path: str | Path, sep: str) -> None:
    """run, user, measure, value lines (values as repr: full precision; NaN as nan)."""
    from recdiv.data.textio import _number_codes, atomic_write, format_lines

    cols = []
    for name in ("run", "user", "measure"):
        col = table.column(name).combine_chunks() if table.num_rows else None
        if col is None:
            break
        labels = [_field(x, sep) for x in col.dictionary.to_pylist()]
        cols.append((labels, np.asarray(col.indices, dtype=np.int64), sep))
    with atomic_write(path, "wb") as fh:
        fh.write(sep.join(("run", "user", "measure", "value")).encode() + b"\n")
        if cols:
            values = np.asarray(table.column("value").combine_chunks(), dtype=np.float64)
            fh.write(format_lines([*cols, (*_number_codes(values, "repr"), "\n")]))
