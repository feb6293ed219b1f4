"""`recdiv convert`: a run or qrels from one format to another (TREC text, CSV, TSV, Parquet, Arrow IPC, ranx's
JSON).

    recdiv convert INPUT OUTPUT [--kind run|qrels] [--from FORMAT] [--to FORMAT] [--tag TAG]

Formats come from the file names (`.parquet`/`.pq`, `.arrow`/`.feather`/`.ipc`, `.csv`, `.tsv`, `.json`, anything
else TREC text) unless --from/--to name them; the kind from the input (a TREC file of 3-4 columns or a table with a
grade column is qrels) unless --kind names it. The input is read and written in blocks of whole users (a Parquet
file gets one row group per block), so a file of any size converts in bounded memory; the output is written
beside its target and renamed into place when complete.
"""

from __future__ import annotations

import argparse
import sys

from recdiv.cli.options import Paths

FORMAT_CHOICES = ("trec", "csv", "tsv", "parquet", "arrow", "json")


def configure_convert(p: argparse.ArgumentParser) -> None:
    p.description = ("Convert a run or qrels between TREC text, CSV, TSV, Parquet, Arrow IPC and JSON (ranx's) files "
                     "(by extension, or --from/--to), block by block.")
    p.add_argument("input", help="run or qrels file")
    p.add_argument("output", help="file to write (its extension gives the format unless --to is given)")
    p.add_argument("--kind", choices=("run", "qrels"), default=None,
                   help="what the input holds (default: qrels for TREC files of 3-4 columns and tables with a "
                        "grade/relevance/rating column, else run)")
    p.add_argument("--from", dest="source_format", choices=FORMAT_CHOICES, default=None, metavar="FORMAT",
                   help="format of the input: " + ", ".join(FORMAT_CHOICES) + " (default: by extension)")
    p.add_argument("--to", dest="format", choices=FORMAT_CHOICES, default=None, metavar="FORMAT",
                   help="format of the output (default: by extension)")
    p.add_argument("--tag", default="recdiv", help="run tag of TREC output (last column; default recdiv)")
    p.set_defaults(func=main, paths=Paths(("input",), {"output": "OUTPUT"}))


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    from recdiv.data.formats import convert
    from recdiv.errors import ConfigError

    if not Path(args.input).is_file():
        raise ConfigError(f"{args.input}: no such file")
    kind, n = convert(args.input, args.output, kind=args.kind, source_format=args.source_format, format=args.format,
                      tag=args.tag)
    from recdiv.data.formats import file_format

    print(f"recdiv convert: {n:,} {kind} rows from {args.input} to {args.output} "
          f"({file_format(args.output, args.format)})", file=sys.stderr)
    return 0
