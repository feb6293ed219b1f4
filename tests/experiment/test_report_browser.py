"""The demo report as a reader sees it: headless Chromium at 1280 px (Debian `chromium`; .ci/run installs it).

Checks that nothing overflows the page (wide tables scroll inside their own box), that every chart is drawn at
least as wide as it is displayed (vector SVG sized to its box, never a shrunken bitmap), that no chart text is
clipped and that the page fetches nothing (plotly.js is embedded; the report works offline).
"""

from __future__ import annotations

import os
import shutil

import pytest

from recdiv.experiment.run.demo import run_demo
from tests.browser import layout_check


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/run installs Debian's chromium)")
        pytest.skip("chromium is not installed")
    out = tmp_path_factory.mktemp("demo")
    run_demo(out, progress=False)
    return out / "report.html"


@pytest.mark.slow
def test_demo_report_layout_at_1280(demo_report):
    layout = layout_check(demo_report, width=1280)
    assert layout["width"] == 1280
    assert layout["page_overflow"] == 0, layout["overflowing"][:5]
    assert layout["overflowing"] == []
    assert layout["resources"] == []  # nothing fetched: offline
    charts = layout["charts"]
    assert len(charts) == 3 + 9  # three trade-off charts, one means chart per measure
    for c in charts:
        assert c["displayed"] >= 500, c  # two columns at most at 1280 px
        assert c["drawn"] >= c["displayed"] - 2 and c["svg_width"] >= c["displayed"] - 2, c
    assert layout["clipped_text"] == []
    assert all(im["natural"] >= im["displayed"] for im in layout["images"])


@pytest.mark.slow
def test_demo_report_at_a_narrow_window(demo_report):
    """At 800 px the charts take one column and the wide table scrolls inside its box, not the page."""
    layout = layout_check(demo_report, width=800)
    assert layout["page_overflow"] == 0 and layout["overflowing"] == []
    assert all(c["drawn"] >= c["displayed"] - 2 for c in layout["charts"])
