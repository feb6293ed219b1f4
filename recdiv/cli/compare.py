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
import json
import sys

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
    from recdiv.cli.tradeoff import add_tradeoff_options

    add_tradeoff_options(p)
    outputs = {"output": "-o", "per_user_out": "--per-user-out", "html": "--html"}
    p.set_defaults(func=handler, paths=Paths(INPUTS, outputs, extra=_front_runs))


def _front_runs(args: argparse.Namespace) -> list[str]:
    """The run files of the --front NAME=RUN,RUN,... options (inputs, for the output guard)."""
    return [run for front in getattr(args, "front", None) or [] for run in front.partition("=")[2].split(",") if run]


def _preference_report(measure, runs, names, baseline, inputs, args, correction) -> dict:
    import numpy as np

    from recdiv.eval.evaluate import preference_per_user
    from recdiv.eval.stats.corrections import adjust
    from recdiv.eval.stats.significance import canonical_test, sign_test

    if args.test is not None and canonical_test(args.test) != "sign":
        raise ConfigError(f"{measure} gives per-user preferences (+1/0/−1): only --test sign applies")
    if baseline is None:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    else:
        pairs = [(a, baseline) for a in names if a != baseline]
    users = inputs.qrels.population(inputs.context.threshold, inputs.context.population)
    user_ids = [str(u) for u in inputs.qrels.users.id_of(users)]
    rows, per_user = [], {}
    for a, b in pairs:
        prefs = np.asarray(preference_per_user(measure, runs[a], runs[b], inputs.qrels, inputs.context))
        res = sign_test(prefs.astype(np.float64), None, args.alternative)
        wins, losses = int((prefs > 0).sum()), int((prefs < 0).sum())
        rows.append({"a": a, "b": b, "mean_a": None, "mean_b": None, "p_value": res.p_value,
                     "effect_size": float(prefs.mean()) if len(prefs) else 0.0,
                     "wins": wins, "ties": len(prefs) - wins - losses, "losses": losses})
        if args.per_user:
            if len(prefs) != len(user_ids):
                raise ConfigError(f"{measure}: {len(prefs)} preferences for {len(user_ids)} evaluated users")
            per_user[f"{a}>{b}"] = dict(zip(user_ids, map(int, prefs)))
    p_adj = adjust([r["p_value"] for r in rows], correction) if rows else []
    for r, pa in zip(rows, p_adj):
        r["p_adjusted"] = float(pa)
        r["significant"] = bool(pa < args.alpha)
    out = {"measure": measure, "test": "sign", "correction": correction, "alpha": args.alpha,
           "alternative": args.alternative, "baseline": baseline, "means": {}, "pairs": rows}
    if args.per_user:
        out["per_user"] = per_user
    return out


def _format_preferences(rep: dict, fmt: str) -> str:
    head = ["a", "b", "wins", "ties", "losses", "mean pref", "p", "p_adj"]
    rows = [[r["a"], r["b"], str(r["wins"]), str(r["ties"]), str(r["losses"]), f"{r['effect_size']:+.4f}",
             f"{r['p_value']:.4g}", f"{r['p_adjusted']:.4g}" + (" *" if r["significant"] else "")]
            for r in rep["pairs"]]
    note = (f"{rep['measure']}: preference of a over b per user; sign test ({rep['alternative']}), "
            f"{rep['correction']} correction, α = {rep['alpha']}.")
    if fmt == "latex":
        from recdiv.escape import latex

        lines = [r"\begin{tabular}{llrrrrrr}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
        lines += [" & ".join(latex(c) for c in r) + r" \\" for r in rows]
        return "\n".join([*lines, r"\bottomrule", r"\end{tabular}", "% " + latex(note)]) + "\n"
    if fmt == "markdown":
        from recdiv.escape import markdown

        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join([markdown(r[0]), markdown(r[1]), *r[2:]]) + " |" for r in rows]  # names: data
        return "\n".join(lines) + "\n\n" + markdown(note) + "\n"
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]
    return "\n".join(lines) + "\n" + note + "\n"


def same_lists(runs: dict) -> list[tuple[str, str]]:
    """Pairs of runs that rank the same items in the same order for the same users (a run given twice, or a copy)."""
    import numpy as np

    names = list(runs)
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
            if np.array_equal(runs[a].users, runs[b].users) and np.array_equal(runs[a].items, runs[b].items)]


def handler(args: argparse.Namespace) -> int:
    # deferred: numpy, scipy and the metrics load only when the command runs
    from recdiv.cli.evaluation import check_per_user_out, evaluated, sort_measure_args, write_per_user
    from recdiv.eval.catalog import parse_measure
    from recdiv.eval.io import baseline_name, measure_conventions, run_names, stochastic_runs
    from recdiv.eval.measure import PairwiseMeasure
    from recdiv.eval.results import Results
    from recdiv.eval.stats.corrections import canonical_correction
    from recdiv.eval.stats.significance import MULTI_SYSTEM_TESTS, canonical_test

    measure_names = sort_measure_args(args, ("qrels", "runs"))
    if not measure_names:
        raise ConfigError("recdiv compare needs at least one measure: -m MEASURE")
    if args.fold and (args.qrels or args.runs or args.subtopics or args.stochastic):
        raise ConfigError("give either QRELS RUN... or one --fold QRELS RUN... per fold, not both")
    if not args.fold and (not args.qrels or not (args.runs or args.stochastic)):
        raise ConfigError("recdiv compare needs a qrels file and at least two run files (or --stochastic DIR, or "
                          "--fold QRELS RUN... per fold)")
    test = canonical_test(args.test or "t")
    if args.correction is None:
        args.correction = "none" if test in MULTI_SYSTEM_TESTS else "holm"
    elif test in MULTI_SYSTEM_TESTS and canonical_correction(args.correction) != "none":
        raise ConfigError(f"--test {test} gives family-wise p-values over all runs: drop --correction "
                          f"{args.correction} (or use --correction none)")
    correction = canonical_correction(args.correction)
    if not 0 < args.confidence < 1:
        raise ConfigError("--confidence must be in (0, 1)")
    if not 0 < args.alpha < 1:
        raise ConfigError("--alpha must be in (0, 1)")
    conventions = measure_conventions(args.conventions, args.subtopics is not None)
    measures = [parse_measure(m, conventions) for m in measure_names]
    pref = [m for m in measures if isinstance(m, PairwiseMeasure)]
    plain = [m for m in measures if not isinstance(m, PairwiseMeasure)]
    if args.fold and (pref or args.train or args.previous or args.per_user_out):
        raise ConfigError("--fold takes per-user measures and --aspects; training data, base lists and preference "
                          "measures differ per fold (run an experiment for those); --per-user prints the pooled "
                          "values, --per-user-out writes one evaluation")
    check_per_user_out(args)
    if args.subtopics:  # every positional argument is a run
        args.qrels, args.runs = None, [args.qrels, *args.runs]
    folds = [(None, args.qrels, list(args.runs))] if not args.fold else \
        [(f"fold{i}", f[0], f[1:]) for i, f in enumerate(args.fold, 1)]
    names: list[str] = []
    for fold, qrels, run_paths in folds:
        fold_names = run_names(run_paths)  # the run files' names, then the stochastic runs'
        fold_names += [name for name, _ in stochastic_runs(args.stochastic, fold_names)]
        if len(fold_names) < 2:
            raise ConfigError(f"recdiv compare needs at least two runs{f' in {fold}' if fold else ''}")
        if names and fold_names != names:
            raise ConfigError(f"{fold} has the runs {', '.join(fold_names)}; fold1 has {', '.join(names)}: every "
                              "fold needs the same run names (file stems)")
        names = fold_names
        _not_an_input(args.html, [qrels, *run_paths, args.train, args.aspects, args.previous, args.subtopics])
    baseline = baseline_name(args.baseline, list(folds[0][2]), names)
    dones = [(fold, evaluated("compare", args, qrels, run_paths, plain)) for fold, qrels, run_paths in folds]
    done = dones[0][1]
    if done.inputs is not None:
        for a, b in same_lists(done.inputs.runs):
            print(f"recdiv compare: note: runs {a} and {b} hold the same lists: every difference between them is 0 "
                  "and their test says nothing", file=sys.stderr)
    if pref and done.inputs is None:
        raise ConfigError(f"{pref[0]} in recdiv compare needs the runs in memory: raise --memory (or evaluate it with "
                          "recdiv eval --baseline, which streams)")
    reports: list[tuple[str, object]] = []  # (kind, payload) in measure order
    if plain:
        from recdiv.eval.stats.significance import BOOTSTRAP_SAMPLES, PERMUTATION_SAMPLES
        from recdiv.eval.stats.tukey import TUKEY_SAMPLES
        from recdiv.progress import Progress

        write_per_user(args, done.evaluation)  # one evaluation: --per-user-out is refused with --fold
        parts = {fold: Results.from_evaluation(d.evaluation) for fold, d in dones}
        res = Results.concat(parts) if args.fold else parts[None]
        samples = args.samples or {"permutation": PERMUTATION_SAMPLES, "bootstrap": BOOTSTRAP_SAMPLES,
                                   "tukey": TUKEY_SAMPLES}.get(test)
        bar = Progress(f"compare: {test} test", len(plain) * samples if samples else None,
                       enabled=None if samples else False)
        with bar:  # Monte Carlo samples over all measures (the randomised tests report each chunk)
            cmp = res.compare(baseline=baseline, test=test, correction=correction, alpha=args.alpha,
                              alternative=args.alternative, seed=args.seed, n_samples=args.samples, ci=args.ci,
                              confidence=args.confidence)
    tradeoff = None
    if args.tradeoff:
        from recdiv.cli.tradeoff import tradeoff_report

        if not plain:
            raise ConfigError(f"--tradeoff {args.tradeoff[0]}: not one of the compared per-user measures (-m)")
        tradeoff = tradeoff_report(args, res, names, baseline)
    elif args.front:
        raise ConfigError("--front needs --tradeoff X Y")
    groups = {}
    if args.groups:
        if not plain:
            raise ConfigError("--groups needs at least one per-user measure")
        import numpy as np

        labels = np.concatenate([d.labels(args.groups) for _, d in dones])
        groups = res.compare_groups(labels, baseline=baseline,
                                    test=test, correction=correction, alpha=args.alpha, alternative=args.alternative,
                                    seed=args.seed, n_samples=args.samples, ci=args.ci, confidence=args.confidence)
    for m in measures:
        if m in pref:
            reports.append(("pref", _preference_report(str(m), done.inputs.runs, names, baseline, done.inputs, args,
                                                       correction)))
        else:
            d = cmp.to_dict(str(m))
            if groups:
                d["groups"] = {g: {"n": next(iter(c.n[str(m)].values())), **c.to_dict(str(m))}
                               for g, c in groups.items()}
            if args.per_user:
                ids = [":".join(map(str, u)) if isinstance(u, tuple) else str(u) for u in res.users]
                d["per_user"] = {s: dict(zip(ids, map(float, res.per_user(s, str(m))))) for s in res.systems}
            reports.append(("plain", d))
    from recdiv import provenance

    made_by = provenance.of_command(args)
    chosen = {"conventions": done.conventions.describe()} if done.conventions is not None else {}
    if args.format == "json":
        payload = [{**r, **chosen, "provenance": made_by} for _, r in reports]  # each: one or a list of them
        if tradeoff is not None:
            from recdiv.cli.tradeoff import tradeoff_json

            payload.append({**tradeoff_json(tradeoff), "provenance": made_by})
        text = json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, ensure_ascii=False) + "\n"
    else:
        parts = []
        if plain:
            parts.append({"table": cmp.to_table, "markdown": cmp.to_markdown, "latex": cmp.to_latex}[args.format]())
        for g, c in groups.items():
            n = next(iter(c.n[c.measures[0]].values()))
            title = f"user group {g} ({n} users)"
            if args.format == "latex":
                parts.append(c.to_latex(caption=f"{title}. {c.note()}"))
            else:
                parts.append(("### " if args.format == "markdown" else "== ") + title + "\n\n"
                             + {"table": c.to_table, "markdown": c.to_markdown}[args.format]())
        parts += [_format_preferences(r, args.format) for kind, r in reports if kind == "pref"]
        if tradeoff is not None:
            from recdiv.cli.tradeoff import format_tradeoff

            parts.append(format_tradeoff(tradeoff, args.format))
        text = "\n".join(parts)
        if chosen:
            text += ("% " if args.format == "latex" else "\n") + f"{chosen['conventions']}.\n"
        if args.format == "latex":
            text = provenance.comment(made_by, "%") + text
        elif args.format == "markdown":
            text += "\n" + provenance.markdown_comment(made_by)
    from recdiv.cli.output import emit

    if args.html:
        _write_page(args, res if plain else None, cmp if plain else None, groups,
                    [_format_preferences(r, "table") for kind, r in reports if kind == "pref"], len(names),
                    len(dones), done.context, made_by)
    emit(text, args.output)
    for _, d in dones:  # after the output: a failed command prints only its one-line error
        d.state()
    return 0


def _not_an_input(output: str | None, inputs) -> None:
    """ConfigError if the output file is one of the inputs (a command never overwrites what it reads)."""
    from pathlib import Path

    if output and any(p is not None and Path(p).resolve() == Path(output).resolve() for p in inputs):
        raise ConfigError(f"--html {output}: is an input of this command; writing it would destroy it: choose "
                          "another output file")


def _write_page(args, res, cmp, groups, preferences: list[str], n_runs: int, n_folds: int, ctx,
                made_by: dict) -> None:
    """The results page of `recdiv compare --html` (`recdiv.eval.report.comparison_page`)."""
    from recdiv.data.textio import atomic_write
    from recdiv.eval.report import comparison_page

    what = f"{n_runs} runs" + (f" over {n_folds} folds (per-user values pooled over (fold, user) pairs)"
                               if args.fold else "")
    description = (f"{what}; relevant ⇔ grade ≥ {ctx.threshold:g}; users: {ctx.population} population; "
                   f"seed {args.seed}.")
    text = comparison_page(res, cmp, title="recdiv compare", description=description, groups=groups,
                           preferences=preferences, provenance=made_by)
    with atomic_write(args.html) as f:
        f.write(text)
