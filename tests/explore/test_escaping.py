"""Text from data files in the explorer: titles, aspect names and system labels reach the page as text nodes with
their control characters made visible (recdiv.escape.visible); chart text goes through the charts' plotly escaping,
so a hover line break is a newline in the data (not markup)."""

from __future__ import annotations

from recdiv.eval.charts import Chart, Series, to_plotly
from recdiv.explore import page, views


class _Items:
    def describe(self, item_id):
        return "Clear\x1b[2J<img src=x onerror=alert(1)>", ["hip\u202ehop", "ok"]


def test_item_titles_and_aspects_show_their_control_characters():
    d = views._item(_Items(), "i1", rank=1)
    assert d == {"item": "i1", "title": "Clear\\u001b[2J<img src=x onerror=alert(1)>",
                 "aspects": ["hip\\u202ehop", "ok"], "rank": 1}


def test_hover_lines_are_newlines_and_labels_are_escaped_for_plotly():
    chart = Chart("t", "x", "y", [Series("A: <b>MMR</b>", [0.1], [0.2], hover=["A <i>\nx = 0.1000"])])
    trace = to_plotly(chart)["data"][0]
    assert trace["hovertext"] == ["A &lt;i&gt;<br>x = 0.1000"]
    assert "<b>" not in trace["name"]


def test_the_page_escapes_its_state_and_message():
    html = page.page_html('"><script>x</script>', problem="bad \x1b[31m<b>")
    assert "<script>x" not in html and "\x1b" not in html and "\\u001b[31m&lt;b&gt;" in html
