"""`recdiv recommend`: fit a baseline on training data and write the top-n lists of the test users as a TREC run.

    recdiv recommend --dataset NAME --split SPEC --algo NAME [--param K=V ...] [-n 500] -o RUN
    recdiv recommend --train TRAIN.tsv [--qrels TEST.qrels] [--aspects ASPECTS.tsv] --algo NAME ... -o RUN
"""

from __future__ import annotations

import argparse
import sys
import time

from recdiv.cli.options import Paths, dataset_folder, positive_int, seed
from recdiv.cli.params import parse_params


def configure_recommend(p: argparse.ArgumentParser) -> None:
    from recdiv.algorithms.registry import RECOMMENDERS  # the names for --help

    p.description = ("Fit a baseline on the training part of a split (a dataset's, or train.tsv of `recdiv data "
                     "export`) and write the top-n unseen items of every test user as a TREC run file.")
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = algorithms_help()
    src = p.add_argument_group("training data: a dataset's split, or files (recdiv data export)")
    src.add_argument("--dataset", help="dataset name (ml-100k, hetrec2011-lastfm-2k, ...) or folder")
    src.add_argument("--data-dir", default=None, help="folder holding datasets by name; it must exist (default: "
                                                       "search $RECDIV_DATA, ../shared/data, ~/.cache/recdiv/data)")
    src.add_argument("--split", help="split name or spec: u1..u5, ua, ub, holdout:0.2, kfold:5:1, ...")
    src.add_argument("--train", metavar="TSV", help="training interactions: user item value [timestamp]")
    src.add_argument("--qrels", metavar="QRELS", help="with --train: recommend for the users of these test "
                                                      "judgments (default: every training user)")
    src.add_argument("--aspects", metavar="TSV", help="with --train: item attributes (item aspect [weight]) for "
                                                      "content")
    p.add_argument("--algo", required=True, metavar="NAME",
                   help="recommender: " + ", ".join(RECOMMENDERS) + " (any case and punctuation), or module:Class")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="hyperparameter (repeatable)")
    p.add_argument("-n", type=positive_int, default=500, help="list length (default 500)")
    p.add_argument("--seed", type=seed, default=None, help="seed for the split and the recommender (≥ 0)")
    p.add_argument("--tag", default=None, help="run tag in the TREC file (default: the algorithm name)")
    p.add_argument("--factors-out", metavar="TSV", help="also write the model's item factors (item<TAB>f1<TAB>...) "
                                                        "for `recdiv rerank --factors`")
    p.add_argument("--predict", action="store_true",
                   help="write rating predictions of the split's test pairs (user item prediction) instead of a run; "
                        "evaluate them with `recdiv eval QRELS --predictions FILE -m RMSE MAE`")
    p.add_argument("-o", "--output", required=True,
                   help="run file to write: TREC text (also .tsv), or .parquet, .arrow, .csv (user, item, rank, score)")
    p.set_defaults(func=run_recommend, paths=Paths(("train", "qrels", "aspects"),
                                                   {"output": "-o", "factors_out": "--factors-out"},
                                                   extra=lambda a: dataset_folder(a.dataset, a.data_dir)))


def algorithms_help() -> str:
    """Every recommender with what it is for and its parameters (name=default: description), from the typed
    configs."""
    from recdiv.algorithms.registry import RECOMMENDERS

    lines = ["recommenders (--algo) and their parameters (--param NAME=VALUE):"]
    for entry in RECOMMENDERS.entries():
        cls = entry.obj
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        lines.append(f"  {entry.name} — {cls.purpose}" if getattr(cls, "purpose", "") else f"  {entry.name}")
        if doc:
            lines.append(f"      {doc}")
        for name, field in cls.Config.model_fields.items():
            default = field.default
            desc = f" — {field.description}" if field.description else ""
            lines.append(f"      {field.alias or name}={default!r}{desc}".replace("PydanticUndefined", "(required)"))
    return "\n".join(lines)


def run_recommend(args: argparse.Namespace) -> int:
    # deferred: the recommenders and the data readers load only when the command runs
    from recdiv.workflows.recommend import recommend_files

    done = recommend_files(args.algo, args.n, params=parse_params(args.param), dataset=args.dataset,
                           split=args.split, data_dir=args.data_dir, train=args.train, qrels=args.qrels,
                           aspects=args.aspects, seed=args.seed, predict=args.predict,
                           item_factors=bool(args.factors_out), output=args.output)
    done.write(args.output, args.tag)
    if args.factors_out and not args.predict:
        done.write_factors(args.factors_out)
    print(done.summary(time.perf_counter() - done.started, args.output, args.factors_out), file=sys.stderr)
    return 0
