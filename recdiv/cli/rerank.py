"""`recdiv rerank`: rerank a TREC run's candidate lists with a diversifier.

    recdiv rerank RUN --method NAME [--param k=v ...] [--aspects ASPECTS.tsv] [--train TRAIN.tsv]
                  [--factors FACTORS.tsv | --factors-from ALGO] [--dominant L] [--similarity NAME]
                  [--order score|rank] [-k 100] [--seed S] [--tag TAG] -o OUT.run

What a reranker reads follows from what it declares it needs (`Reranker.NEEDS`):
  aspects     A(i) and p(a|u) (IASelect, xQuAD, PM2, Calibrated): --aspects, or latent aspects — the L dominant
              factors of each item, --factors/--factors-from with --dominant L;
  similarity  an item similarity (MMR, Ziegler, DPP, MSD, SSD, COVER, Swap): --similarity cosine|jaccard (over
              the aspects), latent-cosine (over the factors) or pearson (over --train ratings); default cosine
              when there are aspects, else latent-cosine when there are factors;
  train       training interactions: user profiles, popularity (IASelect, xQuAD, PM2, Calibrated, NGD);
  item_groups the protected group (FAIR): --item-groups FILE (item<TAB>group), `--param group=NAME` when several.
Random and PlackettLuce need nothing; PlackettLuce with `--param samples=N` (N > 1) writes N sampled runs into the
folder -o (a stochastic run for `recdiv eval --stochastic`). Item factors come from `recdiv recommend
--factors-out FILE` or are fitted here on --train (--factors-from wrmf, with --factors-param k=v): the same
factors, bit for bit, as `recommend --train TRAIN --algo wrmf --param k=v` writes when both commands see the same
items (recommend's --seed S is --factors-param seed=S).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from recdiv.cli.options import Paths, positive_int, seed
from recdiv.cli.params import parse_params
from recdiv.errors import ConfigError

SIMILARITIES = ("cosine", "jaccard", "latent-cosine", "pearson")  # for --help (recdiv.aspects.similarity has them)


def configure_rerank(p: argparse.ArgumentParser) -> None:
    from recdiv.diversifiers.registry import RERANKERS  # the names for --help

    p.description, p.formatter_class = __doc__, argparse.RawDescriptionHelpFormatter
    p.add_argument("run", help="run with the candidates: TREC text (user Q0 item rank score tag), or a CSV, TSV, "
                                 "Parquet or Arrow table (user, item, rank, score; by extension)")
    p.add_argument("--method", required=True,
                   help=f"reranker: {', '.join(RERANKERS)} (any case and punctuation, e.g. IA-Select), or module:Class")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="reranker parameter, repeatable (e.g. lambda=0.5)")
    p.add_argument("--aspects", metavar="TSV", help="item-aspect file: item<TAB>aspect[<TAB>weight]")
    p.add_argument("--train", metavar="TSV", help="training interactions (user item value [timestamp]): profiles, "
                                                  "popularity, Pearson similarity, --factors-from")
    p.add_argument("--item-groups", metavar="TSV", help="item groups item<TAB>group[<TAB>weight] (FAIR: the protected "
                                                        "group)")
    p.add_argument("--factors", metavar="TSV", help="item factors item<TAB>f1<TAB>... (recommend --factors-out)")
    p.add_argument("--factors-from", metavar="ALGO", help="fit ALGO (a model with item factors: mf-als, wrmf, bpr, "
                                                          "pure-svd) on --train and use its item factors")
    p.add_argument("--factors-param", action="append", default=[], metavar="KEY=VALUE",
                   help="parameter of the --factors-from model, repeatable (e.g. factors=20)")
    p.add_argument("--dominant", type=positive_int, metavar="L",
                   help="latent aspects: A(i) = the L largest factors of item i (thesis §3.6.2; no default)")
    p.add_argument("--similarity", metavar="NAME",
                   help=f"{'|'.join(SIMILARITIES)}: item similarity of MMR, Ziegler, DPP (default: cosine over the "
                        "aspects, else latent-cosine)")
    p.add_argument("--order", choices=("score", "rank"), default="score",
                   help="candidate order: by score, ties by item id descending as trec_eval (default), or by the "
                        "run's rank column")
    p.add_argument("-k", type=positive_int, default=100, help="length of the reranked lists (default 100)")
    p.add_argument("--seed", type=seed, default=0, help="seed for randomised rerankers (≥ 0, default 0)")
    p.add_argument("--tag", help="run tag of the output (default: the reranker's name)")
    p.add_argument("-o", "--output", required=True,
                   help="output run: TREC text (also .tsv), or .parquet, .arrow, .csv (user, item, rank, score); a "
                        "new or empty folder when a stochastic reranker samples several rankings per user: one run "
                        "file per sample")
    p.set_defaults(func=run_rerank, paths=Paths(("run", "aspects", "train", "factors", "item_groups"),
                                                {"output": "-o"}, or_folder={"output": ("sample-*.run",)}))


def run_rerank(args) -> int:
    # deferred: the readers and the rerankers (numba) load only when the command runs
    from recdiv.diversifiers.registry import make_reranker
    from recdiv.workflows.rerank import rerank_files

    reranker = make_reranker(args.method, **parse_params(args.param))
    t0 = time.perf_counter()
    samples = getattr(reranker.config, "samples", 1)  # the output guard has checked -o (recdiv.cli.options.Paths)
    if samples > 1 and Path(args.output).is_dir() and any(Path(args.output).iterdir()):
        raise ConfigError(f"-o {args.output}: {samples} sampled rankings go into a new or empty folder; this one "
                          "holds files")
    if samples == 1 and Path(args.output).is_dir():
        raise ConfigError(f"-o {args.output}: is a folder, expected a file to write")
    done = rerank_files(args.run, reranker, args.k, aspects=args.aspects, train=args.train,
                        item_groups=args.item_groups, factors=args.factors, factors_from=args.factors_from,
                        factors_params=parse_params(args.factors_param), dominant=args.dominant,
                        similarity=args.similarity, order=args.order, seed=args.seed)
    done.write(args.output, args.tag)
    print(done.summary(args.k, args.order, time.perf_counter() - t0, args.output), file=sys.stderr)
    return 0
