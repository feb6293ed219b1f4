"""`recdiv data info` and `recdiv data fetch`."""

from __future__ import annotations

import argparse
import json
import sys

from recdiv.data.fetch import SOURCES, fetch


def configure_data(data: argparse.ArgumentParser) -> None:
    data.description = "Dataset statistics and downloads."
    sub = data.add_subparsers(dest="data_command", metavar="SUBCOMMAND")

    info = sub.add_parser("info", help="statistics of a dataset (users, items, density, Gini, aspects)",
                          description="Statistics of a dataset in the style of Valcarce et al. 2018, Table 2.")
    info.add_argument("dataset", metavar="NAME|PATH",
                      help="dataset folder, a name under the data folder (ml-100k, ...) or synthetic[:preset]")
    info.add_argument("--format", choices=["table", "json"], default="table", help="output format (default table)")
    info.add_argument("--data-dir", metavar="DIR", help="folder holding datasets by name (default: $RECDIV_DATA, "
                                                        "else ../shared/data)")
    info.set_defaults(func=_info)

    fet = sub.add_parser("fetch", help="download, verify and unpack an official dataset archive",
                         description=f"Download one of: {', '.join(SOURCES)}.")
    fet.add_argument("dataset", metavar="NAME", help=f"one of {', '.join(SOURCES)}")
    fet.add_argument("--dir", metavar="DIR", help="target folder (default: $RECDIV_DATA, else ~/.cache/recdiv/data)")
    fet.add_argument("--sha256", metavar="HEX", help="the archive's sha256 (64 hex digits): it must match; needed for "
                     "archives recdiv has no pinned checksums for (ml-1m, ml-10m, ml-20m, ml-25m, ml-32m)")
    fet.add_argument("--force", action="store_true", help="download again even if the folder exists")
    fet.set_defaults(func=_fetch)
    data.set_defaults(func=lambda args: _usage(data))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _info(args) -> int:
    # deferred: the loaders bring numpy/pandas, which `recdiv data --help` does not need
    from recdiv.data.load import load_dataset
    from recdiv.data.stats import dataset_stats

    stats = dataset_stats(load_dataset(args.dataset, args.data_dir))
    if args.format == "json":
        print(json.dumps(stats, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Dataset {stats['name']}", show_header=True)
    table.add_column("statistic")
    table.add_column("value", justify="right")
    fmt = {"density": lambda v: f"{100 * v:.2f}%", "gini": lambda v: f"{v:.4f}",
           "rating_scale": lambda v: "implicit" if v is None else f"{v[0]:g}–{v[1]:g}"}
    for key, value in stats.items():
        if key in ("name", "aspects", "source_counts", "splits"):
            continue
        table.add_row(key, fmt[key](value) if key in fmt else f"{value:,}" if isinstance(value, int) else str(value))
    for name, n in stats["aspects"].items():
        table.add_row(f"aspects: {name}", f"{n:,}")
    for name, n in stats.get("source_counts", {}).items():
        table.add_row(f"file: {name}", f"{n:,}")
    if stats.get("splits"):
        table.add_row("provided splits", ", ".join(stats["splits"]))
    Console().print(table)
    return 0


def _fetch(args) -> int:
    fetch(args.dataset, args.dir, sha256=args.sha256, force=args.force)
    return 0
