"""`recdiv compare --tradeoff X Y [--front ...]`: the numbers printed are `Results.tradeoff` / `compare_fronts` on
the same runs (their values are checked by hand in tests/eval/test_fronts.py); formats and errors."""

from __future__ import annotations

import json

import pytest

from recdiv.cli import main
from recdiv.eval.io import load_inputs
from recdiv.eval.results import Results
from tests.eval.test_compare_cli import files  # noqa: F401  (the fixture: qrels and three runs)

GENRES = "a\tA\nb\tA\nc\tB\nd\tB\ne\tC\nx\tC\ny\tA\n"


@pytest.fixture
def aspects(tmp_path):
    p = tmp_path / "aspects.tsv"
    p.write_text(GENRES)
    return str(p)


def _compare(capsys, *args):
    main(["compare", *args])
    return capsys.readouterr().out


def test_json_equals_results(files, aspects, capsys):  # noqa: F811
    qrels, runs = files
    out = _compare(capsys, qrels, *runs, "-m", "P@2", "ILD@2", "--aspects", aspects, "--tradeoff", "P@2", "ILD@2",
                   "--baseline", runs[0], "--front", "A=good,mid", "--front", "B=bad", "--format", "json",
                   "--samples", "200")
    payload = json.loads(out)
    got = payload[-1]
    inputs = load_inputs(qrels, runs, aspects=aspects)
    res = Results.evaluate(inputs.runs, inputs.qrels, ["P@2", "ILD@2"], inputs.context)
    t = res.tradeoff("P@2", "ILD@2", ["good", "mid", "bad"], baseline="good", fractions=(0.95, 0.9), n_samples=200)
    assert got["tradeoff"] == json.loads(json.dumps(t.to_dict()))
    c = res.compare_fronts("P@2", "ILD@2", ["good", "mid"], ["bad"], n_samples=200)
    assert got["fronts"]["hypervolume_difference"] == pytest.approx(c.difference.to_dict())
    assert got["fronts"]["labels"] == ["A", "B"] and got["fronts"]["a"]["systems"] == ["good", "mid"]


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_text_formats(files, aspects, capsys, fmt):  # noqa: F811
    qrels, runs = files
    out = _compare(capsys, qrels, *runs, "-m", "P@2", "ILD@2", "--aspects", aspects, "--tradeoff", "P@2", "ILD@2",
                   "--baseline", "good", "--format", fmt, "--samples", "100")
    pct = "95\\%" if fmt == "latex" else "95%"
    assert "hypervolume against" in out and "area under the front" in out and f"best ILD@2 at {pct} of good" in out
    if fmt == "latex":
        assert "\\begin{tabular}{lrrl}" in out


def test_errors(files, aspects, capsys):  # noqa: F811
    qrels, runs = files
    cases = [(["-m", "P@2", "--tradeoff", "P@2", "ILD@2"], "--tradeoff ILD@2: not one of the compared per-user"),
             (["-m", "P@2", "ILD@2", "--aspects", aspects, "--tradeoff", "P@2", "ILD@2", "--front", "A=good"],
              "--front compares two fronts: give it twice"),
             (["-m", "P@2", "ILD@2", "--aspects", aspects, "--tradeoff", "P@2", "ILD@2", "--front", "A=good,nope",
               "--front", "B=bad"], "'nope' is not one of the runs"),
             (["-m", "P@2", "--front", "A=good", "--front", "B=bad"], "--front needs --tradeoff X Y")]
    for args, message in cases:
        assert main(["compare", qrels, *runs, *args]) == 2
        assert message in capsys.readouterr().err


def test_markdown_escapes_labels_from_options(files, aspects, capsys):  # noqa: F811
    qrels, runs = files
    out = _compare(capsys, qrels, *runs, "-m", "P@2", "ILD@2", "--aspects", aspects, "--tradeoff", "P@2", "ILD@2",
                   "--front", "<b>A|x=good,mid", "--front", "B=bad", "--format", "markdown", "--samples", "50")
    section = out[out.index("### trade-off"):]
    assert "<b>" not in section and r"front \<b\>A\|x (good, mid) against front B" in section
    assert all(line.count("|") - line.count(r"\|") == 5 for line in section.splitlines() if line.startswith("| "))
