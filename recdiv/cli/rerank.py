"""`recdiv rerank`: rerank a TREC run's candidate lists with a diversifier.

    recdiv rerank RUN --method NAME [--param k=v ...] --aspects item_aspects.tsv [--train train.tsv] [-k 100]
                  [--seed S] -o OUT.run
"""

from __future__ import annotations

import argparse

from recdiv.cli.options import positive_int, seed
from recdiv.cli.params import parse_params
from recdiv.errors import ConfigError
from recdiv.outputs import check_output_file


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
    p.add_argument("--similarity", choices=("cosine", "jaccard"), default="cosine",
                   help="item similarity over the aspects for distance-based rerankers (MMR, Ziegler): set cosine "
                        "(default) or Jaccard (RankSys's JaccardFeatureItemDistanceModel)")
    p.add_argument("-k", type=positive_int, default=100, help="length of the reranked lists (default 100)")
    p.add_argument("--seed", type=seed, default=0, help="seed for randomised rerankers (≥ 0, default 0)")
    p.add_argument("-o", "--output", required=True, help="output TREC run")
    p.set_defaults(func=run_rerank)


def run_rerank(args) -> int:
    # deferred: the readers and the rerankers (numba) load only when the command runs
    from recdiv.aspects.similarity import similarity_from_name
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.tables import aspect_matrix, dense, interactions_of, rankings_of, shared_vocab
    from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv, parse_trec_run, write_rankings
    from recdiv.diversifiers.base import RerankContext
    from recdiv.diversifiers.registry import make_reranker

    reranker = make_reranker(args.method, **parse_params(args.param))
    if "train" in reranker.NEEDS and not args.train:
        raise ConfigError(f"{reranker.NAME} needs --train (user profiles or popularity)")
    check_output_file(args.output, "-o")
    run = parse_trec_run(args.run)
    asp = parse_item_aspects_tsv(args.aspects)
    train = parse_interactions_tsv(args.train) if args.train else None
    items = shared_vocab(asp["item"], *([train["item"]] if train is not None else []))
    where = "the aspect file" + (" nor the training file" if train is not None else "")
    dense(run["item"], items, run, f"item {{id!r}} is in neither {where}")  # every candidate must be known
    users = shared_vocab(run["user"], *([train["user"]] if train is not None else []))
    space = AspectSpace(items, *aspect_matrix(asp, items))
    inter = interactions_of(train, users, items) if train is not None else None
    cands = rankings_of(run, users, items)
    from recdiv.progress import Progress

    similarity = similarity_from_name(args.similarity, space)
    with Progress(f"rerank {reranker.NAME}", len(cands.users)):
        out = reranker.rerank(cands, args.k, RerankContext(train=inter, aspects=space, similarity=similarity,
                                                           seed=args.seed))
    write_rankings(out, args.output, tag=f"{reranker.NAME}")
    return 0
