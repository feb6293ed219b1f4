"""`recdiv compare` as a library function: paired significance tests between runs on one or more measures, from
files (`compare_files`), and the report in the command's formats (`ComparisonReport`: text, Markdown, LaTeX, JSON,
the results page).

Runs and qrels are read into one vocabulary (`recdiv.eval.io.load_inputs`, or streamed when larger than the memory
budget). Without a baseline every pair of runs is tested; with it, each run against the baseline. Pairwise preference
measures (``lexirecall``, ``lexiprecision``) have no per-run mean: each pair gets its per-user preferences
π_u ∈ {−1, 0, +1} of a over b, the two-sided sign test, wins/ties/losses and effect_size = mean preference.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from recdiv.errors import ConfigError
from recdiv.workflows.evaluation import EvalOptions, Evaluated, evaluate_inputs


@dataclass(frozen=True)
class Tests:
    """How the runs are compared (each field is the `recdiv compare` option of the same name)."""

    test: str | None = None  # None: t (the sign test for the preference measures)
    correction: str = "holm"
    ci: str = "t"
    confidence: float = 0.95
    alpha: float = 0.05
    alternative: str = "two-sided"
    seed: int = 0
    samples: int | None = None

    def arguments(self) -> dict:
        """The keyword arguments of `Results.compare`."""
        return {"test": self.test or "t", "correction": self.correction, "alpha": self.alpha,
                "alternative": self.alternative, "seed": self.seed, "n_samples": self.samples, "ci": self.ci,
                "confidence": self.confidence}


def tests_of(test: str | None = None, correction: str | None = None, **rest) -> Tests:
    """`Tests` with canonical names and checked values: test t by default (sign for preference measures);
    correction holm by default, none with the Tukey tests (family-wise p-values over all runs, which refuse another
    correction)."""
    from recdiv.eval.stats.corrections import canonical_correction
    from recdiv.eval.stats.significance import MULTI_SYSTEM_TESTS, canonical_test

    test = canonical_test(test) if test is not None else None
    if correction is None:
        correction = "none" if test in MULTI_SYSTEM_TESTS else "holm"
    elif test in MULTI_SYSTEM_TESTS and canonical_correction(correction) != "none":
        raise ConfigError(f"--test {test} gives family-wise p-values over all runs: drop --correction "
                          f"{correction} (or use --correction none)")
    tests = Tests(test=test, correction=canonical_correction(correction), **rest)
    if not 0 < tests.confidence < 1:
        raise ConfigError("--confidence must be in (0, 1)")
    if not 0 < tests.alpha < 1:
        raise ConfigError("--alpha must be in (0, 1)")
    return tests


@dataclass
class ComparisonReport:
    """What `compare_files` found: per measure (in the order given) the comparison of the per-user measures
    (`Comparison.to_dict`) or the preference report of a pairwise measure; the `Results` and `Comparison` behind
    them, the user-group comparisons, the trade-off; `text(format)` and `json()` write it as `recdiv compare`."""

    tests: Tests
    names: list[str]
    baseline: str | None
    folds: list[tuple[str | None, Evaluated]]
    reports: list[tuple[str, dict]] = field(default_factory=list)  # ("plain" | "pref", payload) in measure order
    results: object = None  # Results of the per-user measures (None: preference measures only)
    comparison: object = None  # Comparison of the per-user measures
    groups: dict = field(default_factory=dict)  # {group: Comparison} (groups=)
    tradeoff: dict | None = None  # recdiv.workflows.tradeoff.tradeoff_report

    @property
    def evaluated(self) -> Evaluated:
        """The (first fold's) evaluation."""
        return self.folds[0][1]

    def conventions(self) -> dict:
        done = self.evaluated
        return {"conventions": done.conventions.describe()} if done.conventions is not None else {}

    def json(self, provenance: dict) -> str:
        """One JSON object per measure (a list of them when several; the trade-off last), each with `provenance`."""
        chosen = self.conventions()
        payload = [{**r, **chosen, "provenance": provenance} for _, r in self.reports]
        if self.tradeoff is not None:
            from recdiv.workflows.tradeoff import tradeoff_json

            payload.append({**tradeoff_json(self.tradeoff), "provenance": provenance})
        return json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, ensure_ascii=False) + "\n"

    def text(self, fmt: str, provenance: dict) -> str:
        """The tables as text (`table`), Markdown or LaTeX, with the conventions and the provenance."""
        from recdiv import provenance as made

        cmp, parts = self.comparison, []
        if cmp is not None:
            parts.append({"table": cmp.to_table, "markdown": cmp.to_markdown, "latex": cmp.to_latex}[fmt]())
        for g, c in self.groups.items():
            n = next(iter(c.n[c.measures[0]].values()))
            title = f"user group {g} ({n} users)"
            if fmt == "latex":
                parts.append(c.to_latex(caption=f"{title}. {c.note()}"))
            else:
                parts.append(("### " if fmt == "markdown" else "== ") + title + "\n\n"
                             + {"table": c.to_table, "markdown": c.to_markdown}[fmt]())
        parts += [format_preferences(r, fmt) for kind, r in self.reports if kind == "pref"]
        if self.tradeoff is not None:
            from recdiv.workflows.tradeoff import format_tradeoff

            parts.append(format_tradeoff(self.tradeoff, fmt))
        text = "\n".join(parts)
        if chosen := self.conventions():
            text += ("% " if fmt == "latex" else "\n") + f"{chosen['conventions']}.\n"
        if fmt == "latex":
            text = made.comment(provenance, "%") + text
        elif fmt == "markdown":
            text += "\n" + made.markdown_comment(provenance)
        return text

    def page(self, provenance: dict) -> str:
        """The results page (`recdiv.eval.report.comparison_page`): means with intervals, tests, trade-off, charts."""
        from recdiv.eval.report import comparison_page

        ctx, n_folds = self.evaluated.context, len(self.folds)
        what = f"{len(self.names)} runs" + (f" over {n_folds} folds (per-user values pooled over (fold, user) "
                                            "pairs)" if self.folds[0][0] is not None else "")
        description = (f"{what}; relevant ⇔ grade ≥ {ctx.threshold:g}; users: {ctx.population} population; "
                       f"seed {self.tests.seed}.")
        preferences = [format_preferences(r, "table") for kind, r in self.reports if kind == "pref"]
        return comparison_page(self.results, self.comparison, title="recdiv compare", description=description,
                               groups=self.groups, preferences=preferences, provenance=provenance)

    def state(self) -> None:
        """Print each fold's statement of how the numbers were computed on stderr."""
        for _, done in self.folds:
            done.state()


def compare_files(qrels, runs: Sequence[str], measures: Sequence[str], *,
                  folds: Sequence[tuple[str, Sequence[str]]] = (), options: EvalOptions | None = None,
                  tests: Tests = Tests(), per_user: bool = False, per_user_out: str | None = None,
                  groups: str | None = None, tradeoff: tuple[str, str] | None = None,
                  fronts: Sequence[str] = ()) -> ComparisonReport:
    """Compare `runs` (files; a qrels file `qrels`, or `options.subtopics` and `qrels` None) on `measures` (names):
    means with confidence intervals, paired tests with corrected p-values and effect sizes (`tests`; `tests_of`
    checks them). `folds`: (qrels, runs) per fold of a k-fold evaluation instead of `qrels` and `runs`, per-user
    values pooled over (fold, user) pairs. `per_user`: per-user values in the reports; `per_user_out`: a file for
    them; `groups`: also compare inside user groups (a `--groups` spec); `tradeoff` (X, Y) with `fronts`
    (NAME=RUN,RUN,...): the trade-off of two per-user measures."""
    from recdiv.eval.catalog import parse_measure
    from recdiv.eval.io import baseline_name, measure_conventions
    from recdiv.eval.measure import PairwiseMeasure

    options = options or EvalOptions()
    conventions = measure_conventions(options.conventions, options.subtopics is not None)
    parsed = [parse_measure(m, conventions) for m in measures]
    pref = [m for m in parsed if isinstance(m, PairwiseMeasure)]
    plain = [m for m in parsed if not isinstance(m, PairwiseMeasure)]
    if folds and (pref or options.train or options.previous or per_user_out):
        raise ConfigError("--fold takes per-user measures and --aspects; training data, base lists and preference "
                          "measures differ per fold (run an experiment for those); --per-user prints the pooled "
                          "values, --per-user-out writes one evaluation")
    if per_user_out:  # its format, before any file is read
        from recdiv.eval.user_values import output_format

        output_format(per_user_out)
    parts = [(None, qrels, list(runs))] if not folds else [(f"fold{i}", q, list(r)) for i, (q, r) in
                                                             enumerate(folds, 1)]
    names = fold_names(parts, options.stochastic)
    baseline = baseline_name(options.baseline, list(parts[0][2]), names)
    dones = [(fold, evaluate_inputs("compare", q, r, plain, options)) for fold, q, r in parts]
    report = ComparisonReport(tests, names, baseline, dones)
    done = report.evaluated
    if done.inputs is not None:
        for a, b in same_lists(done.inputs.runs):
            print(f"recdiv compare: note: runs {a} and {b} hold the same lists: every difference between them is 0 "
                  "and their test says nothing", file=sys.stderr)
    if pref and done.inputs is None:
        raise ConfigError(f"{pref[0]} in recdiv compare needs the runs in memory: raise --memory (or evaluate it with "
                          "recdiv eval --baseline, which streams)")
    if plain:
        if per_user_out:  # one evaluation: refused with folds
            from recdiv.eval.user_values import write_user_values

            write_user_values(done.evaluation, per_user_out)
        _compare_plain(report, len(plain))
    _tradeoff_and_groups(report, bool(plain), groups, tradeoff, fronts)
    for m in parsed:
        report.reports.append(("pref", preference_report(str(m), report, per_user)) if m in pref else
                              ("plain", _plain_report(report, str(m), per_user)))
    return report


def fold_names(parts: Sequence[tuple[str | None, object, Sequence[str]]], stochastic: Sequence[str]) -> list[str]:
    """The run names, the same in every fold (file stems, then the stochastic runs' directory names)."""
    from recdiv.eval.io import run_names, stochastic_runs

    names: list[str] = []
    for fold, _qrels, run_paths in parts:
        found = run_names(run_paths)
        found += [name for name, _ in stochastic_runs(stochastic, found)]
        if len(found) < 2:
            raise ConfigError(f"recdiv compare needs at least two runs{f' in {fold}' if fold else ''}")
        if names and found != names:
            raise ConfigError(f"{fold} has the runs {', '.join(found)}; fold1 has {', '.join(names)}: every "
                              "fold needs the same run names (file stems)")
        names = found
    return names


def _compare_plain(report: ComparisonReport, n_measures: int) -> None:
    """The `Results` of the per-user measures (pooled over folds) and their `Comparison`, with a progress bar
    over the Monte Carlo samples of the randomised tests."""
    from recdiv.eval.results import Results
    from recdiv.eval.stats.significance import BOOTSTRAP_SAMPLES, PERMUTATION_SAMPLES
    from recdiv.eval.stats.tukey import TUKEY_SAMPLES
    from recdiv.progress import Progress

    t = report.tests
    parts = {fold: Results.from_evaluation(d.evaluation) for fold, d in report.folds}
    report.results = Results.concat(parts) if report.folds[0][0] is not None else parts[None]
    test = t.test or "t"
    samples = t.samples or {"permutation": PERMUTATION_SAMPLES, "bootstrap": BOOTSTRAP_SAMPLES,
                            "tukey": TUKEY_SAMPLES}.get(test)
    bar = Progress(f"compare: {test} test", n_measures * samples if samples else None,
                   enabled=None if samples else False)
    with bar:  # Monte Carlo samples over all measures (the randomised tests report each chunk)
        report.comparison = report.results.compare(baseline=report.baseline, **t.arguments())


def _tradeoff_and_groups(report: ComparisonReport, plain: bool, groups: str | None,
                         tradeoff: tuple[str, str] | None, fronts: Sequence[str]) -> None:
    if tradeoff:
        from recdiv.workflows.tradeoff import tradeoff_report

        if not plain:
            raise ConfigError(f"--tradeoff {tradeoff[0]}: not one of the compared per-user measures (-m)")
        t = report.tests
        report.tradeoff = tradeoff_report(report.results, report.names, report.baseline, tradeoff, fronts,
                                          samples=t.samples, seed=t.seed, confidence=t.confidence)
    elif fronts:
        raise ConfigError("--front needs --tradeoff X Y")
    if groups:
        if not plain:
            raise ConfigError("--groups needs at least one per-user measure")
        import numpy as np

        labels = np.concatenate([d.labels(groups) for _, d in report.folds])
        report.groups = report.results.compare_groups(labels, baseline=report.baseline, **report.tests.arguments())


def _plain_report(report: ComparisonReport, measure: str, per_user: bool) -> dict:
    d = report.comparison.to_dict(measure)
    if report.groups:
        d["groups"] = {g: {"n": next(iter(c.n[measure].values())), **c.to_dict(measure)}
                       for g, c in report.groups.items()}
    if per_user:
        res = report.results
        ids = [":".join(map(str, u)) if isinstance(u, tuple) else str(u) for u in res.users]
        d["per_user"] = {s: dict(zip(ids, map(float, res.per_user(s, measure)))) for s in res.systems}
    return d


def preference_report(measure: str, report: ComparisonReport, per_user: bool) -> dict:
    """The per-user preferences of a pairwise measure for every tested pair, with the sign test."""
    import numpy as np

    from recdiv.eval.evaluate import preference_per_user
    from recdiv.eval.stats.corrections import adjust
    from recdiv.eval.stats.significance import sign_test

    t, inputs, names, baseline = report.tests, report.evaluated.inputs, report.names, report.baseline
    if t.test is not None and t.test != "sign":
        raise ConfigError(f"{measure} gives per-user preferences (+1/0/−1): only --test sign applies")
    pairs = ([(a, b) for i, a in enumerate(names) for b in names[i + 1:]] if baseline is None
             else [(a, baseline) for a in names if a != baseline])
    users = inputs.qrels.population(inputs.context.threshold, inputs.context.population)
    user_ids = [str(u) for u in inputs.qrels.users.id_of(users)]
    rows, by_user = [], {}
    for a, b in pairs:
        prefs = np.asarray(preference_per_user(measure, inputs.runs[a], inputs.runs[b], inputs.qrels,
                                               inputs.context))
        res = sign_test(prefs.astype(np.float64), None, t.alternative)
        wins, losses = int((prefs > 0).sum()), int((prefs < 0).sum())
        rows.append({"a": a, "b": b, "mean_a": None, "mean_b": None, "p_value": res.p_value,
                     "effect_size": float(prefs.mean()) if len(prefs) else 0.0,
                     "wins": wins, "ties": len(prefs) - wins - losses, "losses": losses})
        if per_user:
            if len(prefs) != len(user_ids):
                raise ConfigError(f"{measure}: {len(prefs)} preferences for {len(user_ids)} evaluated users")
            by_user[f"{a}>{b}"] = dict(zip(user_ids, map(int, prefs)))
    p_adj = adjust([r["p_value"] for r in rows], t.correction) if rows else []
    for r, pa in zip(rows, p_adj):
        r["p_adjusted"] = float(pa)
        r["significant"] = bool(pa < t.alpha)
    out = {"measure": measure, "test": "sign", "correction": t.correction, "alpha": t.alpha,
           "alternative": t.alternative, "baseline": baseline, "means": {}, "pairs": rows}
    if per_user:
        out["per_user"] = by_user
    return out


def format_preferences(rep: dict, fmt: str) -> str:
    """A preference report as a table (text, Markdown or LaTeX) with its note."""
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
