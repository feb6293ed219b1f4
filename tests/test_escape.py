"""Every output format × hostile text (recdiv.escape): no byte from a data file reaches a terminal, Markdown, HTML,
LaTeX, CSV, plotly or matplotlib text unescaped — and the escaping keeps the text readable."""

from __future__ import annotations

import csv
import html as std_html
import io
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv import escape

HOSTILE = ["\x1b[2J", "\x1b]0;title\x07", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "a|b",
           "line\nbreak", "cr\rreturn", "`code`", "**bold**", "[link](http://x)", "# heading", "- item", "1. one",
           "=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\u202eevil\u202c", "\u2066iso\u2069", "x\x9b31m",
           "$x^2$", "a_b_c", "_em_", "&amp;", "\\", "{}%#~^", "é ü τ ≥", "\x00nul", "\x7fdel", "<!--", "</script>"]
TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40),
                 st.lists(st.sampled_from([*HOSTILE, "x", " ", "0"]), max_size=6).map("".join))
INVISIBLE = re.compile(escape._INVISIBLE_ALL)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_terminal_text_holds_no_control_character(s):
    out = escape.terminal(s)
    assert not re.search(f"[{escape._INVISIBLE}]", out)
    assert out.count("\n") == s.count("\n")  # lines stay lines
    assert json.loads(json.dumps(out)) == out


def _unescaped(md: str) -> str:
    """Markdown text without its backslash escapes: what markup could act on."""
    return re.sub(r"\\.", "", md)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_markdown_cell_stays_one_plain_cell(s):
    out = escape.markdown(s)
    bare = _unescaped(out)
    assert "\n" not in out and "\r" not in out
    assert not set("|<>`*~&$") & set(bare)
    assert "](" not in bare and "][" not in bare  # no link
    assert not INVISIBLE.search(out)
    assert not re.match(r"\s*([#+=-]+(\s|$)|\d+[.)](\s|$))", out)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_csv_cells_are_never_formulas(s):
    buf = io.StringIO()
    csv.writer(buf).writerow([escape.csv_cell(s), 1.5])
    (cell, num), = csv.reader(io.StringIO(buf.getvalue()))
    assert num == "1.5"
    if cell and cell[0] in "=+-@\t\r":
        assert re.fullmatch(escape._NUMBER, cell)
    assert cell == s or cell == "'" + s


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_html_and_plotly_text_hold_no_markup(s):
    for out in (escape.html(s), escape.plotly(s)):
        assert "<" not in out and ">" not in out
        assert not re.search(f"[{escape._INVISIBLE}]", out)
    assert '"' not in escape.html(s) and "'" not in escape.html(s)
    assert std_html.unescape(escape.html(s)) == escape.visible(s, keep_lines=True)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_latex_is_plain_ascii_with_specials_escaped(s):
    out = escape.latex(s)
    assert all(" " <= c < "\x7f" for c in out)
    accents = r"\\[\^`'\"~=.]\{\\?[A-Za-z]\}|\\[a-zA-Z]\{\\?[A-Za-z]\}"  # \^{A}, \'{e}, \c{c}, \H{O}
    bare = re.sub(accents + r"|\\ensuremath\{[^}]*\}|\\[a-zA-Z]+(\{\})?|\\[&%$#_{}]", "", out)
    assert not set("&%$#_^") & set(bare)  # ~ is only the non-breaking space; accents are LaTeX commands


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_script_json_cannot_end_the_script(s):
    payload = escape.script_json(json.dumps({"name": s}, ensure_ascii=False))
    low = payload.lower()
    assert "</" not in low and "<!--" not in low
    assert json.loads(payload.replace("\\u003c!", "<!").replace("<\\/", "</"))["name"] == s


def test_matplotlib_draws_hostile_labels():
    """A `$` in a run name would start mathtext (and a malformed formula stops the drawing)."""
    from recdiv.eval.charts import Chart, Series, to_matplotlib

    names = [*HOSTILE, "$\\frac{", "a$b", "$$"]
    chart = Chart("t $ \\", "x$", "y", [Series(n, [1, 2], [1, 2], labels=[n, ""]) for n in names])
    fig = to_matplotlib(chart)
    buf = io.BytesIO()
    fig.savefig(buf, format="svg")
    assert b"<script" not in buf.getvalue()


def test_plotly_figure_escapes_every_text_field():
    from recdiv.eval.charts import Chart, Series, to_plotly

    bad = "<b onmouseover=x>&"
    chart = Chart(bad, bad, bad, [Series(bad, [1], [bad], labels=[bad], hover=[f"{bad}\nsecond line"])],
                  horizontal=True)
    text = json.dumps(to_plotly(chart))
    assert "<b onmouseover" not in text and "&lt;b onmouseover=x&gt;&amp;" in text
    assert "&amp;<br>second line" in text  # newlines of hover text become plotly's line breaks
