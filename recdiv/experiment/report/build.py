"""Reports of an experiment's output folder, rebuilt from its per-user scores alone.

The report is a view of the evaluation results object: every dataset's scores become one
`recdiv.eval.results.Results` (systems × measures, per-user values inside) and its `Comparison` (each system against
its baseline, with confidence intervals), and the tables, markers and charts are those of `recdiv.eval`.
`build_report(out)` reads ``scores.parquet`` (dataset, split, system, measure, user, value),
``system_scores.parquet`` (system-level measures), ``systems.json`` and ``experiment.json`` and writes

- ``summary.csv``: one row per (dataset, system, measure): mean, confidence interval, n, baseline, p-value,
  adjusted p-value, effect size (Cohen's d_z), marker, difference from the baseline and its confidence interval;
- ``summary.md`` / ``summary.tex``: systems × measures tables of means with ▲/▼ where a system is significantly
  better/worse than its baseline (paired test and correction of the experiment's [statistics]); best values bold
  by each measure's direction (Gini: lower is better); counts as integers. summary.tex compiles with pdflatex
  (packages and marker macros in its header comment);
- ``report.html``: one self-contained page (works offline; interactive plotly.js charts embedded): the tables
  with confidence intervals and p-values, the accuracy–diversity trade-off curves over each diversifier's
  parameter grid, and the means of every measure with confidence intervals;
- ``plots/*.svg``: the same charts as vector files (matplotlib).

Statistics pool folds: the per-user values of all splits of a dataset are paired on (split, user), so a mean is
the mean over all (split, user) pairs and a test compares the same (split, user) pairs of two systems.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from recdiv.escape import csv_cell, html, markdown
from recdiv.eval import tables
from recdiv.eval.report import pairs_html
from recdiv.experiment.analyses.meta import read_split_meta
from recdiv.experiment.report.charts import curves, dataset_charts, slug, tradeoff_pairs
from recdiv.experiment.report.fronts import fronts_part
from recdiv.experiment.report.page import finite, group_part, meta_section, selection_html
from recdiv.experiment.report.summary import comparisons_of, note, summary_frame, to_latex, to_markdown, to_text
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.folder import read_manifest, read_results, update_manifest
from recdiv.experiment.storage.stamps import report_key, report_record, report_up_to_date
from recdiv.outputs import write_text
from recdiv.progress import Progress


@dataclass
class Report:
    """Paths of the files written and the Markdown summary (what `recdiv run` / `recdiv demo` print)."""

    out: Path
    files: list[Path] = field(default_factory=list)
    markdown: str = ""
    text: str = ""  # the terminal table (summary.txt) that `recdiv run` / `recdiv demo` print
    summary: pd.DataFrame | None = None
    up_to_date: bool = False  # kept as it was: its inputs had not changed (`current_report`); summary is then None

    @property
    def html(self) -> Path:
        return self.out / "report.html"



def test_work(config: ExperimentConfig) -> float | None:
    """Monte Carlo samples the report's tests draw (its progress total); None for the analytic tests."""
    from recdiv.eval.stats.significance import BOOTSTRAP_SAMPLES, PERMUTATION_SAMPLES, canonical_test
    from recdiv.eval.stats.tukey import TUKEY_SAMPLES

    per = {"permutation": PERMUTATION_SAMPLES, "bootstrap": BOOTSTRAP_SAMPLES, "tukey": TUKEY_SAMPLES}
    samples = per.get(canonical_test(config.statistics.test))
    return None if samples is None else samples * len(config.datasets) * len(config.metrics.measures)


def build_report(out: str | Path, progress: bool | None = None) -> Report:
    """Write summary.csv/.md/.tex, plots/*.svg and report.html from the per-user scores in `out`; with a
    randomised test (permutation, bootstrap, Tukey) a progress bar on a terminal (`progress`: None = auto). The
    manifest then records what the report was built from (`recdiv.experiment.storage.stamps`)."""
    out = Path(out)
    loaded = read_results(out)
    manifest = read_manifest(out)  # read_results checked the result files against it
    key = report_key(manifest["files"]) if manifest is not None else None
    work = test_work(loaded[0])
    with Progress("report: tests", work, enabled=progress if progress is not None else None if work else False):
        rep = _build_report(out, loaded)
    if key is not None:
        update_manifest(out, "report", report_record(out, key, rep.files))
    return rep


def current_report(out: str | Path) -> Report | None:
    """The report of `out` as it is, if its stamp says that it was built from the current results by the current code
    and its files are intact (`recdiv.experiment.storage.stamps.report_up_to_date`); None if it must be rebuilt."""
    out = Path(out)
    files = report_up_to_date(out)
    if files is None or out / "summary.md" not in files:
        return None
    markdown = (out / "summary.md").read_text(encoding="utf-8").partition("\n\n")[2]  # without the "# name" title
    text = (out / "summary.txt").read_text(encoding="utf-8") if out / "summary.txt" in files else markdown
    return Report(out, files, markdown, text, up_to_date=True)


def _build_report(out: Path, loaded) -> Report:
    from recdiv.eval.html import Page

    config, systems, scores, system_scores = loaded
    results: dict[str, Any] = {}
    comparisons = comparisons_of(config, systems, scores, system_scores, results)
    summary = summary_frame(comparisons)
    rep = Report(out, summary=summary)
    write_text(out / "summary.csv", text_cells(summary).to_csv(index=False, float_format="%.6g"))
    rep.markdown = to_markdown(config, comparisons)
    write_text(out / "summary.md", f"# {markdown(config.name)}\n\n{rep.markdown}")
    write_text(out / "summary.tex", to_latex(config, comparisons))
    rep.text = to_text(config, comparisons)
    write_text(out / "summary.txt", rep.text)
    rep.files += [out / "summary.csv", out / "summary.md", out / "summary.tex", out / "summary.txt"]
    page = Page(f"{config.name} — recdiv report").heading(config.name, 1)
    if config.description:
        page.add(f"<p>{html(config.description)}</p>")
    page.note(f"{len(systems)} systems; candidates: top-{config.candidates.n} reranked to {config.candidates.k}; "
              f"relevance threshold τ = {config.metrics.threshold:g}; seed {config.seed}. Files: summary.csv, "
              "summary.md, summary.tex (pdflatex), plots/*.svg, scores.parquet (per-user values).")
    sel = out / "selection.json"
    if sel.is_file():
        page.add(selection_html(json.loads(sel.read_text(encoding="utf-8"))))
    page.toggle()
    split_meta = read_split_meta(out)
    meta_summary = {}
    fronts: dict[str, list] = {}
    group_rows: list[pd.DataFrame] = []
    for d, cmp in comparisons.items():
        meta_summary[d] = _dataset_section(page, rep, config, systems, d, cmp, results[d], split_meta.get(d, {}),
                                           group_rows, fronts)
    if any(fronts.values()):
        write_text(out / "fronts.json", json.dumps(finite(fronts), indent=1, allow_nan=False))
        rep.files.append(out / "fronts.json")
    if group_rows:
        groups_csv = pd.concat(group_rows, ignore_index=True)
        write_text(out / "groups.csv", text_cells(groups_csv).to_csv(index=False, float_format="%.6g"))
        rep.files.append(out / "groups.csv")
    if config.meta is not None:
        write_text(out / "meta_summary.json", json.dumps(finite(meta_summary), indent=1, allow_nan=False))
        rep.files.append(out / "meta_summary.json")
    write_text(out / "report.html", page.render())
    rep.files.append(out / "report.html")
    return rep


def _dataset_section(page, rep: Report, config: ExperimentConfig, systems: list[dict[str, Any]], d: str, cmp, res,
                     split_meta: dict, group_rows: list[pd.DataFrame], fronts: dict) -> dict:
    """Dataset `d`'s part of report.html (tables, charts, groups, [meta]) and its SVG plots; returns its part of
    meta_summary.json and appends its rows of groups.csv to `group_rows`."""
    from recdiv.eval.charts import save, to_matplotlib

    out = rep.out
    splits = next(x.splits for x in config.datasets if x.key == d)
    page.heading(d).note(f"splits: {', '.join(splits)}")
    page.add(tables.to_html(cmp.means_table(4, lead="baseline", note=note(config, intervals=True))))
    if cmp.pairs:
        page.add(pairs_html(cmp, cmp.samples))
    trade, means = dataset_charts(config, systems, cmp, d)
    if trade:
        page.heading("Accuracy–diversity trade-off", 3)
        page.note("Each line is one diversifier over its parameter grid; stars are the undiversified lists. "
                  "Hover for exact values and confidence intervals; click a legend entry to hide or show it; drag "
                  "to zoom, double-click to reset.")
        page.charts(trade, "tradeoff")
        part, fronts[d] = fronts_part(res, cmp, systems, tradeoff_pairs(config), curves(systems), config.seed,
                                      config.report.confidence)
        if part:
            page.note("Trade-off fronts (docs/statistics.md): the Pareto front of each recommender's systems, and "
                      "each curve's hypervolume and area against the recommender's nadir, with bootstrap intervals "
                      "over users; also in fronts.json.")
            page.add(part)
    if means:
        page.heading(f"Means with {round(config.report.confidence * 100)}% confidence intervals", 3)
        page.charts(means, "means")
    group_rows.extend(group_part(page, config, out, d, res, systems))
    meta_charts, meta_summary = ([], {}) if config.meta is None else meta_section(page, config, res, split_meta, d)
    for chart in trade + means + meta_charts:
        path = out / "plots" / f"{slug(d, chart.title)}.svg"
        save(to_matplotlib(chart), path)
        rep.files.append(path)
    return meta_summary


def text_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its text cells safe in a spreadsheet (`recdiv.escape.csv_cell`); numbers unchanged."""
    frame = frame.copy()
    for c in frame.select_dtypes(include="object").columns:
        frame[c] = frame[c].map(csv_cell)
    return frame
