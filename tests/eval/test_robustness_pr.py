"""P&R Experiment 3 (METRICS.md §F.6 last bullet): aspect strata, proportional allocation and removal, the curve."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from recdiv.aspects.space import AspectSpace
from recdiv.data.qrels import Qrels
from recdiv.data.vocab import Vocab
from recdiv.eval.context import EvalContext
from recdiv.eval.meta.perturbation import ideal_trace, pr_experiment3, shuffled_systems
from recdiv.eval.meta.robustness import (
    aspect_strata,
    proportional_allocation,
    proportional_robustness,
    proportional_samples,
    system_means,
)


def _ids(q, qrels):
    return sorted(str(x) for x in q.items.id_of(qrels.matrix.indices))


def test_hand_example(example_c_test_items):
    q, asp = example_c_test_items
    strata, presence = aspect_strata(q, asp)
    # i1 (A and C) was placed from L_A, so it counts for A only: A = {i1, i2, i6}, C = {i4}, D = {i3, i5}
    by_item = dict(zip(q.items.id_of(q.matrix.indices), strata.tolist(), strict=True))
    names = {a: str(asp.names.id_of(a)) for a in range(3)} | {3: "none"}
    assert {i: names[s] for i, s in by_item.items()} == {"i1": "A", "i2": "A", "i6": "A", "i4": "C",
                                                         "i3": "D", "i5": "D"}
    assert presence.tolist() == [3, 1, 2, 0]
    # keep half (f = .5): remove 3 → shares (1.5, .5, 1.0, 0) → floors (1, 0, 1, 0), the extra unit goes to the
    # largest remainder .5, tie A/C → A (smaller index): (2, 0, 1, 0)
    assert proportional_allocation(presence, 3).tolist() == [2, 0, 1, 0]
    assert proportional_allocation(presence, 1).tolist() == [1, 0, 0, 0]  # (.5, .1667, .3333)
    # remove 5: (2.5, .8333, 1.6667) → floors (2, 0, 1), 2 extra units to the largest remainders .8333 (C), .6667 (D)
    assert proportional_allocation(presence, 5).tolist() == [2, 1, 2, 0]
    for _f, _b, kept in proportional_samples(q, strata, [0.5], 20, seed=3):
        ids = _ids(q, kept)
        assert len(ids) == 3 and "i4" in ids  # C keeps its only rating
        assert sum(i in ids for i in ("i1", "i2", "i6")) == 1 and sum(i in ids for i in ("i3", "i5")) == 1


@given(presence=st.lists(st.integers(0, 40), min_size=1, max_size=12), frac=st.floats(0, 1))
@settings(max_examples=200, deadline=None)
def test_allocation_properties(presence, frac):
    total = sum(presence)
    n = round(frac * total)
    q = proportional_allocation(presence, n)
    p = np.array(presence)
    assert q.sum() == n and (q >= 0).all() and (q <= p).all()
    if total:  # within one unit of the exact proportional share (Hamilton's quota property)
        exact = n * p / total
        assert (np.abs(q - exact) < 1).all()


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(11)
    n_users, n_items, genres = 30, 50, list("ABCDEF")
    rows = [(u, int(i), float(rng.integers(1, 6))) for u in range(n_users)
            for i in rng.choice(n_items, size=int(rng.integers(6, 15)), replace=False)]
    q = Qrels.from_frame(pd.DataFrame(rows, columns=["user", "item", "grade"]), Vocab(range(n_users)),
                         Vocab(range(n_items)))
    pairs = [(i, g) for i in range(n_items - 3) for g in rng.choice(genres, size=int(rng.integers(1, 4)),
                                                                    replace=False)]  # 3 items without aspects
    asp = AspectSpace.from_frame(pd.DataFrame(pairs, columns=["item", "aspect"]), q.items)
    return q, asp


def test_strata_follow_the_ideal(synthetic):
    q, asp = synthetic
    strata, presence = aspect_strata(q, asp)
    tr = ideal_trace(q, asp, int(q.n_judged().max()))
    used = tr.aspects_used[tr.ranking.items >= 0]
    expect = np.bincount(np.where(used >= 0, used, asp.n_aspects), minlength=asp.n_aspects + 1)
    assert presence.tolist() == expect.tolist() and presence.sum() == q.matrix.nnz
    # every rating's stratum is one of its item's aspects (or "none" exactly when the item has none)
    member = asp.dense(dtype=bool)[q.matrix.indices]
    none = strata == asp.n_aspects
    assert (none == ~member.any(axis=1)).all()
    assert member[np.flatnonzero(~none), strata[~none]].all()


@given(f=st.sampled_from([1.0, 0.95, 0.6, 0.35, 0.05]), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_removed_per_stratum_matches_allocation(synthetic, f, seed):
    q, asp = synthetic
    strata, presence = aspect_strata(q, asp)
    nnz = q.matrix.nnz
    quota = proportional_allocation(presence, nnz - round(f * nnz))
    full = set(zip(np.repeat(np.arange(q.matrix.shape[0]), np.diff(q.matrix.indptr)), q.matrix.indices,
                   strict=True))
    stratum_of = dict(zip(sorted(full), strata[np.lexsort((q.matrix.indices, np.repeat(
        np.arange(q.matrix.shape[0]), np.diff(q.matrix.indptr))))], strict=True))
    for _f, _b, kept in proportional_samples(q, strata, [f], 2, seed=seed):
        m = kept.matrix
        keep = set(zip(np.repeat(np.arange(m.shape[0]), np.diff(m.indptr)), m.indices, strict=True))
        assert keep <= full and len(keep) == round(f * nnz)
        removed = np.bincount([stratum_of[x] for x in full - keep], minlength=len(presence))
        assert removed.tolist() == quota.tolist()


def test_curve_level_one_and_recomputation(synthetic):
    q, asp = synthetic
    ctx = EvalContext(aspects=asp)
    measures = ["ab-nDCG(gamma_source=test)@5", "nDCG@10"]
    curve = pr_experiment3(q, asp, measures, ctx, n_systems=6, fractions=[1.0, 0.5], n_samples=3, seed=5)
    assert curve.kind == "aspect-proportional" and len(curve.systems) == 6
    assert np.allclose(curve.taus["nDCG@10"][0], 1.0)  # nothing removed ⇒ the reference order, τ = 1
    assert curve.mean["ab-nDCG(gamma_source=test)@5"][0] == pytest.approx(1.0)
    again = pr_experiment3(q, asp, measures, ctx, n_systems=6, fractions=[1.0, 0.5], n_samples=3, seed=5)
    assert np.array_equal(again.taus["nDCG@10"], curve.taus["nDCG@10"], equal_nan=True)
    # independent recomputation of one τ from the same streams
    s_sys, s_rem = (int(x) for x in np.random.default_rng(5).integers(0, 2**63 - 1, size=2))
    runs = shuffled_systems(ideal_trace(q, asp, int(q.n_judged().max())), 6, seed=s_sys)
    strata, _ = aspect_strata(q, asp)
    samples = list(proportional_samples(q, strata, [1.0, 0.5], 3, seed=s_rem))
    ref = system_means(runs, q, ["nDCG@10"], ctx)["nDCG@10"]
    deg = system_means(runs, samples[4][2], ["nDCG@10"], ctx)["nDCG@10"]  # level .5, sample 1
    assert curve.taus["nDCG@10"][1, 1] == pytest.approx(stats.kendalltau(ref, deg).statistic, nan_ok=True)
    direct = proportional_robustness(runs, q, ["nDCG@10"], ctx, strata=strata, fractions=[1.0, 0.5], n_samples=3,
                                     seed=s_rem)
    assert np.array_equal(direct.taus["nDCG@10"], curve.taus["nDCG@10"], equal_nan=True)
    assert curve.plot().axes[0].get_xlabel().startswith("fraction")
