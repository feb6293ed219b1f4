"""Paper-ready and terminal tables (issue 25): LaTeX arrows and accented names as LaTeX (compiled with pdflatex), only
what a table shows is promised, Monte Carlo p-values below 1/B printed "< 1/B", one default test, terminal tables
that fit 120 columns with `*` for the best value only."""

from __future__ import annotations

import numpy as np

from recdiv.eval import tables
from recdiv.eval.results import Results
from recdiv.experiment.spec.sections import StatisticsConfig
from tests.eval.test_report_stack import compile_latex


def _results(names=("Pop", "Müller+MMR(λ=0.5)", "Ærø-kNN", "naïve Dvořák")) -> Results:
    rng = np.random.default_rng(3)
    base = rng.random(40)
    return Results({n: {"nDCG@10": base + i * 0.05 + rng.normal(0, 0.01, 40),
                        "Gini@10": base[::-1] * 0.1 + rng.random(40)} for i, n in enumerate(names)})


def test_latex_arrows_accents_and_promises(tmp_path, monkeypatch):
    from recdiv.eval.measure import MEASURES

    monkeypatch.setattr(MEASURES.entry("Gini").obj, "HIGHER_IS_BETTER", False, raising=False)
    body = _results().compare(baseline="Pop").to_latex()
    assert "?" not in body  # ↑/↓ and accented letters all typeset
    assert r"\ensuremath{\uparrow}" in body and r"M\"{u}ller" in body and r"\AE{}r\o{}" in body
    assert r"na\"{\i}ve Dvo\v{r}\'{a}k" in body
    assert "[low, high]" not in body and "interval" not in body  # the table shows no interval: none promised
    compile_latex(body, tmp_path)
    assert tables.tex("日本") == "??"  # what pdflatex cannot typeset never reaches it


def test_html_still_names_its_intervals():
    cmp = _results().compare(baseline="Pop")
    assert "[low, high]: 95% t intervals" in tables.to_html(cmp.means_table(note=cmp.note(intervals=True)))


def test_p_values_below_the_resolution():
    res = Results({"A": {"m": np.zeros(30)}, "B": {"m": np.ones(30) + np.arange(30) / 100}})
    cmp = res.compare(baseline="A", test="permutation", n_samples=1000, seed=1)
    assert cmp.samples == 1000 and cmp.pairs[0].p_value < 1e-3  # the exact count is 0 of 1000... or the exact test
    text = cmp.to_table()
    assert "< 1/1000" in text and " 0 " not in text.split("\n")[-3]
    assert tables.fmt_p(0.0, 1000) == "< 1/1000" and tables.fmt_p(0.0) == "<0.0001"
    assert res.compare(baseline="A", test="t").samples == 0


def test_one_default_test():
    assert StatisticsConfig().test == "t"
    from recdiv.cli import build_parser

    args = build_parser().parse_args(["compare", "q", "a", "b", "-m", "P@1"])
    assert args.test is None  # resolved to t by the command (sign for preference measures)


def test_terminal_table_fits_and_marks_best_only():
    names = [f"user-knn+MMR(lambda={i / 10:g})[genres]" for i in range(6)]
    rng = np.random.default_rng(0)
    measures = ["P@10", "nDCG@10", "EPC@10", "ILD@10", "alpha-nDCG@10", "ERR-IA@10", "S-recall@10", "ab-nDCG@10",
                "AggregateDiversity@10"]
    res = Results({n: {m: rng.random(50) + i / 20 for m in measures} for i, n in enumerate(names)})
    text = res.compare(baseline=names[0]).to_table()
    assert max(map(len, text.splitlines())) <= 120
    assert "<sup>" not in text and "|" not in text
    means, pairs = text.split("\n\nP@10 (against", 1)
    assert "*" in means and "*" not in pairs.rsplit("\n\n", 1)[0]  # significance: "yes" in the sig column
    assert " yes" in pairs and "sig" in pairs
    text = res.compare().to_table()  # all pairs: names too long for one row, so the table's letters
    assert max(map(len, text.splitlines())) <= 120 and "\na  b  " in text
