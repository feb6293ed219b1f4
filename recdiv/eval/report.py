"""The results page: one comparison of systems as a self-contained HTML page — the page of `recdiv compare --html`
and of `Comparison.to_html()` in Python.

A section holds the systems × measures table (means with confidence intervals, markers of the paired tests, p-values
on demand), every tested pair (difference and its interval, p-value, adjusted p-value, effect size d_z), the
accuracy–diversity trade-off charts, the mean of every measure with its interval, and the distribution of the
per-user values of every measure (empirical CDF per system). Charts are `recdiv.eval.charts.Chart` descriptions,
drawn by plotly.js embedded in the page (`recdiv.eval.html.Page`): the page opens offline.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from recdiv.eval import tables
from recdiv.eval.html import Page

if TYPE_CHECKING:
    from recdiv.eval.charts import Chart
    from recdiv.eval.tables import Compared

__all__ = ["comparison_page", "comparison_section", "default_tradeoffs", "pairs_html"]

TRADEOFF_NOTE = ("Each point is one system's means on the two measures. Hover for exact values and confidence "
                 "intervals; click a legend entry to hide or show it; drag to zoom, double-click to reset.")


def default_tradeoffs(measures: Sequence[str], limit: int = 4) -> list[tuple[str, str]]:
    """(first accuracy measure, each measure of another family) — at most `limit` trade-off charts."""
    from recdiv.errors import RecdivError
    from recdiv.eval.catalog import parse_measure

    def family(m: str) -> str:
        try:
            return parse_measure(m).FAMILY
        except RecdivError:  # a name that does not parse still gets a table row, just no default chart
            return "unknown"

    kinds = {m: family(m) for m in measures}
    acc = [m for m, k in kinds.items() if k == "accuracy"]
    other = [m for m, k in kinds.items() if k not in ("accuracy", "system", "unknown", "preference")]
    return [(acc[0], m) for m in other[:limit]] if acc else []


def pairs_html(cmp: Compared, samples: int = 0) -> str:
    """Every tested pair: difference, its confidence interval, p-value, adjusted p-value, effect size (collapsed);
    `samples`: the B of a Monte Carlo test, whose p-values below 1/B are written "< 1/B" (`tables.fmt_p`)."""
    from recdiv.escape import html as e  # names from files: control characters dropped too

    rows = []
    for pc in cmp.pairs:
        rows.append(f"<tr><td>{e(pc.a)}</td><td>{e(pc.b)}</td><td>{e(pc.measure)}</td>"
                    f"<td class='num'>{pc.difference:+.4f}</td>"
                    f"<td class='num'>[{pc.ci_low:+.4f}, {pc.ci_high:+.4f}]</td>"
                    f"<td class='num'>{tables.fmt_p(pc.p_value, samples)}</td>"
                    f"<td class='num'>{tables.fmt_p(pc.p_adjusted, samples)}</td>"
                    f"<td class='num'>{pc.effect_size:+.3f}</td><td>{'yes' if pc.significant else ''}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("system", "baseline", "measure", "Δ mean", "CI of Δ", "p",
                                             "adjusted p", "d_z", "significant"))
    return (f"<details><summary>All {len(cmp.pairs)} tested pairs (difference, its confidence interval, p-values, "
            f"effect size)</summary><div class='table-wrap'><table class='pairs'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div></details>")


def comparison_section(page: Page, cmp: Compared, res=None, *, note: str | None = None,
                       lead: str = "letter", tradeoffs: Sequence[tuple[str, str]] | None = None,
                       curves: Mapping[str, Sequence[tuple[str, str]]] | None = None,
                       points: Sequence[str] | None = None, systems: Sequence[str] | None = None,
                       title: str = "", tradeoff_note: str = TRADEOFF_NOTE) -> list[Chart]:
    """Append one comparison to `page`: the means table (`note` under it, default the comparison's own), the tested
    pairs, the trade-off charts (`tradeoffs`, default `default_tradeoffs`; `curves` and `points` as
    `recdiv.eval.plots.tradeoff_chart`, default every system a point), the means with their intervals and, given
    the `recdiv.eval.results.Results` compared (`res`), the per-user distributions. `systems`: those drawn in the
    means and distribution charts (default all); `title` prefixes the chart titles. Returns the charts drawn, in
    page order."""
    from recdiv.eval.plots import distribution_chart, means_chart, tradeoff_chart

    page.add(tables.to_html(cmp.means_table(4, lead=lead, note=note)))
    if cmp.pairs:
        page.add(pairs_html(cmp))
    pairs = default_tradeoffs(cmp.measures) if tradeoffs is None else tradeoffs
    if curves is None and points is None:  # every system a point of its own colour
        curves, points = {s: [(s, "")] for s in cmp.systems}, []
    trade = [tradeoff_chart(cmp, x, y, curves or {}, points or [], title=f"{title}{y} vs {x}")
             for x, y in pairs if x in cmp.measures and y in cmp.measures]
    if trade:
        page.heading("Accuracy–diversity trade-off", 3).note(tradeoff_note).charts(trade, "tradeoff")
    means = [means_chart(cmp, m, systems) for m in cmp.measures]
    if means:
        page.heading(f"Means with {round(cmp.confidence * 100)}% confidence intervals", 3).charts(means, "means")
    dists = []
    if res is not None:
        shown = [s for s in (systems or res.systems) if s in res.systems]
        dists = [distribution_chart({s: res.per_user(s, m) for s in shown}, m, res.higher_is_better(m),
                                    title=f"{title}{m}: per-user values")
                 for m in cmp.measures if m in res.per_user_measures]
        if dists:
            page.heading("Per-user distributions", 3)
            page.note("Empirical distribution of the per-user values of each system: the share of users at or below "
                      "each value (a curve further right is better when higher is better). Hover for the quantiles.")
            page.charts(dists, "distributions")
    return trade + means + dists


def comparison_page(res, cmp: Compared | None, *, title: str = "recdiv comparison",
                    description: str = "", tradeoffs: Sequence[tuple[str, str]] | None = None,
                    groups: Mapping[str, Compared] | None = None, preferences: Sequence[str] = (),
                    provenance: dict | None = None) -> str:
    """The whole self-contained page of one comparison (`recdiv compare --html`; from Python
    `cmp.to_html()`, `res` = `cmp.results`): the section of `comparison_section`, then the comparisons inside user
    groups (collapsed) and the per-user preference tables (text) of pairwise measures, when given; the footer says
    what made the page (`provenance`, default the libraries and versions of this process)."""
    page = Page(title, provenance).heading(title, 1)
    if description:
        page.note(description)
    if cmp is not None:
        page.toggle()
        comparison_section(page, cmp, res, tradeoffs=tradeoffs)
    for g, c in (groups or {}).items():
        n = next(iter(c.n[c.measures[0]].values()))
        page.add(f"<details><summary>User group {html.escape(g)} — {n} users</summary>"
                 + tables.to_html(c.means_table(4)) + "</details>")
    if preferences:
        page.heading("Per-user preferences", 2)
        for text in preferences:
            page.add(f"<pre class='note'>{html.escape(text)}</pre>")
    return page.render()
