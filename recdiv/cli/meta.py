"""`recdiv meta`: meta-evaluation of measures over a set of runs — how discriminative and how robust they are.

    recdiv meta QRELS RUN... -m MEASURE [-m ...] [--analysis dp|asl|sparsity|popularity|perturbation ...]
        [--train TSV] [--aspects TSV] [--rel-threshold 4] [--population relevant|judged] [--samples B] [--asl-samples B]
        [--robustness-samples N] [--sparsity-levels 1,0.5,0.1] [--popularity-levels 0,5,10,20]
        [--perturbation-k 10] [--seed S] [--format text|json] [--plots DIR] [--html FILE] [-o FILE]

Analyses (default dp, asl, sparsity, popularity; `recdiv.eval.meta.study`, docs/meta-evaluation.md): Valcarce's
discriminative power (randomisation p-value curves, DP = Σ p), Sakai's ASL curves (paired bootstrap), Kendall τ_b
robustness to sparsity (random removal of test ratings) and to popularity bias (removal of the most popular items'
test ratings; popularity counts train ∪ test with --train), and Parapar & Radlinski's perturbation experiments
(simulated systems from the ideal orderings over --aspects; the runs are not used). JSON: the `MetaStudy.to_dict()`
of the module. --plots DIR writes one SVG per curve; --html FILE one self-contained interactive page.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from recdiv.cli.options import Paths, at_most, finite_float, positive_int, seed
from recdiv.limits import MAX_LEVELS, MAX_ROBUSTNESS_SAMPLES, MAX_SAMPLES


def _floats(text: str) -> list[float]:
    if text.count(",") >= MAX_LEVELS:
        raise argparse.ArgumentTypeError(f"at most {MAX_LEVELS:,} levels (see docs/limits.md)")
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def configure_meta(p: argparse.ArgumentParser) -> None:
    p.description = ("Meta-evaluation of measures over runs: discriminative power (Valcarce DP, Sakai ASL), "
                     "Kendall τ robustness to sparsity and popularity bias, and Parapar & Radlinski's "
                     "perturbation experiments (docs/meta-evaluation.md).")
    p.add_argument("qrels", help="TREC qrels file (user 0 item grade)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (the systems)")
    p.add_argument("-m", "--measure", action="append", required=True, dest="measures",
                   help="measure, e.g. nDCG@100 (repeatable)")
    p.add_argument("--analysis", action="append", dest="analyses", metavar="NAME",
                   choices=("dp", "asl", "sparsity", "popularity", "perturbation"),
                   help="dp, asl, sparsity, popularity, perturbation (repeatable; default the first four)")
    p.add_argument("--train", default=None, help="training interactions TSV (popularity; novelty measures)")
    p.add_argument("--aspects", default=None, help="item-aspect TSV (perturbation; diversity measures)")
    p.add_argument("--rel-threshold", type=finite_float, default=None,
                   help="relevance threshold τ (default 4, or the one a `recdiv data export` folder records)")
    p.add_argument("--population", choices=("relevant", "judged"), default="relevant",
                   help="users averaged over: with >= 1 relevant test item (default) or >= 1 judged item")
    p.add_argument("--samples", type=at_most(MAX_SAMPLES), default=100_000,
                   help="randomisation samples of dp (default 100000)")
    p.add_argument("--asl-samples", type=at_most(MAX_SAMPLES), default=1000,
                   help="bootstrap samples of asl (default 1000)")
    p.add_argument("--alpha", type=finite_float, default=0.05, help="significance level of the ASL share (0.05)")
    p.add_argument("--robustness-samples", type=at_most(MAX_ROBUSTNESS_SAMPLES), default=50,
                   help="samples per sparsity level (default 50)")
    p.add_argument("--sparsity-levels", type=_floats, default=None, metavar="F,F,...",
                   help="fractions of test ratings kept (default 1.00,0.95,...,0.05)")
    p.add_argument("--popularity-levels", type=_floats, default=None, metavar="X,X,...",
                   help="percentages of the most popular items removed (default 0,1,...,20)")
    p.add_argument("--perturbation-k", type=positive_int, default=10, help="list length of the perturbed systems (10)")
    p.add_argument("--seed", type=seed, default=0, help="seed of every random sample (default 0)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--plots", type=Path, default=None, metavar="DIR", help="write one SVG per curve into DIR")
    p.add_argument("--html", type=Path, default=None, metavar="FILE", help="write an interactive HTML page")
    p.add_argument("-o", "--output", default=None, help="write the text/JSON to this file (atomically)")
    p.set_defaults(func=handler, paths=Paths(("qrels", "runs", "train", "aspects"), {"output": "-o", "html": "--html"},
                                             {"plots": ("--plots", ("*.svg",))}))


def handler(args: argparse.Namespace) -> int:
    # deferred: numpy, scipy and the metrics load only when the command runs
    from recdiv import provenance
    from recdiv.cli.output import emit
    from recdiv.workflows.meta import meta_files

    report = meta_files(args.qrels, args.runs, args.measures, args.analyses, train=args.train, aspects=args.aspects,
                        threshold=args.rel_threshold, population=args.population, dp_samples=args.samples,
                        asl_samples=args.asl_samples, alpha=args.alpha, robustness_samples=args.robustness_samples,
                        sparsity_levels=args.sparsity_levels, popularity_levels=args.popularity_levels,
                        perturbation_k=args.perturbation_k, seed=args.seed)
    made_by = provenance.of_command(args)
    text = report.json(made_by) if args.format == "json" else report.text()
    if args.plots is not None:
        report.write_plots(args.plots)
    if args.html is not None:
        from recdiv.outputs import write_text

        write_text(args.html, report.page(made_by))
    emit(text, args.output)
    return 0
