"""Evaluation from files and LensKit item lists: qrels and run files (or item lists) over one shared vocabulary,
the `EvalContext` side files, and `evaluate_files`, the file counterpart of `recdiv.eval.evaluate.evaluate`.

All ids read from files are strings. Users and items of every file (qrels, runs, `--train`, `--aspects`,
`--previous`) go into one user `Vocab` and one item `Vocab`, so that every array lines up.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from recdiv.data._read import Table, iter_tables, parse_table
from recdiv.data.formats import read_qrels, read_run
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.tables import aspect_matrix, interactions_of, qrels_of, rankings_of, shared_vocab
from recdiv.data.textio import (
    check_duplicates,
    parse_interactions_tsv,
    parse_item_aspects_tsv,
)
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError
from recdiv.eval.catalog import parse_measures
from recdiv.eval.context import EvalContext, RunView
from recdiv.eval.conventions import Conventions, for_subtopics
from recdiv.eval.conventions import get as get_conventions
from recdiv.eval.evaluate import Evaluation, evaluate
from recdiv.eval.measure import Measure

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class EvalInputs:
    """What an evaluation reads: qrels, named runs and the context, over shared vocabularies; `record`: the export
    record the relevance threshold came from (`recdiv.data.export_record.recorded_threshold`), if it did."""

    qrels: Qrels
    runs: dict[str, Rankings]
    context: EvalContext
    record: Path | None = None
    #: the tool conventions chosen (`recdiv.eval.conventions`), None for recdiv's own
    conventions: Conventions | None = None


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """Run names: file stems, or the paths as given where two stems collide. A path given twice is an error (its
    second copy would silently replace the first)."""
    stems = [Path(p).stem for p in paths]
    names = [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths)]
    if len(set(names)) < len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ConfigError(f"{twice}: the same run is given twice; give each run once")
    return names


RunSources = Sequence[str | Path] | Mapping[str, object]


def named_runs(runs: RunSources) -> dict[str, object]:
    """{name: source} of runs given as files (named by `run_names`) or as {name: file or table in memory}."""
    if isinstance(runs, Mapping):
        return dict(runs)
    runs = list(runs)
    return dict(zip(run_names(runs), runs))


def parse_rating_scale(scale: str | Sequence[float] | None, what: str = "--rating-scale") -> tuple[float, float] | None:
    """(min, max) from ``"MIN:MAX"`` or a pair; 0 ≤ MIN < MAX (negative qrels labels mean pooled but unjudged)."""
    if scale is None:
        return None
    try:
        lo, hi = (float(x) for x in (scale.split(":") if isinstance(scale, str) else scale))
    except (ValueError, TypeError):
        raise ConfigError(f"{what}: expected MIN:MAX (e.g. 1:5), got {scale!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo < hi):
        raise ConfigError(f"{what}: expected finite 0 <= MIN < MAX, got {scale!r} (grades below 0 are "
                          "trec_eval's pooled-but-unjudged labels, not ratings: shift the ratings)")
    return lo, hi


PREDICTIONS_LAYOUT = [("user", "id"), ("item", "id"), ("prediction", "float")]


def parse_predictions(path: str | Path) -> Table:
    """Rating predictions (user item prediction) -> Table (user, item, score: the prediction); a repeated
    (user, item) is an error naming file and line."""
    table = parse_table(path, PREDICTIONS_LAYOUT, sep=None, comments=True,
                        what="predictions file (user item prediction)")
    check_duplicates(table, ["user", "item"], "prediction")
    table.columns["score"] = table.columns.pop("prediction")
    return table


def iter_predictions(path: str | Path, rows: int) -> Iterator[Table]:
    """Rating predictions (as `parse_predictions`) in blocks of about `rows` lines holding whole users, for a
    streamed evaluation (`recdiv.eval.stream`)."""
    from recdiv.data.formats import whole_users

    def blocks() -> Iterator[Table]:
        for table in iter_tables(path, PREDICTIONS_LAYOUT, block=max(rows * 40, 256), sep=None, comments=True,
                                 what="predictions file (user item prediction)"):
            table.columns["score"] = table.columns.pop("prediction")
            yield table

    return whole_users(blocks(), lambda t: check_duplicates(t, ["user", "item"], "prediction") or t)


def predicted_counts(run: Rankings, qrels: Qrels, context: EvalContext) -> tuple[int, int]:
    """(test ratings of the users evaluated on `run`, how many of them `run` predicts): what `unpredicted_note`
    reports."""
    from recdiv.eval.metrics.rating import prediction_errors

    view = RunView.of(context, run, qrels)
    return int(qrels.n_judged()[view.users].sum()), int(prediction_errors(view)[1].sum())


def unpredicted_note(measures: Iterable[Measure], inputs: EvalInputs | None, names: Iterable[str],
                     counts: Mapping[str, tuple[int, int]] | None = None) -> str | None:
    """How many test ratings of the evaluated users the prediction runs `names` leave without a prediction, for
    RMSE / MAE (which skip them), or None. `counts`: {name: `predicted_counts`} when the inputs are not in memory
    (a streamed evaluation)."""
    users = [str(m) for m in measures if m.FAMILY == "rating"]
    if not users:
        return None
    parts = []
    for name in names:
        rated, have = (counts[name] if counts is not None
                       else predicted_counts(inputs.runs[name], inputs.qrels, inputs.context))  # type: ignore[union-attr]
        if have < rated:
            parts.append(f"{name}: {rated - have} of {rated}")
    if not parts:
        return None
    verb = "skips" if len(users) == 1 else "skip"
    return (f"recdiv: note: {', '.join(users)} {verb} the test ratings without a prediction ({'; '.join(parts)} "
            "evaluated test ratings have none)")


def check_scale(table: Table, column: str, scale: tuple[float, float] | None) -> None:
    """DataError (file:line) for the first judged grade (≥ 0) outside the declared scale; negative labels pass."""
    if scale is None:
        return
    import numpy as np

    from recdiv.data.qrels import is_judged

    g = np.asarray(table[column], dtype=np.float64)
    bad = is_judged(g) & ((g < scale[0]) | (g > scale[1]))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise table.error(f"grade {g[j]:g} is outside the rating scale {scale[0]:g}:{scale[1]:g} (--rating-scale)", j)


def max_grade_note(measures: Iterable[Measure], inputs: EvalInputs, qrels_path: str | Path,
                   r_max: tuple[float, str] | None = None) -> str | None:
    """One line saying where r_max comes from, for measures that use it when no scale was declared; else None.
    `r_max`: (value, source) when the qrels are not in memory (a streamed evaluation)."""
    from recdiv.eval.context import max_grade

    users = [str(m) for m in measures if m.uses_max_grade()]
    if not users or inputs.context.scale is not None:
        return None
    value, source = r_max or max_grade(inputs.context, inputs.qrels)
    verb = "uses" if len(users) == 1 else "use"
    return (f"recdiv: note: {', '.join(users)} {verb} the maximum grade r_max = {value:g}, {source} ({qrels_path}); "
            "declare the rating scale with --rating-scale MIN:MAX (gdeval fixes 4)")


def load_inputs(
    qrels_path,
    run_paths: RunSources,
    *,
    subtopics: str | Path | None = None,
    predictions: Sequence[str | Path] = (),
    train: str | Path | None = None,
    aspects: str | Path | None = None,
    previous=None,
    threshold: float | None = None,
    population: str | None = None,
    scale: str | Sequence[float] | None = None,
    input_format: str | None = None,
    item_groups: str | Path | None = None,
    stochastic: Sequence[str | Path] = (),
    conventions: str | Conventions | None = None,
) -> EvalInputs:
    """Read qrels, runs and the optional context files into one vocabulary.

    Qrels, runs and `previous` come through `recdiv.data.formats`: TREC text, CSV/TSV, Parquet or Arrow files
    (`input_format`, else by extension) or tables in memory (pandas/polars DataFrames, pyarrow Tables);
    `run_paths` is a list of files (named by their stems) or {name: file or table}.

    Runs are ordered by score descending, ties by item id in descending string order (METRICS.md §0.5,
    trec_eval's rule); the rank column is ignored. `train` is an interactions TSV (user item value [ts]),
    `aspects` an item-aspect TSV (item aspect [weight]), `previous` a TREC run (the previous recommendations
    for ESSD-style measures). `threshold` τ: relevant ⇔ grade ≥ τ (default 4, and 1 with `subtopics`: TREC
    judgments). `scale` (``"MIN:MAX"`` or a pair) declares the rating scale: its maximum is the
    r_max of ERR, ERR-IA, αβ-nDCG and graded gains (default: the largest test grade), and a judged grade
    outside it is an error. Malformed lines raise DataError naming file and line.

    `predictions`: rating-prediction files (user item prediction), evaluated as runs whose scores are the
    predictions (RMSE, MAE, and the rank-effectiveness measures); names are file stems like the runs'.

    `subtopics` (instead of `qrels_path`, which is then None): TREC subtopic qrels (topic subtopic doc judgment,
    ndeval's format); the topic-level qrels and the aspects become per-topic virtual items
    (`recdiv.eval.subtopics`), for the intent-aware and unified measures; `train`, `aspects` and `previous`
    cannot be combined with it.

    Files are held as compact arrays from the parser on: ids dictionary-encoded (a few bytes per line, each
    distinct id looked up once), numbers as float64 — never a Python object per line.
    """
    chosen = get_conventions(conventions)
    if population is None:
        population = chosen.population if chosen is not None else "relevant"
    if population not in ("relevant", "judged"):
        raise ConfigError(f"population must be relevant or judged, got {population!r}")
    scale = parse_rating_scale(scale)
    recorded = None
    if threshold is None and subtopics is None and qrels_path is not None:
        from recdiv.data.export_record import recorded_threshold

        recorded = recorded_threshold(qrels_path)
    if threshold is None:
        threshold = (chosen.threshold if chosen is not None else 1.0 if subtopics is not None
                     else recorded[0] if recorded is not None else 4.0)
    if subtopics is not None:
        if qrels_path is not None:
            raise ConfigError("give either a qrels file or --subtopics FILE, not both")
        for name, value in (("--train", train), ("--aspects", aspects), ("--previous", previous),
                            ("--predictions", predictions or None), ("--item-groups", item_groups),
                            ("--stochastic", stochastic or None)):
            if value is not None:
                raise ConfigError(f"{name} cannot be combined with --subtopics (its items are per-topic subtopic "
                                  "judgments, which replace the aspects)")
        inputs = _load_subtopic_inputs(subtopics, named_runs(run_paths), threshold, population, scale, input_format)
        inputs.conventions = chosen
        return inputs
    if qrels_path is None:
        raise ConfigError("a qrels file (or --subtopics FILE) is needed")
    qt = read_qrels(qrels_path, format=input_format)
    check_scale(qt, "grade", scale)
    sources = named_runs(run_paths)
    rts = [read_run(p, format=input_format) for p in sources.values()] + [parse_predictions(p) for p in predictions]
    names = ([*sources, *run_names(predictions)] if isinstance(run_paths, Mapping)
             else run_names([*run_paths, *predictions]))
    sampled = {name: [read_run(p, format=input_format) for p in files]
               for name, files in stochastic_runs(stochastic, names)}
    tt = parse_interactions_tsv(train) if train is not None else None
    at = parse_item_aspects_tsv(aspects) if aspects is not None else None
    gt = parse_item_aspects_tsv(item_groups) if item_groups is not None else None
    pt = read_run(previous, format=input_format) if previous is not None else None
    tables = [t for t in (qt, *rts, *(t for ts in sampled.values() for t in ts), tt, pt) if t is not None]
    users = shared_vocab(*(t["user"] for t in tables))
    items = shared_vocab(*(t["item"] for t in tables), *(g["item"] for g in (at, gt) if g is not None))
    del tables
    qrels = qrels_of(qt, users, items)
    del qt
    runs = {}
    for name in names:  # each run's table is freed once its rankings are built
        runs[name] = rankings_of(rts.pop(0), users, items)
    for name, tables in sampled.items():
        from recdiv.data.samples import RankingSamples

        runs[name] = RankingSamples([rankings_of(t, users, items) for t in tables])
    context = context_of(users, items, threshold=threshold, population=population, scale=scale,
                         tables=(tt, at, gt, pt))
    check_population(qrels, threshold, population, qrels_path, recorded is not None)
    return EvalInputs(qrels, runs, context, None if recorded is None else recorded[1], chosen)


def context_of(users: Vocab, items: Vocab, *, threshold: float, population: str = "relevant",
               scale: tuple[float, float] | None = None, train=None, aspects=None, item_groups=None, previous=None,
               input_format: str | None = None, tables=None) -> EvalContext:
    """The evaluation context over the given vocabularies: threshold, population, rating scale and the context files
    (`train` interactions TSV, `aspects` and `item_groups` item-aspect TSV, `previous` run), or their parsed
    `tables` (train, aspects, item groups, previous; None where absent)."""
    if tables is None:
        tables = (parse_interactions_tsv(train) if train is not None else None,
                  parse_item_aspects_tsv(aspects) if aspects is not None else None,
                  parse_item_aspects_tsv(item_groups) if item_groups is not None else None,
                  read_run(previous, format=input_format) if previous is not None else None)
    tt, at, gt, pt = tables
    context = EvalContext(threshold=threshold, population=population, scale=scale)  # type: ignore[arg-type]
    if tt is not None:
        context.train = interactions_of(tt, users, items)
    if at is not None:
        from recdiv.aspects.space import AspectSpace

        context.aspects = AspectSpace(items, *aspect_matrix(at, items))
    if gt is not None:
        from recdiv.aspects.space import AspectSpace

        context.item_groups = AspectSpace(items, *aspect_matrix(gt, items), name="item groups")
    if pt is not None:
        context.previous = rankings_of(pt, users, items)
    return context


def check_population(qrels: Qrels, threshold: float, population: str, path, recorded: bool = False) -> None:
    """ConfigError when no user is evaluated — a mean over 0 users is no number — saying which threshold would
    count the qrels' grades as relevant."""
    if len(qrels.population(threshold, population)):
        return
    grades = qrels.csr.data
    if not len(grades):
        raise ConfigError(f"{path}: no judgment: nothing to evaluate")
    hi = float(grades.max())
    where = " (from the export's record)" if recorded else ""
    hint = (f"--rel-threshold {hi:g} counts the highest grade as relevant" if hi > 0
            else "no grade is positive, so no item is relevant at any threshold")
    raise ConfigError(f"{path}: no user has a relevant item at --rel-threshold {threshold:g}{where} (grades "
                      f"{float(grades.min()):g} to {hi:g}): a mean over 0 users is no number; {hint}")


def missing_input(measure, need: str) -> str:
    """The error for a measure whose context lacks `need`, naming an option the commands have: the item similarity
    of dist=latent-cosine comes from item factors, which only experiments and Python give."""
    if need == "similarity":
        return (f"{measure} compares items by latent factors, which the command line does not read: use "
                "dist=cosine or dist=jaccard with --aspects FILE, dist=pearson with --train FILE, or an experiment "
                "([metrics] similarity = \"latent-cosine\") or Python (EvalContext(similarity=LatentCosine(factors)))")
    return f"{measure} needs `{need}` in the evaluation context: pass --{need.replace('_', '-')} FILE"


def check_previous(measures: Iterable[Measure], previous: Rankings | None, users: np.ndarray, path,
                   who: str = "evaluated users") -> str | None:
    """ConfigError when the base lists of RBO, LIP or ESSD (`--previous PATH`) hold a list for none of `users`
    (dense indices): every value would be a plausible 0 (a user without a base list scores 0). A note (to print)
    when some of them have none."""
    uses = [str(m) for m in measures if "previous" in m.NEEDS]
    if previous is None or not uses or not len(users):
        return None
    listed = previous.for_users(users).lengths > 0
    what = ", ".join(uses)
    if not listed.any():
        theirs = (f"its users, e.g. {str(previous.user_vocab.id_of(previous.users[:1])[0])!r}, are not the qrels'"
                  if len(previous) else "it holds no list")
        raise ConfigError(f"--previous {path}: no base list for any of the {len(users)} {who} ({theirs}; the "
                          f"base run of another split or dataset?): {what} would be 0 for every user")
    missing = int((~listed).sum())
    note = f"recdiv: note: --previous {path}: no base list for {missing} of the {len(users)} {who}: they score 0 on "
    return note + what if missing else None


def check_needs(measures: Iterable[Measure], inputs: EvalInputs, files: dict[str, str | Path | None]) -> str | None:
    """ConfigError, before any measure is computed, for a measure whose context is missing or describes nothing it
    evaluates — the numbers would be plausible and meaningless: an aspect file (`files["aspects"]`) that gives no
    aspect to any item of a run, or to any relevant judged item (swapped columns, another dataset's ids); a
    training file that holds no item of a run (popularity, novelty) or no evaluated user (profiles); base lists
    (`files["previous"]`) for none of the evaluated users (`check_previous`, whose note is returned)."""
    measures = list(measures)
    ctx = inputs.context
    for m in measures:
        for need in m.NEEDS:
            if getattr(ctx, need, None) is None:
                raise ConfigError(missing_input(m, need))

    def users_of(need: str) -> str:
        return ", ".join(str(m) for m in measures if need in m.NEEDS)

    if files.get("aspects") and ctx.aspects is not None and any("aspects" in m.NEEDS for m in measures):
        described = ctx.aspects.has_aspects
        for name, run in inputs.runs.items():
            listed = run.items[run.items >= 0]
            if len(listed) and not described[listed].any():
                raise ConfigError(f"{users_of('aspects')}: no item of run {name} has an aspect in {files['aspects']} "
                                  "(its items, e.g. {!r}, are not the aspect file's; swapped columns or another "
                                  "dataset?)".format(str(run.item_vocab.id_of(listed[:1])[0])))
        rel = inputs.qrels.csr
        relevant = np.unique(rel.indices[rel.data >= ctx.threshold])
        if len(relevant) and not described[relevant].any():
            raise ConfigError(f"{users_of('aspects')}: no relevant judged item has an aspect in {files['aspects']}: "
                              "every ideal list is empty")
    if files.get("train") and ctx.train is not None and any("train" in m.NEEDS for m in measures):
        known = ctx.train.item_counts() > 0
        for name, run in inputs.runs.items():
            listed = run.items[run.items >= 0]
            if len(listed) and not known[listed].any():
                raise ConfigError(f"{users_of('train')}: no item of run {name} is in the training file "
                                  f"{files['train']}: popularity and novelty would be those of unseen items")
    if files.get("previous"):
        return check_previous(measures, ctx.previous, inputs.qrels.population(ctx.threshold, ctx.population),
                              files["previous"])
    return None


def stochastic_runs(directories: Sequence[str | Path], names: Iterable[str]) -> list[tuple[str, list[Path]]]:
    """(name, sample files) of every stochastic-run directory: its regular files in name order (hidden files
    skipped), named after the directory; an error when a directory is missing or empty, or its name is one of
    `names` (the other runs') or another directory's."""
    taken = set(names)
    out = []
    for d in directories:
        d = Path(d)
        if not d.is_dir():
            raise ConfigError(f"--stochastic {d}: not a directory (a stochastic run is a directory of sampled run "
                              "files, one per sample)")
        files = sorted(p for p in d.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise ConfigError(f"--stochastic {d}: the directory holds no run file")
        name = d.resolve().name
        if name in taken:
            raise ConfigError(f"--stochastic {d}: the run name {name!r} is taken; rename the directory")
        taken.add(name)
        out.append((name, files))
    return out


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
    evaluated = len(qrels.population(ctx.threshold, ctx.population))
    out = []
    for name, run in inputs.runs.items():
        listed, matched, unjudged, outside, first = coverage_counts(run, qrels, ctx).tolist()
        example = str(qrels.users.id_of(first)) if first >= 0 else None
        out.append(RunCoverage(name, listed, evaluated, matched, unjudged, outside, example))
    return out


def coverage_counts(run: Rankings, qrels: Qrels, context: EvalContext) -> np.ndarray:
    """[listed, matched, unjudged, outside, the first unjudged listed user (dense index) or -1] of a run (see
    `RunCoverage`): counts, so a streamed evaluation adds them up over its blocks of users."""
    n = len(qrels.users)
    judged = qrels.n_judged() > 0
    in_pop = np.zeros(n, dtype=bool)
    in_pop[qrels.population(context.threshold, context.population)] = True
    listed = np.zeros(n, dtype=bool)
    for r in getattr(run, "samples", (run,)):  # a stochastic run lists the users any sample lists
        listed[r.users[r.lengths > 0]] = True
    unjudged = listed & ~judged
    first = np.flatnonzero(unjudged)
    return np.array([listed.sum(), (listed & in_pop).sum(), unjudged.sum(), (listed & judged & ~in_pop).sum(),
                     first[0] if len(first) else -1], dtype=np.int64)


def _load_subtopic_inputs(path, sources, threshold, population, scale, input_format) -> EvalInputs:
    from recdiv.eval.subtopics import read_subtopic_qrels, run_frame, subtopic_qrels, subtopic_space, virtual_ids

    sf = read_subtopic_qrels(path)
    check_scale(sf, "judgment", scale)
    sf = sf.frame()
    rfs = [run_frame(read_run(p, format=input_format).frame()) for p in sources.values()]
    users = Vocab.from_values(sf["topic"], *(f["user"] for f in rfs))
    items = Vocab.from_values(virtual_ids(sf["topic"], sf["doc"]), *(f["item"] for f in rfs))
    runs = {name: Rankings.from_frame(f, users, items, order="score") for name, f in zip(sources, rfs)}
    context = EvalContext(threshold=threshold, population=population, scale=scale)  # type: ignore[arg-type]
    context.aspects = subtopic_space(sf, items, threshold)
    return EvalInputs(subtopic_qrels(sf, users, items), runs, context)


def measure_conventions(conventions: str | Conventions | None, subtopics: bool) -> Conventions | None:
    """The conventions measures are parsed with: the chosen set, and with subtopic qrels (which carry no user
    profile) uniform intent weights where neither the set nor the measure says otherwise."""
    chosen = get_conventions(conventions)
    return for_subtopics(chosen) if subtopics else chosen


def baseline_name(baseline: str | None, paths: Sequence[str | Path], names: Sequence[str]) -> str | None:
    """The run name `baseline` refers to (a run name, or one of the run paths), or None."""
    if baseline is None:
        return None
    if baseline in names:
        return baseline
    for path, name in zip(paths, names):
        if baseline == str(path) or Path(baseline).resolve() == Path(path).resolve():
            return name
    raise ConfigError(f"--baseline {baseline!r} is not one of the runs: {', '.join(names)}")


def evaluate_files(
    qrels_path,
    run_paths: RunSources,
    measures: Iterable[str | Measure] | str,
    *,
    subtopics: str | Path | None = None,
    predictions: Sequence[str | Path] = (),
    train: str | Path | None = None,
    aspects: str | Path | None = None,
    previous=None,
    threshold: float | None = None,
    population: str | None = None,
    scale: str | Sequence[float] | None = None,
    baseline: str | None = None,
    input_format: str | None = None,
    item_groups: str | Path | None = None,
    stochastic: Sequence[str | Path] = (),
    conventions: str | Conventions | None = None,
) -> Evaluation:
    """Evaluate runs against qrels (and the optional inputs, as `load_inputs`): files in any format of
    `recdiv.data.formats` or tables in memory; the file counterpart of `recdiv.eval.evaluate.evaluate`, returning
    the same `Evaluation`. Runs are named by their file stems (`run_names`) or by the keys of a {name: source}
    mapping; `baseline` (a run name or path) is the run pairwise measures compare the others with. `conventions`
    (trec_eval, ndeval, ir_measures, ranx, lenskit; `recdiv.eval.conventions`) gives that tool's threshold,
    population and measure definitions. Measures are parsed before any file is read."""
    asked = [measures] if isinstance(measures, str) else list(measures)
    ms = parse_measures(asked, measure_conventions(conventions, subtopics is not None))
    spellings = {str(plain): str(m) for plain, m in zip(parse_measures(asked), ms) if str(plain) != str(m)}
    inputs = load_inputs(qrels_path, run_paths, subtopics=subtopics, predictions=predictions, train=train,
                         aspects=aspects, previous=previous, threshold=threshold, population=population, scale=scale,
                         input_format=input_format, item_groups=item_groups, stochastic=stochastic,
                         conventions=conventions)
    paths = list(inputs.runs) if isinstance(run_paths, Mapping) else [*run_paths, *predictions]
    base = baseline_name(baseline, paths, list(inputs.runs))
    evaluation = evaluate(inputs.runs, inputs.qrels, ms, inputs.context, baseline=base)
    return replace(evaluation, spellings=spellings) if spellings else evaluation


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
