"""examples/diaz_lexirecall.py (Diaz, Ekstrand & Mitra: Tables 2–4, Figure 8, discriminative power): its measures on
position vectors equal recdiv's measures on rankings built from the same positions, its exact tie probabilities equal
brute-force enumeration, the paper's Table 3–4 values come out, and a reduced run of every part works (the full run:
`python examples/diaz_lexirecall.py`, docs/reproductions.md)."""

from __future__ import annotations

import importlib.util
import itertools
from collections import Counter

import numpy as np
import pytest

from recdiv.data.locate import REPO_ROOT
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext


def _example():
    spec = importlib.util.spec_from_file_location("diaz_lexirecall", REPO_ROOT / "examples" / "diaz_lexirecall.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ex = _example()


def _world(positions: np.ndarray, n: int):
    """Rankings of n items where user r's relevant items (grade 1) sit at `positions[r]` (1-based), and the qrels."""
    users, items = Vocab(np.arange(len(positions))), Vocab(np.arange(n))
    ranked = np.empty((len(positions), n), dtype=np.int64)
    rows, cols = [], []
    for r, p in enumerate(positions):
        rel = np.arange(len(p))  # items 0..m−1 are the relevant ones
        rest = np.arange(len(p), n)
        order = np.empty(n, dtype=np.int64)
        order[p - 1] = rel
        order[np.setdiff1d(np.arange(n), p - 1)] = rest
        ranked[r] = order
        rows += [r] * len(p)
        cols += rel.tolist()
    scores = np.broadcast_to(np.arange(n, 0, -1.0), ranked.shape).copy()
    qrels = Qrels.from_arrays(np.array(rows), np.array(cols), np.ones(len(rows)), users, items)
    return Rankings(np.arange(len(positions)), ranked, scores, users, items), qrels


@pytest.mark.parametrize("k", [None, 7, 15])
def test_position_measures_are_recdivs(k):
    n, m = 30, 4
    rng = np.random.default_rng(k or 0)
    p = ex.relevant_positions(rng, 25, n, m)
    run, qrels = _world(p, n)
    ctx = EvalContext(threshold=1.0)
    kk = n if k is None else k
    q = p if k is None else ex.truncate(p, n, k)
    ours = ex.position_measures(q, m, kk, None if k is None else p <= k)
    cut = "" if k is None else f"@{k}"
    np.testing.assert_allclose(ours["TSE"], parse_measure(f"TSE{cut}").per_user(run, qrels, ctx))
    np.testing.assert_allclose(ours["R@k"], parse_measure(f"Recall@{kk}").per_user(run, qrels, ctx))
    np.testing.assert_allclose(ours["AP"], parse_measure(f"AP{cut}").per_user(run, qrels, ctx))
    np.testing.assert_allclose(ours["nDCG"], parse_measure(f"nDCG{cut}").per_user(run, qrels, ctx))
    short = run if k is None else run.truncate(k)
    np.testing.assert_allclose(ours["RP"], parse_measure("Rprec").per_user(short, qrels, ctx))
    if k is not None:  # lexirecall ties ⇔ equal (imputed) position vectors
        other, _ = _world(p[::-1].copy(), n)
        prefs = parse_measure(f"lexirecall@{k}").compare(run, other, qrels, ctx)
        np.testing.assert_array_equal(prefs == 0, (q == q[::-1]).all(axis=1))


def test_tie_probabilities_by_enumeration():
    n, m, k = 7, 2, 3
    vectors = np.array(list(itertools.combinations(range(1, n + 1), m)))
    values = ex.position_measures(vectors, m, k)
    exact = ex.tie_probabilities(n, m, k, ap_pairs=5_000)
    for name in ("TSE", "R@k", "RP"):
        counts = np.array(list(Counter(np.round(values[name], 12)).values())) / len(vectors)
        assert exact[name] == pytest.approx((counts ** 2).sum())
    assert exact["lexirecall"] == pytest.approx(1 / len(vectors))
    ap = np.array(list(Counter(np.round(values["AP"], 12)).values())) / len(vectors)
    assert exact["AP"] == pytest.approx((ap ** 2).sum(), abs=0.02)  # simulated


def test_paper_tables_3_and_4():
    """The exact columns match the paper's printed values to the third decimal (RP at n = 10³: 0.8258, printed
    0.825)."""
    for n, paper in ex.PAPER_TABLE3.items():
        got = ex.tie_probabilities(n, 10, 1000, ap_pairs=200)
        assert [got[c] for c in ("TSE", "R@k", "RP")] == pytest.approx(list(paper[:3]), abs=1.01e-3)
    for m, paper in ex.PAPER_TABLE4.items():
        got = ex.tie_probabilities(10**6, m, 1000, ap_pairs=200)
        assert [got[c] for c in ("TSE", "R@k", "RP")] == pytest.approx(list(paper[:3]), abs=1.01e-3)


def test_reduced_simulations():
    t2 = ex.table2(n_values=(10**3, 10**4), pairs=600)
    assert all(row["TSE"] == 1.0 for row in t2.values()) and t2[10**3]["R@k"] == 0.0  # R@1000 of 1000 items: 1
    assert 0.4 < t2[10**3]["AP"] < 0.7 and 0.3 < t2[10**4]["R@k"] < 0.55
    f8 = ex.figure8(n=20_000, pairs=400, cutoffs=(100, 10_000, 20_000))
    assert f8[20_000]["TSE"] < f8[100]["TSE"] and f8[10_000]["lexirecall"] <= f8[10_000]["R@k"]
    assert f8[20_000]["R@k"] == 1.0  # everything retrieved: recall is always 1


@pytest.mark.realdata
def test_discriminative_power_on_movielens(ml100k_dir):
    runs, qrels, ctx = ex.movielens_systems(ml100k_dir, depth=100, baselines=ex.BASELINES[:3] + ex.BASELINES[5:6])
    dp = ex.discriminative_power(runs, qrels, ctx, depths=(100,), tukey_samples=300)
    row = dp[100]
    assert set(row) == {"lexirecall", *ex.METRICS}
    assert all(0.0 <= v["holm"] <= 1.0 and 0.0 <= v["hsd"] <= 1.0 for v in row.values())
    assert row["lexirecall"]["holm"] >= 0.5  # Pop, Random, Avg and item-kNN are far apart
