"""Self-contained HTML pages: the report stylesheet, tables (`recdiv.eval.tables.to_html`) and interactive charts.

Charts are drawn in the browser by plotly.js, **embedded in the page** (read from the installed ``plotly``
package), so a report opens offline and fetches nothing: no CDN, fonts or images from the network. Plotly draws
SVG sized to its container (legible at any width), shows exact values and confidence intervals on hover, hides
or shows a series when its legend entry is clicked, zooms on a dragged box and resets on a double click (no tool
bar: it would cover long titles). Why plotly.js: a well-kept library shipped inside a PyPI
package (no JavaScript build or vendored files), vector output, and hover/legend interaction without code of ours;
the cost is about 4.8 MB of script per report.
"""

from __future__ import annotations

import json
from importlib import resources

from recdiv.errors import ConfigError
from recdiv.escape import html, script_json
from recdiv.eval.charts import Chart, to_plotly

CSS = """*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;padding:1.5rem 2rem;
max-width:1240px;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin:.2em 0}h2{font-size:1.3rem;margin-top:2em;border-bottom:1px solid #ddd}
h3{font-size:1.08rem;margin-top:1.6em}
.note{color:#555;font-size:.88rem;max-width:100%;overflow-wrap:anywhere}
.table-wrap{max-width:100%;max-height:78vh;overflow:auto;border:1px solid #ddd;margin:.8em 0}
table.means,table.pairs{border-collapse:collapse;font-size:.85rem}
table.means th,table.means td,table.pairs th,table.pairs td{border-bottom:1px solid #e4e4e4;padding:4px 8px;
vertical-align:top;white-space:nowrap}
table.means thead th,table.pairs thead th{position:sticky;top:0;background:#f3f3f3;text-align:right}
table.means thead th:nth-child(-n+2),table.pairs thead th{text-align:left}
table.means td.lead:first-child{position:sticky;left:0;background:#fff;font-weight:500}
td.num{text-align:right;font-variant-numeric:tabular-nums}td.best{background:#eef6ee}
sup.up{color:#1a7f37}sup.down{color:#c0392b}sup.sig{color:#1f5fa0}
.detail{display:block;font-size:.74rem;color:#666}
.hide-details .detail{display:none}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:14px}
.chart{width:100%;min-width:0;border:1px solid #eee}
details{margin:.6em 0}summary{cursor:pointer;color:#1f5fa0}
label.toggle{font-size:.85rem;color:#444}
footer.provenance{margin-top:3em;color:#777;font-size:.75rem;overflow-wrap:anywhere}
pre{max-width:100%;overflow-x:auto}
"""

_TOGGLE = ("<label class='toggle'><input type='checkbox' checked "
           "onchange=\"document.body.classList.toggle('hide-details',!this.checked)\"> show confidence intervals "
           "and p-values in the tables</label>")


def plotly_js() -> str:
    """The plotly.js bundle of the installed ``plotly`` package."""
    try:
        return (resources.files("plotly") / "package_data" / "plotly.min.js").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        raise ConfigError("HTML reports need the `plotly` package (pip install plotly)") from None


class Page:
    """An HTML page under construction: append HTML fragments and charts, then `render()`."""

    def __init__(self, title: str, provenance: dict | None = None):
        self.title = title
        self.parts: list[str] = []
        self._n = 0
        self.provenance = provenance  # what made the page (`recdiv.provenance.record`): its footer

    def add(self, fragment: str) -> Page:
        self.parts.append(fragment)
        return self

    def heading(self, text: str, level: int = 2) -> Page:
        return self.add(f"<h{level}>{html(text)}</h{level}>")

    def note(self, text: str) -> Page:
        return self.add(f"<p class='note'>{html(text)}</p>")

    def toggle(self) -> Page:
        return self.add(_TOGGLE)

    def chart_html(self, chart: Chart) -> str:
        """A div and the script that draws `chart` into it."""
        self._n += 1
        cid = f"chart{self._n}"
        spec = to_plotly(chart)
        payload = script_json(json.dumps(spec, ensure_ascii=False, allow_nan=False, separators=(",", ":")))
        label = html(chart.title or "chart")
        return (f"<div class='chart' id='{cid}' role='img' aria-label='{label}' style='height:{chart.height}px'>"
                f"</div><script>(function(){{var s={payload};Plotly.newPlot('{cid}',s.data,s.layout,"
                "{responsive:true,displayModeBar:false});})();</script>")

    def charts(self, charts: list[Chart], kind: str = "") -> Page:
        """A responsive grid of charts (two columns on wide windows); `kind` is an extra CSS class."""
        if charts:
            self.add(f"<div class='charts {kind}'>" + "".join(self.chart_html(c) for c in charts) + "</div>")
        return self

    def render(self) -> str:
        """The page; its footer says what made it (recdiv and library versions, the command when known)."""
        from recdiv import provenance

        script = f"<script>{plotly_js()}</script>" if self._n else ""
        return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
                f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
                f"<title>{html(self.title)}</title><style>{CSS}</style>{script}</head><body>"
                + "".join(self.parts) + provenance.html_footer(self.provenance or provenance.record())
                + "</body></html>\n")

