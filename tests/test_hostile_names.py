"""Text from data files in every output format of every command, end to end: run files named with Markdown, HTML,
LaTeX and spreadsheet markup, and escape sequences, go through `compare` (table, Markdown, LaTeX, JSON), `eval`
(table, CSV, JSON) and `meta` (text, HTML) without breaking a table, injecting markup or reaching the terminal raw."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from recdiv.cli import main

RUN = "".join(f"u{u} Q0 i{i} {r} {10 - r} sys\n" for u in range(1, 6) for r, i in enumerate(range(u, u + 6), 1))
RUN2 = "".join(f"u{u} Q0 i{i} {r} {10 - r} two\n" for u in range(1, 6) for r, i in enumerate(range(9, 2, -1), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(1, 6) for i in range(1, 11))
NAMES = {"md": "a|b <script>alert(1)<", "tex": "x_&%$#{}~^\\", "csv": "=HYPERLINK(\"x\")", "esc": "\x1b[2Jred"}


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.qrels").write_text(QRELS, "utf-8")
    for i, name in enumerate(NAMES.values()):
        (tmp_path / f"{name}.run").write_text(RUN if i % 2 else RUN2, "utf-8")
    return tmp_path


def _run(capsys, *argv) -> str:
    assert main(list(argv)) == 0
    cap = capsys.readouterr()
    assert "\x1b" not in cap.out and "\x1b" not in cap.err
    return cap.out


def _runs():
    return [f"{n}.run" for n in NAMES.values()]


def test_compare_markdown_keeps_one_row_per_run_and_no_html(files, capsys):
    out = _run(capsys, "compare", "t.qrels", *_runs(), "-m", "P@5", "--format", "markdown")
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(NAMES)  # header, rule, one row per run
    assert all(len(re.findall(r"(?<!\\)\|", r)) == len(re.findall(r"(?<!\\)\|", rows[0])) for r in rows)
    assert "<script>" not in out and r"\<script\>" in out


def test_compare_preference_markdown_escapes_names_not_its_own_markers(files, capsys):
    out = _run(capsys, "compare", "t.qrels", *_runs(), "-m", "lexirecall@5", "--baseline", f"{NAMES['md']}.run",
               "--format", "markdown")
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == len(NAMES) - 1 and all(r"a\|b \<script\>alert(1)\<" in r for r in rows)
    assert all(len(re.findall(r"(?<!\\)\|", r)) == 9 for r in rows)
    from recdiv.workflows.compare import format_preferences

    row = {"a": "x*y", "b": "b", "wins": 3, "ties": 0, "losses": 1, "effect_size": 0.5, "p_value": 0.01,
           "p_adjusted": 0.02, "significant": True}
    md = format_preferences({"pairs": [row], "measure": "m", "alternative": "two-sided", "correction": "holm",
                              "alpha": 0.05}, "markdown")
    assert "| x\\*y | b | 3 | 0 | 1 | +0.5000 | 0.01 | 0.02 * |" in md  # the marker is recdiv's: as written


def test_compare_latex_escapes_every_special_character(files, capsys):
    out = _run(capsys, "compare", "t.qrels", *_runs(), "-m", "P@5", "--format", "latex")
    body = [line for line in out.splitlines() if not line.startswith("%") and "&" in line]
    assert r"x\_\&\%\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}" in out
    assert all(re.search(r"(?<!\\)[%$#_^~]", line.replace(r"\%", "")) is None for line in body)


def test_eval_csv_cells_are_never_formulas(files, capsys):
    out = _run(capsys, "eval", "t.qrels", *_runs(), "-m", "P@5", "--format", "csv")
    cells = [row[0] for row in csv.reader(io.StringIO(out))]
    assert f"'{NAMES['csv']}" in cells and NAMES["csv"] not in cells


def test_json_keeps_names_exactly(files, capsys):
    out = _run(capsys, "compare", "t.qrels", *_runs(), "-m", "P@5", "--format", "json")
    means = json.loads(out)["means"]
    assert set(means) == set(NAMES.values())  # the escape sequence is \u001b in JSON text, ESC once decoded


def test_meta_html_and_text_escape_names(files, capsys):
    out = _run(capsys, "meta", "t.qrels", *_runs(), "-m", "P@5", "--analysis", "dp", "--samples", "200", "--html",
               "m.html")
    assert "\x1b" not in out
    page = (files / "m.html").read_text("utf-8")
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


def test_experiment_summaries_escape_labels(tmp_path, capsys):
    """Labels from an experiment file in summary.md (one row per system), summary.csv (no formula) and report.html
    (no markup)."""
    from tests.experiment.conftest import small_toml

    toml = small_toml('name = "hostile"\nseed = 1\n[[datasets]]\nname = "synthetic:tiny"\nsplits = ["holdout:0.3"]\n'
                      '[[recommenders]]\nname = "pop"\nlabel = "=1+2|<img src=x onerror=alert(1)>"\n',
                      'measures = ["P@5", "nDCG@5"]\nthreshold = 4')
    (tmp_path / "x.toml").write_text(toml, "utf-8")
    assert main(["run", str(tmp_path / "x.toml"), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    capsys.readouterr()
    md = (tmp_path / "out" / "summary.md").read_text("utf-8")
    assert not re.search(r"(?<!\\)<img", md) and r"\<img src=x onerror=alert(1)\>" in md
    assert "MMR(lambda=0.5)[genres]" in md  # brackets that close no link stay as they are
    rows = [line for line in md.splitlines() if line.startswith("|")]
    assert all(len(re.findall(r"(?<!\\)\|", r)) == len(re.findall(r"(?<!\\)\|", rows[0])) for r in rows)
    cells = [c for row in csv.reader(io.StringIO((tmp_path / "out" / "summary.csv").read_text("utf-8"))) for c in row]
    assert not any(c.startswith("=1+2") for c in cells) and any(c.startswith("'=1+2") for c in cells)
    assert "<img src=x" not in (tmp_path / "out" / "report.html").read_text("utf-8")
