"""Repeated and resumed runs are byte-identical, plots included: a saved figure carries no creation date and no
random element ids (recdiv.eval.charts.save)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
from recdiv.eval.charts import Chart, Series, save, to_matplotlib
chart = Chart("t", "x", "y", [Series(f"s{i}", [1, 2, 3], [i, i + 1, i * 2], err_low=[0, 0, 0], err_high=[i, i, i])
                              for i in range(4)], hline=1.0)
save(to_matplotlib(chart), sys.argv[1])
"""


@pytest.mark.parametrize("fmt", ["svg", "pdf"])
def test_saved_figures_are_the_same_bytes_in_two_processes(tmp_path, fmt):
    paths = [tmp_path / f"a.{fmt}", tmp_path / f"b.{fmt}"]
    for p in paths:
        subprocess.run([sys.executable, "-c", SCRIPT, str(p)], check=True, timeout=120)
    a, b = (p.read_bytes() for p in paths)
    assert a == b
    if fmt == "svg":
        assert b"<dc:date>" not in a
