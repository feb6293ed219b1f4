"""Reports of an experiment's output folder, rebuilt from its per-user scores alone.

`build_report(out)` reads ``scores.parquet`` (dataset, split, system, measure, user, value),
``system_scores.parquet`` (system-level measures), ``systems.json`` and ``experiment.json`` and writes

- ``summary.csv``: one row per (dataset, system, measure): mean, confidence interval, baseline, p-value,
  adjusted p-value, effect size (Cohen's d_z) and marker;
- ``summary.md`` / ``summary.tex``: systems × measures tables of means with ▲/▼ where a system is significantly
  better/worse than its baseline (paired test and correction of the experiment's [statistics]);
- ``report.html``: a self-contained page (PNG plots embedded as data URIs) with the tables, the accuracy–diversity
  trade-off curves over each diversifier's parameter grid and bar charts of the means with confidence intervals;
- ``plots/*.png``: the same plots as files.

Statistics pool folds: the per-user values of all splits of a dataset are paired on (split, user), so a mean is
the mean over all (split, user) pairs and a test compares the same (split, user) pairs of two systems.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recdiv.errors import ConfigError
from recdiv.experiment.cache import write_bytes, write_text
from recdiv.experiment.config import ExperimentConfig

UP, DOWN = "▲", "▼"


@dataclass
class Report:
    """Paths of the files written and the Markdown summary (what `recdiv run` / `recdiv demo` print)."""

    out: Path
    files: list[Path] = field(default_factory=list)
    markdown: str = ""
    summary: pd.DataFrame | None = None

    @property
    def html(self) -> Path:
        return self.out / "report.html"


def read_results(out: Path) -> tuple[ExperimentConfig, list[dict[str, Any]], pd.DataFrame, pd.DataFrame | None]:
    """The experiment config, systems, per-user scores and system-level scores of an output folder."""
    out = Path(out)
    needed = [out / "experiment.json", out / "systems.json", out / "scores.parquet"]
    for p in needed:
        if not p.is_file():
            raise ConfigError(f"{out}: not an experiment output folder ({p.name} is missing; run `recdiv run` first)")
    config = ExperimentConfig.model_validate(json.loads((out / "experiment.json").read_text(encoding="utf-8")))
    systems = json.loads((out / "systems.json").read_text(encoding="utf-8"))
    scores = pd.read_parquet(out / "scores.parquet")
    sl = out / "system_scores.parquet"
    return config, systems, scores, (pd.read_parquet(sl) if sl.is_file() else None)


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


def summarize(config: ExperimentConfig, systems: list[dict[str, Any]], scores: pd.DataFrame,
              system_scores: pd.DataFrame | None) -> pd.DataFrame:
    """One row per (dataset, system, measure) with mean, CI and the test against the system's baseline."""
    from recdiv.eval.stats.corrections import adjust
    from recdiv.eval.stats.significance import cohens_dz, confidence_interval, pairwise_pvalues

    st = config.statistics
    base = baselines(config, systems)
    order = [s["name"] for s in systems]
    rows = []
    for dataset in [d.key for d in config.datasets]:
        f = scores[scores["dataset"] == dataset]
        for measure in config.metrics.measures:
            fm = f[f["measure"] == measure]
            if fm.empty:
                continue
            wide = fm.pivot_table(index=["split", "user"], columns="system", values="value", aggfunc="first")
            present = [s for s in order if s in wide.columns]
            if wide[present].isna().any().any():
                bad = next(s for s in present if wide[s].isna().any())
                raise ConfigError(f"{dataset} / {measure}: system {bad!r} lacks values for some users "
                                  "(per-user scores are not paired)")
            pairs = [(s, base[s]) for s in present if base[s] is not None and base[s] in wide.columns]
            p = p_adj = np.array([])
            if pairs:
                D = np.column_stack([wide[a].to_numpy() - wide[b].to_numpy() for a, b in pairs])
                p = np.nan_to_num(pairwise_pvalues(D, st.test, "two-sided", seed=config.seed), nan=1.0)
                p_adj = adjust(p, st.correction)
            tested = {a: (b, p[j], p_adj[j]) for j, (a, b) in enumerate(pairs)}
            for s in present:
                x = wide[s].to_numpy()
                mean = float(x.mean()) if len(x) else float("nan")
                lo, hi = confidence_interval(x, level=config.report.confidence) if len(x) > 1 else (mean, mean)
                row = {"dataset": dataset, "system": s, "measure": measure, "mean": mean, "ci_low": lo,
                       "ci_high": hi, "n": len(x), "baseline": None, "p_value": np.nan, "p_adjusted": np.nan,
                       "effect_size": np.nan, "marker": ""}
                if s in tested:
                    b, pv, pa = tested[s]
                    d = np.round(x - wide[b].to_numpy(), 12)
                    mark = ""
                    if pa < st.alpha:
                        mark = UP if d.mean() > 0 else DOWN if d.mean() < 0 else ""
                    row.update(baseline=b, p_value=float(pv), p_adjusted=float(pa), effect_size=cohens_dz(d),
                               marker=mark)
                rows.append(row)
        if system_scores is not None:
            g = system_scores[system_scores["dataset"] == dataset]
            for (s, measure), v in g.groupby(["system", "measure"])["value"]:
                rows.append({"dataset": dataset, "system": s, "measure": measure, "mean": float(v.mean()),
                             "ci_low": np.nan, "ci_high": np.nan, "n": len(v), "baseline": None, "p_value": np.nan,
                             "p_adjusted": np.nan, "effect_size": np.nan, "marker": ""})
    cols = ["dataset", "system", "measure", "mean", "ci_low", "ci_high", "n", "baseline", "p_value", "p_adjusted",
            "effect_size", "marker"]
    out = pd.DataFrame(rows, columns=cols)
    rank_s = {s: i for i, s in enumerate(order)}
    rank_m = {m: i for i, m in enumerate(config.metrics.measures)}
    out = out.assign(_s=out["system"].map(rank_s), _m=out["measure"].map(rank_m))
    return out.sort_values(["dataset", "_s", "_m"], kind="stable").drop(columns=["_s", "_m"]).reset_index(drop=True)


def _note(config: ExperimentConfig) -> str:
    st = config.statistics
    against = ("its recommender's undiversified list (recommenders: the first recommender)"
               if st.baseline == "recommender" else st.baseline)
    return (f"Mean over (split, user) pairs. {UP}/{DOWN}: significantly better/worse than {against} "
            f"({st.test} test, two-sided, {st.correction} correction over the tested pairs of each measure, "
            f"α = {st.alpha}).")


def _wide(summary: pd.DataFrame, dataset: str, measures: list[str], digits: int, fmt_best, fmt_mark):
    f = summary[summary["dataset"] == dataset]
    systems = list(dict.fromkeys(f["system"]))
    best = f.groupby("measure")["mean"].max()
    cells = {(r.system, r.measure): r for r in f.itertuples()}
    rows = []
    for s in systems:
        base = next((r.baseline for (ss, _), r in cells.items() if ss == s and r.baseline), None)
        row = [s, base or ""]
        for m in measures:
            r = cells.get((s, m))
            if r is None:
                row.append("")
                continue
            txt = f"{r.mean:.{digits}f}"
            if math.isfinite(r.mean) and r.mean == best[m]:
                txt = fmt_best(txt)
            row.append(txt + (fmt_mark(r.marker) if r.marker else ""))
        rows.append(row)
    return rows


def to_markdown(config: ExperimentConfig, summary: pd.DataFrame, digits: int = 4) -> str:
    parts = []
    measures = list(dict.fromkeys(config.metrics.measures))
    for d in [d.key for d in config.datasets]:
        rows = _wide(summary, d, measures, digits, lambda t: f"**{t}**", lambda m: m)
        head = ["System", "Baseline", *measures]
        lines = [f"### {d}", "", "| " + " | ".join(head) + " |", "|" + "|".join(["---", "---"] + ["---:"] *
                                                                               len(measures)) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n\n" + _note(config) + "\n"


def _tex(t: str) -> str:
    return (t.replace("\\", r"\textbackslash{}").replace("&", r"\&").replace("%", r"\%").replace("_", r"\_")
            .replace("#", r"\#").replace("{", r"\{").replace("}", r"\}").replace("^", r"\^{}").replace("~", r"\~{}"))


def to_latex(config: ExperimentConfig, summary: pd.DataFrame, digits: int = 4) -> str:
    """One booktabs `table` per dataset; markers as superscripts (▲/▼ need amssymb)."""
    measures = list(dict.fromkeys(config.metrics.measures))

    def mark(m: str) -> str:
        return "$^{" + m.replace(UP, r"\blacktriangle").replace(DOWN, r"\blacktriangledown") + "}$"

    out = []
    for d in [d.key for d in config.datasets]:
        rows = _wide(summary, d, measures, digits, lambda t: rf"\textbf{{{t}}}", mark)
        out += [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{ll" + "r" * len(measures) + "}", r"\toprule",
                " & ".join(["System", "Baseline", *map(_tex, measures)]) + r" \\", r"\midrule"]
        out += [" & ".join([_tex(r[0]), _tex(r[1]), *r[2:]]) + r" \\" for r in rows]
        out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(config.name)} on {_tex(d)}. "
                f"{_tex(_note(config))}}}", rf"\label{{tab:{re.sub(r'[^A-Za-z0-9]+', '-', config.name + '-' + d)}}}",
                r"\end{table}", ""]
    return "\n".join(out)


# plots ---------------------------------------------------------------------------------------------------------
def _measure_kind(m: str) -> str:
    try:
        from recdiv.eval import parse_measure

        return parse_measure(m).FAMILY
    except Exception:  # a measure that no longer parses still gets a table row, just no default plot
        return "unknown"


def tradeoff_pairs(config: ExperimentConfig) -> list[tuple[str, str]]:
    """report.tradeoff, else (first accuracy measure, each non-accuracy measure), at most four plots."""
    if config.report.tradeoff:
        return [tuple(p) for p in config.report.tradeoff]
    kinds = {m: _measure_kind(m) for m in config.metrics.measures}
    acc = [m for m, k in kinds.items() if k == "accuracy"]
    other = [m for m, k in kinds.items() if k not in ("accuracy", "system", "unknown", "preference")]
    return [(acc[0], m) for m in other[:4]] if acc else []


def _curves(systems: list[dict[str, Any]]) -> dict[tuple, list[dict[str, Any]]]:
    """Systems grouped into curves: (recommender, diversifier, aspects, other grid values) over the first grid key."""
    curves: dict[tuple, list[dict[str, Any]]] = {}
    for s in systems:
        if s["diversifier"] is None:
            continue
        grid = s["grid"]
        keys = list(grid)
        rest = tuple((k, grid[k]) for k in keys[1:])
        curves.setdefault((s["recommender"], s["diversifier"], s["aspects"], rest), []).append(s)
    return curves


def plot_tradeoff(summary: pd.DataFrame, systems: list[dict[str, Any]], dataset: str, x: str, y: str):
    """Accuracy (x) vs diversity (y) of every system; each diversifier's grid is a curve over its parameter."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = summary[summary["dataset"] == dataset].set_index(["system", "measure"])["mean"]
    fig, ax = plt.subplots(figsize=(7, 5), dpi=100)
    recs = list(dict.fromkeys(s["recommender"] for s in systems))
    markers = "os^Dvp*hX"
    colors = plt.get_cmap("tab10")
    for i, (key, members) in enumerate(_curves(systems).items()):
        rec, div, asp, rest = key
        pts = [(f.get((s["name"], x)), f.get((s["name"], y)), s) for s in members]
        pts = [p for p in pts if p[0] is not None and p[1] is not None]
        if not pts:
            continue
        gk = next(iter(members[0]["grid"]), None)
        if gk is not None:
            pts.sort(key=lambda p: p[2]["grid"][gk])
        label = f"{rec} + {div}" + (f" [{asp}]" if asp else "") + "".join(f" {k}={v}" for k, v in rest)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[recs.index(rec) % len(markers)],
                color=colors(i % 10), label=label, lw=1.2, ms=4)
        if gk is not None and len(pts) > 1:
            for p in (pts[0], pts[-1]):
                ax.annotate(f"{gk}={p[2]['grid'][gk]}", (p[0], p[1]), fontsize=6, xytext=(3, 3),
                            textcoords="offset points", color=colors(i % 10))
    for s in systems:
        if s["diversifier"] is None and (s["name"], x) in f.index and (s["name"], y) in f.index:
            ax.scatter([f[(s["name"], x)]], [f[(s["name"], y)]], marker="*", s=160, color="black", zorder=5)
            ax.annotate(s["name"], (f[(s["name"], x)], f[(s["name"], y)]), fontsize=8, xytext=(5, -10),
                        textcoords="offset points")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{dataset}: {y} vs {x}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, loc="best")
    fig.subplots_adjust(left=0.12, right=0.97, top=0.93, bottom=0.1)
    return fig


def bar_systems(systems: list[dict[str, Any]]) -> list[str]:
    """Systems in the bar charts: all of them if ≤ 20, else the recommenders and each diversifier at the middle
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


def plot_bars(summary: pd.DataFrame, dataset: str, measures: list[str], names: list[str], confidence: float):
    """Horizontal bars of the mean of each measure (one panel per measure) per system, with confidence intervals;
    ▲/▼ after a value mark a significant difference from the system's baseline (orange bars: tested systems)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = summary[summary["dataset"] == dataset]
    names = [n for n in names if n in set(f["system"])]
    ncols = min(4, len(measures))
    nrows = math.ceil(len(measures) / ncols)
    label_in = 0.3 + 0.052 * max((len(n) for n in names), default=4)
    panel_h = 0.45 + 0.2 * len(names)
    width = label_in + 2.1 * ncols
    height = 0.85 + nrows * panel_h
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), dpi=90, sharey=True, squeeze=False)
    fig.subplots_adjust(left=label_in / width, right=0.98, top=1 - 0.6 / height, bottom=0.25 / height, wspace=0.08,
                        hspace=0.9 / panel_h)
    y = np.arange(len(names))[::-1]
    for ax, measure in zip(axes.flat, measures):
        g = f[f["measure"] == measure].set_index("system").reindex(names)
        means = g["mean"].to_numpy(dtype=float)
        err = np.vstack([np.nan_to_num(means - g["ci_low"].to_numpy(dtype=float)),
                         np.nan_to_num(g["ci_high"].to_numpy(dtype=float) - means)])
        colors = ["#dd8452" if isinstance(b, str) and b else "#4c72b0" for b in g["baseline"]]
        ax.barh(y, np.nan_to_num(means), xerr=err, color=colors, capsize=1.5, error_kw={"lw": 0.7})
        for yy, m, mk in zip(y, means, g["marker"].fillna("")):
            if mk:
                ax.text(m, yy, f" {mk}", va="center", fontsize=6, color="#c44e52" if mk == DOWN else "#2a7a2a")
        ax.set_title(measure, fontsize=8)
        ax.tick_params(labelsize=6)
        ax.grid(axis="x", alpha=0.3)
    axes[0, 0].set_yticks(y, names, fontsize=6)
    for ax in list(axes.flat)[len(measures):]:
        ax.set_visible(False)
    fig.suptitle(f"{dataset}: means with {round(confidence * 100)}% confidence intervals", fontsize=9)
    return fig


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", "_".join(parts)).strip("-")[:100]


# html ----------------------------------------------------------------------------------------------------------
def _html_table(config: ExperimentConfig, summary: pd.DataFrame, dataset: str) -> str:
    measures = list(dict.fromkeys(config.metrics.measures))
    rows = _wide(summary, dataset, measures, 4, lambda t: f"\x01{t}\x02", lambda m: f"\x03{m}\x04")

    def cell(t: str) -> str:
        t = html.escape(t)
        return t.replace("\x01", "<b>").replace("\x02", "</b>").replace("\x03", "<sup>").replace("\x04", "</sup>")

    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["System", "Baseline", *measures])
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;font-size:12px;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px}
td:nth-child(n+3){text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
img{max-width:100%;margin:0.5em 0;border:1px solid #eee}.note{color:#555;font-size:13px}
.grid{display:flex;flex-wrap:wrap;gap:8px}.grid img{max-width:590px}"""


def build_report(out: str | Path) -> Report:
    """Write summary.csv/.md/.tex, plots/*.png and report.html from the per-user scores in `out`."""
    out = Path(out)
    config, systems, scores, system_scores = read_results(out)
    summary = summarize(config, systems, scores, system_scores)
    rep = Report(out, summary=summary)
    csv = summary.to_csv(index=False, float_format="%.6g")
    write_text(out / "summary.csv", csv)
    rep.markdown = to_markdown(config, summary)
    write_text(out / "summary.md", f"# {config.name}\n\n{rep.markdown}")
    write_text(out / "summary.tex", to_latex(config, summary))
    rep.files += [out / "summary.csv", out / "summary.md", out / "summary.tex"]
    per_user = set(scores["measure"].unique())
    sections = []
    for dataset in [d.key for d in config.datasets]:
        imgs = []
        for x, y in tradeoff_pairs(config):
            png = _png(plot_tradeoff(summary, systems, dataset, x, y))
            imgs.append(("tradeoff", _slug(dataset, "tradeoff", x, y), f"{y} vs {x}", png))
        measures = [m for m in config.metrics.measures if m in per_user]
        if measures:
            png = _png(plot_bars(summary, dataset, measures, bar_systems(systems), config.report.confidence))
            imgs.append(("bars", _slug(dataset, "means"), f"{dataset}: means with confidence intervals", png))
        for _, slug, _, png in imgs:
            write_bytes(out / "plots" / f"{slug}.png", png)
            rep.files.append(out / "plots" / f"{slug}.png")
        fig_html = {kind: "".join(
            f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
            "</figure>" for k, _, title, png in imgs if k == kind) for kind in ("tradeoff", "bars")}
        splits = next(d.splits for d in config.datasets if d.key == dataset)
        sections.append(
            f"<h2>{html.escape(dataset)}</h2><p class='note'>splits: {html.escape(', '.join(splits))}</p>"
            f"{_html_table(config, summary, dataset)}<p class='note'>{html.escape(_note(config))}</p>"
            + (f"<h3>Accuracy–diversity trade-off</h3><div class='grid'>{fig_html['tradeoff']}</div>"
               if fig_html["tradeoff"] else "")
            + f"<h3>Means with {round(config.report.confidence * 100)}% confidence intervals</h3>"
              f"<div class='grid'>{fig_html['bars']}</div>")
    desc = f"<p>{html.escape(config.description)}</p>" if config.description else ""
    setup = (f"<p class='note'>{len(systems)} systems; candidates: top-{config.candidates.n} reranked to "
             f"{config.candidates.k}; relevance threshold τ = {config.metrics.threshold:g}; seed {config.seed}. "
             "Files: summary.csv, summary.md, summary.tex, scores.parquet (per-user values).</p>")
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(config.name)} — recdiv report"
            f"</title><style>{_CSS}</style></head><body><h1>{html.escape(config.name)}</h1>{desc}{setup}"
            + "".join(sections) + "</body></html>\n")
    write_text(out / "report.html", page)
    rep.files.append(out / "report.html")
    return rep
