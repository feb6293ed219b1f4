"""`recdiv data info` and `recdiv data fetch`."""

from __future__ import annotations

import argparse
import json
import sys

from recdiv.cli.options import Paths, dataset_folder
from recdiv.data.datasets import DATASETS
from recdiv.data.fetch import fetch

DATA_DIR_HELP = ("folder holding datasets by name; it must exist (default: search $RECDIV_DATA, ../shared/data and "
                 "~/.cache/recdiv/data, where `recdiv data fetch` stores)")


def configure_data(data: argparse.ArgumentParser) -> None:
    data.description = "Dataset statistics and downloads."
    sub = data.add_subparsers(dest="data_command", metavar="SUBCOMMAND")

    info = sub.add_parser("info", help="statistics of a dataset (users, items, density, Gini, aspects)",
                          description="Statistics of a dataset in the style of Valcarce et al. 2018, Table 2.")
    info.add_argument("dataset", metavar="NAME|PATH",
                      help="dataset folder, a name under the data folder (ml-100k, ...) or synthetic[:preset]")
    info.add_argument("--format", choices=["table", "json"], default="table", help="output format (default table)")
    info.add_argument("--data-dir", metavar="DIR", help=DATA_DIR_HELP)
    info.set_defaults(func=_info)

    fet = sub.add_parser("fetch", help="download, verify and unpack an official dataset archive",
                         description=f"Download one of: {', '.join(DATASETS)}.")
    fet.add_argument("dataset", metavar="NAME", help=f"one of {', '.join(DATASETS)}")
    fet.add_argument("--dir", "--data-dir", dest="dir", metavar="DIR",
                     help="target folder (default: $RECDIV_DATA, else ~/.cache/recdiv/data; the commands find a "
                          "dataset by name in both)")
    fet.add_argument("--sha256", metavar="HEX", help="the archive's sha256 (64 hex digits): it must match; needed for "
                     "archives recdiv has no pinned checksums for (ml-1m, ml-10m, ml-20m, ml-25m, ml-32m)")
    fet.add_argument("--force", action="store_true", help="download again even if the folder exists")
    fet.set_defaults(func=_fetch)

    exp = sub.add_parser("export", help="write a split as train.tsv, test.qrels, aspects.tsv, items.tsv and README.txt",
                         description="Write a dataset's split as the files the other commands read: train.tsv "
                                     "(training interactions), test.qrels (TREC qrels of the test part), aspects.tsv "
                                     "(item genres or tags, tab-separated), items.tsv (titles and aspects of the "
                                     "items, for `recdiv show`) and README.txt (what each file is, the rating scale "
                                     "and the relevance threshold). See docs/walkthrough.md.")
    exp.add_argument("dataset", metavar="NAME|PATH", help="dataset name (ml-100k, ...), folder or synthetic[:preset]")
    exp.add_argument("--split", required=True, metavar="SPEC",
                     help="split name or spec: u1..u5, ua, ub, holdout:0.2, kfold:5:1, temporal:0.8, leave-last:1")
    exp.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write (created if needed)")
    exp.add_argument("--aspects", metavar="ATTRIBUTE", default=None,
                     help="item attribute written to aspects.tsv: genres, tags, ... or none (default: genres if the "
                          "dataset has them, else tags)")
    exp.add_argument("--min-weight", type=float, default=None, metavar="W",
                     help="keep an (item, aspect) pair only if its weight >= W (Last.fm tags: users who applied it)")
    exp.add_argument("--top", type=int, default=None, metavar="N", help="keep the N heaviest aspects of every item")
    exp.add_argument("--seed", type=int, default=0, help="seed of random splits (default 0)")
    exp.add_argument("--qrels-format", choices=("trec", "parquet", "arrow"), default="trec",
                     help="the test judgments as test.qrels (TREC text, default), test.parquet or test.arrow (columns "
                          "user, item, grade); every command reads all three")
    exp.add_argument("--data-dir", metavar="DIR", help=DATA_DIR_HELP)
    exp.add_argument("--force", action="store_true", help="overwrite the files of an earlier export")
    exp.set_defaults(func=_export, paths=Paths(folders={"output": ("-o", _export_files)},
                                               extra=lambda a: dataset_folder(a.dataset, a.data_dir)))
    data.set_defaults(func=lambda args: _usage(data))


def _export_files() -> tuple[str, ...]:
    from recdiv.data.export import EXPORT_FILES

    return EXPORT_FILES


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
    from rich.markup import escape
    from rich.table import Table

    from recdiv.console import raw
    from recdiv.escape import terminal

    def cell(text: str) -> str:
        return escape(terminal(text))

    table = Table(title=cell(f"Dataset {stats['name']}"), show_header=True)
    table.add_column("statistic")
    table.add_column("value", justify="right")
    fmt = {"density": lambda v: f"{100 * v:.2f}%", "gini": lambda v: f"{v:.4f}",
           "rating_scale": lambda v: "implicit" if v is None else f"{v[0]:g}–{v[1]:g}"}
    for key, value in stats.items():
        if key in ("name", "aspects", "source_counts", "splits"):
            continue
        table.add_row(key, cell(fmt[key](value) if key in fmt else f"{value:,}" if isinstance(value, int)
                                else str(value)))
    for name, n in stats["aspects"].items():
        table.add_row(cell(f"aspects: {name}"), f"{n:,}")
    for name, n in stats.get("source_counts", {}).items():
        table.add_row(cell(f"file: {name}"), f"{n:,}")
    if stats.get("splits"):
        table.add_row("provided splits", cell(", ".join(stats["splits"])))
    Console(file=raw(sys.stdout)).print(table)
    return 0


def _export(args) -> int:
    from recdiv.aspects.build import space_from_attribute
    from recdiv.data.export import export_split
    from recdiv.data.load import load_dataset
    from recdiv.data.splits import make_split
    from recdiv.errors import ConfigError

    dataset = load_dataset(args.dataset, args.data_dir)
    split = make_split(dataset, args.split, seed=args.seed)
    name = args.aspects
    if name is None:
        name = next((a for a in ("genres", "tags") if a in dataset.attributes), "none")
    elif name != "none" and name not in dataset.attributes:
        known = ", ".join(dataset.attributes) or "none"
        raise ConfigError(f"--aspects {name}: dataset {dataset.name!r} has no such attribute (it has: {known})")
    if name == "none" and (args.min_weight is not None or args.top is not None):
        raise ConfigError("--min-weight and --top select aspects: they need --aspects")
    aspects = space = None
    if name != "none":
        space = space_from_attribute(dataset, name, top=args.top, min_weight=args.min_weight)
        aspects = space.to_frame()
    random = args.split not in dataset.splits and not args.split.startswith("temporal")
    source = f"{dataset.name}, split {args.split}" + (f" (seed {args.seed})" if random else "")
    from recdiv.data.items import Items

    out = export_split(split, args.output, source=source, aspects=aspects, aspect_name=name,
                       items=Items.of(dataset, space), force=args.force, qrels_format=args.qrels_format)
    print(out.summary, file=sys.stderr)
    return 0


def _fetch(args) -> int:
    fetch(args.dataset, args.dir, sha256=args.sha256, force=args.force)
    return 0
