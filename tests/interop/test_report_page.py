"""One results page for any runs: `recdiv compare --html` and `recdiv.eval.report.comparison_page` write it
(`recdiv.eval.report`); k-fold runs compared with `--fold` (ranx #60). The page is
checked in headless Chromium as the experiment report is (tests/browser.py)."""

from __future__ import annotations

import json
import os
import re
import shutil

import numpy as np
import pytest
from scipy import stats

from recdiv.cli import main
from recdiv.eval.io import evaluate_files
from recdiv.eval.results import Results
from tests.browser import layout_check

from .test_ir_measures import write_case

MEASURES = ["nDCG@10", "RR", "ILD@10", "Gini@10"]


def _case(tmp_path):
    paths = write_case(tmp_path, 31)
    runs = [str(paths[n]) for n in ("run", "base", "previous")]
    return paths, runs


def _charts(page: str) -> int:
    return len(re.findall(r"class='chart' id=", page))


def test_compare_html_page(tmp_path, capsys):
    paths, runs = _case(tmp_path)
    args = ["compare", str(paths["qrels"]), *runs, "--aspects", str(paths["aspects"]), "--rel-threshold", "1",
            "--baseline", "base", "--format", "json"]
    for m in [*MEASURES, "lexirecall@10"]:
        args += ["-m", m]
    assert main(args) == 0
    plain = capsys.readouterr().out
    page = tmp_path / "page.html"
    assert main([*args, "--html", str(page)]) == 0
    with_page = capsys.readouterr().out  # the page comes beside the report, which stays the same (but its command)
    assert [{k: v for k, v in r.items() if k != "provenance"} for r in json.loads(with_page)] == \
        [{k: v for k, v in r.items() if k != "provenance"} for r in json.loads(plain)]
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<script>" in html  # plotly.js embedded (offline: browser test)
    assert "3 runs; relevant ⇔ grade ≥ 1" in html
    assert html.count("<table class='means'>") == 1 and "All 2 tested pairs" not in html
    assert "All 6 tested pairs" in html  # 2 pairs × 3 per-user measures
    # 2 trade-off charts (nDCG@10 vs ILD@10; RR is accuracy too, Gini system-level: none), 4 means charts,
    # 3 distributions (the per-user measures)
    assert _charts(html) == 1 + 4 + 3
    assert "Per-user preferences" in html and "lexirecall@10" in html


def test_to_html_is_the_page_of_compare_html(tmp_path, capsys):
    """`Comparison.to_html()` is the route from files to the page in Python: the page `recdiv compare --html`
    writes, the same bytes but the footer that names the command."""
    paths, runs = _case(tmp_path)
    page = tmp_path / "page.html"
    args = ["compare", str(paths["qrels"]), *runs, "--aspects", str(paths["aspects"]), "--rel-threshold", "1",
            "--baseline", "base", "--test", "t", "--correction", "holm", "--html", str(page)]
    assert main([*args, *(a for m in MEASURES for a in ("-m", m))]) == 0
    capsys.readouterr()
    ev = evaluate_files(paths["qrels"], runs, MEASURES, aspects=paths["aspects"], threshold=1.0)
    res = Results.from_evaluation(ev)
    cmp = res.compare(baseline="base", test="t", correction="holm")
    text = cmp.to_html("recdiv compare", description="3 runs; relevant ⇔ grade ≥ 1; users: relevant population; "
                                                     "seed 0.")
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text and "<script>" in text  # styled, offline
    assert _charts(text) == 1 + 4 + 3 and "<h1>recdiv compare</h1>" in text
    footer = "<footer class='provenance'>"
    cli = page.read_text(encoding="utf-8")
    assert text.split(footer)[0] == cli.split(footer)[0]
    for s in res.systems:
        for m in ("nDCG@10", "ILD@10"):
            assert f"{res.mean(s, m):.4f}" in text
    # a Comparison built from arrays (no per-user values kept) still gets the page, without the distributions
    bare = Results({"a": {"m": np.arange(8.0)}, "b": {"m": np.arange(8.0)[::-1] + 0.5}}).compare(baseline="a")
    bare.results = None
    one = bare.to_html("two systems")
    assert _charts(one) == 1 and "Per-user distributions" not in one and "<h1>two systems</h1>" in one


def test_k_fold_runs(tmp_path, capsys):
    """Two folds, each with its own qrels and the runs of the same two systems: per-user values pooled over
    (fold, user), so the mean is over all pairs and the paired t-test runs on the concatenated values."""
    folds = []
    for i in (1, 2):
        d = tmp_path / f"f{i}"
        d.mkdir()
        paths = write_case(d, 40 + i)
        folds.append(paths)
    args = ["compare", "-m", "nDCG@10", "-m", "RR", "--rel-threshold", "1", "--format", "json", "--per-user"]
    for p in folds:
        args += ["--fold", str(p["qrels"]), str(p["run"]), str(p["base"])]
    page = tmp_path / "folds.html"
    assert main([*args, "--html", str(page)]) == 0
    out = json.loads(capsys.readouterr().out)
    per = [evaluate_files(p["qrels"], [p["run"], p["base"]], ["nDCG@10", "RR"], threshold=1.0) for p in folds]
    for rep in out:
        m = rep["measure"]
        pooled = {s: np.concatenate([e.user_values(s, m) for e in per]) for s in ("run", "base")}
        assert rep["means"] == pytest.approx({s: v.mean() for s, v in pooled.items()}, rel=1e-12)
        assert rep["pairs"][0]["p_value"] == pytest.approx(stats.ttest_rel(pooled["run"], pooled["base"]).pvalue,
                                                           rel=1e-9)
        assert len(rep["per_user"]["run"]) == len(pooled["run"])
        assert all(u.startswith(("fold1:", "fold2:")) for u in rep["per_user"]["run"])
    assert "over 2 folds" in page.read_text(encoding="utf-8")
    bad = ["compare", "-m", "RR", "--fold", str(folds[0]["qrels"]), str(folds[0]["run"]), str(folds[0]["base"]),
           "--fold", str(folds[1]["qrels"]), str(folds[1]["run"]), str(folds[1]["previous"])]
    assert main(bad) == 2
    assert "fold2 has the runs run, previous; fold1 has run, base" in capsys.readouterr().err
    assert main([*args, "--train", str(folds[0]["train"])]) == 2
    assert "--fold takes per-user measures and --aspects" in capsys.readouterr().err
    assert main(["compare", str(folds[0]["qrels"]), str(folds[0]["run"]), "--fold", str(folds[0]["qrels"]),
                 str(folds[0]["run"]), "-m", "RR"]) == 2
    assert "not both" in capsys.readouterr().err


def test_html_never_overwrites_an_input(tmp_path, capsys):
    paths, runs = _case(tmp_path)
    before = paths["qrels"].read_bytes()
    assert main(["compare", str(paths["qrels"]), *runs, "-m", "RR", "--html", runs[0]]) == 2
    assert "is an input of this command" in capsys.readouterr().err
    assert paths["qrels"].read_bytes() == before


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed (.ci/run installs Debian's chromium)")
        pytest.skip("chromium is not installed")
    tmp = tmp_path_factory.mktemp("page")
    paths, runs = _case(tmp)
    out = tmp / "page.html"
    args = ["compare", str(paths["qrels"]), *runs, "--aspects", str(paths["aspects"]), "--rel-threshold", "1",
            "--html", str(out), "-o", str(tmp / "table.txt")]
    for m in MEASURES:
        args += ["-m", m]
    assert main(args) == 0
    return out


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 800])
def test_page_in_a_browser(page, width):
    layout = layout_check(page, width=width)
    assert layout["page_overflow"] == 0 and layout["overflowing"] == [], layout["overflowing"][:5]
    assert layout["resources"] == []  # offline: nothing fetched
    assert len(layout["charts"]) == 1 + 4 + 3
    for c in layout["charts"]:
        assert c["drawn"] >= c["displayed"] - 2 and c["svg_width"] >= c["displayed"] - 2, c
    assert layout["clipped_text"] == []
