"""Provenance (recdiv.provenance): every output says what made it — recdiv's version and commit, Python and the
libraries, the command — and two runs of one command write the same bytes (no clock time)."""

from __future__ import annotations

import json
import re
from importlib.metadata import version

import pytest

from recdiv import provenance
from recdiv.cli import main

#: what bench/golden.py is told to leave out of a comparison (--ignore-line, --ignore-json-key)
IGNORE_LINE = re.compile(r"recdiv (provenance|command):")


def test_record_names_versions_and_command():
    rec = provenance.record(["recdiv", "compare", "a b.run", "x\ny"])
    assert rec["recdiv"] == version("recdiv") and rec["python"].count(".") == 2
    assert {"numpy", "scipy", "numba", "pandas", "pyarrow", "lenskit"} <= set(rec["libraries"])
    assert rec["libraries"]["numpy"] == version("numpy")
    assert rec["command"] == "recdiv compare 'a b.run' 'x\\u000ay'"  # one line whatever the arguments hold
    assert rec == provenance.record(["recdiv", "compare", "a b.run", "x\ny"])  # nothing that changes between runs
    if rec["commit"] is not None:
        assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", rec["commit"])
    text = provenance.comment(rec, "%")
    assert text.splitlines()[0].startswith("% recdiv provenance: recdiv ") and "numpy " in text
    assert text.splitlines()[1] == "% recdiv command: recdiv compare 'a b.run' 'x\\u000ay'"
    md = provenance.markdown_comment({**rec, "command": "recdiv x --> y --!> '<script>'"})
    assert all(line.startswith("<!-- ") and line.endswith(" -->") and line.count("-->") == 1
               and line.count(">") == 1 and line.count("<") == 1 for line in md.splitlines())
    footer = provenance.html_footer({**rec, "command": "recdiv <b>"})
    assert footer.count("\n") == 2 and "&lt;b&gt;" in footer and IGNORE_LINE.search(footer)


@pytest.fixture
def two_runs(tmp_path):
    (tmp_path / "q").write_text("u1 0 a 5\nu1 0 b 3\nu2 0 a 4\nu2 0 c 5\nu3 0 b 4\n")
    (tmp_path / "x.run").write_text("u1 Q0 a 1 3 x\nu1 Q0 b 2 2 x\nu2 Q0 c 1 3 x\nu3 Q0 a 1 1 x\n")
    (tmp_path / "y.run").write_text("u1 Q0 b 1 3 y\nu2 Q0 a 1 3 y\nu2 Q0 c 2 2 y\nu3 Q0 b 1 1 y\n")
    return tmp_path


@pytest.mark.parametrize("fmt", ["json", "markdown", "latex"])
def test_compare_outputs_carry_provenance_and_repeat_byte_for_byte(two_runs, fmt):
    outs = []
    for n in (1, 2):
        argv = ["compare", str(two_runs / "q"), str(two_runs / "x.run"), str(two_runs / "y.run"), "-m", "P@2",
                "-m", "RR", "--format", fmt, "-o", str(two_runs / f"out{n}")]
        assert main(argv) == 0
        outs.append((two_runs / f"out{n}").read_bytes())
    text = outs[0].decode()
    command = "recdiv " + " ".join(argv).replace("out2", "out1")
    if fmt == "json":
        payload = json.loads(text)
        assert [p["provenance"]["command"] for p in payload] == [command, command]
        assert payload[0]["provenance"]["libraries"]["numpy"] == version("numpy")
    else:
        lines = [line for line in text.splitlines() if IGNORE_LINE.search(line)]
        assert len(lines) == 2 and command in lines[1]
        assert lines[0].startswith("% recdiv provenance:" if fmt == "latex" else "<!-- recdiv provenance:")
    assert outs[0].replace(b"out1", b"out2") == outs[1]  # no time or other run-dependent value


def test_eval_axioms_and_pages(two_runs, capsys):
    assert main(["eval", str(two_runs / "q"), str(two_runs / "x.run"), "-m", "P@2", "--format", "json"]) == 0
    rec = json.loads(capsys.readouterr().out)["provenance"]
    assert rec["command"].startswith("recdiv eval ") and rec["recdiv"] == version("recdiv")
    assert main(["axioms", "-m", "nDCG@10", "--cases", "3", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["command"] == \
        "recdiv axioms -m nDCG@10 --cases 3 --format json"
    from recdiv.eval.html import Page

    page = Page("t").heading("x").render()
    assert page.count("<footer class='provenance'>recdiv provenance: recdiv ") == 1


def test_export_readme_records_versions(tmp_path):
    assert main(["data", "export", "synthetic:small", "--split", "holdout:0.2", "-o", str(tmp_path / "e")]) == 0
    tail = (tmp_path / "e" / "README.txt").read_text(encoding="utf-8").splitlines()[-1]
    assert tail.startswith("# recdiv provenance: recdiv ") and f"numpy {version('numpy')}" in tail
