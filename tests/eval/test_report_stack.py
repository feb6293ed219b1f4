"""The results and report stack: confidence intervals (coverage), directions (lower-is-better measures), counts,
per-system baselines, Tukey through `Results.compare` and `recdiv compare`, LaTeX that compiles, charts."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

from recdiv.cli import main
from recdiv.errors import ConfigError
from recdiv.eval import tables
from recdiv.eval.charts import COLORS, Chart, Series, style, to_matplotlib, to_plotly
from recdiv.eval.results import Results
from recdiv.eval.stats.significance import confidence_interval
from tests.eval.test_compare_cli import LISTS, _p2, files  # noqa: F401  (fixture)


# confidence intervals ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method, low, high", [("t", 0.93, 0.97), ("bootstrap", 0.91, 0.96)])
def test_ci_coverage(method, low, high):
    """Share of 95% intervals that contain the true mean difference, over 1000 simulated paired samples of 40 users
    (skewed per-user values, as metric values are): close to 95% (the percentile bootstrap runs a little low)."""
    rng = np.random.default_rng(11)

    def draw(n):
        x = rng.beta(2, 5, n)
        return x, np.clip(x - 0.05 + rng.normal(0, 0.1, n), 0, 1)

    big_x, big_y = draw(2_000_000)
    true = float((big_x - big_y).mean())  # the population mean difference, to about ±1e-4
    hits = 0
    reps = 1000
    for r in range(reps):
        x, y = draw(40)
        lo, hi = confidence_interval(x, y, 0.95, method, n_samples=1000, seed=r)
        hits += lo <= true <= hi
    assert low <= hits / reps <= high


def test_t_interval_is_the_textbook_one():
    rng = np.random.default_rng(0)
    x = rng.random(25)
    lo, hi = confidence_interval(x, level=0.9)
    half = stats.t.ppf(0.95, 24) * x.std(ddof=1) / 5
    assert (lo, hi) == pytest.approx((x.mean() - half, x.mean() + half))


def _results():
    rng = np.random.default_rng(2)
    base = rng.random(30)
    vals = {"A": base, "B": np.clip(base + 0.2 + rng.normal(0, 0.05, 30), 0, None), "C": base + 0.001}
    return Results({s: {"nDCG@10": v} for s, v in vals.items()},
                   system_values={"A": {"Gini@10": 0.9, "AggregateDiversity@10": 43.0},
                                  "B": {"Gini@10": 0.6, "AggregateDiversity@10": 120.0},
                                  "C": {"Gini@10": 0.7, "AggregateDiversity@10": 77.0}},
                   directions={"Gini@10": False})


def test_compare_reports_intervals_and_directions():
    res = _results()
    cmp = res.compare(baseline="A", test="t", correction="holm")
    lo, hi = cmp.mean_ci["nDCG@10"]["B"]
    assert lo < cmp.means["nDCG@10"]["B"] < hi
    pc = cmp.pair("B", "A", "nDCG@10")
    d = res.per_user("B", "nDCG@10") - res.per_user("A", "nDCG@10")
    assert (pc.ci_low, pc.ci_high) == pytest.approx(confidence_interval(d))
    assert pc.difference == pytest.approx(d.mean())
    # Gini: lower is better → the least concentrated system (B) is bold; counts print as integers
    t = cmp.means_table()
    j_gini, j_agg = t.measures.index("Gini@10"), t.measures.index("AggregateDiversity@10")
    bold = {t.lead[i][1]: c[j_gini].best for i, c in enumerate(t.cells)}
    assert bold == {"A": False, "B": True, "C": False}
    assert [c[j_agg].text for c in t.cells] == ["43", "120", "77"]
    assert "Gini@10 ↓" in tables.to_markdown(t) and "nDCG@10 ↑" in tables.to_markdown(t)
    assert cmp.markers("B", "nDCG@10") == "▲" and "Gini@10" not in cmp.mean_ci  # system-level: no tests
    frame = cmp.to_frame()
    assert set(frame.columns) >= {"difference", "diff_ci_low", "diff_ci_high"}


def test_lower_is_better_markers_and_letters():
    """A per-user measure declared lower-is-better: the lower system is better, ▲ and letters follow."""
    rng = np.random.default_rng(1)
    a = rng.random(40)
    res = Results({"low": {"err": a}, "high": {"err": a + 0.3}}, directions={"err": False})
    cmp = res.compare(baseline="high")
    assert cmp.markers("low", "err") == "▲"
    assert res.compare().markers("low", "err") == "b" and res.compare().markers("high", "err") == ""


def test_direction_comes_from_the_measure_class(monkeypatch):
    from recdiv.eval.catalog import parse_measure
    from recdiv.eval.results import higher_is_better

    assert higher_is_better("nDCG@10") and higher_is_better("not a measure(")
    monkeypatch.setattr(type(parse_measure("Gini@10")), "HIGHER_IS_BETTER", False, raising=False)
    assert not higher_is_better("Gini@10")


def test_per_system_baselines_and_tukey():
    res = _results()
    cmp = res.compare(baseline={"A": None, "B": "A", "C": "A"}, test="t")
    assert cmp.tested_against("B") == "A" and cmp.tested_against("A") is None
    assert len(cmp.pairs) == 2
    tk = res.compare(test="tukey", correction=None, n_samples=2000)
    assert tk.correction == "none" and len(tk.pairs) == 3
    assert tk.pair("A", "B", "nDCG@10").p_adjusted == tk.pair("A", "B", "nDCG@10").p_value < 0.01
    with pytest.raises(ConfigError, match="family-wise"):
        res.compare(test="tukey", correction="holm")


def test_compare_cli_intervals_and_tukey(files, capsys):  # noqa: F811
    q, runs = files
    assert main(["compare", q, *runs, "-m", "P@2", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    vals = {n: _p2(LISTS[n]) for n in LISTS}
    lo, hi = out["ci"]["means"]["good"]
    assert (lo, hi) == pytest.approx(confidence_interval(vals["good"]))
    assert out["ci"]["method"] == "t" and out["ci"]["level"] == 0.95
    assert out["pairs"][0]["ci"] == pytest.approx(list(confidence_interval(vals["good"], vals["mid"])))
    assert main(["compare", q, *runs, "-m", "P@2", "--format", "json", "--ci", "bootstrap", "--confidence",
                 "0.9"]) == 0
    assert json.loads(capsys.readouterr().out)["ci"]["method"] == "bootstrap"
    assert main(["compare", q, *runs, "-m", "P@2", "--format", "json", "--test", "tukey"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["test"] == "tukey" and out["correction"] == "none"
    assert all(p["p_value"] == p["p_adjusted"] for p in out["pairs"])
    assert main(["compare", q, *runs, "-m", "P@2", "--test", "tukey", "--correction", "holm"]) == 2
    assert "family-wise" in capsys.readouterr().err
    assert main(["compare", q, *runs, "-m", "P@2", "--test", "tukey-anova", "--format", "table"]) == 0
    assert "no correction" not in capsys.readouterr().out


# LaTeX ------------------------------------------------------------------------------------------------------------
def test_tex_escapes_and_math():
    assert tables.tex("α-nDCG_x & 50% ▲") == r"\ensuremath{\alpha}-nDCG\_x \& 50\% \ensuremath{\blacktriangle}"
    assert tables.tex("MMR(λ=0.5)[genres]") == r"MMR(\ensuremath{\lambda}=0.5)[genres]"


def pdflatex_or_skip() -> str:
    exe = shutil.which("pdflatex")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("pdflatex is not installed (.ci/run installs texlive-latex-base and -recommended)")
        pytest.skip("pdflatex is not installed")
    return exe


def compile_latex(body: str, tmp_path, name: str = "doc") -> str:
    """Compile `body` (a .tex fragment) in a plain article with exactly the packages its header comment names;
    returns the log. Fails on a LaTeX error or an overfull box (a table wider than the page)."""
    exe = pdflatex_or_skip()
    m = re.search(r"Needs \\usepackage\{([^}]*)\} in a plain article", body)
    assert m, "the LaTeX output names its packages in a header comment"
    (tmp_path / f"{name}-body.tex").write_text(body, "utf-8")
    doc = (f"\\documentclass{{article}}\n\\usepackage{{{m.group(1)}}}\n\\begin{{document}}\n"
           f"\\input{{{name}-body}}\n\\end{{document}}\n")
    (tmp_path / f"{name}.tex").write_text(doc, "utf-8")
    r = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    log = (tmp_path / f"{name}.log").read_text("latin-1")
    assert r.returncode == 0, log[-3000:]
    assert "Overfull \\hbox" not in log, log
    assert (tmp_path / f"{name}.pdf").stat().st_size > 1000
    return log


def test_compare_latex_compiles(files, capsys, tmp_path):  # noqa: F811
    q, runs = files
    assert main(["compare", q, *runs, "-m", "P@2", "-m", "nDCG@2", "-m", "RR@2",
                 "--format", "latex"]) == 0
    body = capsys.readouterr().out
    assert "▲" not in body and "α" not in body and r"\ensuremath{\alpha}" in body
    compile_latex(body, tmp_path)


def test_wide_latex_tables_are_split_and_fit(tmp_path):
    """20 measures × long system names: split into column groups of 6, each shrunk to the line width."""
    rng = np.random.default_rng(0)
    measures = [f"alpha-nDCG(alpha={a / 10:g})@{k}" for a in range(1, 6) for k in (5, 10, 20, 50)]
    res = Results({f"very-long-system-name+MMR(lambda={i / 4:g})[genres]": {m: rng.random(20) for m in measures}
                   for i in range(5)})
    body = res.compare(baseline=res.systems[0]).to_latex(caption="α = 0.05; λ sweep")
    assert body.count(r"\begin{table}") == 4 and "(part 4 of 4)" in body
    compile_latex(body, tmp_path)


def test_markers_are_redefinable_macros(tmp_path):
    res = Results({"A": {"m": np.zeros(10)}, "B": {"m": np.ones(10) + np.arange(10) / 100}})
    body = res.compare(baseline="A").to_latex()
    assert r"\recdivup{}" in body and r"\providecommand{\recdivup}" in body
    custom = "\\newcommand{\\recdivup}{(+)}\n" + body
    log = compile_latex(custom, tmp_path, "custom")
    assert "recdivup" not in log  # no redefinition error


# charts -----------------------------------------------------------------------------------------------------------
def test_series_styles_are_distinct():
    pairs = [style(i)[:2] for i in range(100)]
    assert len(set(pairs)) == 100
    assert len({style(i)[0] for i in range(len(COLORS))}) == len(COLORS)
    assert len({style(i)[1] for i in range(len(COLORS))}) == len(COLORS)  # first ten: colour and marker differ


def test_chart_renderers():
    chart = Chart("t", "x", "y", [Series("a", [1, 2], [0.5, float("nan")], err_low=[0.4, 0.1], err_high=[0.6, 0.2],
                                         hover=["h1", "h2"], labels=["λ=0", ""]),
                                  Series("b", [1], [0.3], mode="markers", emphasis=True)])
    spec = to_plotly(chart)
    json.dumps(spec, allow_nan=False)  # plain JSON: NaN became null
    assert spec["data"][0]["y"] == [0.5, None] and spec["data"][0]["error_y"]["array"][0] == pytest.approx(0.1)
    assert spec["data"][1]["marker"]["symbol"] == "star"
    fig = to_matplotlib(chart)
    assert fig.axes[0].get_xlabel() == "x"


def test_plots_leave_the_matplotlib_backend_alone(tmp_path):
    """Drawing and saving charts (the report does) never switches the backend or registers pyplot figures."""
    code = ("import matplotlib; matplotlib.use('svg'); import matplotlib.pyplot as plt\n"
            "from recdiv.eval import plots\n"
            f"plots.plot_pvalue_curves({{'m': [0.1, 0.5]}}, path={str(tmp_path / 'p.png')!r})\n"
            "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend()\n"
            "assert plt.get_fignums() == [], plt.get_fignums()\n")
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_gini_is_declared_lower_is_better():
    """The measure itself declares it (no override): Gini's best value is its lowest."""
    from recdiv.eval.results import higher_is_better

    assert not higher_is_better("Gini@10") and higher_is_better("AggregateDiversity@10")
    res = Results({}, system_values={"A": {"Gini@10": 0.9}, "B": {"Gini@10": 0.4}})
    t = res.compare().means_table()
    assert [c[0].best for c in t.cells] == [False, True] and t.measure_head(0, True) == "Gini@10 ↓"


def test_comparison_report_page():
    """`recdiv.eval.report.comparison_page`: one self-contained page (plotly.js inside, nothing fetched) with the
    means table, the note saying what was tested, the trade-off chart, one means chart and one distribution chart per
    measure; text from the data is escaped."""
    rng = np.random.default_rng(0)
    res = Results({"base": {"nDCG@10": rng.random(30), "ILD@10": rng.random(30)},
                   "<b>x</b>": {"nDCG@10": rng.random(30), "ILD@10": rng.random(30)}})
    from recdiv.eval.report import comparison_page

    page = comparison_page(res, res.compare(baseline="base", test="t"), title="a <title>")
    assert page.startswith("<!DOCTYPE html>") and "<title>a &lt;title&gt;</title>" in page
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert page.count("Plotly.newPlot(") == 1 + 2 + 2 and "src=\"http" not in page and "t test (two-sided)" in page
    assert "<table" in page


def test_tradeoff_axes_say_which_end_is_more_diverse():
    """MMR's λ weighs relevance and xQuAD's weighs diversity, so a curve's λ labels cannot tell which end is more
    diverse: every trade-off chart (reports, compare --html, Results.plot_tradeoff, the explorer) names it on the
    axes with the one helper `axis_title`, from the measure's family and direction."""
    from recdiv.eval.charts import axis_title
    from recdiv.eval.plots import plot_tradeoff, tradeoff_chart

    assert axis_title("ILD@10") == "ILD@10  (higher = more diverse)"
    assert axis_title("nDCG@10") == "nDCG@10  (higher = more accurate)"
    assert axis_title("alpha-nDCG@10") == "alpha-nDCG@10  (higher = more diverse (intents))"
    assert axis_title("Gini@10") == "Gini@10  (lower = more diverse (catalogue))"
    assert axis_title("RMSE") == "RMSE  (lower = more accurate)"
    assert axis_title("no-such-measure") == "no-such-measure"
    rng = np.random.default_rng(0)
    res = Results({s: {"nDCG@10": rng.random(20), "ILD@10": rng.random(20)} for s in ("base", "mmr-0.2", "mmr-0.8")})
    cmp = res.compare(baseline="base")
    chart = tradeoff_chart(cmp, "nDCG@10", "ILD@10", {"MMR": [("mmr-0.2", "λ=0.2"), ("mmr-0.8", "λ=0.8")]}, ["base"])
    layout = to_plotly(chart)["layout"]
    assert layout["xaxis"]["title"]["text"] == "nDCG@10  (higher = more accurate)"
    assert layout["yaxis"]["title"]["text"] == "ILD@10  (higher = more diverse)"
    fig = plot_tradeoff({"a": (0.1, 0.2), "b": (0.3, 0.1)}, "nDCG@10", "Gini@10")
    assert fig.axes[0].get_ylabel() == "Gini@10  (lower = more diverse (catalogue))"
    from recdiv.explore.views import _axis

    assert _axis("ILD@10", {"family": "diversity", "higher": True}) == axis_title("ILD@10")
