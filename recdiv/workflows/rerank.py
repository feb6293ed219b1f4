"""`recdiv rerank` as a library function: read a run's candidate lists and the files that describe the items
(aspects, training interactions, item factors or a model fitted for them, item groups), assemble the `Context` the
reranker needs (`Reranker.NEEDS`), rerank, and write the lists (`rerank_files`, `Reranked.write`).

A candidate that no file describes is an item without features — no aspects, no profile, no factor vector — as
RankSys takes an item missing from its feature data (an empty feature set), for every reranker alike; files that
describe no candidate at all are an error (another dataset's files, swapped columns).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from recdiv.errors import ConfigError


@dataclass(frozen=True)
class RerankInputs:
    """The files and choices of a reranking (each field is the `recdiv rerank` option of the same name)."""

    run: str | Path
    aspects: str | Path | None = None
    train: str | Path | None = None
    item_groups: str | Path | None = None
    factors: str | Path | None = None
    factors_from: str | None = None
    factors_params: Mapping[str, object] = field(default_factory=dict)
    dominant: int | None = None
    similarity: str | None = None
    order: str = "score"
    seed: int = 0


@dataclass
class Reranked:
    """The reranked lists (`Rankings`, or sampled rankings of a stochastic reranker) with what was read."""

    reranker: object
    lists: object
    n_users: int  # users with candidates
    depth: int  # the longest candidate list
    described: str  # "; aspects FILE (n), similarity NAME, ...": the inputs the reranker used

    @property
    def samples(self) -> int:
        return getattr(self.reranker.config, "samples", 1)

    def write(self, path: str | Path, tag: str | None = None) -> None:
        """Write the lists to `path` (TREC text, .tsv, .parquet, .arrow, .csv), or one TREC run per sample into the
        new or empty folder `path` when the reranker samples several rankings; `tag`: the run tag (default: the
        reranker's name)."""
        from recdiv.data.formats import write_rankings

        tag = tag or self.reranker.NAME
        if self.samples > 1:
            _write_samples(self.lists, Path(path), tag)
        else:
            write_rankings(self.lists, path, tag=tag)

    def summary(self, k: int, order: str, seconds: float, output: str | Path) -> str:
        """The line `recdiv rerank` prints: the reranker and its parameters, the candidates, the inputs, the time."""
        params = ", ".join(f"{key}={v}" for key, v in self.reranker.config.model_dump(by_alias=True).items())
        return (f"{self.reranker.NAME}({params}): {self.n_users:,} users, {self.depth:,} candidates "
                f"(by {order}) → top {k}{self.described}; {seconds:.1f} s -> {output}")


def rerank_files(run: str | Path, reranker, k: int, **inputs) -> Reranked:
    """Rerank the candidate lists of `run` (a TREC run or a table: user, item, rank, score) to the top `k` with
    `reranker` (a `Reranker`, or a registered name or ``module:Class`` with its default parameters). `inputs`: the
    fields of `RerankInputs` — `aspects`, `train`, `item_groups`, `factors` (files), `factors_from` (a recommender
    with item factors fitted on `train`, with `factors_params`), `dominant` (latent aspects: the L largest factors
    of each item), `similarity` (cosine, jaccard, latent-cosine, pearson), `order` (score or rank), `seed`."""
    from recdiv.data.tables import rankings_of
    from recdiv.progress import Progress

    if isinstance(reranker, str):
        from recdiv.diversifiers.registry import make_reranker

        reranker = make_reranker(reranker)
    needs = tuple(reranker.NEEDS)
    args = _check_options(RerankInputs(run, **inputs), needs, reranker.NAME)
    run_table, context, users, items, described = _read(args, needs, reranker.NAME)
    cands = rankings_of(run_table, users, items, order=args.order)
    del run_table  # the parsed file (~100 MB for a 3 M-line run) is not needed any more: lower peak memory
    _check_shared(args, needs, reranker.NAME, context, cands)
    with Progress(f"rerank {reranker.NAME}", len(cands.users)):
        out = reranker.rerank(cands, k, context)
    return Reranked(reranker, out, len(cands), int(cands.lengths.max(initial=0)), described)


def _read(args: RerankInputs, needs: tuple[str, ...], name: str):
    """(the parsed run, the Context, users, items, the description of the inputs): the item vocabulary holds every
    described item, then the run's undescribed candidates."""
    from recdiv.data.formats import read_run
    from recdiv.data.tables import shared_vocab
    from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv
    from recdiv.data.vocab import Vocab

    run = read_run(args.run)
    asp = parse_item_aspects_tsv(args.aspects) if args.aspects else None
    train = parse_interactions_tsv(args.train) if args.train else None
    fac_ids, fac = _read_factors(args.factors) if args.factors else (None, None)
    known = [(what, ids) for what, ids in (("the aspect file", asp["item"].labels if asp is not None else None),
                                           ("the training file", train["item"].labels if train is not None else None),
                                           ("the factor file", fac_ids)) if ids is not None]
    described_items = Vocab.from_values(*(ids for _, ids in known)) if known else None
    items = Vocab.from_values(described_items.ids, run["item"].labels) if known else shared_vocab(run["item"])
    unknown = len(items) - len(described_items) if known else 0
    if fac_ids is not None and not (Vocab.from_values(fac_ids).lookup(run["item"].labels, missing="-1") >= 0).any():
        raise ConfigError(f"{name}: no candidate item of {args.run} has a vector in --factors "
                          f"{args.factors} (its items, e.g. {str(run['item'].labels[0])!r}, are not the factor "
                          "file's; another dataset's model?)")
    users = shared_vocab(run["user"], *([train["user"]] if train is not None else []))
    groups = parse_item_aspects_tsv(args.item_groups) if args.item_groups else None
    ctx, described = _context(args, needs, items, users, asp, train, fac_ids, fac, groups)
    if unknown:
        files = [what for what, _ in known]
        where = f"not in {files[0]}" if len(files) == 1 else f"in none of {', '.join(files)}"
        described += f"; {unknown:,} candidate item{'s' if unknown > 1 else ''} {where}: without features"
    return run, ctx, users, items, described


def _read_factors(path):
    from recdiv.data.factors import read_item_factors_tsv

    return read_item_factors_tsv(path)


def _check_options(args: RerankInputs, needs: tuple[str, ...], name: str) -> RerankInputs:
    """Errors for what the reranker needs and the inputs cannot give, and inputs that do not fit together; the
    inputs with the similarity's canonical name."""
    factors = args.factors or args.factors_from
    if args.factors and args.factors_from:
        raise ConfigError("give item factors once: --factors FILE or --factors-from ALGO")
    if args.factors_from and not args.train:
        raise ConfigError(f"--factors-from {args.factors_from} fits the model on --train: pass --train TRAIN.tsv")
    if args.factors_params and not args.factors_from:
        raise ConfigError("--factors-param sets a parameter of the --factors-from model")
    if args.dominant is not None and not factors:
        raise ConfigError("--dominant L takes the L dominant factors of each item: pass --factors or --factors-from")
    if args.dominant is not None and args.aspects:
        raise ConfigError("give one aspect space: --aspects FILE or latent aspects (--factors ... --dominant L)")
    if args.similarity is not None:
        from recdiv.aspects.similarity import SIMILARITIES as NAMED

        args = replace(args, similarity=NAMED.canonical(args.similarity))  # any case and punctuation; did-you-mean
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
    return args


def _check_shared(args: RerankInputs, needs, name: str, ctx, cands) -> None:
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


def _fitted_factors(args: RerankInputs, train_inter):
    """Item factors of the --factors-from model fitted on the training interactions."""
    from recdiv.algorithms.registry import RECOMMENDERS, make_recommender

    entry = RECOMMENDERS.entry(args.factors_from)
    if not RECOMMENDERS.has(entry.name, "item-factors"):
        have = ", ".join(RECOMMENDERS.with_capability("item-factors"))
        raise ConfigError(f"--factors-from {args.factors_from}: {entry.name} has no item factors (models with "
                          f"item factors: {have})")
    model = make_recommender(entry.name, **dict(args.factors_params)).fit(train_inter)
    return model.item_factors


def _context(args: RerankInputs, needs, items, users, asp, train, fac_ids, fac, groups=None):
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
