"""Which parser under recdiv's readers: pyarrow's CSV reader or pandas' C engine, on the real files.

Both parse the same bytes with the same column types (ids as strings, numbers as float64), no checks; median of
5 in this process; the result's memory (pyarrow: Table.nbytes; pandas: memory_usage(deep=True)). Then recdiv's
own reader on the same file (pyarrow + the line model + every check). Files: the ML-1M-shaped TREC run and qrels
(bench/_files.py), ML-100K u.data, ML latest-small ratings.csv and tags.csv, HetRec user_taggedartists.dat.

    python bench/bench_parsers.py
"""

from __future__ import annotations

import io
import statistics
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pcsv

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _files import make_files

from recdiv.data._read import parse_table

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _median(f, n=5):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def compare(path: Path, columns: list[tuple[str, str]], sep: str, header: bool, quoted: bool, recdiv_kw: dict):
    raw = path.read_bytes()
    names = [n for n, _ in columns]
    types = {n: pa.float64() if k in ("int", "float") else pa.string() for n, k in columns}
    pdtypes = {n: "float64" if k in ("int", "float") else object for n, k in columns}

    def arrow():
        return pcsv.read_csv(pa.py_buffer(raw), read_options=pcsv.ReadOptions(column_names=names,
                                                                             skip_rows=int(header)),
                             parse_options=pcsv.ParseOptions(delimiter=sep, quote_char='"' if quoted else False),
                             convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False))

    def pandas():
        return pd.read_csv(io.BytesIO(raw), sep=sep, header=None, names=names, skiprows=int(header), dtype=pdtypes,
                           engine="c", quoting=0 if quoted else 3, keep_default_na=False, na_filter=False)

    ta, t = _median(arrow)
    tp, df = _median(pandas)
    tr, _table = _median(lambda: parse_table(path, columns, **recdiv_kw))
    print(f"| {path.name} | {len(df):,} | {ta:.3f} s, {t.nbytes / 1e6:.0f} MB | "
          f"{tp:.3f} s, {df.memory_usage(deep=True).sum() / 1e6:.0f} MB | {tr:.3f} s |")


def main() -> None:
    files = make_files()
    run_cols = [("user", "id"), ("q0", "skip"), ("item", "id"), ("rank", "int"), ("score", "float"), ("tag", "skip")]
    print("| file | lines | pyarrow | pandas C | recdiv reader (all checks) |\n|---|---:|---:|---:|---:|")
    compare(files["run.txt"], run_cols, " ", False, False, {"sep": None, "comments": True})
    compare(files["qrels.txt"], [("user", "id"), ("iter", "skip"), ("item", "id"), ("grade", "float")], " ", False,
            False, {"sep": None, "comments": True})
    rating = [("user", "int"), ("item", "int"), ("value", "float"), ("timestamp", "int")]
    compare(DATA / "ml-100k" / "u.data", rating, "\t", False, False, {})
    small = DATA / "ml-latest-small"
    compare(small / "ratings.csv", [("userId", "int"), ("movieId", "int"), ("rating", "float"), ("timestamp", "int")],
            ",", True, False, {"sep": ",", "header": True})
    compare(small / "tags.csv", [("userId", "int"), ("movieId", "int"), ("tag", "str?"), ("timestamp", "int")], ",",
            True, True, {"sep": ",", "header": True, "quoted": True})
    compare(DATA / "hetrec2011-lastfm-2k" / "user_taggedartists.dat",
            [("userID", "int"), ("artistID", "int"), ("tagID", "int"), ("day", "int"), ("month", "int"),
             ("year", "int")], "\t", True, False, {"header": True})


if __name__ == "__main__":
    main()
