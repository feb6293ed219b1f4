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
from recdiv.errors import ConfigError


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


def _split(args):
    """(training Interactions, the test users' dense indices, item attributes: the dataset's by name, or the
    --aspects file's; the test pairs as a users × items sparse matrix, None without test judgments)."""
    import numpy as np

    if args.train:
        if args.dataset or args.split:
            raise ConfigError("give the training data once: --dataset/--split or --train")
        return _from_files(args)
    if args.qrels or args.aspects:
        raise ConfigError("--qrels and --aspects go with --train (a dataset brings its own)")
    if not (args.dataset and args.split):
        raise ConfigError("recdiv recommend needs --dataset and --split, or --train (files of `recdiv data export`)")
    try:
        from recdiv.data.load import load_dataset
        from recdiv.data.splits import make_split
    except ImportError as e:  # the data loaders ship separately
        raise ConfigError(f"dataset loading is not available in this installation ({e})") from None
    dataset = load_dataset(args.dataset, data_dir=args.data_dir)
    split = dataset.splits[args.split] if args.split in dataset.splits else \
        make_split(dataset, args.split, seed=args.seed or 0)
    return split.train, np.flatnonzero(split.test.user_counts() > 0), dataset.attributes, split.test.matrix


def _from_files(args):
    import numpy as np

    from recdiv.data.formats import read_qrels
    from recdiv.data.interactions import Attribute
    from recdiv.data.tables import aspect_matrix, dense, interactions_of, qrels_of, shared_vocab
    from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv

    tt = parse_interactions_tsv(args.train)
    qt = read_qrels(args.qrels) if args.qrels else None
    at = parse_item_aspects_tsv(args.aspects) if args.aspects else None
    users = shared_vocab(tt["user"], *([qt["user"]] if qt is not None else []))
    items = shared_vocab(tt["item"], *[t["item"] for t in (qt, at) if t is not None])
    train = interactions_of(tt, users, items)
    test_users = np.unique(dense(qt["user"], users)) if qt is not None else np.flatnonzero(train.user_counts() > 0)
    attributes = None  # the aspect file serves as the item attribute a content model asks for
    if at is not None:
        names, membership = aspect_matrix(at, items)
        attributes = Attribute(membership.to_scipy(), names)
    test_pairs = qrels_of(qt, users, items).matrix if qt is not None else None
    return train, test_users.astype(np.int64), attributes, test_pairs


def run_recommend(args: argparse.Namespace) -> int:
    from recdiv.algorithms.registry import RECOMMENDERS, make_recommender
    from recdiv.data.formats import rankings_format, write_rankings
    from recdiv.data.textio import id_strings

    params = parse_params(args.param)
    entry = RECOMMENDERS.entry(args.algo)
    cls, name = entry.obj, entry.name
    if args.seed is not None and "seed" in cls.Config.model_fields and "seed" not in params:
        params["seed"] = args.seed
    model = make_recommender(args.algo, **params)
    if args.factors_out and not RECOMMENDERS.has(name, "item-factors"):
        have = ", ".join(RECOMMENDERS.with_capability("item-factors"))
        raise ConfigError(f"--factors-out: {name} has no item factors (models with item factors: {have})")
    train, users, attributes, test_pairs = _split(args)
    if rankings_format(args.output) == "trec":  # fail before fitting: a TREC run cannot hold these ids
        id_strings(train.users.ids, args.output, "user id")
        id_strings(train.items.ids, args.output, "item id")
    side = {}
    if getattr(cls, "needs_attributes", False):
        attr = model.config.attribute
        if not isinstance(attributes, dict):
            if attributes is None:
                raise ConfigError(f"recommender {name!r} needs item attributes: pass --aspects ASPECTS.tsv")
            side["attributes"] = attributes
        elif attr not in attributes:
            known = ", ".join(attributes) or "none"
            raise ConfigError(f"recommender {name!r} needs item attribute {attr!r}; dataset has: {known}")
        else:
            side["attributes"] = attributes[attr]
    from recdiv.progress import Progress

    t0 = time.perf_counter()
    if args.predict:
        if test_pairs is None:
            raise ConfigError("--predict writes predictions of the test pairs: pass --qrels TEST.qrels with --train")
        with Progress(f"fit {name}"):
            model.fit(train, **side)
        return _write_predictions(args, model, test_pairs, train, t0)
    with Progress(f"fit {name}") as bar:  # fitting: elapsed time only; scoring: an ETA per user
        model.fit(train, **side)
        bar.stage(f"recommend {name}", len(users))
        rankings = model.recommend(users, args.n)
    write_rankings(rankings, args.output, tag=args.tag or name)
    if args.factors_out:
        from recdiv.data.factors import write_item_factors_tsv

        write_item_factors_tsv(train.items, model.item_factors, args.factors_out)
    print(f"{name}: {len(users)} test users, {int(rankings.lengths.sum())} recommendations "
          f"in {time.perf_counter() - t0:.1f}s -> {args.output}"
          + (f", item factors -> {args.factors_out}" if args.factors_out else ""), file=sys.stderr)
    return 0


def _write_predictions(args, model, test_pairs, train, t0: float) -> int:
    """Predictions s(u, i) of every test pair the model can score, as `user item prediction`."""
    import numpy as np
    import pandas as pd

    from recdiv.data.textio import write_interactions_tsv

    test = test_pairs.tocoo()
    pred = model.score(test.row, test.col)
    ok = ~np.isnan(pred)
    frame = pd.DataFrame({"user": train.users.id_of(test.row[ok]), "item": train.items.id_of(test.col[ok]),
                          "value": pred[ok]})
    write_interactions_tsv(frame, args.output)
    print(f"{args.algo}: {int(ok.sum())} of {len(pred)} test ratings predicted "
          f"in {time.perf_counter() - t0:.1f}s -> {args.output}", file=sys.stderr)
    return 0
