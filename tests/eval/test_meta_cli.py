"""`recdiv meta` on ML-100K runs (split u1): discriminative power, ASL, robustness and perturbation curves as text,
JSON, SVG plots and an HTML page; values checked against the API on the same per-user values."""

from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.eval.io import load_inputs
from recdiv.eval.meta.discriminative import discriminative_power
from recdiv.eval.results import Results

pytestmark = [pytest.mark.realdata, pytest.mark.slow]


@pytest.fixture(scope="module")
def ml100k_runs(ml100k_dir, tmp_path_factory):
    """u1 as TREC qrels / TSV files (written with pandas) and four top-100 runs made with `recdiv recommend`."""
    d = tmp_path_factory.mktemp("ml100k")
    cols = ["user", "item", "rating", "ts"]
    train = pd.read_csv(ml100k_dir / "u1.base", sep="\t", names=cols)
    test = pd.read_csv(ml100k_dir / "u1.test", sep="\t", names=cols)
    train.to_csv(d / "train.tsv", sep="\t", header=False, index=False)
    (d / "test.qrels").write_text("".join(f"{u} 0 {i} {r}\n" for u, i, r in zip(test.user, test.item, test.rating)))
    genres = [x.split("|")[0] for x in (ml100k_dir / "u.genre").read_text("latin-1").splitlines() if x.strip()]
    rows = [f"{f[0]}\t{g.replace(' ', '_')}\n" for line in (ml100k_dir / "u.item").read_text("latin-1").splitlines()
            for f in [line.split("|")] for g, flag in zip(genres, f[5:]) if flag == "1"]
    (d / "aspects.tsv").write_text("".join(rows))
    runs = []
    for algo, extra in (("pop", []), ("avg-rating", []), ("random", ["--seed", "1"]), ("item-knn", [])):
        path = d / f"{algo}.run"
        assert main(["recommend", "--dataset", "ml-100k", "--data-dir", str(ml100k_dir.parent), "--split", "u1",
                     "--algo", algo, "-n", "100", *extra, "-o", str(path)]) == 0
        runs.append(str(path))
    return d, runs


def test_meta_json_plots_and_html(ml100k_runs, capsys, tmp_path):
    d, runs = ml100k_runs
    argv = ["meta", str(d / "test.qrels"), *runs, "-m", "nDCG@10", "-m", "P@10", "--train", str(d / "train.tsv"),
            "--aspects", str(d / "aspects.tsv"), "--samples", "4000", "--asl-samples", "300",
            "--robustness-samples", "3", "--sparsity-levels", "1,0.5,0.2", "--popularity-levels", "0,5,10",
            "--analysis", "dp", "--analysis", "asl", "--analysis", "sparsity", "--analysis", "popularity",
            "--analysis", "perturbation", "--format", "json", "--plots", str(tmp_path / "plots"),
            "--html", str(tmp_path / "meta.html")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["systems"] == ["pop", "avg-rating", "random", "item-knn"]
    # discriminative power: the same as the API on the same per-user values
    inputs = load_inputs(d / "test.qrels", runs, train=d / "train.tsv")
    res = Results.evaluate(inputs.runs, inputs.qrels, ["nDCG@10"], inputs.context)
    ref = discriminative_power(res.matrix("nDCG@10"), "valcarce", n_samples=4000, seed=0)
    dp = out["discriminative_power"]["nDCG@10"]
    assert dp["dp"] == pytest.approx(ref.dp) and len(dp["curve"]) == 6
    assert dp["curve"] == sorted(dp["curve"], reverse=True)
    assert 0 <= out["asl"]["P@10"]["fraction"] <= 1
    # robustness: the full test set reproduces the ranking; popular-item removal scrambles it more than sparsity
    sp, pb = out["sparsity"]["mean_tau"], out["popularity"]["mean_tau"]
    assert sp["nDCG@10"][0] == 1.0 and pb["nDCG@10"][0] == 1.0
    assert min(pb["nDCG@10"]) < min(sp["nDCG@10"])
    # perturbation: nDCG orders the bottom-to-top levels exactly (P@10 is blind to order: τ undefined)
    bt = out["perturbation"]["bottom_to_top"]
    assert bt["nDCG@10"]["tau"] == pytest.approx(1.0) and bt["P@10"]["tau"] is None
    assert set(out["perturbation"]) == {"bottom_to_top", "redundant_aspect", "aspect_swap"}
    svgs = sorted(p.name for p in (tmp_path / "plots").glob("*.svg"))
    assert {"pvalues.svg", "asl.svg", "sparsity.svg", "popularity.svg"} <= set(svgs) and len(svgs) == 4 + 6
    page = (tmp_path / "meta.html").read_text("utf-8")
    assert page.count("Plotly.newPlot") == 10 and "<script src" not in page
    # the summary is an HTML table (one row per measure), not preformatted text
    assert "<pre>" not in page and "<th>DP (Σ p, lower better)</th>" in page
    assert re.search(r"<tr><td>nDCG@10</td><td class='num'>\d\.\d{3}</td>", page)
    assert "<h3>perturbation bottom_to_top (k = 10)" in page and "<li>nDCG@10: τ_b = 1.000;" in page
    # p-value and ASL curves on a log axis down to 1/B (values below it drawn there): the two log charts of the
    # curves, plus the perturbation p-values
    figures = [json.loads(m) for m in re.findall(r"var s=(\{.*?\});Plotly", page)]
    titles = {f["layout"]["title"]["text"]: f["layout"]["yaxis"] for f in figures}
    pv = next(y for t, y in titles.items() if t.startswith("p-value curves"))
    asl = next(y for t, y in titles.items() if t.startswith("ASL curves"))
    assert pv["type"] == asl["type"] == "log"
    assert pv["range"][0] == pytest.approx(math.log10(1 / 4000 / 1.5))
    assert asl["range"][0] == pytest.approx(math.log10(1 / 300 / 1.5))


def test_meta_text_and_errors(ml100k_runs, capsys):
    d, runs = ml100k_runs
    assert main(["meta", str(d / "test.qrels"), *runs[:2], "-m", "nDCG@10", "--analysis", "dp", "--samples",
                 "500"]) == 0
    text = capsys.readouterr().out
    assert "DP (Σ p, lower better)" in text and "nDCG@10" in text
    assert main(["meta", str(d / "test.qrels"), *runs[:2], "-m", "nDCG@10", "--analysis", "perturbation"]) == 2
    assert "--aspects" in capsys.readouterr().err
    assert main(["meta", str(d / "test.qrels"), runs[0], "-m", "nDCG@10", "--analysis", "dp"]) == 2
    assert "at least two systems" in capsys.readouterr().err
    assert main(["meta", str(d / "test.qrels"), *runs, "-m", "nDCG@10", "--sparsity-levels", "0,1"]) == 2


def test_mean_tau_is_na_when_undefined_at_every_level():
    """Two systems whose means tie give τ_b = nan at every degraded level: the summary says n/a (and why) rather
    than printing nan with NumPy's 'Mean of empty slice' warning on the terminal."""
    import warnings

    import numpy as np

    from recdiv.eval.meta.study import NA_NOTE, TAU_NOTE, _mean_tau

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _mean_tau(np.array([1.0, np.nan, np.nan])) == "n/a"
        assert _mean_tau(np.array([1.0, 0.5, np.nan, 0.25])) == "0.375"
        assert _mean_tau(np.array([1.0])) == "1.000"
    assert NA_NOTE.strip().startswith("n/a") and TAU_NOTE.endswith(".")
