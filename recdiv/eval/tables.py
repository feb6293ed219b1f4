"""Tables of system means with significance markers, written once and rendered as text, Markdown, LaTeX or HTML.

A `MeansTable` is what `Comparison` (and so `recdiv compare` and the experiment report) hands to the renderers:
leading columns (system letter or name, baseline), one column per measure, and per cell the formatted mean,
whether it is the best of its column (by the measure's direction: higher or lower is better), its significance
marker, its confidence interval and its p-value. Every renderer draws the same cells.

LaTeX output compiles with pdflatex in a plain ``article`` with ``\\usepackage{booktabs,amssymb,graphicx}`` (the
header comment of `to_latex` names them): text is escaped, Greek letters and symbols are math macros, markers and
the best-value style are macros the user can redefine (``\\recdivup``, ``\\recdivdown``, ``\\recdivsig{ab}``,
``\\recdivbest{…}``; defined with ``\\providecommand``, so a definition made before ``\\input`` wins), and wide
tables are split into column groups and shrunk to the line width when still too wide.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from recdiv.escape import DOWN, UP, markdown
from recdiv.escape import html as e
from recdiv.escape import latex as tex


class Compared(Protocol):
    """What the charts (`recdiv.eval.plots`) and the results page (`recdiv.eval.report`) read of a comparison:
    `recdiv.eval.comparison.Comparison`, which draws its page with them (`Comparison.to_html`) — typed by this
    protocol, they need not import it, and the imports stay one way."""

    systems: list[str]
    measures: list[str]
    means: dict[str, dict[str, float]]
    pairs: list[Any]
    mean_ci: dict[str, dict[str, tuple[float, float]]]
    confidence: float
    samples: int

    def tested_against(self, system: str) -> str | None: ...

    def baseline_pair(self, system: str, measure: str) -> Any: ...

    def markers(self, system: str, measure: str) -> str: ...

    def direction(self, measure: str) -> bool: ...

    def means_table(self, digits: int = 4, lead: str = "letter", note: str | None = None) -> MeansTable: ...


#: LaTeX packages the tables need (named in the header comment of every LaTeX output)
LATEX_PACKAGES = ("booktabs", "amssymb", "graphicx")

LATEX_MACROS = "\n".join([
    r"\providecommand{\recdivup}{\ensuremath{^{\blacktriangle}}}",
    r"\providecommand{\recdivdown}{\ensuremath{^{\blacktriangledown}}}",
    r"\providecommand{\recdivsig}[1]{\ensuremath{^{\mathrm{#1}}}}",
    r"\providecommand{\recdivbest}[1]{\textbf{#1}}",
])


def latex_header(what: str) -> str:
    """The header comment naming the packages, and the marker macros."""
    return (f"% {what} (recdiv). Needs \\usepackage{{{','.join(LATEX_PACKAGES)}}} in a plain article;\n"
            "% redefine \\recdivup, \\recdivdown, \\recdivsig{letters} or \\recdivbest{value} before \\input to "
            "restyle markers.\n" + LATEX_MACROS + "\n")


@dataclass
class Cell:
    """One mean: text (formatted value), best (bold), marker (▲, ▼ or letters), ci and p texts, hover title."""

    text: str
    best: bool = False
    marker: str = ""
    ci: str = ""
    p: str = ""
    title: str = ""


@dataclass
class MeansTable:
    """Rows of leading cells (e.g. letter and system, or system and baseline) and one `Cell` per measure."""

    head: list[str]
    measures: list[str]
    lead: list[list[str]]
    cells: list[list[Cell | None]]
    note: str = ""
    directions: list[bool] = field(default_factory=list)  # higher is better, per measure

    def measure_head(self, j: int, arrow: bool) -> str:
        if not arrow or not self.directions:
            return self.measures[j]
        return self.measures[j] + (" ↑" if self.directions[j] else " ↓")


# plain text and Markdown ------------------------------------------------------------------------------------------
#: the width terminal tables fit (`to_text`): the common terminal width, whatever the current window
TEXT_WIDTH = 120


def to_text(t: MeansTable, width: int = TEXT_WIDTH) -> str:
    """A terminal table: fixed-width columns, the marker after each value (▲/▼ or letters), `*` after the best of
    each column and nothing else; measure columns that do not fit `width` continue in further blocks that repeat
    the leading columns (Markdown, with its `<sup>` tags, is for files)."""
    head = [t.measure_head(j, True) for j in range(len(t.measures))]
    n = len(t.measures)
    best = [any(c is not None and c.best for c in (cells[j] for cells in t.cells)) for j in range(n)]
    mark = [max([0, *(len(c.marker) for c in (cells[j] for cells in t.cells) if c is not None)]) for j in range(n)]
    vw = [max([0, *(len(c.text) for c in (cells[j] for cells in t.cells) if c is not None)]) for j in range(n)]
    body = [["" if c is None else c.text.rjust(vw[j]) + ("*" if c.best else " " if best[j] else "")
             + c.marker.ljust(mark[j]) for j, c in enumerate(cells)] for cells in t.cells]
    lead_rows = [t.head, *t.lead]
    lead_w = [max(len(r[i]) for r in lead_rows) for i in range(len(t.head))]
    col_w = [max([len(head[j]), *(len(r[j]) for r in body)]) for j in range(len(head))]
    used = sum(lead_w) + 2 * (len(lead_w) - 1)
    blocks, cur, at = [], [], used
    for j, w in enumerate(col_w):
        if cur and at + 2 + w > width:
            blocks.append(cur)
            cur, at = [], used
        cur.append(j)
        at += 2 + w
    blocks.append(cur)
    out = []
    for cols in blocks:
        rows = [[*t.head, *(head[j] for j in cols)]] + [[*lead, *(r[j] for j in cols)]
                                                         for lead, r in zip(t.lead, body)]
        widths = [*lead_w, *(col_w[j] for j in cols)]
        out.append("\n".join("  ".join(c.ljust(w) if i < len(t.head) else c.rjust(w)
                                        for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows))
    return "\n\n".join(out) + "\n" + (f"* best of the column. {t.note}\n" if t.note else "")


def to_markdown(t: MeansTable) -> str:
    head = [markdown(h) for h in t.head + [t.measure_head(j, True) for j in range(len(t.measures))]]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(t.head) + ["---:"] * len(t.measures)) + "|"]
    for lead, cells in zip(t.lead, t.cells):
        out = []
        for c in cells:
            if c is None:
                out.append("")
                continue
            v = f"**{markdown(c.text)}**" if c.best else markdown(c.text)
            out.append(v + (f"<sup>{markdown(c.marker)}</sup>" if c.marker else ""))
        lines.append("| " + " | ".join([*map(markdown, lead), *out]) + " |")
    return "\n".join(lines) + "\n" + (f"\n{markdown(t.note)}\n" if t.note else "")


# LaTeX --------------------------------------------------------------------------------------------------------------
def _tex_cell(c: Cell | None) -> str:
    if c is None:
        return ""
    v = rf"\recdivbest{{{c.text}}}" if c.best else c.text
    if c.marker == UP:
        v += r"\recdivup{}"
    elif c.marker == DOWN:
        v += r"\recdivdown{}"
    elif c.marker:
        v += rf"\recdivsig{{{tex(c.marker)}}}"
    return v


def to_latex(t: MeansTable, caption: str | None = None, label: str | None = None, *, max_measures: int = 6,
             header: bool = True) -> str:
    """booktabs `table` environments: at most `max_measures` measure columns each (more are split into several
    tables, 'continued'), every tabular shrunk to the line width if it is still wider."""
    caption = caption if caption is not None else t.note
    groups = [list(range(i, min(i + max_measures, len(t.measures))))
              for i in range(0, max(len(t.measures), 1), max_measures)] or [[]]
    out = [latex_header("Table of system means")] if header else []
    for g, cols in enumerate(groups):
        spec = "l" * len(t.head) + "r" * len(cols)
        lines = [r"\begin{table}[tbp]", r"\centering",
                 r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
                 rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                 " & ".join([*map(tex, t.head), *(tex(t.measure_head(j, True)) for j in cols)]) + r" \\",
                 r"\midrule"]
        for lead, cells in zip(t.lead, t.cells):
            lines.append(" & ".join([*map(tex, lead), *(_tex_cell(cells[j]) for j in cols)]) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}}"]
        cap = tex(caption or "")
        if len(groups) > 1:
            cap += f" (part {g + 1} of {len(groups)})"
        if cap:
            lines.append(rf"\caption{{{cap}}}")
        if label:
            lines.append(rf"\label{{{label}{'' if g == 0 else f'-{g + 1}'}}}")
        lines.append(r"\end{table}")
        out.append("\n".join(lines))
    return "\n".join(out) + "\n"


def latex_label(*parts: str) -> str:
    return "tab:" + re.sub(r"[^A-Za-z0-9]+", "-", "-".join(parts)).strip("-")


# HTML ---------------------------------------------------------------------------------------------------------------
def to_html(t: MeansTable, *, details: bool = True) -> str:
    """A table in a horizontally scrolling wrapper; best values bold, markers as superscripts, CIs and p-values
    in smaller type under each mean (class ``detail``), everything also in the cell's hover title."""
    arrows = [t.measure_head(j, True) for j in range(len(t.measures))]
    head = "".join(f"<th>{e(h)}</th>" for h in t.head)
    ups = [not t.directions or t.directions[j] for j in range(len(t.measures))]
    head += "".join(f'<th title="{"higher" if up else "lower"} is better">{e(a)}</th>' for a, up in zip(arrows, ups))
    body = []
    for lead, cells in zip(t.lead, t.cells):
        tds = [f"<td class='lead'>{e(x)}</td>" for x in lead]
        for c in cells:
            if c is None:
                tds.append("<td></td>")
                continue
            cls = "num best" if c.best else "num"
            mk = ""
            if c.marker:
                kind = "up" if c.marker == UP else "down" if c.marker == DOWN else "sig"
                mk = f"<sup class='{kind}'>{e(c.marker)}</sup>"
            val = f"<b>{e(c.text)}</b>" if c.best else e(c.text)
            extra = ""
            if details and (c.ci or c.p):
                extra = "".join(f"<span class='detail'>{e(x)}</span>" for x in (c.ci, c.p) if x)
            tds.append(f"<td class='{cls}' title='{e(c.title)}'>{val}{mk}{extra}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    note = f"<p class='note'>{e(t.note)}</p>" if t.note else ""
    return (f"<div class='table-wrap'><table class='means'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}"
            f"</tbody></table></div>{note}")


# numbers ------------------------------------------------------------------------------------------------------------
def fmt_value(v: float, digits: int = 4, integer: bool = False) -> str:
    if v is None or not math.isfinite(v):
        return "–" if v is None or math.isnan(v) else ("∞" if v > 0 else "−∞")
    if integer:
        return str(round(v))
    return f"{v:.{digits}f}"


def fmt_p(p: float, samples: int = 0) -> str:
    """A p-value for a table; with the B `samples` of a Monte Carlo test, one below its resolution 1/B (a count of
    0) is "< 1/B", never 0."""
    if p is None or not math.isfinite(p):
        return "–"
    if samples and p < 1.0 / samples:
        return f"< 1/{samples}"
    if p < 1e-4:
        return "<0.0001"
    return f"{p:.4f}" if p < 0.001 else f"{p:.3f}"
