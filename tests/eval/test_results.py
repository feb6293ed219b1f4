"""`Results` / `Comparison`: pairing checks, compare() against SciPy + corrections, exports."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.errors import ConfigError
from recdiv.eval.results import Results
from recdiv.eval.stats.corrections import benjamini_hochberg, holm


@pytest.fixture
def results():
    rng = np.random.default_rng(1)
    base = rng.random(80)
    vals = {
        "pop": {"nDCG@10": base, "ILD@10": rng.random(80) * 0.3},
        "knn": {"nDCG@10": np.clip(base + 0.05 + rng.normal(0, 0.05, 80), 0, 1), "ILD@10": rng.random(80) * 0.5},
        "mmr": {"nDCG@10": np.clip(base + 0.01 + rng.normal(0, 0.05, 80), 0, 1), "ILD@10": rng.random(80) * 0.9},
    }
    return Results(vals, users=np.arange(100, 180))


def test_compare_all_pairs_matches_scipy_and_holm(results):
    c = results.compare(test="t", correction="holm")
    assert c.measures == ["nDCG@10", "ILD@10"]
    pairs = [("pop", "knn"), ("pop", "mmr"), ("knn", "mmr")]
    for m in c.measures:
        rows = [pc for pc in c.pairs if pc.measure == m]
        assert [(pc.a, pc.b) for pc in rows] == pairs
        ref = [stats.ttest_rel(results.per_user(a, m), results.per_user(b, m)).pvalue for a, b in pairs]
        assert [pc.p_value for pc in rows] == pytest.approx(ref)
        assert [pc.p_adjusted for pc in rows] == pytest.approx(holm(ref))
        for pc in rows:
            d = results.per_user(pc.a, m) - results.per_user(pc.b, m)
            assert pc.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
            assert pc.mean_a == pytest.approx(results.per_user(pc.a, m).mean())
    # knn is clearly better than pop on nDCG: marker letter "a" (pop) on knn
    assert "a" in c.markers("knn", "nDCG@10")
    assert c.pair("knn", "pop", "nDCG@10") is c.pair("pop", "knn", "nDCG@10")


def test_compare_baseline_and_other_tests(results):
    c = results.compare(baseline="pop", test="wilcoxon", correction="bh", measures="nDCG@10")
    assert [(pc.a, pc.b) for pc in c.pairs] == [("knn", "pop"), ("mmr", "pop")]
    ref = [stats.wilcoxon(results.per_user(a, "nDCG@10") - results.per_user("pop", "nDCG@10"),
                          correction=False, method="approx").pvalue for a in ("knn", "mmr")]
    assert [pc.p_value for pc in c.pairs] == pytest.approx(ref)
    assert [pc.p_adjusted for pc in c.pairs] == pytest.approx(benjamini_hochberg(ref))
    assert c.markers("knn", "nDCG@10") == "▲" and c.markers("pop", "nDCG@10") == ""
    p1 = results.compare(test="permutation", n_samples=2000, seed=4).to_dict()
    p2 = results.compare(test="permutation", n_samples=2000, seed=4).to_dict()
    assert p1 == p2


def test_exports(results):
    c = results.compare()
    md = c.to_markdown()
    assert "| a | pop |" in md and "**" in md and "holm" in md
    tex = c.to_latex(caption="Results", label="tab:r")
    assert r"\begin{tabular}{llrr}" in tex and r"\label{tab:r}" in tex and r"nDCG@10" in tex
    d = json.loads(c.to_json())
    assert d["test"] == "t" and len(d["pairs"]) == 6 and d["means"]["nDCG@10"]["pop"] == pytest.approx(
        results.mean("pop", "nDCG@10"))
    one = c.to_dict("ILD@10")
    assert one["measure"] == "ILD@10" and set(one["means"]) == {"pop", "knn", "mmr"}
    assert set(one["pairs"][0]) >= {"a", "b", "mean_a", "mean_b", "p_value", "p_adjusted", "effect_size"}
    assert "pop" in str(c)
    assert isinstance(results.means(), pd.DataFrame) and results.means().shape == (3, 2)
    assert len(results.to_frame()) == 3 * 2 * 80


def test_unpaired_inputs_are_refused():
    with pytest.raises(ConfigError, match=r"3 users differ"):
        Results({"a": {"P@10": np.ones(10)}, "b": {"P@10": np.ones(7)}})
    with pytest.raises(ConfigError, match=r"2 users differ"):
        Results({"a": {"P@10": np.ones(3)}, "b": {"P@10": np.ones(3)}},
                users={"a": np.array([1, 2, 3]), "b": np.array([1, 2, 4])})
    with pytest.raises(ConfigError, match="no values for measure"):
        Results({"a": {"P@10": np.ones(3)}, "b": {"nDCG@10": np.ones(3)}})
    r = Results({"a": {"P@10": np.ones(3)}, "b": {"P@10": np.zeros(3)}})
    with pytest.raises(ConfigError, match="baseline"):
        r.compare(baseline="c")
    with pytest.raises(ConfigError, match="unknown measure"):
        r.compare(measures=["nDCG@10"])


def test_evaluate_from_rankings():
    qrels = Qrels.from_frame(pd.DataFrame({"user": [1, 1, 2, 3, 3], "item": [10, 11, 10, 12, 11],
                                           "grade": [5.0, 4, 4, 5, 2]}))
    u, i = qrels.users, qrels.items

    def run(rows):
        return Rankings.from_frame(pd.DataFrame(rows, columns=["user", "item", "score"]), u, i)

    a = run([(1, 10, 2), (1, 12, 1), (2, 10, 1), (3, 12, 1)])
    b = run([(1, 12, 2), (1, 11, 1), (2, 11, 1), (3, 11, 1)])
    r = Results.evaluate({"a": a, "b": b}, qrels, ["P@1"])
    assert r.per_user("a", "P@1").tolist() == [1.0, 1.0, 1.0]
    assert r.per_user("b", "P@1").tolist() == [0.0, 0.0, 0.0]
    assert list(r.users) == [1, 2, 3]


def test_plot_tradeoff(results, tmp_path):
    fig = results.plot_tradeoff("nDCG@10", "ILD@10", path=tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 1000
    assert fig.axes[0].get_xlabel() == "nDCG@10  (higher = more accurate)"  # which end is better, in words
