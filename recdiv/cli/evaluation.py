"""What `recdiv eval` and `recdiv compare` share: the `-m` option and the statement of what was evaluated.

`-m/--measure` is repeatable and takes several values (`-m P@10 nDCG@10 -m AP`), before or after the positional
files: a value that is not a measure but names an existing file is a positional (`-m P@10 QRELS RUN` reads as
`QRELS RUN -m P@10`); `--` ends the measures. Cutoff sweeps expand (`P@5,10,20`, trec_eval's `P.5,10,20`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recdiv.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from recdiv.eval.context import EvalContext
    from recdiv.eval.conventions import Conventions
    from recdiv.eval.evaluate import Evaluation
    from recdiv.eval.io import EvalInputs, RunCoverage


class InOrder(argparse.Action):
    """Stores an argument (extending a list for -m) and records it, in command-line order, on `_in_order`: the
    values of a greedy `-m` may hold the files that follow it, and their place among the positionals matters."""

    def __call__(self, parser, namespace, values, option_string=None):
        order = getattr(namespace, "_in_order", None)
        if order is None:
            order = []
            namespace._in_order = order
        order.append((self.dest, values))
        if option_string is not None:  # -m: several values, repeatable
            values = [*(getattr(namespace, self.dest, None) or []), *values]
        setattr(namespace, self.dest, values)


def add_measure_option(p: argparse.ArgumentParser, default: str = "") -> None:
    p.add_argument("-m", "--measure", dest="measures", action=InOrder, nargs="+", metavar="MEASURE",
                   help="measure(s), repeatable, before or after the files: nDCG@10, 'nDCG(gain=exp)@10', sweeps "
                        "P@5,10,20; trec_eval (P.10, ndcg_cut_10, map, recip_rank), ir_measures (P(rel=4)@10, R@10) "
                        "and ranx (precision@10, mrr) spellings" + default)


def add_conventions_option(p: argparse.ArgumentParser) -> None:
    """`--conventions TOOL`: another tool's threshold, population and measure definitions (recdiv.eval.conventions)."""
    p.add_argument("--conventions", metavar="TOOL", default=None,
                   choices=("recdiv", "trec_eval", "ndeval", "ir_measures", "ranx", "lenskit"),
                   help="compute as TOOL does: trec_eval, ndeval, ir_measures, ranx or lenskit (relevance threshold, "
                        "users averaged over, measure definitions; docs/metrics.md); --rel-threshold, --population "
                        "and parameters written in a measure still win (default: recdiv)")


def add_input_options(p: argparse.ArgumentParser) -> None:
    """What `recdiv eval` and `recdiv compare` share about their files and their scale: the format of runs and
    qrels, a file for the per-user values, the memory budget and the backend."""
    p.add_argument("--input-format", choices=("trec", "csv", "tsv", "parquet", "arrow", "json"), default=None,
                   metavar="FORMAT",
                   help="format of the qrels and run files: trec, csv, tsv, parquet, arrow or json (default: by "
                        "extension: .parquet/.pq, .arrow/.feather/.ipc, .csv, .tsv, .json (ranx); anything else is "
                        "TREC text). Parquet also in ranx's (q_id, doc_id, score) and LensKit's item-list layouts")
    p.add_argument("--per-user-out", metavar="FILE", default=None,
                   help="write the per-user values (run, user, measure, value) to FILE: .parquet, .arrow, .csv, .tsv "
                        "or .json")
    p.add_argument("--memory", metavar="SIZE", default="1G",
                   help="memory budget, e.g. 512M, 4G (default 1G): runs larger than it fits are streamed in blocks "
                        "of users through temporary files (docs/scale.md); the numbers are the same")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="where blocks of users are evaluated: this process (default) or the Ray cluster at "
                        "RAY_ADDRESS (docs/scale.md)")
    p.add_argument("--workdir", metavar="DIR", default=None,
                   help="folder for the temporary partitions of a streamed evaluation (default: the system's "
                        "temporary folder; with --backend ray, storage every node sees)")


@dataclass
class Evaluated:
    """An evaluation for `recdiv eval` / `recdiv compare`, in memory or streamed, with what its statement needs."""

    command: str
    evaluation: Evaluation
    context: EvalContext
    coverages: list[RunCoverage]
    n_judged: int
    labels: Callable[[str], np.ndarray]  # user groups (--groups SPEC) of the evaluated users
    inputs: EvalInputs | None = None  # the inputs in memory (None when streamed)
    record: object = None  # the export record the relevance threshold came from (`recdiv data export`), if any
    conventions: Conventions | None = None  # the tool conventions chosen (--conventions)

    def state(self) -> None:
        """Print the `statement` on stderr."""
        for line in statement(self.command, self.context, self.coverages, self.n_judged, self.record,
                              self.conventions):
            print(line, file=sys.stderr)


def evaluated(command: str, args: argparse.Namespace, qrels, runs: list[str], measures: list,
              predictions: Sequence[str] = ()) -> Evaluated:
    """Evaluate `runs` against `qrels` on `measures` as the options say: in memory, or streamed in blocks of users
    (`recdiv.eval.stream`) when the runs are larger than --memory allows or --backend is ray."""
    from recdiv.eval.conventions import get as get_conventions
    from recdiv.eval.stream import streaming_needed

    chosen = get_conventions(getattr(args, "conventions", None))
    if chosen is not None:  # the tool's threshold and population where the options do not set them
        args.rel_threshold = chosen.threshold if args.rel_threshold is None else args.rel_threshold
        args.population = args.population or chosen.population
    predictions = list(getattr(args, "predictions", predictions) or [])
    simple = not args.subtopics and not predictions and not args.stochastic
    if args.backend == "ray" and not simple:
        raise ConfigError("--backend ray evaluates runs against qrels: not --subtopics, --predictions or --stochastic")
    if simple and streaming_needed(runs, args.memory, args.backend, args.input_format):
        done = _streamed(command, args, qrels, runs, measures)
    else:
        done = _in_memory(command, args, qrels, runs, measures, predictions)
    done.conventions = chosen
    return done


def _in_memory(command, args, qrels, runs, measures, predictions) -> Evaluated:
    from recdiv.eval.evaluate import evaluate
    from recdiv.eval.groups import labels_for
    from recdiv.eval.io import baseline_name, check_needs, coverage, load_inputs, max_grade_note, unpredicted_note

    inputs = load_inputs(qrels, runs, subtopics=args.subtopics, predictions=predictions, train=args.train,
                         aspects=args.aspects, previous=getattr(args, "previous", None), threshold=args.rel_threshold,
                         population=args.population, scale=args.rating_scale, input_format=args.input_format,
                         item_groups=args.item_groups, stochastic=args.stochastic)
    previous = check_needs(measures, inputs, {"aspects": args.aspects, "train": args.train,
                                              "previous": getattr(args, "previous", None)})
    names = list(inputs.runs)
    baseline = baseline_name(args.baseline, [*runs, *predictions], names)
    for note in (previous, max_grade_note(measures, inputs, args.subtopics or qrels),
                 unpredicted_note(measures, inputs, names[len(runs):])):
        if note:
            print(note, file=sys.stderr)
    evaluation = evaluate(inputs.runs, inputs.qrels, measures, inputs.context, baseline=baseline)
    judged = int((inputs.qrels.n_judged() > 0).sum())
    return Evaluated(command, evaluation, inputs.context, coverage(inputs), judged,
                     lambda spec: labels_for(spec, inputs.qrels, inputs.context), inputs, inputs.record)


def _streamed(command, args, qrels, runs, measures) -> Evaluated:
    from recdiv.eval.groups import group_labels
    from recdiv.eval.io import EvalInputs, max_grade_note, missing_input
    from recdiv.eval.stream import evaluate_stream

    for m in measures:
        for need in m.NEEDS:
            if getattr(args, need, None) is None:
                raise ConfigError(missing_input(m, need))
    from recdiv.data.export_record import recorded_threshold

    threshold, record = args.rel_threshold, None
    if threshold is None and (found := recorded_threshold(qrels)) is not None:
        threshold, record = found  # the threshold a `recdiv data export` folder records for its qrels
    s = evaluate_stream(qrels, runs, measures, train=args.train, aspects=args.aspects, item_groups=args.item_groups,
                        previous=getattr(args, "previous", None), threshold=threshold,
                        population=args.population, scale=args.rating_scale, baseline=args.baseline,
                        input_format=args.input_format, memory=args.memory, backend=args.backend,
                        workdir=args.workdir)
    if not any(c.evaluated for c in s.coverages):  # as `recdiv.eval.io.check_population` in memory
        where = f" (from {record})" if record is not None else ""
        raise ConfigError(f"{qrels}: no user has a relevant item at --rel-threshold {s.context.threshold:g}{where}: "
                          "a mean over 0 users is no number; a lower --rel-threshold counts more grades as relevant")
    note = max_grade_note(measures, EvalInputs(None, {}, s.context), qrels, r_max=s.r_max)  # type: ignore[arg-type]
    if note:
        print(note, file=sys.stderr)
    users = s.evaluation.users

    def labels(spec: str) -> np.ndarray:
        return group_labels(spec, users, train=s.context.train, user_index=s.users.lookup(users))

    return Evaluated(command, s.evaluation, s.context, s.coverages, s.n_judged, labels, record=record)


def write_per_user(args: argparse.Namespace, evaluation) -> None:
    """Write `--per-user-out` (checked before the work by `check_per_user_out`)."""
    if args.per_user_out:
        from recdiv.eval.user_values import write_user_values

        write_user_values(evaluation, args.per_user_out)


def check_per_user_out(args: argparse.Namespace) -> None:
    """The `--per-user-out` file's format, checked before any file is read (the file itself: the output guard)."""
    if args.per_user_out:
        from recdiv.eval.user_values import output_format

        output_format(args.per_user_out)


def sort_measure_args(args: argparse.Namespace, positionals: Sequence[str]) -> list[str]:
    """The measures of -m (sweeps expanded); values of -m that are not measures but existing files go, in
    command-line order with the other positional values, to `positionals` (names on `args`: the first takes one
    value, the last the rest). A value that is neither is an unknown measure (ConfigError with a did-you-mean)."""
    from recdiv.eval.catalog import expand_sweeps, parse_measure

    measures, files = [], []
    for dest, values in getattr(args, "_in_order", []):
        if values is None:
            continue
        if dest != "measures":
            files += [values] if isinstance(values, str) else list(values)
            continue
        for text in values:
            try:
                for one in expand_sweeps(text):
                    parse_measure(one)
            except ConfigError as e:
                if os.path.isfile(text):
                    files.append(text)
                elif os.sep in text or "." in text.rsplit("@", 1)[0].rsplit(")", 1)[-1]:
                    raise ConfigError(f"-m {text}: no such file, and not a measure ({e})") from None
                else:
                    raise
            else:
                measures.append(text)
    *singles, last = positionals
    for name in singles:
        setattr(args, name, files.pop(0) if files else None)
    setattr(args, last, files)
    return [one for text in measures for one in expand_sweeps(text)]


def _n(count: int, what: str) -> str:
    return f"{count:,} {what}{'' if count == 1 else 's'}"


def statement(command: str, context: EvalContext, coverages: Sequence[RunCoverage], n_judged: int,
              record: object = None, conventions: Conventions | None = None) -> list[str]:
    """Lines saying how the numbers were computed: the conventions chosen, the relevance threshold (and the export
    record it came from), the population averaged over and, per run, which users were evaluated, which have no list
    (score 0) and which were ignored; a warning line for a run none of whose users is evaluated (the numbers would
    be all zero)."""
    tau = f"{context.threshold:g}"
    n_eval = coverages[0].evaluated if coverages else 0
    which = "a relevant test item" if context.population == "relevant" else "a judgment"
    source = "--rel-threshold" if record is None else f"from {record}; --rel-threshold sets another"
    lines = [f"recdiv {command}: {conventions.describe()} (--conventions)"] if conventions is not None else []
    lines += [f"recdiv {command}: relevant ⇔ grade ≥ {tau} ({source}); mean over {_n(n_eval, 'user')}: those "
              f"with {which} (--population {context.population}); an evaluated user without a list scores 0"]
    trec = f"trec_eval -c -l {tau}" + ("" if float(context.threshold).is_integer() else " (integer grades only)")
    if context.population == "relevant":
        lines.append(f"recdiv {command}: {trec} averages over the {_n(n_judged, 'user')} with a judgment: "
                     "--population judged gives its values; without -l it counts every judged item as relevant")
    else:
        lines.append(f"recdiv {command}: {trec} gives the same values; without -l it counts every judged item as "
                     "relevant")
    for c in coverages:
        ignored = []
        if c.unjudged:
            ignored.append(f"{c.unjudged:,} not in the qrels")
        if c.outside:
            ignored.append(f"{c.outside:,} judged but not evaluated")
        lines.append(f"recdiv {command}: {c.run}: lists for {_n(c.listed, 'user')}: {c.matched:,} evaluated"
                     + (f", ignored {' and '.join(ignored)}" if ignored else "")
                     + f"; {_n(c.evaluated - c.matched, 'evaluated user')} without a list")
        if c.matched == 0:
            why = (f" (its user ids, e.g. {c.example!r}, are not the qrels' ids)" if c.unjudged == c.listed
                   and c.listed else "")
            lines.append(f"recdiv {command}: warning: {c.run}: none of its users is evaluated{why}: "
                         "every per-user value is that of an empty list (0 for accuracy measures)")
    return lines
