"""Charts described once and drawn by two renderers: Plotly (interactive, in HTML reports) and matplotlib (files,
notebooks, papers).

A `Chart` holds `Series` of points (lines, markers or both, optional error bars and per-point hover text and
labels), axis titles and a few options (reversed or logarithmic axes, a reference line). Every series gets a
distinct colour-and-marker pair (`style`): ten colours of the Okabe–Ito/Tableau colour-blind-safe palette, and a
marker that changes with the colour, so that no two of the first 100 series look alike and series stay apart in
greyscale. `to_plotly` gives the JSON figure that ``Plotly.newPlot`` draws (hover shows exact values and
intervals; clicking a legend entry hides or shows its series); `to_matplotlib` draws into a `Figure` made without
pyplot, so the caller's matplotlib backend and pyplot state are never touched. `axis_title` names a measure's axis
with which end is better, in words (trade-off charts of reports, `compare --html` and the explorer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from recdiv.escape import mathtext, plotly

COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B", "#882255", "#7F7F7F",
          "#17BECF")
#: (plotly symbol, matplotlib marker) pairs
MARKERS = (("circle", "o"), ("square", "s"), ("diamond", "D"), ("triangle-up", "^"), ("x", "X"),
           ("triangle-down", "v"), ("cross", "P"), ("pentagon", "p"), ("star-triangle-up", "h"), ("hexagram", "*"))


def style(i: int) -> tuple[str, str, str]:
    """(colour, plotly symbol, matplotlib marker) of series i: pairs differ for i < 100 (i = 10a + b gets colour b
    and marker (a + b) mod 10)."""
    a, b = divmod(i, len(COLORS))
    sym, mk = MARKERS[(a + b) % len(MARKERS)]
    return COLORS[b], sym, mk


@dataclass
class Series:
    """Points of one series. err_low/err_high: absolute bounds of an interval around each value (y, or x when the
    chart is horizontal). hover: text per point shown on hover (lines separated by newlines); labels: text drawn
    next to points ("" for none). All text is plain: the renderers escape it (`recdiv.escape`).
    emphasis: drawn as a large black star (a baseline among curves)."""

    name: str
    x: Sequence
    y: Sequence
    mode: str = "lines+markers"
    err_low: Sequence[float] | None = None
    err_high: Sequence[float] | None = None
    hover: Sequence[str] | None = None
    labels: Sequence[str] | None = None
    emphasis: bool = False


@dataclass
class Chart:
    """A chart. horizontal: values on x, categories (system names) on y, with error bars along x."""

    title: str
    xlabel: str
    ylabel: str
    series: list[Series] = field(default_factory=list)
    horizontal: bool = False
    reverse_x: bool = False
    log_y: bool = False
    y_range: tuple[float, float] | None = None
    x_range: tuple[float, float] | None = None
    hline: float | None = None
    height: int = 420  # pixels in HTML; matplotlib uses height / 100 inches

    def categories(self) -> list[str]:
        """Category labels of a horizontal chart, in the order they appear (top to bottom)."""
        return list(dict.fromkeys(str(c) for s in self.series for c in s.y))


#: in words, what the better end of an axis means for each family of measures (`Measure.FAMILY`)
BETTER_END = {"accuracy": "more accurate", "diversity": "more diverse", "intent-aware": "more diverse (intents)",
              "novelty": "more novel", "popularity": "less popular", "calibration": "better calibrated",
              "system": "more diverse (catalogue)", "fairness": "fairer", "rating": "more accurate",
              "preference": "more accurate", "unified": "better"}


def axis_title(measure: str, family: str | None = None, higher: bool | None = None) -> str:
    """An axis title saying in words which end is better: "ILD@10  (higher = more diverse)", so that a trade-off
    chart shows which end is more diverse whichever way a diversifier's λ runs (MMR's λ weighs relevance,
    xQuAD's diversity). `family` and `higher` (is higher better) are read from the measure when not given; a
    measure that does not parse keeps its name alone."""
    if family is None or higher is None:
        from recdiv.errors import ConfigError
        from recdiv.eval import parse_measure

        try:
            m = parse_measure(measure)
        except ConfigError:
            return measure
        family, higher = m.FAMILY, bool(m.HIGHER_IS_BETTER)
    return f"{measure}  ({'higher' if higher else 'lower'} = {BETTER_END.get(family, 'better')})"


def styled(chart: Chart):
    """(series, colour, plotly symbol, matplotlib marker) of every series: emphasised series are black stars, the
    others take `style(k)` in order."""
    k = 0
    for s in chart.series:
        if s.emphasis:
            yield s, "#000000", "star", "*"
        else:
            yield (s, *style(k))
            k += 1


def _finite(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


# plotly ---------------------------------------------------------------------------------------------------------------
def _p(text: object) -> str:
    """Plain text as plotly text: markup escaped, newlines as <br>."""
    return "<br>".join(plotly(line) for line in str(text).split("\n"))


def to_plotly(chart: Chart) -> dict:
    """{"data": [...], "layout": {...}} for ``Plotly.newPlot`` (plain JSON values; text escaped for plotly)."""
    data = []
    for s, color, sym, _ in styled(chart):
        xs = [_finite(v) for v in s.x]
        ys = [_p(v) for v in s.y] if chart.horizontal else [_finite(v) for v in s.y]
        mode = s.mode + ("+text" if s.labels and any(s.labels) else "")
        tr: dict = {"type": "scatter", "name": _p(s.name), "x": xs, "y": ys, "mode": mode,
                    "marker": {"color": color, "symbol": sym, "size": 14 if s.emphasis else 8,
                               "line": {"width": 0.5, "color": "#333"}},
                    "line": {"color": color, "width": 1.6}, "cliponaxis": False}
        if s.labels and any(s.labels):
            tr["text"] = [_p(t) for t in s.labels]
            tr["textposition"] = "middle right" if chart.horizontal else "top right"
            tr["textfont"] = {"size": 11, "color": color}
        if s.hover:
            tr["hovertext"] = [_p(h) for h in s.hover]
            tr["hoverinfo"] = "text+name"
            tr["hovertemplate"] = "%{hovertext}<extra>%{fullData.name}</extra>"
        if s.err_low is not None and s.err_high is not None:
            vals = xs if chart.horizontal else ys
            plus = [None if v is None or _finite(h) is None else max(_finite(h) - v, 0.0)
                    for v, h in zip(vals, s.err_high)]
            minus = [None if v is None or _finite(lo) is None else max(v - _finite(lo), 0.0)
                     for v, lo in zip(vals, s.err_low)]
            err = {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus, "color": color,
                   "thickness": 1.2, "width": 3}
            tr["error_x" if chart.horizontal else "error_y"] = err
        data.append(tr)
    xaxis: dict = {"title": {"text": _p(chart.xlabel)}, "automargin": True, "zeroline": False,
                   "gridcolor": "#e5e5e5"}
    yaxis: dict = {"title": {"text": _p(chart.ylabel)}, "automargin": True, "zeroline": False,
                   "gridcolor": "#e5e5e5"}
    if chart.reverse_x:
        xaxis["autorange"] = "reversed"
    if chart.x_range:
        xaxis["range"] = list(chart.x_range)
    if chart.log_y:  # 10⁻⁶, not plotly's SI "1µ"; no digit labels between the decades
        yaxis.update(type="log", exponentformat="power", minorloglabels="none")
    if chart.y_range:  # plotly takes the range of a log axis in log10 units
        yaxis["range"] = [math.log10(v) for v in chart.y_range] if chart.log_y else list(chart.y_range)
    if chart.horizontal:
        yaxis.update(type="category", categoryorder="array", categoryarray=[_p(c) for c in chart.categories()[::-1]],
                     title={"text": ""})
    layout: dict = {"title": {"text": _p(chart.title), "x": 0, "xanchor": "left", "font": {"size": 15}},
                    "xaxis": xaxis, "yaxis": yaxis, "height": chart.height, "autosize": True,
                    "margin": {"l": 10, "r": 20, "t": 50, "b": 10}, "hovermode": "closest",
                    "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13},
                    "legend": {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0,
                               "font": {"size": 12}},
                    "showlegend": len(data) > 1, "plot_bgcolor": "#ffffff", "paper_bgcolor": "#ffffff"}
    if chart.hline is not None:
        layout["shapes"] = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": chart.hline,
                             "y1": chart.hline, "line": {"color": "#888", "dash": "dash", "width": 1}}]
    return {"data": data, "layout": layout}


# matplotlib -----------------------------------------------------------------------------------------------------------
def to_matplotlib(chart: Chart, ax=None, *, width: float = 6.4):
    """Draw the chart into `ax`, or into a new `matplotlib.figure.Figure` (no pyplot); returns the Figure."""
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=(width, max(chart.height, 260) / 100), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    cats = chart.categories() if chart.horizontal else []
    pos = {c: len(cats) - 1 - i for i, c in enumerate(cats)}
    for s, color, _, mk in styled(chart):
        xs = [_nan(v) for v in s.x]
        ys = [pos[str(v)] for v in s.y] if chart.horizontal else [_nan(v) for v in s.y]
        ls = "-" if "lines" in s.mode else "none"
        size = 13 if s.emphasis else 5.5
        if s.err_low is not None and s.err_high is not None:
            vals = xs if chart.horizontal else ys
            lo = [max(v - _nan(e), 0.0) if math.isfinite(v) and math.isfinite(_nan(e)) else 0.0
                  for v, e in zip(vals, s.err_low)]
            hi = [max(_nan(e) - v, 0.0) if math.isfinite(v) and math.isfinite(_nan(e)) else 0.0
                  for v, e in zip(vals, s.err_high)]
            key = "xerr" if chart.horizontal else "yerr"
            ax.errorbar(xs, ys, **{key: [lo, hi]}, fmt=mk, ls=ls, color=color, ms=size, lw=1.2, capsize=2,
                        label=mathtext(s.name), elinewidth=0.9)
        else:
            ax.plot(xs, ys, marker=mk, ls=ls, color=color, ms=size, lw=1.3, label=mathtext(s.name),
                    markeredgecolor="#333", markeredgewidth=0.4)
        for x, y, t in zip(xs, ys, s.labels or []):
            if t:
                ax.annotate(mathtext(t), (x, y), xytext=(4, 4), textcoords="offset points", fontsize=8, color=color)
    if chart.horizontal:
        ax.set_yticks(range(len(cats)), [mathtext(c) for c in cats[::-1]], fontsize=8)
    if chart.reverse_x:
        ax.invert_xaxis()
    if chart.log_y:
        ax.set_yscale("log")
    if chart.y_range:
        ax.set_ylim(*chart.y_range)
    if chart.x_range:
        ax.set_xlim(*chart.x_range)
    if chart.hline is not None:
        ax.axhline(chart.hline, color="grey", ls="--", lw=0.8)
    ax.set_xlabel(mathtext(chart.xlabel))
    ax.set_ylabel(mathtext(chart.ylabel))
    if chart.title:
        ax.set_title(mathtext(chart.title), fontsize=10)
    ax.grid(alpha=0.3)
    if len(chart.series) > 1:
        ax.legend(fontsize="x-small", loc="best")  # `outside` placement would squeeze small axes
    return fig


def _nan(v) -> float:
    f = _finite(v)
    return math.nan if f is None else f


#: what makes a saved figure the same bytes every time: no creation date, element ids from a fixed salt
_REPRODUCIBLE = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}


def save(fig, path, fmt: str | None = None, dpi: int = 150) -> None:
    """Write a matplotlib Figure atomically (format from the suffix: png, svg or pdf), byte-identical for the same
    figure: SVG and PDF files carry no creation date, and SVG element ids come from a fixed salt instead of a
    random one."""
    from pathlib import Path

    import matplotlib

    from recdiv.outputs import atomic_write

    path = Path(path)
    fmt = fmt or path.suffix.lstrip(".") or "png"
    with atomic_write(path, "wb") as fh, matplotlib.rc_context({"svg.hashsalt": "recdiv"}):
        fig.savefig(fh, format=fmt, dpi=dpi, metadata=_REPRODUCIBLE.get(fmt))
