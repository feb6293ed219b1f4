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


def _check_options(args, needs: tuple[str, ...], name: str) -> None:
    """Errors for what the reranker needs and the options cannot give, and options that do not fit together."""
    factors = args.factors or args.factors_from
    if args.factors and args.factors_from:
        raise ConfigError("give item factors once: --factors FILE or --factors-from ALGO")
    if args.factors_from and not args.train:
        raise ConfigError(f"--factors-from {args.factors_from} fits the model on --train: pass --train TRAIN.tsv")
    if args.factors_param and not args.factors_from:
        raise ConfigError("--factors-param sets a parameter of the --factors-from model")
    if args.dominant is not None and not factors:
        raise ConfigError("--dominant L takes the L dominant factors of each item: pass --factors or --factors-from")
    if args.dominant is not None and args.aspects:
        raise ConfigError("give one aspect space: --aspects FILE or latent aspects (--factors ... --dominant L)")
    if args.similarity is not None:
        from recdiv.aspects.similarity import SIMILARITIES as NAMED

        args.similarity = NAMED.canonical(args.similarity)  # any case and punctuation; did-you-mean
    sim = args.similarity
    if sim in ("cosine", "jaccard") and not (args.aspects or args.dominant):
        raise ConfigError(f"--similarity {sim} compares aspect sets: pass --aspects (or --factors ... --dominant L)")
    if sim == "latent-cosine" and not factors:
        raise ConfigError("--similarity latent-cosine compares factor vectors: pass --factors or --factors-from")
    if sim == "pearson" and not args.train:
        raise ConfigError("--similarity pearson correlates training ratings: pass --train")
    if "train" in needs and not args.train:
        raise ConfigError(f"{name} needs --train (user profiles or popularity)")
    if "item_groups" in needs and not args.item_groups:
        raise ConfigError(f"{name} needs --item-groups FILE (item<TAB>group: the protected group)")
    if "aspects" in needs and not (args.aspects or args.dominant):
        if factors:
            raise ConfigError(f"{name} needs aspects: add --dominant L (the L largest factors of each item are its "
                              "latent aspects), or pass --aspects ASPECTS.tsv")
        raise ConfigError(f"{name} needs aspects: --aspects ASPECTS.tsv, or latent aspects (--factors FILE or "
                          "--factors-from ALGO, with --dominant L)")
    if "similarity" in needs and not (sim or args.aspects or args.dominant or factors):
        raise ConfigError(f"{name} needs an item similarity: --aspects (cosine, jaccard), --factors/--factors-from "
                          "(latent-cosine) or --train with --similarity pearson")


def run_rerank(args) -> int:
    # deferred: the readers and the rerankers (numba) load only when the command runs
    from recdiv.data.formats import read_run, write_rankings
    from recdiv.data.tables import rankings_of, shared_vocab
    from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv
    from recdiv.data.vocab import Vocab
    from recdiv.diversifiers.registry import make_reranker

    reranker = make_reranker(args.method, **parse_params(args.param))
    needs = tuple(reranker.NEEDS)
    _check_options(args, needs, reranker.NAME)
    t0 = time.perf_counter()
    samples = getattr(reranker.config, "samples", 1)  # the output guard has checked -o (recdiv.cli.options.Paths)
    if samples > 1 and Path(args.output).is_dir() and any(Path(args.output).iterdir()):
        raise ConfigError(f"-o {args.output}: {samples} sampled rankings go into a new or empty folder; this one "
                          "holds files")
    if samples == 1 and Path(args.output).is_dir():
        raise ConfigError(f"-o {args.output}: is a folder, expected a file to write")
    run = read_run(args.run)
    asp = parse_item_aspects_tsv(args.aspects) if args.aspects else None
    train = parse_interactions_tsv(args.train) if args.train else None
    fac_ids, fac = _read_factors(args) if args.factors else (None, None)
    known = [(what, ids) for what, ids in (("the aspect file", asp["item"].labels if asp is not None else None),
                                           ("the training file", train["item"].labels if train is not None else None),
                                           ("the factor file", fac_ids)) if ids is not None]
    # A candidate that no file describes is an item without features — no aspects, no profile, no factor vector —
    # as RankSys takes an item missing from its feature data (an empty feature set), for every reranker alike;
    # files that describe no candidate at all are refused by _check_shared.
    described_items = Vocab.from_values(*(ids for _, ids in known)) if known else None
    items = Vocab.from_values(described_items.ids, run["item"].labels) if known else shared_vocab(run["item"])
    unknown = len(items) - len(described_items) if known else 0
    if fac_ids is not None and not (Vocab.from_values(fac_ids).lookup(run["item"].labels, missing="-1") >= 0).any():
        raise ConfigError(f"{reranker.NAME}: no candidate item of {args.run} has a vector in --factors "
                          f"{args.factors} (its items, e.g. {str(run['item'].labels[0])!r}, are not the factor "
                          "file's; another dataset's model?)")
    users = shared_vocab(run["user"], *([train["user"]] if train is not None else []))
    groups = parse_item_aspects_tsv(args.item_groups) if args.item_groups else None
    ctx, described = _context(args, needs, items, users, asp, train, fac_ids, fac, groups)
    if unknown:
        files = [what for what, _ in known]
        where = f"not in {files[0]}" if len(files) == 1 else f"in none of {', '.join(files)}"
        described += f"; {unknown:,} candidate item{'s' if unknown > 1 else ''} {where}: without features"
    cands = rankings_of(run, users, items, order=args.order)
    del run  # the parsed file (~100 MB for a 3 M-line run) is not needed any more: lower peak memory
    _check_shared(args, needs, reranker.NAME, ctx, cands)
    from recdiv.progress import Progress

    with Progress(f"rerank {reranker.NAME}", len(cands.users)):
        out = reranker.rerank(cands, args.k, ctx)
    n_users, depth = len(cands), int(cands.lengths.max(initial=0))
    del cands
    if samples > 1:
        _write_samples(out, Path(args.output), args.tag or reranker.NAME)
    else:
        write_rankings(out, args.output, tag=args.tag or reranker.NAME)
    params = ", ".join(f"{k}={v}" for k, v in reranker.config.model_dump(by_alias=True).items())
    print(f"{reranker.NAME}({params}): {n_users:,} users, {depth:,} candidates "
          f"(by {args.order}) → top {args.k}{described}; {time.perf_counter() - t0:.1f} s -> {args.output}",
          file=sys.stderr)
    return 0


def _check_shared(args, needs, name: str, ctx, cands) -> None:
    """ConfigError when the aspects or the training data share nothing with the run: the reranker would return
    the input order with exit 0 (swapped aspect columns, another dataset's files)."""
    listed = cands.items[cands.items >= 0]
    uses_space = "aspects" in needs or (ctx.similarity is not None and (args.similarity or "cosine") in ("cosine",
                                                                                                      "jaccard"))
    if ctx.aspects is not None and uses_space and len(listed) and not ctx.aspects.has_aspects[listed].any():
        what = f"--aspects {args.aspects}" if args.aspects else "the latent aspects"
        raise ConfigError(f"{name}: no candidate item of {args.run} has an aspect in {what} (its items, e.g. "
                          f"{str(cands.item_vocab.id_of(listed[:1])[0])!r}, are not the aspect file's; swapped "
                          "columns or another dataset?)")
    if ctx.train is not None and "train" in needs:
        listed_users = cands.users[cands.lengths > 0]
        if len(listed_users) and not (ctx.train.user_counts()[listed_users] > 0).any():
            raise ConfigError(f"{name}: no user of {args.run} is in --train {args.train} (its users, e.g. "
                              f"{str(cands.user_vocab.id_of(listed_users[:1])[0])!r}, have no profile there)")


def _write_samples(out, folder: Path, tag: str) -> None:
    """One TREC run per sample, sample-001.run …, written into a new folder beside `folder` and renamed into
    place (an empty `folder` is replaced), so that a failure leaves no half-written folder."""
    import os
    import shutil
    import tempfile

    from recdiv.data.textio import write_rankings
    from recdiv.outputs import write_error

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        width = max(3, len(str(len(out))))
        for s, sample in enumerate(out.samples, start=1):
            write_rankings(sample, tmp / f"sample-{s:0{width}d}.run", tag=tag)
        os.replace(tmp, folder)
    except OSError as e:
        raise write_error(e, folder) from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _read_factors(args):
    from recdiv.data.factors import read_item_factors_tsv

    return read_item_factors_tsv(args.factors)


def _fitted_factors(args, train_inter):
    """Item factors of the --factors-from model fitted on the training interactions."""
    from recdiv.algorithms.registry import RECOMMENDERS, make_recommender

    entry = RECOMMENDERS.entry(args.factors_from)
    if not RECOMMENDERS.has(entry.name, "item-factors"):
        have = ", ".join(RECOMMENDERS.with_capability("item-factors"))
        raise ConfigError(f"--factors-from {args.factors_from}: {entry.name} has no item factors (models with "
                          f"item factors: {have})")
    model = make_recommender(entry.name, **parse_params(args.factors_param)).fit(train_inter)
    return model.item_factors


def _context(args, needs, items, users, asp, train, fac_ids, fac, groups=None):
    """The `Context` the options describe, and a short description of it for the summary line."""
    import numpy as np

    from recdiv.aspects.similarity import similarity_from_name
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.tables import aspect_matrix, interactions_of
    from recdiv.models.context import Context

    inter = interactions_of(train, users, items) if train is not None else None
    factors, parts = None, []
    if args.factors_from:
        factors = _fitted_factors(args, inter)
        parts.append(f"factors of {args.factors_from} fitted on {args.train} ({factors.shape[1]})")
    elif fac is not None:
        factors = np.zeros((len(items), fac.shape[1]))
        factors[items.lookup(fac_ids)] = fac  # items without a factor vector: zeros (no latent aspects)
        parts.append(f"factors {args.factors} ({fac.shape[1]})")
    space = None
    if asp is not None:
        space = AspectSpace(items, *aspect_matrix(asp, items))
        parts.append(f"aspects {args.aspects} ({space.n_aspects})")
    elif args.dominant is not None:
        from recdiv.aspects.latent import factor_space  # SciPy: only latent aspects need it

        space = factor_space(factors, args.dominant, items)
        parts.append(f"latent aspects: {args.dominant} dominant of {factors.shape[1]} factors")
    similarity = None
    if "similarity" in needs or args.similarity:
        name = args.similarity or ("cosine" if space is not None else "latent-cosine" if factors is not None
                                   else "pearson")
        similarity = similarity_from_name(name, space, factors=factors, train=inter)
        parts.append(f"similarity {name}")
    if inter is not None and "train" in needs:
        parts.append(f"profiles {args.train}")
    item_groups = None
    if groups is not None:
        item_groups = AspectSpace(items, *aspect_matrix(groups, items, unknown="drop"), name="item groups")
        parts.append(f"item groups {args.item_groups} ({item_groups.n_aspects})")
    ctx = Context(train=inter, aspects=space, similarity=similarity, seed=args.seed, item_groups=item_groups)
    return ctx, ("; " + ", ".join(parts)) if parts else ""
