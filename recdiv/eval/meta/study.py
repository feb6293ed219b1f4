"""One meta-evaluation study of several measures over the same systems: what `recdiv meta` and an experiment's
``[meta]`` section run (METRICS.md §F.5–F.7; docs/meta-evaluation.md).

Analyses (any subset, in this order):

- ``dp``: Valcarce's discriminative power — two-sided Fisher randomisation p-values of every pair of systems
  (B = 100,000), the p-value curve and DP = Σ p (lower = more discriminative);
- ``asl``: Sakai's ASL curves — paired-bootstrap ASLs (B = 1000) and the share of pairs with ASL < α;
- ``sparsity``: Kendall τ_b between the system ranking on random subsets of the test ratings and on the full set
  (20 fractions kept × 50 samples);
- ``popularity``: τ_b after removing the test ratings of the top x % most popular items (0..20 %);
- ``perturbation``: Parapar & Radlinski's Experiments 1–2 on simulated systems (gradual perturbations of every
  user's ideal ordering over the aspects; no runs needed): τ_b of each measure's ordering of the levels and the
  one-sided Wilcoxon p-value of ideal > level s.

`meta_study(...)` returns a `MetaStudy` with `to_dict()` (JSON), `to_text()`, `to_html()` (the summary table of
`to_text` as an HTML table) and `charts()` (`recdiv.eval.charts` descriptions: drawn by plotly.js in HTML pages and
by matplotlib into files; p-values and ASLs on a logarithmic axis, values below the resolution 1/B drawn at 1/B).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.charts import Chart
from recdiv.eval.evaluate import evaluate
from recdiv.eval.meta.discriminative import DiscriminativePower, discriminative_power
from recdiv.eval.meta.perturbation import (
    FAMILIES,
    PerturbationResult,
    family_systems,
    ideal_trace,
    perturbation_experiment,
)
from recdiv.eval.meta.robustness import (
    POPULARITY_LEVELS,
    SPARSITY_LEVELS,
    RobustnessCurve,
    popularity_robustness,
    sparsity_robustness,
)
from recdiv.eval.plots import perturbation_chart, pvalue_chart, robustness_chart

ANALYSES = ("dp", "asl", "sparsity", "popularity", "perturbation")
TAU_NOTE = "mean τ: Kendall τ_b against the full test set, averaged over the degraded levels."
NA_NOTE = " n/a: τ_b is undefined at every level (the systems' means tie)."


def _mean_tau(taus: np.ndarray) -> str:
    """The mean τ_b over the degraded levels (taus[1:]; taus[0] is the full test set's), or "n/a" when τ_b is
    undefined at every level (the systems' means tie)."""
    rest = np.asarray(taus[1:], dtype=float)
    if len(rest) == 0:
        return f"{1.0:.3f}"
    return "n/a" if np.isnan(rest).all() else f"{np.nanmean(rest):.3f}"
DEFAULT_ANALYSES = ("dp", "asl", "sparsity", "popularity")


@dataclass
class MetaOptions:
    """Sizes of the analyses (defaults: the published settings, METRICS.md §G.4)."""

    dp_samples: int = 100_000
    asl_samples: int = 1000
    alpha: float = 0.05
    sparsity_levels: Sequence[float] = tuple(SPARSITY_LEVELS)
    robustness_samples: int = 50
    popularity_levels: Sequence[float] = tuple(POPULARITY_LEVELS)
    perturbation_k: int = 10
    perturbation_families: Sequence[str] = FAMILIES
    seed: int = 0


@dataclass
class MetaStudy:
    """Results of `meta_study`: per analysis, per measure."""

    systems: list[str]
    measures: list[str]
    options: MetaOptions
    dp: dict[str, DiscriminativePower] = field(default_factory=dict)
    asl: dict[str, DiscriminativePower] = field(default_factory=dict)
    sparsity: RobustnessCurve | None = None
    popularity: RobustnessCurve | None = None
    perturbation: dict[str, dict[str, PerturbationResult]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        out: dict = {"systems": self.systems, "measures": self.measures, "seed": self.options.seed}
        if self.dp:
            out["discriminative_power"] = {
                m: {"method": "valcarce", "samples": self.options.dp_samples, "dp": r.dp,
                    "curve": r.curve.tolist(), "pairs": r.to_dict()["pairs"]} for m, r in self.dp.items()}
        if self.asl:
            out["asl"] = {m: {"method": "sakai", "samples": self.options.asl_samples, "alpha": r.alpha,
                              "fraction": r.fraction, "curve": r.curve.tolist()} for m, r in self.asl.items()}
        for name in ("sparsity", "popularity"):
            curve = getattr(self, name)
            if curve is not None:
                d = curve.to_dict()
                d["mean_tau"] = {m: [None if not np.isfinite(x) else float(x) for x in v]
                                 for m, v in curve.mean.items()}
                if name == "sparsity":
                    d["samples"] = self.options.robustness_samples
                out[name] = d
        if self.perturbation:
            out["perturbation"] = {fam: {m: r.to_dict() for m, r in res.items()}
                                   for fam, res in self.perturbation.items()}
        return out

    def summary(self) -> tuple[list[str], list[list[str]]]:
        """The summary table, formatted: its header and one row per measure (DP, share of ASL < α, mean τ of each
        robustness analysis); no rows when none of these analyses ran."""
        head = ["measure"]
        cols: list[Callable[[str], str]] = []
        if self.dp:
            head.append("DP (Σ p, lower better)")
            cols.append(lambda m: f"{self.dp[m].dp:.3f}")
        if self.asl:
            head.append(f"share ASL < {self.options.alpha:g}")
            cols.append(lambda m: f"{self.asl[m].fraction:.3f}")
        for name in ("sparsity", "popularity"):
            curve = getattr(self, name)
            if curve is not None:
                head.append(f"mean τ {name}")
                means = curve.mean
                cols.append(lambda m, means=means: _mean_tau(means[m]))
        return head, ([[m, *(c(m) for c in cols)] for m in self.measures] if cols else [])

    def perturbation_summary(self) -> list[tuple[str, list[str]]]:
        """(heading, one line per measure) of each perturbation family."""
        return [(f"perturbation {fam} (k = {self.options.perturbation_k}): τ_b of the level ordering, levels with "
                 "one-sided Wilcoxon p < 0.05",
                 [f"{m}: τ_b = {r.tau:.3f}; {int((r.pvalues < 0.05).sum())} of {len(r.pvalues)} levels significantly "
                  "worse than the ideal" for m, r in res.items()]) for fam, res in self.perturbation.items()]

    def pairs_line(self) -> str:
        n = len(self.systems)
        return f"{n} systems, {n * (n - 1) // 2} pairs: " + ", ".join(self.systems)

    @staticmethod
    def _tau_note(rows: list[list[str]]) -> str:
        return TAU_NOTE + (NA_NOTE if any("n/a" in row for row in rows) else "")

    def to_text(self) -> str:
        lines = [self.pairs_line(), ""]
        head, rows = self.summary()
        if rows:
            rows = [head, *rows]
            widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
            lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                      for r in rows]
            lines.append(self._tau_note(rows))
        for heading, items in self.perturbation_summary():
            lines += ["", heading, *(f"  {item}" for item in items)]
        return "\n".join(lines) + "\n"

    def to_html(self) -> str:
        """The summary as HTML: the systems, the table of `summary` and the perturbation findings (text escaped)."""
        from recdiv.escape import html

        parts = [f"<p class='note'>{html(self.pairs_line())}</p>"]
        head, rows = self.summary()
        if rows:
            cells = "".join(f"<th>{html(h)}</th>" for h in head)
            body = "".join("<tr>" + f"<td>{html(r[0])}</td>" + "".join(f"<td class='num'>{html(c)}</td>" for c in r[1:])
                           + "</tr>" for r in rows)
            parts.append(f"<div class='table-wrap'><table class='pairs'><thead><tr>{cells}</tr></thead>"
                         f"<tbody>{body}</tbody></table></div><p class='note'>{html(self._tau_note(rows))}</p>")
        for heading, items in self.perturbation_summary():
            parts.append(f"<h3>{html(heading)}</h3><ul>" + "".join(f"<li>{html(i)}</li>" for i in items) + "</ul>")
        return "".join(parts)

    def charts(self, prefix: str = "") -> list[tuple[str, Chart]]:
        """(file stem, chart) of every curve: p-value curves, ASL curves, robustness, perturbation."""
        out = []
        if self.dp:
            out.append(("pvalues", pvalue_chart({m: r.p_values for m, r in self.dp.items()}, self.options.alpha,
                                                log_y=True, floor=1 / self.options.dp_samples,
                                                title=f"{prefix}p-value curves (Valcarce; lower = more "
                                                      "discriminative)")))
        if self.asl:
            out.append(("asl", pvalue_chart({m: r.p_values for m, r in self.asl.items()}, self.options.alpha,
                                            ylabel="ASL", log_y=True, floor=1 / self.options.asl_samples,
                                            title=f"{prefix}ASL curves (Sakai, paired bootstrap)")))
        if self.sparsity is not None:
            out.append(("sparsity", robustness_chart(self.sparsity.levels, self.sparsity.mean,
                                                     title=f"{prefix}robustness to sparsity")))
        if self.popularity is not None:
            out.append(("popularity", robustness_chart(self.popularity.levels, self.popularity.mean,
                                                       xlabel="% most popular items removed", invert_x=False,
                                                       title=f"{prefix}robustness to popularity bias")))
        for fam, res in self.perturbation.items():
            levels = next(iter(res.values())).levels if res else []
            out.append((f"perturbation-{fam}-means", perturbation_chart(
                levels, {m: r.means for m, r in res.items()}, ylabel="mean value",
                title=f"{prefix}{fam}: mean value per perturbation level")))
            out.append((f"perturbation-{fam}-pvalues", perturbation_chart(
                levels[1:], {m: r.pvalues for m, r in res.items()}, ylabel="p-value (ideal > level)", log_y=True,
                title=f"{prefix}{fam}: one-sided Wilcoxon p-value")))
        return out


def check_analyses(analyses: Sequence[str]) -> list[str]:
    out = []
    for a in analyses:
        if a not in ANALYSES:
            raise ConfigError(f"unknown analysis {a!r}; choose from {', '.join(ANALYSES)}")
        if a not in out:
            out.append(a)
    return out


def meta_study(runs: Mapping, qrels, measures: Sequence[str], context, analyses: Sequence[str] = DEFAULT_ANALYSES,
               options: MetaOptions | None = None, per_user: Mapping[str, np.ndarray] | None = None,
               progress=None) -> MetaStudy:
    """Run the `analyses` for every measure over the runs ({name: Rankings}) and qrels.

    per_user: {measure: systems × users matrix} when already computed (else the runs are evaluated).
    progress: an optional callable(description, total work or None) called before each step (the steps report
    their work with `recdiv.progress.tick`: Monte Carlo samples, degraded test sets).
    """
    options = options or MetaOptions()
    analyses = check_analyses(analyses)
    names = list(runs)
    if len({"dp", "asl", "sparsity", "popularity"} & set(analyses)) and len(names) < 2:
        raise ConfigError("meta-evaluation needs at least two systems (runs)")
    study = MetaStudy(names, list(measures), options)
    say = progress or (lambda what, total=None: None)
    if {"dp", "asl"} & set(analyses):
        if per_user is None:
            say("evaluating the runs")
            ev = evaluate(runs, qrels, list(measures), context)
            per_user = {m: np.vstack([ev.user_values(s, m) for s in names]) for m in measures}
        for m in measures:
            if "dp" in analyses:
                say(f"discriminative power of {m}", options.dp_samples)
                study.dp[m] = discriminative_power(per_user[m], "valcarce", options.alpha, names=names,
                                                   n_samples=options.dp_samples, seed=options.seed)
            if "asl" in analyses:
                say(f"ASL curve of {m}", options.asl_samples)
                study.asl[m] = discriminative_power(per_user[m], "sakai", options.alpha, names=names,
                                                    n_samples=options.asl_samples, seed=options.seed)
    if "sparsity" in analyses:
        say("robustness to sparsity", len(options.sparsity_levels) * options.robustness_samples)
        study.sparsity = sparsity_robustness(runs, qrels, list(measures), context,
                                             fractions=options.sparsity_levels,
                                             n_samples=options.robustness_samples, seed=options.seed)
    if "popularity" in analyses:
        say("robustness to popularity bias", len(options.popularity_levels))
        study.popularity = popularity_robustness(runs, qrels, list(measures), context,
                                                 percents=options.popularity_levels)
    if "perturbation" in analyses:
        if getattr(context, "aspects", None) is None:
            raise ConfigError("the perturbation experiments need item aspects (--aspects FILE)")
        trace = ideal_trace(qrels, context.aspects, options.perturbation_k)
        for fam in options.perturbation_families:
            say(f"perturbation {fam}")
            study.perturbation[fam] = perturbation_experiment(family_systems(trace, fam), qrels, list(measures),
                                                              context)
    return study
