"""Robustness to incompleteness (METRICS.md §F.6): degraded qrels, τ_b curves, the worked example."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.eval.meta.robustness import (
    SPARSITY_LEVELS,
    item_popularity,
    keep_ratings,
    kendall_tau_b,
    popularity_robustness,
    popularity_samples,
    sparsity_robustness,
    sparsity_samples,
    system_means,
)


def test_worked_example():
    assert kendall_tau_b([0.30, 0.25, 0.20], [0.28, 0.29, 0.10]) == pytest.approx(1 / 3)


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(0)
    n_users, n_items = 40, 30
    rows = []
    for u in range(n_users):
        for i in rng.choice(n_items, size=8, replace=False):
            rows.append((u, int(i), float(rng.integers(1, 6))))
    qrels = Qrels.from_frame(pd.DataFrame(rows, columns=["user", "item", "grade"]),
                             Vocab(range(n_users)), Vocab(range(n_items)))
    dense = qrels.matrix.toarray()
    runs = {}
    for s, noise in enumerate([0.2, 0.6, 1.0, 1.6, 3.0]):  # less noise ⇒ better system
        scores = dense + rng.normal(0, noise, dense.shape) * 3
        runs[f"s{s}"] = Rankings.from_scores(np.arange(n_users), scores, 10, qrels.users, qrels.items)
    return qrels, runs


def test_keep_ratings_and_sparsity_samples(setup):
    qrels, _ = setup
    nnz = qrels.matrix.nnz
    seen = [(f, b, q.matrix.nnz) for f, b, q in sparsity_samples(qrels, [1.0, 0.5, 0.05], 3, seed=1)]
    assert [(f, b) for f, b, _ in seen] == [(f, b) for f in (1.0, 0.5, 0.05) for b in range(3)]
    assert [k for *_, k in seen] == [nnz] * 3 + [round(0.5 * nnz)] * 3 + [round(0.05 * nnz)] * 3
    # every kept rating is an original (user, item, grade) triple
    q = keep_ratings(qrels, np.arange(0, nnz, 3))
    full = qrels.to_frame().set_index(["user", "item"])["grade"]
    sub = q.to_frame().set_index(["user", "item"])["grade"]
    assert (full.loc[sub.index] == sub).all() and len(sub) == len(range(0, nnz, 3))
    a = [q.matrix.indices.tolist() for *_, q in sparsity_samples(qrels, [0.5], 2, seed=4)]
    b = [q.matrix.indices.tolist() for *_, q in sparsity_samples(qrels, [0.5], 2, seed=4)]
    assert a == b and a[0] != a[1]
    assert len(SPARSITY_LEVELS) == 20 and SPARSITY_LEVELS[0] == 1.0 and SPARSITY_LEVELS[-1] == 0.05


def test_sparsity_curve(setup):
    qrels, runs = setup
    curve = sparsity_robustness(runs, qrels, ["P@10", "nDCG@10"], fractions=[1.0, 0.6, 0.2], n_samples=4, seed=2)
    assert curve.taus["P@10"].shape == (3, 4)
    assert np.allclose(curve.taus["P@10"][0], 1.0)  # the full test set reproduces the reference ranking
    means = curve.mean
    assert means["nDCG@10"][0] == pytest.approx(1.0) and means["nDCG@10"][2] <= 1.0 + 1e-12
    # independent recomputation of one sample: same stream, evaluate, scipy kendalltau
    samples = list(sparsity_samples(qrels, [1.0, 0.6, 0.2], 4, seed=2))
    _f, _b, q = samples[9]  # level 0.2, sample 1
    ref = system_means(runs, qrels, ["P@10"])["P@10"]
    deg = system_means(runs, q, ["P@10"])["P@10"]
    assert curve.taus["P@10"][2, 1] == pytest.approx(stats.kendalltau(ref, deg).statistic)
    assert curve.reference["P@10"][0] > curve.reference["P@10"][-1]


def test_popularity_curve(setup):
    qrels, runs = setup
    pop = item_popularity(qrels)
    assert pop.sum() == qrels.matrix.nnz
    levels = list(popularity_samples(qrels, pop, [0, 10, 20]))
    rated = np.flatnonzero(pop > 0)
    top = rated[np.lexsort((rated, -pop[rated]))][: round(0.1 * len(rated))]
    q10 = levels[1][1]
    assert not np.isin(q10.matrix.indices, top).any()
    assert q10.matrix.nnz == qrels.matrix.nnz - pop[top].sum()
    curve = popularity_robustness(runs, qrels, ["P@10"], percents=[0, 10, 20])
    assert curve.taus["P@10"].shape == (3, 1) and curve.mean["P@10"][0] == pytest.approx(1.0)
    fig = curve.plot()
    assert fig.axes[0].get_xlabel().startswith("%")
