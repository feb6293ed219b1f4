"""`recdiv rerank`: rerank a TREC run's candidate lists with a diversifier.

    recdiv rerank RUN --method NAME [--param k=v ...] --aspects item_aspects.tsv [--train train.tsv] [-k 100]
                  [--seed S] -o OUT.run
"""

from __future__ import annotations

import argparse

from recdiv.cli.params import parse_params
from recdiv.errors import ConfigError, DataError


def configure_rerank(p: argparse.ArgumentParser) -> None:
    from recdiv.diversifiers.registry import RERANKERS  # the names for --help

    p.description, p.formatter_class = __doc__, argparse.RawDescriptionHelpFormatter
    p.add_argument("run", help="TREC run with the candidates (user Q0 item rank score tag)")
    p.add_argument("--method", required=True,
                   help=f"reranker: {', '.join(RERANKERS)} (any case and punctuation, e.g. IA-Select), or module:Class")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="reranker parameter, repeatable (e.g. lambda=0.5)")
    p.add_argument("--aspects", required=True, help="item-aspect TSV (item aspect [weight])")
    p.add_argument("--train", help="training interactions TSV (user item value [timestamp]): profiles, popularity")
    p.add_argument("-k", type=int, default=100, help="length of the reranked lists (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed for randomised rerankers (default 0)")
    p.add_argument("-o", "--output", required=True, help="output TREC run")
    p.set_defaults(func=run_rerank)


def run_rerank(args) -> int:
    # deferred: numpy, pandas and the rerankers (numba) load only when the command runs
    import numpy as np
    import pandas as pd

    from recdiv.aspects.space import AspectSpace
    from recdiv.data.interactions import Interactions
    from recdiv.data.rankings import Rankings
    from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv, read_trec_run, write_trec_run
    from recdiv.data.vocab import Vocab
    from recdiv.diversifiers.base import RerankContext
    from recdiv.diversifiers.registry import make_reranker

    if args.k < 1:
        raise ConfigError("-k must be at least 1")
    reranker = make_reranker(args.method, **parse_params(args.param))
    if "train" in reranker.NEEDS and not args.train:
        raise ConfigError(f"{reranker.NAME} needs --train (user profiles or popularity)")
    run = read_trec_run(args.run)
    asp = read_item_aspects_tsv(args.aspects)
    train = read_interactions_tsv(args.train) if args.train else None
    known = [asp["item"]] + ([train["item"]] if train is not None else [])
    items = Vocab.from_values(*known)
    unknown = ~run["item"].isin(items.index).to_numpy()
    if unknown.any():
        j = int(np.flatnonzero(unknown)[0])
        where = "the aspect file" + (" or the training file" if train is not None else "")
        raise DataError(f"item {run['item'].iloc[j]!r} is in neither {where}", args.run,
                        int(run.attrs["lineno"][j]))
    users = Vocab.from_values(run["user"], *([train["user"]] if train is not None else []))
    space = AspectSpace.from_frame(asp, items)
    inter = None
    if train is not None:
        inter = Interactions.from_frame(train, users=users, items=items)
    cands = Rankings.from_frame(pd.DataFrame(run), users, items)
    from recdiv.progress import Progress

    with Progress(f"rerank {reranker.NAME}", len(cands.users)):
        out = reranker.rerank(cands, args.k, RerankContext(train=inter, aspects=space, seed=args.seed))
    write_trec_run(out.to_frame(), args.output, tag=f"{reranker.NAME}")
    return 0
