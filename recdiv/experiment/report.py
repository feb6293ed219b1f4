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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recdiv.errors import ConfigError
from recdiv.escape import csv_cell, html, markdown
from recdiv.eval import tables
from recdiv.eval.tables import DOWN, UP
from recdiv.experiment.config import ExperimentConfig
from recdiv.experiment.folder import read_manifest, read_results, update_manifest
from recdiv.experiment.stamps import report_key, report_record, report_up_to_date
from recdiv.outputs import write_text

SUMMARY_COLUMNS = ["dataset", "system", "measure", "mean", "ci_low", "ci_high", "n", "baseline", "p_value",
                   "p_adjusted", "effect_size", "marker", "difference", "diff_ci_low", "diff_ci_high"]


@dataclass
class Report:
    """Paths of the files written and the Markdown summary (what `recdiv run` / `recdiv demo` print)."""

    out: Path
    files: list[Path] = field(default_factory=list)
    markdown: str = ""
    summary: pd.DataFrame | None = None
    up_to_date: bool = False  # kept as it was: its inputs had not changed (`current_report`); summary is then None

    @property
    def html(self) -> Path:
        return self.out / "report.html"


def baselines(config: ExperimentConfig, systems: list[dict[str, Any]]) -> dict[str, str | None]:
    """The baseline each system is tested against (statistics.baseline; see `StatisticsConfig`)."""
    names = [s["name"] for s in systems]
    b = config.statistics.baseline
    if b != "recommender":
        if b not in names:
            raise ConfigError(f"statistics.baseline: no system named {b!r} (systems: {', '.join(names[:8])}"
                              f"{', ...' if len(names) > 8 else ''})")
        return {n: (None if n == b else b) for n in names}
    first = systems[0]["recommender"]
    out: dict[str, str | None] = {}
    for s in systems:
        if s["diversifier"] is not None:
            out[s["name"]] = s["recommender"]
        else:
            out[s["name"]] = None if s["name"] == first else first
    return out


# results objects ------------------------------------------------------------------------------------------------
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
    return _summary(_comparisons(config, systems, scores, system_scores))


def _summary(comparisons: dict[str, Any]) -> pd.DataFrame:
    frames = [cmp.to_frame().assign(dataset=d) for d, cmp in comparisons.items()]
    if not frames:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    return pd.concat(frames, ignore_index=True)[SUMMARY_COLUMNS]


def _note(config: ExperimentConfig) -> str:
    st = config.statistics
    against = ("its recommender's undiversified list (recommenders: the first recommender)"
               if st.baseline == "recommender" else st.baseline)
    corr = ("family-wise Tukey HSD p-values over all systems" if st.test.lower().startswith("tukey")
            else f"{st.correction} correction over the tested pairs of each measure")
    return (f"Mean over (split, user) pairs. {UP}/{DOWN}: significantly better/worse than {against} "
            f"({st.test} test, two-sided, {corr}, α = {st.alpha}). Bold: best of the column "
            f"(↑ higher / ↓ lower is better); [low, high]: {round(config.report.confidence * 100)}% t interval.")


def _comparisons(config, systems, scores, system_scores, results: dict | None = None) -> dict[str, Any]:
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
    return "\n\n".join(parts) + "\n\n" + _note(config) + "\n"


def to_latex(config: ExperimentConfig, comparisons: dict[str, Any], digits: int = 4) -> str:
    """One booktabs table (split into column groups when wide) per dataset; compiles with pdflatex."""
    out = [tables.latex_header(f"Summary of experiment {config.name}")]
    for d, cmp in comparisons.items():
        out.append(tables.to_latex(cmp.means_table(digits, lead="baseline", note=""),
                                   f"{config.name} on {d}. {_note(config)}", tables.latex_label(config.name, d),
                                   header=False))
    return "\n".join(out)


# charts ---------------------------------------------------------------------------------------------------------
def _measure_family(m: str) -> str:
    try:
        from recdiv.eval import parse_measure

        return parse_measure(m).FAMILY
    except Exception:  # a measure that no longer parses still gets a table row, just no default plot
        return "unknown"


def tradeoff_pairs(config: ExperimentConfig) -> list[tuple[str, str]]:
    """report.tradeoff, else (first accuracy measure, each non-accuracy measure), at most four plots."""
    if config.report.tradeoff:
        return [tuple(p) for p in config.report.tradeoff]
    kinds = {m: _measure_family(m) for m in config.metrics.measures}
    acc = [m for m, k in kinds.items() if k == "accuracy"]
    other = [m for m, k in kinds.items() if k not in ("accuracy", "system", "unknown", "preference")]
    return [(acc[0], m) for m in other[:4]] if acc else []


def curves(systems: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Trade-off curves: {"recommender + diversifier [aspects] other-grid-values": [(system, "λ=0.25"), ...]} over
    the first grid key, in grid order."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for s in systems:
        if s["diversifier"] is None:
            continue
        keys = list(s["grid"])
        rest = tuple((k, s["grid"][k]) for k in keys[1:])
        groups.setdefault((s["recommender"], s["diversifier"], s["aspects"], rest), []).append(s)
    out = {}
    for (rec, div, asp, rest), members in groups.items():
        gk = next(iter(members[0]["grid"]), None)
        if gk is not None:
            members = sorted(members, key=lambda s: s["grid"][gk])
        name = f"{rec} + {div}" + (f" [{asp}]" if asp else "") + "".join(f" {k}={v}" for k, v in rest)
        out[name] = [(s["name"], f"{_greek(gk)}={s['grid'][gk]}" if gk is not None else "") for s in members]
    return out


def _greek(key: str) -> str:
    return {"lambda": "λ", "alpha": "α", "beta": "β", "theta": "θ"}.get(key, key)


def bar_systems(systems: list[dict[str, Any]]) -> list[str]:
    """Systems in the means charts: all of them if ≤ 20, else the recommenders and each diversifier at the middle
    value of every grid parameter (e.g. λ = 0.5 of λ ∈ {0, 0.25, …, 1})."""
    if len(systems) <= 20:
        return [s["name"] for s in systems]
    values: dict[tuple[str, str], list] = {}
    for s in systems:
        for k, v in s["grid"].items():
            values.setdefault((s["diversifier"], k), [])
            if v not in values[(s["diversifier"], k)]:
                values[(s["diversifier"], k)].append(v)
    middle = {key: vs[(len(vs) - 1) // 2] for key, vs in values.items()}
    return [s["name"] for s in systems
            if all(v == middle[(s["diversifier"], k)] for k, v in s["grid"].items())]


def dataset_charts(config: ExperimentConfig, systems: list[dict[str, Any]], cmp, dataset: str):
    """(trade-off charts, means charts) of one dataset."""
    from recdiv.eval.plots import means_chart, tradeoff_chart

    trade = []
    undiversified = [s["name"] for s in systems if s["diversifier"] is None]
    for x, y in tradeoff_pairs(config):
        if x in cmp.measures and y in cmp.measures:
            trade.append(tradeoff_chart(cmp, x, y, curves(systems), undiversified,
                                        title=f"{dataset}: {y} vs {x}"))
    names = bar_systems(systems)
    means = [means_chart(cmp, m, names) for m in cmp.measures]
    return trade, means


def _finite(x):
    """JSON-safe copy: NaN and infinities become null."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    if isinstance(x, float | np.floating):
        return float(x) if np.isfinite(x) else None
    return x


def _text_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its text cells safe in a spreadsheet (`recdiv.escape.csv_cell`); numbers unchanged."""
    frame = frame.copy()
    for c in frame.select_dtypes(include="object").columns:
        frame[c] = frame[c].map(csv_cell)
    return frame


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", "_".join(parts)).strip("-")[:100]


# html -----------------------------------------------------------------------------------------------------------
def _pairs_html(cmp) -> str:
    e = html
    rows = []
    for pc in cmp.pairs:
        rows.append(f"<tr><td>{e(pc.a)}</td><td>{e(pc.b)}</td><td>{e(pc.measure)}</td>"
                    f"<td class='num'>{pc.difference:+.4f}</td>"
                    f"<td class='num'>[{pc.ci_low:+.4f}, {pc.ci_high:+.4f}]</td>"
                    f"<td class='num'>{tables.fmt_p(pc.p_value)}</td><td class='num'>{tables.fmt_p(pc.p_adjusted)}"
                    f"</td><td class='num'>{pc.effect_size:+.3f}</td><td>{'yes' if pc.significant else ''}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("system", "baseline", "measure", "Δ mean", "CI of Δ", "p",
                                             "adjusted p", "d_z", "significant"))
    return (f"<details><summary>All {len(cmp.pairs)} tested pairs (difference, its confidence interval, p-values, "
            f"effect size)</summary><div class='table-wrap'><table class='pairs'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div></details>")


def _meta_section(page, config: ExperimentConfig, res, split_meta: dict, dataset: str) -> tuple[list, dict]:
    """The [meta] part of a dataset's section: dp/asl from the scores; robustness curves and perturbation
    experiments from meta.json (`recdiv.experiment.meta.split_analyses`)."""
    from recdiv.eval.meta.perturbation import PerturbationResult
    from recdiv.eval.meta.study import MetaStudy
    from recdiv.eval.plots import robustness_chart
    from recdiv.experiment.meta import meta_from_results, meta_measures, options

    study = meta_from_results(config, res)
    pert = split_meta.get("perturbation")
    if pert is not None:
        measures = meta_measures(config, res.per_user_measures)
        if study is None:
            study = MetaStudy(list(res.systems), measures, options(config))
        got = pert["families"]  # meta.json has sorted keys: back to the order of the [meta] section
        study.perturbation = {fam: {m: PerturbationResult.from_dict(m, got[fam][m]) for m in measures
                                    if m in got[fam]} for fam in config.meta.perturbation_families if fam in got}
    charts = [c for _, c in study.charts(f"{dataset}: ")] if study is not None else []
    summary = study.to_dict() if study is not None else {}
    if pert is not None:
        summary["perturbation_splits"] = pert["splits"]
    for name in ("sparsity", "popularity"):
        slot = split_meta.get(name)
        if slot is None:
            continue
        label = "% most popular items removed" if name == "popularity" else "fraction of test ratings kept"
        charts.append(robustness_chart(slot["levels"], {m: np.asarray(v, dtype=np.float64)
                                                        for m, v in slot["mean_tau"].items()},
                                       xlabel=label, invert_x=name != "popularity",
                                       title=f"{dataset}: robustness to {name} (mean of {slot['splits']} splits)"))
        summary[name] = slot
    if charts:
        page.heading("Meta-evaluation", 3)
        if study is not None:
            page.add(f"<pre class='note'>{html(study.to_text())}</pre>")
        page.note("Discriminative power: pairwise p-values sorted decreasingly (Valcarce: randomisation test, "
                  "DP = Σ p, lower = more discriminative; Sakai: bootstrap ASL). Robustness: Kendall τ_b between "
                  "the system ranking on degraded test sets and on the full one."
                  + ("" if pert is None else
                     f" Perturbation (Parapar & Radlinski): simulated systems that degrade every user's ideal "
                     f"ordering of their test items (k = {pert['k']}) level by level; a good measure's means fall "
                     f"with the level (τ_b = 1) and the ideal beats each level (one-sided Wilcoxon p, log scale); "
                     f"per-user values pooled over {pert['splits']} split(s)."))
        page.charts(charts, "meta")
    return charts, summary


def _group_part(page, config: ExperimentConfig, out: Path, dataset: str, res, systems) -> list[pd.DataFrame]:
    """Per user group: the systems compared inside the group (HTML, one collapsible table per group); rows of
    groups.csv."""
    from recdiv.experiment.groups import group_sections

    if not config.report.groups or res.users is None:
        return []
    rows = pd.MultiIndex.from_tuples(list(res.users), names=["split", "user"])
    frames = []
    for spec, parts in group_sections(config, out, dataset, res, rows,
                                      lambda sub: dataset_comparison(config, systems, sub)):
        page.heading(f"User groups: {spec}", 3)
        page.note("The systems compared inside each group of users (tests and corrections per group and measure). "
                  + ("Quantiles of the number of training interactions." if spec.startswith("profile-size") else
                     "Quantiles of the mean popularity of the items in the training profile (niche → mainstream)."
                     if spec.startswith("popularity") else "Groups from the file."))
        for g, cmp in parts.items():
            n = next(iter(cmp.n[cmp.measures[0]].values()))
            page.add(f"<details><summary>{html(g)} — {n} (split, user) pairs</summary>"
                     + tables.to_html(cmp.means_table(4, lead="baseline", note="")) + "</details>")
            frames.append(cmp.to_frame().assign(dataset=dataset, groups=spec, group=g))
    return frames


def _selection_html(selections: dict) -> str:
    """The grid point each recommender with `select` chose on each split, and the validation value of every point."""
    e = html
    rows = []
    for d, splits in selections.items():
        for spec, recs in splits.items():
            for rec, r in recs.items():
                values = "; ".join(f"{','.join(f'{k}={v}' for k, v in x['params'].items())}: {x['value']:.4f}"
                                   for x in r["values"])
                chosen = ",".join(f"{k}={v}" for k, v in r["chosen"].items())
                rows.append(f"<tr><td>{e(d)}</td><td>{e(spec)}</td><td>{e(rec)}</td><td><b>{e(chosen)}</b></td>"
                            f"<td>{e(r['measure'])} on {r['validation']:g} of each user's training data: "
                            f"{e(values)}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("dataset", "split", "recommender", "chosen", "validation values"))
    return ("<h2>Selected hyperparameters</h2><div class='table-wrap'><table class='pairs'><thead><tr>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


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
    manifest then records what the report was built from (`recdiv.experiment.stamps`)."""
    from recdiv.progress import Progress

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
    and its files are intact (`recdiv.experiment.stamps.report_up_to_date`); None if it must be rebuilt."""
    out = Path(out)
    files = report_up_to_date(out)
    if files is None or out / "summary.md" not in files:
        return None
    markdown = (out / "summary.md").read_text(encoding="utf-8").partition("\n\n")[2]  # without the "# name" title
    return Report(out, files, markdown, up_to_date=True)


def _build_report(out: Path, loaded) -> Report:
    from recdiv.eval.charts import save, to_matplotlib
    from recdiv.eval.html import Page

    config, systems, scores, system_scores = loaded
    results: dict[str, Any] = {}
    comparisons = _comparisons(config, systems, scores, system_scores, results)
    summary = _summary(comparisons)
    rep = Report(out, summary=summary)
    write_text(out / "summary.csv", _text_cells(summary).to_csv(index=False, float_format="%.6g"))
    rep.markdown = to_markdown(config, comparisons)
    write_text(out / "summary.md", f"# {markdown(config.name)}\n\n{rep.markdown}")
    write_text(out / "summary.tex", to_latex(config, comparisons))
    rep.files += [out / "summary.csv", out / "summary.md", out / "summary.tex"]
    page = Page(f"{config.name} — recdiv report").heading(config.name, 1)
    if config.description:
        page.add(f"<p>{html(config.description)}</p>")
    page.note(f"{len(systems)} systems; candidates: top-{config.candidates.n} reranked to {config.candidates.k}; "
              f"relevance threshold τ = {config.metrics.threshold:g}; seed {config.seed}. Files: summary.csv, "
              "summary.md, summary.tex (pdflatex), plots/*.svg, scores.parquet (per-user values).")
    sel = out / "selection.json"
    if sel.is_file():
        page.add(_selection_html(json.loads(sel.read_text(encoding="utf-8"))))
    page.toggle()
    from recdiv.experiment.meta import read_split_meta

    split_meta = read_split_meta(out)
    meta_summary = {}
    group_rows: list[pd.DataFrame] = []
    for d, cmp in comparisons.items():
        splits = next(x.splits for x in config.datasets if x.key == d)
        page.heading(d).note(f"splits: {', '.join(splits)}")
        page.add(tables.to_html(cmp.means_table(4, lead="baseline", note=_note(config))))
        if cmp.pairs:
            page.add(_pairs_html(cmp))
        trade, means = dataset_charts(config, systems, cmp, d)
        if trade:
            page.heading("Accuracy–diversity trade-off", 3)
            page.note("Each line is one diversifier over its parameter grid; stars are the undiversified lists. "
                      "Hover for exact values and confidence intervals; click a legend entry to hide or show it; drag "
                      "to zoom, double-click to reset.")
            page.charts(trade, "tradeoff")
        if means:
            page.heading(f"Means with {round(config.report.confidence * 100)}% confidence intervals", 3)
            page.charts(means, "means")
        group_rows.extend(_group_part(page, config, out, d, results[d], systems))
        meta_charts, meta_summary[d] = ([], {}) if config.meta is None else _meta_section(
            page, config, results[d], split_meta.get(d, {}), d)
        for chart in trade + means + meta_charts:
            path = out / "plots" / f"{_slug(d, chart.title)}.svg"
            save(to_matplotlib(chart), path)
            rep.files.append(path)
    if group_rows:
        groups_csv = pd.concat(group_rows, ignore_index=True)
        write_text(out / "groups.csv", _text_cells(groups_csv).to_csv(index=False, float_format="%.6g"))
        rep.files.append(out / "groups.csv")
    if config.meta is not None:
        write_text(out / "meta_summary.json", json.dumps(_finite(meta_summary), indent=1, allow_nan=False))
        rep.files.append(out / "meta_summary.json")
    write_text(out / "report.html", page.render())
    rep.files.append(out / "report.html")
    return rep
