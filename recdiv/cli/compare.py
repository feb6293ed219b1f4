"""`recdiv compare`: paired significance tests between TREC runs on one or more measures.

    recdiv compare QRELS RUN... -m MEASURE [MEASURE ...] [-m ...]
        [--test t|wilcoxon|sign|permutation|bootstrap|tukey|tukey-anova] [--correction none|bonferroni|holm|bh]
        [--baseline RUN] [--format table|markdown|latex|json] [--ci t|bootstrap] [--confidence 0.95]
        [--rel-threshold 4] [--rating-scale MIN:MAX] [--seed S] [--samples B] [--alpha 0.05] [--per-user]
    recdiv compare --subtopics SUBTOPIC_QRELS RUN RUN... -m alpha-nDCG@20 ...

Runs and qrels are read into one vocabulary (`recdiv.eval.io.load_inputs`). Without --baseline every pair of
runs is tested; with it, each run against the baseline. Every mean and every tested difference gets a confidence
interval (t by default, or the bootstrap percentile interval; docs/statistics.md). `--test tukey` is
the randomised Tukey HSD that keeps the per-user pairing (family-wise p-values over all runs, so no correction);
`--test tukey-anova` the blocked two-way-ANOVA version. JSON (one measure): {"measure", "test", "correction",
"means": {RUN: mean}, "ci": {"method", "level", "means": {RUN: [low, high]}}, "pairs": [{"a", "b", "mean_a",
"mean_b", "p_value", "p_adjusted", "effect_size", "difference", "ci": [low, high], ...}]}; several measures give a
list of such objects.

Pairwise preference measures (``lexirecall``, ``lexiprecision``; docs/intent-aware.md) have no per-run mean: each pair
gets its per-user preferences π_u ∈ {−1, 0, +1} of a over b, the two-sided sign test, wins/ties/losses and
effect_size = mean preference; ``--per-user`` adds ``"per_user": {"A>B": {USER: π}}``.
"""

from __future__ import annotations

import argparse

from recdiv.cli.options import Paths, at_most, finite_float, seed
from recdiv.errors import ConfigError
from recdiv.limits import MAX_SAMPLES


def configure_compare(p: argparse.ArgumentParser) -> None:
    from recdiv.eval.stats.corrections import CORRECTIONS  # the names for --help
    from recdiv.eval.stats.significance import TESTS

    p.description = ("Paired significance tests between TREC runs (docs/statistics.md): means, p-values, corrected "
                     "p-values and effect sizes (Cohen's d_z).")
    from recdiv.cli.evaluation import InOrder, add_conventions_option, add_measure_option

    p.add_argument("qrels", nargs="?", action=InOrder,
                   help="TREC qrels file (user 0 item grade); with --subtopics the first run")
    p.add_argument("runs", nargs="*", action=InOrder, metavar="RUN",
                   help="TREC run files (user Q0 item rank score tag)")
    p.add_argument("--subtopics", metavar="FILE", default=None,
                   help="TREC subtopic qrels (topic subtopic doc judgment, ndeval's format) instead of QRELS: every "
                        "positional argument is then a run (default --rel-threshold 1)")
    add_measure_option(p, "; pairwise preferences: lexirecall, lexiprecision (required)")
    p.add_argument("--test", default=None, metavar="TEST",
                   help=f"paired test: {', '.join(TESTS)} (default t; sign for preference measures); tukey: "
                        "randomised Tukey HSD over all runs keeping the per-user pairing; tukey-anova: the "
                        "blocked-ANOVA Tukey HSD")
    p.add_argument("--correction", default=None, metavar="NAME",
                   help=f"multiple-comparison correction: {', '.join(CORRECTIONS)} (default holm; none with the "
                        "Tukey tests)")
    p.add_argument("--ci", choices=("t", "bootstrap"), default="t",
                   help="confidence intervals of the means and differences: t (default) or bootstrap percentile")
    p.add_argument("--confidence", type=finite_float, default=0.95,
                   help="confidence level of the intervals (default 0.95)")
    p.add_argument("--baseline", default=None, help="compare every run against this run (file or name)")
    p.add_argument("--format", choices=("table", "markdown", "latex", "json"), default="table")
    from recdiv.cli.evaluation import add_input_options

    add_input_options(p)
    p.add_argument("--rel-threshold", type=finite_float, default=None,
                   help="relevance threshold τ (default 4; 1 with --subtopics)")
    p.add_argument("--population", choices=("relevant", "judged"), default=None,
                   help="users averaged over: with >= 1 relevant test item (default) or >= 1 judged item")
    add_conventions_option(p)
    p.add_argument("--seed", type=seed, default=0, help="seed of the randomisation/bootstrap tests (≥ 0)")
    p.add_argument("--samples", type=at_most(MAX_SAMPLES), default=None,
                   help="Monte Carlo samples (default 100000 permutation, 1000 bootstrap, 10000 tukey)")
    p.add_argument("--alpha", type=finite_float, default=0.05, help="significance level of the markers")
    p.add_argument("--alternative", choices=("two-sided", "greater", "less"), default="two-sided")
    p.add_argument("--train", default=None, help="training interactions TSV (novelty measures)")
    p.add_argument("--aspects", default=None, help="item-aspect TSV (diversity / intent-aware measures)")
    p.add_argument("--previous", metavar="RUN", default=None,
                   help="base lists (TREC run) of the reference-run measures RBO and LIP, and of ESSD")
    p.add_argument("--item-groups", metavar="TSV", default=None,
                   help="item groups TSV (item group [weight]) for AWRF and GroupExposure")
    p.add_argument("--stochastic", metavar="DIR", action="append", default=[],
                   help="a stochastic run: a directory of sampled run files, one per sample (repeatable)")
    p.add_argument("--rating-scale", metavar="MIN:MAX", default=None,
                   help="rating scale of the qrels grades, e.g. 1:5 (r_max of ERR, ERR-IA, ab-nDCG, graded gains)")
    p.add_argument("--per-user", action="store_true", help="add per-user values (JSON only)")
    p.add_argument("--groups", metavar="SPEC", default=None,
                   help="also test inside user groups: profile-size[:q] or popularity[:q] (quantiles; need --train) "
                        "or a user<TAB>group file")
    p.add_argument("--fold", nargs="+", action="append", metavar="FILE", default=None,
                   help="QRELS RUN [RUN ...] of one fold of a k-fold evaluation (repeat per fold, same run names in "
                        "every fold) instead of QRELS RUN...: per-user values pooled over (fold, user) pairs")
    p.add_argument("--html", metavar="FILE", default=None,
                   help="also write the results page: means with CIs, paired tests, trade-off, interval and "
                        "distribution charts (self-contained, opens offline)")
    p.add_argument("-o", "--output", default=None, help="write the report to this file (atomically)")
    from recdiv.cli.eval import INPUTS

    _add_tradeoff_options(p)
    outputs = {"output": "-o", "per_user_out": "--per-user-out", "html": "--html"}
    p.set_defaults(func=handler, paths=Paths(INPUTS, outputs, extra=_front_runs))


def _front_runs(args: argparse.Namespace) -> list[str]:
    """The run files of the --front NAME=RUN,RUN,... options (inputs, for the output guard)."""
    return [run for front in getattr(args, "front", None) or [] for run in front.partition("=")[2].split(",") if run]


def _add_tradeoff_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tradeoff", nargs=2, metavar=("X", "Y"), default=None,
                   help="trade-off of two per-user measures (an accuracy X, a diversity Y): Pareto front, "
                        "hypervolume against the nadir, area under the front and, with --baseline, the best Y at "
                        "95%% and 90%% of the baseline's X, each with a bootstrap interval over users "
                        "(--samples resamples, default 1000; --confidence)")
    p.add_argument("--front", action="append", default=[], metavar="NAME=RUN,RUN,...",
                   help="with --tradeoff: a named front of runs (e.g. a reranker's lambda grid); two --front options "
                        "are compared: hypervolume difference with interval and p-value, and how often each "
                        "front dominates the other over the bootstrap resamples")


def handler(args: argparse.Namespace) -> int:
    # deferred: numpy, scipy and the metrics load only when the command runs
    from recdiv import provenance
    from recdiv.cli.evaluation import sort_measure_args
    from recdiv.cli.output import emit
    from recdiv.workflows.compare import compare_files, tests_of
    from recdiv.workflows.evaluation import EvalOptions

    measures = sort_measure_args(args, ("qrels", "runs"))
    if not measures:
        raise ConfigError("recdiv compare needs at least one measure: -m MEASURE")
    if args.fold and (args.qrels or args.runs or args.subtopics or args.stochastic):
        raise ConfigError("give either QRELS RUN... or one --fold QRELS RUN... per fold, not both")
    if not args.fold and (not args.qrels or not (args.runs or args.stochastic)):
        raise ConfigError("recdiv compare needs a qrels file and at least two run files (or --stochastic DIR, or "
                          "--fold QRELS RUN... per fold)")
    tests = tests_of(args.test, args.correction, ci=args.ci, confidence=args.confidence, alpha=args.alpha,
                     alternative=args.alternative, seed=args.seed, samples=args.samples)
    if args.subtopics:  # every positional argument is a run
        args.qrels, args.runs = None, [args.qrels, *args.runs]
    folds = [(f[0], f[1:]) for f in args.fold or []]
    for qrels, runs in folds or [(args.qrels, args.runs)]:
        _not_an_input(args.html, [qrels, *runs, args.train, args.aspects, args.previous, args.subtopics])
    report = compare_files(args.qrels, args.runs, measures, folds=folds, options=EvalOptions.of(args), tests=tests,
                           per_user=args.per_user, per_user_out=args.per_user_out, groups=args.groups,
                           tradeoff=args.tradeoff, fronts=args.front)
    made_by = provenance.of_command(args)
    text = report.json(made_by) if args.format == "json" else report.text(args.format, made_by)
    if args.html:
        from recdiv.outputs import write_text

        write_text(args.html, report.page(made_by))
    emit(text, args.output)
    report.state()  # after the output: a failed command prints only its one-line error
    return 0


def _not_an_input(output: str | None, inputs) -> None:
    """ConfigError if the output file is one of the inputs (a command never overwrites what it reads)."""
    from pathlib import Path

    if output and any(p is not None and Path(p).resolve() == Path(output).resolve() for p in inputs):
        raise ConfigError(f"--html {output}: is an input of this command; writing it would destroy it: choose "
                          "another output file")
