"""An evaluation of files as `recdiv eval` and `recdiv compare` run it: in memory, or streamed in blocks of users
(`recdiv.eval.stream`) when the runs are larger than the memory budget allows; and the statement of how the numbers
were computed (threshold, population, which users each run covers)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from recdiv.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from recdiv.eval.context import EvalContext
    from recdiv.eval.conventions import Conventions
    from recdiv.eval.evaluate import Evaluation
    from recdiv.eval.io import EvalInputs, RunCoverage


@dataclass(frozen=True)
class EvalOptions:
    """The inputs besides qrels and runs, and how to evaluate them (the options `recdiv eval` and `recdiv compare`
    share; each field is the option of the same name). `rel_threshold` and `population` None: the conventions'
    (`conventions`, a tool name), else recdiv's (4, or 1 with `subtopics`; relevant)."""

    subtopics: str | None = None
    predictions: Sequence[str] = ()
    stochastic: Sequence[str] = ()
    train: str | None = None
    aspects: str | None = None
    previous: str | None = None
    item_groups: str | None = None
    rel_threshold: float | None = None
    population: str | None = None
    rating_scale: str | None = None
    input_format: str | None = None
    baseline: str | None = None
    conventions: str | None = None
    memory: str = "1G"
    backend: str = "local"
    workdir: str | None = None

    @classmethod
    def of(cls, namespace: object) -> EvalOptions:
        """The options an argparse namespace holds (attributes missing from it keep their defaults)."""
        return cls(**{n: getattr(namespace, n) for n in cls.__dataclass_fields__
                      if getattr(namespace, n, None) is not None})


@dataclass
class Evaluated:
    """An evaluation, in memory or streamed, with what its statement needs."""

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


def evaluate_inputs(command: str, qrels, runs: list[str], measures: list,
                    options: EvalOptions = EvalOptions()) -> Evaluated:
    """Evaluate `runs` against `qrels` on `measures` as `options` say: in memory, or streamed in blocks of users
    (`recdiv.eval.stream`) when the runs are larger than `options.memory` allows or the backend is ray. `command`
    names the statement's lines (`recdiv COMMAND: ...`)."""
    from recdiv.eval.conventions import get as get_conventions
    from recdiv.eval.stream import streaming_needed

    chosen = get_conventions(options.conventions)
    if chosen is not None:  # the tool's threshold and population where the options do not set them
        options = replace(options, rel_threshold=chosen.threshold if options.rel_threshold is None
                          else options.rel_threshold, population=options.population or chosen.population)
    if options.backend == "ray" and (options.subtopics or options.predictions or options.stochastic):
        raise ConfigError("--backend ray evaluates runs against qrels: not --subtopics, --predictions or --stochastic")
    if not options.stochastic and streaming_needed([*runs, *options.predictions], options.memory, options.backend,
                                                   options.input_format):
        if options.subtopics:
            raise ConfigError(in_memory_only(runs, options.memory, options.input_format))
        done = _streamed(command, options, qrels, runs, measures)
    else:
        done = _in_memory(command, options, qrels, runs, measures)
    done.conventions = chosen
    return done


def _in_memory(command: str, o: EvalOptions, qrels, runs, measures) -> Evaluated:
    from recdiv.eval.evaluate import evaluate
    from recdiv.eval.groups import labels_for
    from recdiv.eval.io import baseline_name, check_needs, coverage, load_inputs, max_grade_note, unpredicted_note

    predictions = list(o.predictions)
    inputs = load_inputs(qrels, runs, subtopics=o.subtopics, predictions=predictions, train=o.train,
                         aspects=o.aspects, previous=o.previous, threshold=o.rel_threshold, population=o.population,
                         scale=o.rating_scale, input_format=o.input_format, item_groups=o.item_groups,
                         stochastic=list(o.stochastic))
    previous = check_needs(measures, inputs, {"aspects": o.aspects, "train": o.train, "previous": o.previous})
    names = list(inputs.runs)
    baseline = baseline_name(o.baseline, [*runs, *predictions], names)
    for note in (previous, max_grade_note(measures, inputs, o.subtopics or qrels),
                 unpredicted_note(measures, inputs, names[len(runs):])):
        if note:
            print(note, file=sys.stderr)
    evaluation = evaluate(inputs.runs, inputs.qrels, measures, inputs.context, baseline=baseline)
    judged = int((inputs.qrels.n_judged() > 0).sum())
    return Evaluated(command, evaluation, inputs.context, coverage(inputs), judged,
                     lambda spec: labels_for(spec, inputs.qrels, inputs.context), inputs, inputs.record)


def _streamed(command: str, o: EvalOptions, qrels, runs, measures) -> Evaluated:
    from recdiv.data.export_record import recorded_threshold
    from recdiv.eval.groups import group_labels
    from recdiv.eval.io import EvalInputs, max_grade_note, missing_input, unpredicted_note
    from recdiv.eval.stream import evaluate_stream

    for m in measures:
        for need in m.NEEDS:
            if getattr(o, need, None) is None:
                raise ConfigError(missing_input(m, need))
    threshold, record = o.rel_threshold, None
    if threshold is None and (found := recorded_threshold(qrels)) is not None:
        threshold, record = found  # the threshold a `recdiv data export` folder records for its qrels
    s = evaluate_stream(qrels, runs, measures, train=o.train, aspects=o.aspects, item_groups=o.item_groups,
                        previous=o.previous, predictions=o.predictions, threshold=threshold, population=o.population,
                        scale=o.rating_scale, baseline=o.baseline, input_format=o.input_format, memory=o.memory,
                        backend=o.backend, workdir=o.workdir)
    if not any(c.evaluated for c in s.coverages):  # as `recdiv.eval.io.check_population` in memory
        where = f" (from {record})" if record is not None else ""
        raise ConfigError(f"{qrels}: no user has a relevant item at --rel-threshold {s.context.threshold:g}{where}: "
                          "a mean over 0 users is no number; a lower --rel-threshold counts more grades as relevant")
    for note in (max_grade_note(measures, EvalInputs(None, {}, s.context), qrels, r_max=s.r_max),  # type: ignore[arg-type]
                 unpredicted_note(measures, None, s.predicted, s.predicted)):
        if note:
            print(note, file=sys.stderr)
    users = s.evaluation.users

    def labels(spec: str) -> np.ndarray:
        return group_labels(spec, users, train=s.context.train, user_index=s.users.lookup(users))

    return Evaluated(command, s.evaluation, s.context, s.coverages, s.n_judged, labels, record=record)


def in_memory_only(runs: list[str], memory: str, input_format: str | None = None) -> str:
    """The error for subtopic runs larger than the budget: they are evaluated in memory only (docs/scale.md says
    why), and the budget that would hold them."""
    from recdiv.eval.ingest import BASE_MEMORY, IN_MEMORY_BYTES_PER_LINE
    from recdiv.eval.stream import run_lines

    lines = run_lines(runs, input_format)
    need = -(-(BASE_MEMORY + lines * IN_MEMORY_BYTES_PER_LINE) // (1 << 30))
    return (f"--subtopics: the runs hold about {lines:,} lines, more than --memory {memory} holds at once, and runs "
            "judged by subtopics are evaluated in memory only (each topic's documents are items of their own, so "
            f"the ids grow with the runs): give --memory {need}G or more, or evaluate fewer runs at a time")


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
