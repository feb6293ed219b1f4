"""The statistics of an experiment's report: every dataset's scores as one `recdiv.eval.results.Results` (systems ×
measures, per-user values inside) and its `Comparison` (each system against its baseline, with confidence
intervals), and the summary they give: summary.csv's rows, summary.md's and summary.tex's tables.

Statistics pool folds: the per-user values of all splits of a dataset are paired on (split, user), so a mean is
the mean over all (split, user) pairs and a test compares the same (split, user) pairs of two systems.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd

from recdiv.errors import ConfigError
from recdiv.eval import tables
from recdiv.eval.tables import DOWN, UP
from recdiv.experiment.plan.systems import baselines
from recdiv.experiment.spec.experiment import ExperimentConfig

SUMMARY_COLUMNS = ["dataset", "system", "measure", "mean", "ci_low", "ci_high", "n", "baseline", "p_value",
                   "p_adjusted", "effect_size", "marker", "difference", "diff_ci_low", "diff_ci_high"]




def dataset_results(config: ExperimentConfig, systems: list[dict[str, Any]], scores: pd.DataFrame,
                    system_scores: pd.DataFrame | None, dataset: str):
    """The `Results` of one dataset: per-user values paired on (split, user) over all splits (rows in sorted
    (split, user) order), and system-level values per split."""
    from recdiv.eval.results import Results

    order = [s["name"] for s in systems]
    f = scores[scores["dataset"] == dataset]
    values: dict[str, dict[str, Any]] = {}
    rows = None
    for measure in config.metrics.measures:
        fm = f[f["measure"] == measure]
        if fm.empty:
            continue
        wide = fm.pivot_table(index=["split", "user"], columns="system", values="value", aggfunc="first")
        present = [s for s in order if s in wide.columns]
        if wide[present].isna().any().any() or len(present) < len(set(fm["system"])):
            bad = next((s for s in present if wide[s].isna().any()), present[0])
            raise ConfigError(f"{dataset} / {measure}: system {bad!r} lacks values for some users "
                              "(per-user scores are not paired)")
        for s in present:
            values.setdefault(s, {})[measure] = wide[s].to_numpy()
        if rows is None or len(wide.index) == len(rows):
            rows = wide.index
    sys_values: dict[str, dict[str, Any]] = {}
    if system_scores is not None:
        g = system_scores[system_scores["dataset"] == dataset]
        for (s, measure), v in g.groupby(["system", "measure"])["value"]:
            sys_values.setdefault(s, {})[measure] = v.to_numpy()
    ordered = {s: values[s] for s in order if s in values}
    ordered_sys = {s: sys_values[s] for s in order if s in sys_values}
    if not ordered and not ordered_sys:
        return None
    users = None
    if rows is not None and all(len(v) == len(rows) for ms in ordered.values() for v in ms.values()):
        users = np.empty(len(rows), dtype=object)
        users[:] = list(rows)  # (split, user) pairs, the pairing of the tests
    return Results(ordered, users=users, system_values=ordered_sys or None)


def dataset_comparison(config: ExperimentConfig, systems: list[dict[str, Any]], res):
    """Each system against its baseline (`baselines`), with the experiment's test, correction and intervals."""
    st = config.statistics
    base = {s: b for s, b in baselines(config, systems).items() if s in res.systems}
    base = {s: (b if b in res.systems else None) for s, b in base.items()}
    measures = [m for m in dict.fromkeys(config.metrics.measures) if m in res.measures]
    correction = "none" if st.test.lower().startswith("tukey") else st.correction
    return res.compare(baseline=base, test=st.test, correction=correction, measures=measures, alpha=st.alpha,
                       seed=config.seed, confidence=config.report.confidence)


def summarize(config: ExperimentConfig, systems: list[dict[str, Any]], scores: pd.DataFrame,
              system_scores: pd.DataFrame | None) -> pd.DataFrame:
    """One row per (dataset, system, measure) with mean, CI and the test against the system's baseline."""
    return summary_frame(comparisons_of(config, systems, scores, system_scores))


def summary_frame(comparisons: dict[str, Any]) -> pd.DataFrame:
    frames = [cmp.to_frame().assign(dataset=d) for d, cmp in comparisons.items()]
    if not frames:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    return pd.concat(frames, ignore_index=True)[SUMMARY_COLUMNS]


def note(config: ExperimentConfig, intervals: bool = False) -> str:
    """The table's legend; `intervals` only where intervals are shown (the HTML report's details)."""
    st = config.statistics
    against = ("its recommender's undiversified list (a recommender's row: than the first recommender's)"
               if st.baseline == "recommender" else st.baseline)
    corr = ("family-wise Tukey HSD p-values over all systems" if st.test.lower().startswith("tukey")
            else f"{st.correction} correction over the tested pairs of each measure")
    return (f"Mean over (split, user) pairs. {UP}/{DOWN}: significantly better/worse than {against} "
            f"({st.test} test, two-sided, {corr}, α = {st.alpha}). Bold: best of the column "
            "(↑ higher / ↓ lower is better)"
            + (f"; [low, high]: {round(config.report.confidence * 100)}% t interval." if intervals else ".")
            + _conventions_note(config))


def _conventions_note(config: ExperimentConfig) -> str:
    """The tool conventions of `[metrics] conventions`, if chosen (recdiv.eval.conventions)."""
    if config.metrics.conventions is None:
        return ""
    from recdiv.eval.conventions import get

    return f" Measures with the {get(config.metrics.conventions).describe()}."


def comparisons_of(config, systems, scores, system_scores, results: dict | None = None) -> dict[str, Any]:
    """{dataset: Comparison}; `results` (if given) receives {dataset: Results}."""
    out = {}
    for d in [d.key for d in config.datasets]:
        res = dataset_results(config, systems, scores, system_scores, d)
        if res is not None:
            out[d] = dataset_comparison(config, systems, res)
            if results is not None:
                results[d] = res
    return out


def to_markdown(config: ExperimentConfig, comparisons: dict[str, Any], digits: int = 4) -> str:
    parts = [f"### {d}\n\n" + tables.to_markdown(cmp.means_table(digits, lead="baseline", note="")).rstrip()
             for d, cmp in comparisons.items()]
    return "\n\n".join(parts) + "\n\n" + note(config) + "\n"


def to_text(config: ExperimentConfig, comparisons: dict[str, Any], digits: int = 4) -> str:
    """The terminal summary: per dataset a table that fits 120 columns (`tables.to_text`), then the legend."""
    parts = [f"== {d}\n\n" + tables.to_text(cmp.means_table(digits, lead="baseline", note="")).rstrip()
             for d, cmp in comparisons.items()]
    legend = note(config).replace(f"{UP}/{DOWN}:", f"{UP}/{DOWN} after a value:").replace("Bold:", "*:")
    return "\n\n".join(parts) + "\n\n" + textwrap.fill(legend, tables.TEXT_WIDTH, break_on_hyphens=False) + "\n"


def to_latex(config: ExperimentConfig, comparisons: dict[str, Any], digits: int = 4) -> str:
    """One booktabs table (split into column groups when wide) per dataset; compiles with pdflatex."""
    out = [tables.latex_header(f"Summary of experiment {config.name}")]
    for d, cmp in comparisons.items():
        out.append(tables.to_latex(cmp.means_table(digits, lead="baseline", note=""),
                                   f"{config.name} on {d}. {note(config)}", tables.latex_label(config.name, d),
                                   header=False))
    return "\n".join(out)
