"""Evaluation from files and LensKit item lists: qrels and run files (or item lists) over one shared vocabulary,
the `EvalContext` side files, and `evaluate_files`, the file counterpart of `recdiv.eval.evaluate.evaluate`.

All ids read from files are strings. Users and items of every file (qrels, runs, `--train`, `--aspects`,
`--previous`) go into one user `Vocab` and one item `Vocab`, so that every array lines up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.tables import aspect_matrix, interactions_of, qrels_of, rankings_of, shared_vocab
from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv, parse_trec_qrels, parse_trec_run
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError
from recdiv.eval.catalog import parse_measures
from recdiv.eval.context import EvalContext
from recdiv.eval.evaluate import Evaluation, evaluate
from recdiv.eval.measure import Measure

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class EvalInputs:
    """What an evaluation reads: qrels, named runs and the context, over shared vocabularies."""

    qrels: Qrels
    runs: dict[str, Rankings]
    context: EvalContext


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """Run names: file stems, or the paths as given where two stems collide."""
    stems = [Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths)]


def load_inputs(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    *,
    train: str | Path | None = None,
    aspects: str | Path | None = None,
    previous: str | Path | None = None,
    threshold: float = 4.0,
    population: str = "relevant",
) -> EvalInputs:
    """Read a TREC qrels file, TREC run files and the optional context files into one vocabulary.

    Runs are ordered by score descending, ties by item id in descending string order (METRICS.md §0.5,
    trec_eval's rule); the rank column is ignored. `train` is an interactions TSV (user item value [ts]),
    `aspects` an item-aspect TSV (item aspect [weight]), `previous` a TREC run (the previous recommendations
    for ESSD-style measures). Malformed lines raise DataError naming file and line.

    Files are held as compact arrays from the parser on: ids dictionary-encoded (a few bytes per line, each
    distinct id looked up once), numbers as float64 — never a Python object per line.
    """
    if population not in ("relevant", "judged"):
        raise ConfigError(f"population must be relevant or judged, got {population!r}")
    qt = parse_trec_qrels(qrels_path)
    rts = [parse_trec_run(p) for p in run_paths]
    tt = parse_interactions_tsv(train) if train is not None else None
    at = parse_item_aspects_tsv(aspects) if aspects is not None else None
    pt = parse_trec_run(previous) if previous is not None else None
    tables = [t for t in (qt, *rts, tt, pt) if t is not None]
    users = shared_vocab(*(t["user"] for t in tables))
    items = shared_vocab(*(t["item"] for t in tables), *([at["item"]] if at is not None else []))
    del tables
    qrels = qrels_of(qt, users, items)
    del qt
    runs = {}
    for name in run_names(run_paths):  # each run's table is freed once its rankings are built
        runs[name] = rankings_of(rts.pop(0), users, items)
    context = EvalContext(threshold=threshold, population=population)  # type: ignore[arg-type]
    if tt is not None:
        context.train = interactions_of(tt, users, items)
    if at is not None:
        from recdiv.aspects.space import AspectSpace

        context.aspects = AspectSpace(items, *aspect_matrix(at, items))
    if pt is not None:
        context.previous = rankings_of(pt, users, items)
    return EvalInputs(qrels, runs, context)


# what an evaluation covered ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RunCoverage:
    """How one run's users meet the qrels: what `recdiv eval` states before its numbers.

    listed: users with a non-empty list; evaluated: the evaluated population (every run is averaged over it);
    matched: evaluated users with a list (the others score 0); unjudged: listed users without any judgment
    (ignored); outside: listed users with judgments but outside the population (ignored, e.g. no relevant item).
    """

    run: str
    listed: int
    evaluated: int
    matched: int
    unjudged: int
    outside: int
    example: str | None = None  # an unjudged user id of the run, for the no-match warning


def coverage(inputs: EvalInputs) -> list[RunCoverage]:
    """The `RunCoverage` of every run of `inputs` (population from the context's threshold and population)."""
    ctx, qrels = inputs.context, inputs.qrels
    n = len(qrels.users)
    judged = qrels.n_judged() > 0
    in_pop = np.zeros(n, dtype=bool)
    in_pop[qrels.population(ctx.threshold, ctx.population)] = True
    out = []
    for name, run in inputs.runs.items():
        listed = np.zeros(n, dtype=bool)
        listed[run.users[run.lengths > 0]] = True
        unjudged = listed & ~judged
        example = str(qrels.users.id_of(np.flatnonzero(unjudged)[:1])[0]) if unjudged.any() else None
        out.append(RunCoverage(name, int(listed.sum()), int(in_pop.sum()), int((listed & in_pop).sum()),
                               int(unjudged.sum()), int((listed & judged & ~in_pop).sum()), example))
    return out


def evaluate_files(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    measures: Iterable[str | Measure] | str,
    *,
    train: str | Path | None = None,
    aspects: str | Path | None = None,
    previous: str | Path | None = None,
    threshold: float = 4.0,
    population: str = "relevant",
) -> Evaluation:
    """Evaluate TREC run files against a TREC qrels file (and the optional context files, as `load_inputs`):
    the file counterpart of `recdiv.eval.evaluate.evaluate`, returning the same `Evaluation`. Runs are named
    by their file stems (`run_names`). Measures are parsed before any file is read."""
    ms = parse_measures([measures] if isinstance(measures, str) else measures)
    inputs = load_inputs(qrels_path, run_paths, train=train, aspects=aspects, previous=previous,
                         threshold=threshold, population=population)
    return evaluate(inputs.runs, inputs.qrels, ms, inputs.context)


# LensKit item lists ---------------------------------------------------------------------------------
def _itemlist_frame(ilc, what: str) -> pd.DataFrame:
    frame = ilc.to_df()
    key = ilc.key_fields[0]
    if "item_id" not in frame:
        raise DataError(f"{what} item lists have no item ids (item_id)")
    return frame.rename(columns={key: "user", "item_id": "item"})


def inputs_from_itemlists(recs, test, *, grade_field: str = "rating") -> tuple[Rankings, Qrels]:
    """Rankings and Qrels (shared vocabularies) from LensKit `ItemListCollection`s of recommendations and
    test items. Ordered recommendation lists keep their order; unordered ones are sorted by score (ties by
    item id, descending string order). Test grades come from `grade_field`; without it every test item has
    grade 1 (implicit feedback: use threshold 1). Conversion by `recdiv.data.lenskit_io`."""
    rf, tf = _itemlist_frame(recs, "recommendation"), _itemlist_frame(test, "test")
    users = Vocab.from_values(rf["user"], tf["user"])
    items = Vocab.from_values(rf["item"], tf["item"])
    from recdiv.data.lenskit_io import qrels_from_itemlists, rankings_from_itemlists

    return rankings_from_itemlists(recs, users, items), qrels_from_itemlists(test, users, items, field=grade_field)


def evaluate_itemlists(
    recs,
    test,
    measures: Iterable[str | Measure] | str,
    *,
    threshold: float = 4.0,
    population: str = "relevant",
    grade_field: str = "rating",
) -> Evaluation:
    """Evaluate LensKit recommendations (`ItemListCollection`) against LensKit test item lists: an `Evaluation`
    with one run named "recs" (`.table()` for the system values, `.user_table("recs")` for the per-user ones).
    Context-dependent measures (novelty, aspects) need `recdiv.eval.evaluate.evaluate` with an `EvalContext`.
    """

    rankings, qrels = inputs_from_itemlists(recs, test, grade_field=grade_field)
    context = EvalContext(threshold=threshold, population=population)  # type: ignore[arg-type]
    return evaluate({"recs": rankings}, qrels, measures, context)
