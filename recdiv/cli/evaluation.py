"""What `recdiv eval` and `recdiv compare` share on the command line: the `-m` option, the input options, the
per-user output (the evaluation itself: `recdiv.workflows.evaluation`).

`-m/--measure` is repeatable and takes several values (`-m P@10 nDCG@10 -m AP`), before or after the positional
files: a value that is not a measure but names an existing file is a positional (`-m P@10 QRELS RUN` reads as
`QRELS RUN -m P@10`); `--` ends the measures. Cutoff sweeps expand (`P@5,10,20`, trec_eval's `P.5,10,20`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from recdiv.errors import ConfigError


class InOrder(argparse.Action):
    """Stores an argument (extending a list for -m) and records it, in command-line order, on `_in_order`: the
    values of a greedy `-m` may hold the files that follow it, and their place among the positionals matters."""

    def __call__(self, parser, namespace, values, option_string=None):
        order = getattr(namespace, "_in_order", None)
        if order is None:
            order = []
            namespace._in_order = order
        order.append((self.dest, values))
        if option_string is not None:  # -m: several values, repeatable
            values = [*(getattr(namespace, self.dest, None) or []), *values]
        setattr(namespace, self.dest, values)


def add_measure_option(p: argparse.ArgumentParser, default: str = "") -> None:
    p.add_argument("-m", "--measure", dest="measures", action=InOrder, nargs="+", metavar="MEASURE",
                   help="measure(s), repeatable, before or after the files: nDCG@10, 'nDCG(gain=exp)@10', sweeps "
                        "P@5,10,20; trec_eval (P.10, ndcg_cut_10, map, recip_rank), ir_measures (P(rel=4)@10, R@10) "
                        "and ranx (precision@10, mrr) spellings" + default)


def add_conventions_option(p: argparse.ArgumentParser) -> None:
    """`--conventions TOOL`: another tool's threshold, population and measure definitions (recdiv.eval.conventions)."""
    p.add_argument("--conventions", metavar="TOOL", default=None,
                   choices=("recdiv", "trec_eval", "ndeval", "ir_measures", "ranx", "lenskit"),
                   help="compute as TOOL does: trec_eval, ndeval, ir_measures, ranx or lenskit (relevance threshold, "
                        "users averaged over, measure definitions; docs/metrics.md); --rel-threshold, --population "
                        "and parameters written in a measure still win (default: recdiv)")


def add_input_options(p: argparse.ArgumentParser) -> None:
    """What `recdiv eval` and `recdiv compare` share about their files and their scale: the format of runs and
    qrels, a file for the per-user values, the memory budget and the backend."""
    p.add_argument("--input-format", choices=("trec", "csv", "tsv", "parquet", "arrow", "json"), default=None,
                   metavar="FORMAT",
                   help="format of the qrels and run files: trec, csv, tsv, parquet, arrow or json (default: by "
                        "extension: .parquet/.pq, .arrow/.feather/.ipc, .csv, .tsv, .json (ranx); anything else is "
                        "TREC text). Parquet also in ranx's (q_id, doc_id, score) and LensKit's item-list layouts")
    p.add_argument("--per-user-out", metavar="FILE", default=None,
                   help="write the per-user values (run, user, measure, value) to FILE: .parquet, .arrow, .csv, .tsv "
                        "or .json")
    p.add_argument("--memory", metavar="SIZE", default="1G",
                   help="memory budget, e.g. 512M, 4G (default 1G): runs larger than it fits are streamed in blocks "
                        "of users through temporary files (docs/scale.md); the numbers are the same")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="where blocks of users are evaluated: this process (default) or the Ray cluster at "
                        "RAY_ADDRESS (docs/scale.md)")
    p.add_argument("--workdir", metavar="DIR", default=None,
                   help="folder for the temporary partitions of a streamed evaluation (default: the system's "
                        "temporary folder; with --backend ray, storage every node sees)")


def write_per_user(args: argparse.Namespace, evaluation) -> None:
    """Write `--per-user-out` (checked before the work by `check_per_user_out`)."""
    if args.per_user_out:
        from recdiv.eval.user_values import write_user_values

        write_user_values(evaluation, args.per_user_out)


def check_per_user_out(args: argparse.Namespace) -> None:
    """The `--per-user-out` file's format, checked before any file is read (the file itself: the output guard)."""
    if args.per_user_out:
        from recdiv.eval.user_values import output_format

        output_format(args.per_user_out)


def sort_measure_args(args: argparse.Namespace, positionals: Sequence[str]) -> list[str]:
    """The measures of -m (sweeps expanded); values of -m that are not measures but existing files go, in
    command-line order with the other positional values, to `positionals` (names on `args`: the first takes one
    value, the last the rest). A value that is neither is an unknown measure (ConfigError with a did-you-mean)."""
    from recdiv.eval.catalog import expand_sweeps, parse_measure

    measures, files = [], []
    for dest, values in getattr(args, "_in_order", []):
        if values is None:
            continue
        if dest != "measures":
            files += [values] if isinstance(values, str) else list(values)
            continue
        for text in values:
            try:
                for one in expand_sweeps(text):
                    parse_measure(one)
            except ConfigError as e:
                if os.path.isfile(text):
                    files.append(text)
                elif os.sep in text or "." in text.rsplit("@", 1)[0].rsplit(")", 1)[-1]:
                    raise ConfigError(f"-m {text}: no such file, and not a measure ({e})") from None
                else:
                    raise
            else:
                measures.append(text)
    *singles, last = positionals
    for name in singles:
        setattr(args, name, files.pop(0) if files else None)
    setattr(args, last, files)
    return [one for text in measures for one in expand_sweeps(text)]
