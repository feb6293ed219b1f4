"""`recdiv recommend`: fit a baseline on a split's training data and write top-n lists for its test users."""

from __future__ import annotations

import argparse
import sys
import time

from recdiv.cli.params import parse_params
from recdiv.errors import ConfigError


def configure_recommend(p: argparse.ArgumentParser) -> None:
    from recdiv.algorithms.registry import RECOMMENDERS  # the names for --help

    p.description = ("Fit a baseline on the training part of a split and write the top-n unseen items of every "
                     "test user as a TREC run file.")
    p.add_argument("--dataset", required=True, help="dataset name (ml-100k, hetrec2011-lastfm-2k, ...) or folder")
    p.add_argument("--data-dir", default=None, help="folder holding datasets by name (default: RECDIV_DATA)")
    p.add_argument("--split", required=True, help="split name or spec: u1..u5, ua, ub, holdout:0.2, kfold:5:1, ...")
    p.add_argument("--algo", required=True, metavar="NAME",
                   help="recommender: " + ", ".join(RECOMMENDERS) + " (any case and punctuation), or module:Class")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="hyperparameter (repeatable)")
    p.add_argument("-n", type=int, default=500, help="list length (default 500)")
    p.add_argument("--seed", type=int, default=None, help="seed for the split and the recommender")
    p.add_argument("--tag", default=None, help="run tag in the TREC file (default: the algorithm name)")
    p.add_argument("-o", "--output", required=True, help="TREC run file to write")
    p.set_defaults(func=run_recommend)


def _load(args):
    try:
        from recdiv.data.load import load_dataset
        from recdiv.data.splits import make_split
    except ImportError as e:  # the data loaders ship separately
        raise ConfigError(f"dataset loading is not available in this installation ({e})") from None
    dataset = load_dataset(args.dataset, data_dir=args.data_dir)
    if args.split in dataset.splits:
        return dataset, dataset.splits[args.split]
    return dataset, make_split(dataset, args.split, seed=args.seed or 0)


def run_recommend(args: argparse.Namespace) -> int:
    # deferred: numpy and the recommenders (LensKit, torch) load only when the command runs
    import numpy as np

    from recdiv.algorithms.registry import RECOMMENDERS, make_recommender
    from recdiv.data.textio import id_strings, write_trec_run

    params = parse_params(args.param)
    entry = RECOMMENDERS.entry(args.algo)
    cls, name = entry.obj, entry.name
    if args.seed is not None and "seed" in cls.Config.model_fields and "seed" not in params:
        params["seed"] = args.seed
    model = make_recommender(args.algo, **params)
    if args.n < 1:
        raise ConfigError(f"-n must be at least 1, got {args.n}")
    dataset, split = _load(args)
    id_strings(dataset.users.ids, args.output, "user id")  # fail before fitting: a TREC run cannot hold these ids
    id_strings(dataset.items.ids, args.output, "item id")
    side = {}
    if getattr(cls, "needs_attributes", False):
        attr = model.config.attribute
        if attr not in dataset.attributes:
            known = ", ".join(dataset.attributes) or "none"
            raise ConfigError(f"recommender {args.algo!r} needs item attribute {attr!r}; dataset has: {known}")
        side["attributes"] = dataset.attributes[attr]
    from recdiv.progress import Progress

    t0 = time.perf_counter()
    users = np.flatnonzero(split.test.user_counts() > 0)
    with Progress(f"fit {name}") as bar:  # fitting: elapsed time only; scoring: an ETA per user
        model.fit(split.train, **side)
        bar.stage(f"recommend {name}", len(users))
        rankings = model.recommend(users, args.n)
    write_trec_run(rankings.to_frame(), args.output, tag=args.tag or name)
    print(f"{name}: {len(users)} test users, {int(rankings.lengths.sum())} recommendations "
          f"in {time.perf_counter() - t0:.1f}s -> {args.output}", file=sys.stderr)
    return 0
