"""Evaluation inputs and outputs: qrels and run files (or LensKit item lists) over one shared vocabulary,
the `EvalContext` side files, and the run × measure summary that `recdiv eval` prints.

All ids read from files are strings. Users and items of every file (qrels, runs, `--train`, `--aspects`,
`--previous`) go into one user `Vocab` and one item `Vocab`, so that every array lines up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.lenskit_io import qrels_from_itemlists, rankings_from_itemlists
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv, read_trec_qrels, read_trec_run
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError
from recdiv.eval.catalog import parse_measures
from recdiv.eval.context import EvalContext
from recdiv.eval.measure import Measure


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


def _rankings(frame: pd.DataFrame, users: Vocab, items: Vocab, path) -> Rankings:
    try:
        return Rankings.from_frame(frame, users, items, order="score")
    except ValueError as e:  # duplicates are caught by the reader; this is a last guard
        raise DataError(str(e), path) from None


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
    """
    if population not in ("relevant", "judged"):
        raise ConfigError(f"population must be relevant or judged, got {population!r}")
    qf = read_trec_qrels(qrels_path)
    rfs = [read_trec_run(p) for p in run_paths]
    tf = read_interactions_tsv(train) if train is not None else None
    af = read_item_aspects_tsv(aspects) if aspects is not None else None
    pf = read_trec_run(previous) if previous is not None else None
    user_cols = [qf["user"], *(f["user"] for f in rfs)]
    item_cols = [qf["item"], *(f["item"] for f in rfs)]
    for f in (tf, pf):
        if f is not None:
            user_cols.append(f["user"])
            item_cols.append(f["item"])
    if af is not None:
        item_cols.append(af["item"])
    users = Vocab.from_values(*user_cols)
    items = Vocab.from_values(*item_cols)
    qrels = Qrels.from_frame(qf, users, items)
    runs = {name: _rankings(f, users, items, p) for name, f, p in zip(run_names(run_paths), rfs, run_paths)}
    context = EvalContext(threshold=threshold, population=population)  # type: ignore[arg-type]
    if tf is not None:
        context.train = Interactions.from_frame(tf, users=users, items=items)
    if af is not None:

        context.aspects = AspectSpace.from_frame(af, items)
    if pf is not None:
        context.previous = _rankings(pf, users, items, previous)
    return EvalInputs(qrels, runs, context)


# summaries -------------------------------------------------------------------------------------------
def summarize(
    runs: dict[str, Rankings] | Rankings,
    qrels: Qrels,
    measures: Iterable[str | Measure],
    context: EvalContext | None = None,
    *,
    per_user: bool = False,
) -> dict:
    """{"runs": {run: {measure: value}}, "per_user": {run: {measure: {user: value}}}} (the JSON of `recdiv eval`).

    Run values come from `measure.value` (the mean over the evaluated users, or the system-level value of
    measures that define one: FCP, HLU_breese, aggregate diversity, ...). `per_user` (only if asked) lists the
    per-user measures; users are external ids, in dense-index order; NaN marks a skipped user (e.g. Spearman
    with fewer than two rated items).
    """
    context = context or EvalContext()
    if isinstance(runs, Rankings):
        runs = {"run": runs}
    ms = parse_measures(measures)
    out: dict = {"runs": {}}
    if per_user:
        out["per_user"] = {}
    for name, run in runs.items():
        out["runs"][name] = {str(m): float(m.value(run, qrels, context)) for m in ms}
        if per_user:
            users = None
            table = {}
            for m in ms:
                if m.SYSTEM_LEVEL:
                    continue
                values = m.per_user(run, qrels, context)
                if users is None:
                    users = qrels.users.id_of(context.view(run, qrels).users)
                table[str(m)] = {str(u): float(v) for u, v in zip(users, values)}
            out["per_user"][name] = table
    return out


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

    return rankings_from_itemlists(recs, users, items), qrels_from_itemlists(test, users, items, field=grade_field)


def evaluate_itemlists(
    recs,
    test,
    measures: Iterable[str | Measure],
    *,
    threshold: float = 4.0,
    population: str = "relevant",
    grade_field: str = "rating",
    per_user: bool = False,
) -> pd.Series | pd.DataFrame:
    """Evaluate LensKit recommendations (`ItemListCollection`) against LensKit test item lists.

    Returns a Series measure → system value, or with `per_user=True` a DataFrame (index: user id, one column
    per per-user measure; NaN = skipped user). Context-dependent measures (novelty, aspects) need
    `recdiv.eval.evaluate` with an `EvalContext` instead.
    """
    rankings, qrels = inputs_from_itemlists(recs, test, grade_field=grade_field)
    context = EvalContext(threshold=threshold, population=population)  # type: ignore[arg-type]
    ms = parse_measures(measures)
    if not per_user:
        return pd.Series({str(m): m.value(rankings, qrels, context) for m in ms}, name="value")
    users = qrels.users.id_of(context.view(rankings, qrels).users)
    cols = {str(m): m.per_user(rankings, qrels, context) for m in ms if not m.SYSTEM_LEVEL}
    return pd.DataFrame(cols, index=pd.Index(users, name="user"))
