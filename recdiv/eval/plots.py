"""Charts of the statistics and meta-evaluation results, as `recdiv.eval.charts.Chart` descriptions and as matplotlib
figures.

Each ``*_chart`` function describes a chart once; the HTML reports draw it with Plotly
(`recdiv.eval.charts.to_plotly`), and each ``plot_*`` function draws it with matplotlib and returns the `Figure`
(pass `path` to also save it — PNG, SVG or PDF by the suffix, written atomically — and `ax` to draw into existing
axes). Figures are made without pyplot, so the caller's backend is left alone.

- `pvalue_chart` / `plot_pvalue_curves`: Valcarce p-value curves / Sakai ASL curves (pairwise p-values sorted
  decreasingly), x from 1 to the number of pairs.
- `robustness_chart` / `plot_robustness`: Kendall τ_b against the degradation level (sparsity or popularity bias).
- `perturbation_chart` / `plot_perturbation`: a quantity against the perturbation level (P&R Exp. 1–2).
- `tradeoff_chart` / `plot_tradeoff`: system means on two measures (accuracy vs diversity), with curves over a
  parameter (e.g. each diversifier's λ grid) and hover intervals; each axis title says in words which end is better
  (`recdiv.eval.charts.axis_title`, also the explorer's).
- `means_chart`: the mean of one measure per system with its confidence interval and significance marker.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from recdiv.eval.charts import Chart, Series, axis_title, save, to_matplotlib
from recdiv.eval.tables import fmt_p

if TYPE_CHECKING:
    from recdiv.eval.tables import Compared


def _draw(chart: Chart, path, ax) -> Figure:
    fig = to_matplotlib(chart, ax)
    if path is not None:
        save(fig, path)
    return fig


def pvalue_chart(curves: Mapping[str, np.ndarray], alpha: float | None = 0.05, *, title: str | None = None,
                 ylabel: str = "p-value", log_y: bool = False, floor: float = 1e-5, zoom: bool = False) -> Chart:
    """One line per measure: its pairwise p-values (or ASLs) sorted decreasingly against the pair rank; x spans the
    pairs exactly. log_y: a logarithmic p axis (small p-values stay visible), p-values below `floor` (e.g. 0, or
    less than 1/B) drawn at `floor`. zoom: x ends one pair after the last p-value ≥ `floor` of any curve (the
    x label says how many pairs are left out, all with p < floor)."""
    series, n_max, last = [], 1, 1
    for name, p in curves.items():
        p = np.sort(np.asarray(p, dtype=np.float64))[::-1]
        last = max(last, int((p >= floor).sum()))
        ranks = np.arange(1, len(p) + 1)
        hover = [f"pair {r}: p = {v:.4g}" if not log_y or v >= floor else f"pair {r}: p < {floor:.2g}"
                 for r, v in zip(ranks, p)]
        if log_y:
            p = np.maximum(p, floor)
        n_max = max(n_max, len(p))
        series.append(Series(str(name), ranks, p, mode="lines+markers" if len(p) <= 60 else "lines", hover=hover))
    y_range = (floor / 1.5, 1.5) if log_y else (0.0, 1.0)
    xlabel, right = "system pair (sorted by p-value)", n_max
    if zoom and last + 1 < n_max:
        right = last + 1
        xlabel = f"system pair (sorted by p-value; pairs {right + 1}–{n_max}: p < {floor:.2g})"
    return Chart(title or "", xlabel, ylabel, series, hline=alpha, log_y=log_y, y_range=y_range,
                 x_range=(0.5, right + 0.5))


def plot_pvalue_curves(curves: Mapping[str, np.ndarray], alpha: float | None = 0.05, *, title: str | None = None,
                       ylabel: str = "p-value", log_y: bool = False, floor: float = 1e-5, zoom: bool = False,
                       path=None, ax=None) -> Figure:
    """Matplotlib figure of `pvalue_chart`."""
    return _draw(pvalue_chart(curves, alpha, title=title, ylabel=ylabel, log_y=log_y, floor=floor, zoom=zoom),
                 path, ax)


def robustness_chart(levels, curves: Mapping[str, np.ndarray], *, xlabel: str = "fraction of test ratings kept",
                     invert_x: bool = True, title: str | None = None) -> Chart:
    """Mean Kendall τ_b per degradation level, one line per measure/cutoff."""
    levels = np.asarray(levels, dtype=np.float64)
    series = [Series(str(name), levels, np.asarray(tau, dtype=np.float64),
                     hover=[f"{xlabel} {x:g}: τ_b = {t:.4f}" for x, t in zip(levels, np.asarray(tau, float))])
              for name, tau in curves.items()]
    return Chart(title or "", xlabel, "Kendall τ_b vs full test set", series, reverse_x=invert_x)


def plot_robustness(levels, curves: Mapping[str, np.ndarray], *, xlabel: str = "fraction of test ratings kept",
                    invert_x: bool = True, title: str | None = None, path=None, ax=None) -> Figure:
    """Matplotlib figure of `robustness_chart`."""
    return _draw(robustness_chart(levels, curves, xlabel=xlabel, invert_x=invert_x, title=title), path, ax)


def perturbation_chart(levels, curves: Mapping[str, np.ndarray], *, ylabel: str = "value", log_y: bool = False,
                       title: str | None = None) -> Chart:
    """A quantity (mean metric value, correlation, p-value) against the perturbation level s."""
    levels = np.asarray(levels)
    series = [Series(str(name), levels, np.asarray(v, dtype=np.float64),
                     hover=[f"s = {s}: {x:.4g}" for s, x in zip(levels, np.asarray(v, float))])
              for name, v in curves.items()]
    return Chart(title or "", "perturbation level s", ylabel, series, log_y=log_y)


def plot_perturbation(levels, curves: Mapping[str, np.ndarray], *, ylabel: str = "value", log_y: bool = False,
                      title: str | None = None, path=None, ax=None) -> Figure:
    """Matplotlib figure of `perturbation_chart`."""
    return _draw(perturbation_chart(levels, curves, ylabel=ylabel, log_y=log_y, title=title), path, ax)


def plot_tradeoff(points: Mapping[str, tuple[float, float]], x_measure: str, y_measure: str, *,
                  title: str | None = None, path=None, ax=None) -> Figure:
    """Scatter of systems at (mean x_measure, mean y_measure), labelled by name (matplotlib; the report's
    trade-off curves are `tradeoff_chart`)."""
    series = [Series(str(name), [x], [y], mode="markers", labels=[str(name)], hover=[f"{x:.4f}, {y:.4f}"])
              for name, (x, y) in points.items()]
    chart = Chart(title or "", axis_title(x_measure), axis_title(y_measure), series)
    fig = to_matplotlib(chart, ax)
    legend = fig.axes[0].get_legend() if ax is None else ax.get_legend()
    if legend is not None:
        legend.remove()  # every point is labelled
    if path is not None:
        save(fig, path)
    return fig


def _ci_text(cmp: Compared, s: str, m: str) -> str:
    lo, hi = cmp.mean_ci.get(m, {}).get(s, (np.nan, np.nan))
    return f" [{lo:.4f}, {hi:.4f}]" if np.isfinite(lo) and np.isfinite(hi) else ""


def tradeoff_chart(cmp: Compared, x: str, y: str, curves: Mapping[str, Sequence[tuple[str, str]]],
                   points: Sequence[str] = (), *, title: str | None = None) -> Chart:
    """Means of `x` (accuracy) against `y` (diversity): one line per curve — {curve name: [(system, parameter
    label), ...]} in parameter order, the end points labelled — and `points` (e.g. the undiversified baselines) as
    labelled stars. Hover: system, both means with their confidence intervals."""
    def hover(s: str) -> str:
        return (f"{s}\n{x} = {cmp.means[x][s]:.4f}{_ci_text(cmp, s, x)}\n"
                f"{y} = {cmp.means[y][s]:.4f}{_ci_text(cmp, s, y)}")

    series = []
    for name, members in curves.items():
        members = [(s, lab) for s, lab in members if s in cmp.means[x] and s in cmp.means[y]]
        if not members:
            continue
        labels = [lab if i in (0, len(members) - 1) and len(members) > 1 else "" for i, (_, lab) in
                  enumerate(members)]
        series.append(Series(name, [cmp.means[x][s] for s, _ in members], [cmp.means[y][s] for s, _ in members],
                             hover=[hover(s) + (f"\n{lab}" if lab else "") for s, lab in members], labels=labels))
    for s in points:
        if s in cmp.means[x] and s in cmp.means[y]:
            series.append(Series(s, [cmp.means[x][s]], [cmp.means[y][s]], mode="markers", hover=[hover(s)],
                                 labels=[s], emphasis=True))
    height = 400 + 21 * math.ceil(len(series) / 2)  # room for a two-column legend below the axes
    return Chart(title if title is not None else f"{y} vs {x}", axis_title(x), axis_title(y), series, height=height)


def means_chart(cmp: Compared, measure: str, systems: Sequence[str] | None = None, *,
                title: str | None = None) -> Chart:
    """Mean of `measure` per system (one row each, top to bottom) with its confidence interval; systems tested
    against a baseline in a second colour, labelled with their significance marker (▲ better, ▼ worse)."""
    systems = [s for s in (systems or cmp.systems) if s in cmp.means[measure]]
    groups: dict[str, list[str]] = {"baselines": [], "tested": []}
    for s in systems:
        groups["tested" if cmp.tested_against(s) else "baselines"].append(s)
    series = []
    for name, members in groups.items():
        if not members:
            continue
        hover, labels = [], []
        for s in members:
            h = f"{s}: {cmp.means[measure][s]:.4f}{_ci_text(cmp, s, measure)}"
            base = cmp.tested_against(s)
            pc = cmp.baseline_pair(s, measure)
            if pc is not None:
                h += f"\nvs {base}: adjusted p = {fmt_p(pc.p_adjusted, cmp.samples)}"
            hover.append(h)
            labels.append(cmp.markers(s, measure))
        lo = [cmp.mean_ci.get(measure, {}).get(s, (np.nan, np.nan))[0] for s in members]
        hi = [cmp.mean_ci.get(measure, {}).get(s, (np.nan, np.nan))[1] for s in members]
        label = "tested against a baseline" if name == "tested" else "baselines / untested"
        series.append(Series(label, [cmp.means[measure][s] for s in members], members, mode="markers",
                             err_low=lo, err_high=hi, hover=hover, labels=labels))
    arrow = "higher is better" if cmp.direction(measure) else "lower is better"
    height = 110 + 22 * len(systems)
    ci = f"{round(cmp.confidence * 100)}% CI"
    return Chart(title if title is not None else f"{measure} ({arrow}; {ci})", measure, "", series,
                 horizontal=True, height=height)


def distribution_chart(values: Mapping[str, np.ndarray], measure: str, higher_is_better: bool = True, *,
                       points: int = 101, title: str | None = None) -> Chart:
    """Empirical CDF of the per-user values of `measure`, one step line per system: the share of users whose value
    is at most x. At most `points` steps per line (at the quantiles 0, 1/(points − 1), …, 1; inverted-CDF, so every
    step is at a value some user has)."""
    series = []
    for s, v in values.items():
        v = np.asarray(v, dtype=np.float64)
        v = v[~np.isnan(v)]
        if not len(v):
            continue
        q = np.linspace(0.0, 1.0, min(points, len(v) + 1))
        x = np.unique(np.quantile(v, q, method="inverted_cdf"))
        share = np.searchsorted(np.sort(v), x, side="right") / len(v)
        below = np.concatenate([[0.0], share[:-1]])  # a step at each value: (x, share below), (x, share at)
        hover = [f"{s}: {f:.0%} of {len(v)} users ≤ {x_:.4f}" for x_, f in zip(x, share)]
        series.append(Series(str(s), np.repeat(x, 2), np.column_stack([below, share]).ravel(), mode="lines",
                             hover=[h for h in hover for _ in (0, 1)]))
    arrow = "higher is better" if higher_is_better else "lower is better"
    height = 400 + 21 * math.ceil(len(series) / 2)
    return Chart(title if title is not None else f"{measure}: per-user values", f"{measure} ({arrow})",
                 "share of users ≤ value", series, y_range=(0.0, 1.02), height=height)


def close(fig: Figure) -> None:
    """Release a figure (figures made here are not registered with pyplot; closing one that is does no harm)."""
    import matplotlib.pyplot as plt

    plt.close(fig)
