"""P&R perturbation experiments (METRICS.md §F.7): the worked example, vectorisation, experiments 1–3."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects.space import AspectSpace
from recdiv.data.qrels import Qrels
from recdiv.data.vocab import Vocab
from recdiv.eval.meta.perturbation import (
    FAMILIES,
    aspect_swap,
    bottom_to_top,
    ideal_trace,
    order_correlation,
    perturbed_systems,
    pvalue_curve,
    redundant_aspect,
    shuffled_systems,
)


def _ids(q, r, row=0):
    return [str(x) for x in q.items.id_of(r.items[row][r.items[row] >= 0])]


def test_worked_example(example_c_test_items):
    q, asp = example_c_test_items
    tr = ideal_trace(q, asp, 6)
    assert _ids(q, tr.ranking) == ["i1", "i5", "i6", "i4", "i2", "i3"]
    assert [asp.names.id_of(a) for a in tr.aspects_used[0]] == ["A", "D", "A", "C", "A", "D"]
    assert tr.weights[0] == pytest.approx([7 / 15, 4.5 / 15, 3.5 / 15])  # A .4667, C .3, D .2333
    assert _ids(q, bottom_to_top(tr, 1)) == ["i3", "i5", "i6", "i4", "i2", "i1"]
    assert _ids(q, bottom_to_top(tr, 2)) == ["i3", "i2", "i6", "i4", "i5", "i1"]
    assert _ids(q, redundant_aspect(tr, 1)) == ["i1", "i6", "i5", "i4", "i2", "i3"]
    assert _ids(q, redundant_aspect(tr, 2)) == ["i1", "i6", "i2", "i4", "i5", "i3"]
    assert _ids(q, aspect_swap(tr, 1)) == ["i5", "i1", "i6", "i4", "i2", "i3"]
    assert _ids(q, aspect_swap(tr, 2)) == _ids(q, aspect_swap(tr, 1))  # no second aspect: keeps level 1
    assert _ids(q, bottom_to_top(tr, 9)) == _ids(q, bottom_to_top(tr, 3))  # ⌊6/2⌋ swaps at most


def test_short_ideal_replaces_items(example_c_test_items):
    q, asp = example_c_test_items
    tr = ideal_trace(q, asp, 2)  # ι = (i1, i5): the popped items are not in ι
    assert _ids(q, tr.ranking) == ["i1", "i5"]
    assert _ids(q, redundant_aspect(tr, 1)) == ["i1", "i6"]
    assert _ids(q, aspect_swap(tr, 1)) == ["i5", "i1"]


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(7)
    n_users, n_items, genres = 25, 60, list("ABCDEFG")
    rows = [(u, int(i), float(rng.integers(1, 6))) for u in range(n_users)
            for i in rng.choice(n_items, size=int(rng.integers(8, 20)), replace=False)]
    q = Qrels.from_frame(pd.DataFrame(rows, columns=["user", "item", "grade"]), Vocab(range(n_users)),
                         Vocab(range(n_items)))
    pairs = [(i, g) for i in range(n_items) for g in rng.choice(genres, size=int(rng.integers(1, 4)), replace=False)]
    asp = AspectSpace.from_frame(pd.DataFrame(pairs, columns=["item", "aspect"]), q.items)
    return q, asp


@pytest.mark.parametrize("family", FAMILIES)
def test_vectorised_equals_user_by_user(synthetic, family):
    q, asp = synthetic
    tr = ideal_trace(q, asp, 10)
    together = perturbed_systems(tr, family, [1, 3, 4])
    for k, u in enumerate(tr.ranking.users[:8]):
        alone = perturbed_systems(ideal_trace(q, asp, 10, users=np.array([u])), family, [1, 3, 4])
        for s in (0, 1, 3, 4):
            a, b = together[s].items[k], alone[s].items[0]
            assert a[a >= 0].tolist() == b[b >= 0].tolist()
    for r in together.values():  # every perturbed list is a permutation of test items
        r.check()
        assert np.isfinite(q.lookup(r.users, r.items)[r.items >= 0]).all()


def test_experiments(synthetic):
    q, asp = synthetic
    tr = ideal_trace(q, asp, 10)
    systems = perturbed_systems(tr, "bottom_to_top", 5)
    assert sorted(systems) == [0, 1, 2, 3, 4, 5]
    tau = order_correlation(systems, q, ["nDCG@10", "P@10"])
    assert tau["nDCG@10"] == pytest.approx(1.0)  # moving worse items up lowers nDCG at every level
    p = pvalue_curve(systems, q, "nDCG@10")
    assert list(p) == [1, 2, 3, 4, 5] and p[5] < p[1] < 1 and p[5] < 1e-3
    shuffles = shuffled_systems(tr, 5, seed=1)
    assert len(shuffles) == 5
    for r in shuffles.values():
        assert (np.sort(r.items, axis=1) == np.sort(tr.ranking.items, axis=1)).all()
    again = shuffled_systems(tr, 5, seed=1)
    assert all((again[k].items == shuffles[k].items).all() for k in shuffles)
