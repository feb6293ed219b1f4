"""P&R Experiments 1–2 helpers and examples/parapar_radlinski_experiments.py at a tiny size (ML-100K, 60 users)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects.space import AspectSpace
from recdiv.data.qrels import Qrels
from recdiv.data.vocab import Vocab
from recdiv.eval.meta.perturbation import (
    bottom_to_top,
    distinct_levels,
    ideal_trace,
    order_correlation,
    perturbation_experiment,
    perturbed_systems,
    pvalue_curve,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "parapar_radlinski_experiments.py"


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(3)
    n_users, n_items, genres = 20, 40, list("ABCDE")
    rows = [(u, int(i), float(rng.integers(1, 6))) for u in range(n_users)
            for i in rng.choice(n_items, size=int(rng.integers(5, 12)), replace=False)]
    q = Qrels.from_frame(pd.DataFrame(rows, columns=["user", "item", "grade"]), Vocab(range(n_users)),
                         Vocab(range(n_items)))
    pairs = [(i, g) for i in range(n_items) for g in rng.choice(genres, size=int(rng.integers(1, 3)), replace=False)]
    return q, AspectSpace.from_frame(pd.DataFrame(pairs, columns=["item", "aspect"]), q.items)


def test_distinct_levels(synthetic):
    q, asp = synthetic
    tr = ideal_trace(q, asp, 6)  # ⌊6/2⌋ = 3 distinct bottom-to-top levels
    kept = distinct_levels(perturbed_systems(tr, "bottom_to_top", 8))
    assert sorted(kept) == [0, 1, 2, 3]
    assert (kept[3].items == bottom_to_top(tr, 3).items).all()


def test_experiment_equals_the_separate_functions(synthetic):
    q, asp = synthetic
    systems = perturbed_systems(ideal_trace(q, asp, 10), "bottom_to_top", 4)
    res = perturbation_experiment(systems, q, ["nDCG@5", "P@5"])
    tau = order_correlation(systems, q, ["nDCG@5", "P@5"])
    p = pvalue_curve(systems, q, "nDCG@5")
    assert res["nDCG@5"].tau == pytest.approx(tau["nDCG@5"])
    assert res["P@5"].tau == pytest.approx(tau["P@5"], nan_ok=True)
    assert res["nDCG@5"].pvalues == pytest.approx([p[s] for s in (1, 2, 3, 4)])
    assert res["nDCG@5"].levels.tolist() == [0, 1, 2, 3, 4] and res["nDCG@5"].means[0] > res["nDCG@5"].means[-1]


def test_example_tiny(ml100k_dir, tmp_path):
    spec = importlib.util.spec_from_file_location("pr_example", EXAMPLE)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    qrels, aspects, ctx = ex.load(ml100k_dir, max_users=60)
    assert 0 < len(qrels.population(ctx.threshold)) <= 60
    measures = {k: ex.MEASURES[k] for k in ("ab-nDCG", "EU", "S-recall")}
    exp12 = ex.experiments_1_2(qrels, aspects, ctx, cutoffs=(10,), measures=measures, levels=3)
    assert set(exp12) == {(f, 10) for f in ex.FAMILIES}
    r = exp12["bottom_to_top", 10]["ab-nDCG"]
    assert r.levels.tolist() == [0, 1, 2, 3] and r.tau == pytest.approx(1.0) and (r.pvalues < 0.05).all()
    exp3 = ex.experiment_3(qrels, aspects, ctx, cutoffs=(10,), betas=(0.5,), fractions=(1.0, 0.5), n_samples=2,
                           n_systems=4)
    assert np.allclose(exp3.taus["ab-nDCG(gamma_source=test)@10"][0], 1.0)
    text = ex.summary(exp12, exp3, 60)
    assert "Experiment 1" in text and "Experiment 3" in text
    ex.plot_all(exp12, exp3, tmp_path)
    assert (tmp_path / "pr-exp1-bottom_to_top-10.png").stat().st_size > 0
    assert (tmp_path / "pr-exp3-robustness.png").exists()
