"""Splits: provided ML-100K splits, spec parsing, and the invariants as hypothesis property tests
(train/test disjoint and covering, no test item in the user's train, per-user proportions within one item,
seed determinism)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv import ConfigError
from recdiv.data import Interactions, Vocab
from recdiv.data.movielens import load_ml100k
from recdiv.data.splits import (
    holdout_split,
    kfold_split,
    kfold_splits,
    leave_last_split,
    make_split,
    temporal_split,
)
from recdiv.data.synthetic import generate


@st.composite
def interactions(draw):
    n_users = draw(st.integers(1, 8))
    n_items = draw(st.integers(1, 12))
    cells = draw(st.lists(st.tuples(st.integers(0, n_users - 1), st.integers(0, n_items - 1)), min_size=1,
                          max_size=60, unique=True))
    u, i = (np.array(x) for x in zip(*cells))
    ts = np.array(draw(st.lists(st.integers(0, 20), min_size=len(u), max_size=len(u))))
    return Interactions.from_arrays(u, i, np.arange(1.0, len(u) + 1), Vocab(range(n_users)), Vocab(range(n_items)),
                                    timestamps=ts)


def _parts(split):
    return [p for p in (split.train, split.test, split.validation) if p is not None]


def _check_partition(inter, split):
    parts = _parts(split)
    assert sum(p.nnz for p in parts) == inter.nnz
    total = sum(p.matrix for p in parts)
    assert (total != inter.matrix).nnz == 0  # disjoint and covering, values preserved
    for a in range(len(parts)):
        for b in range(a + 1, len(parts)):
            assert parts[a].matrix.multiply(parts[b].matrix).nnz == 0  # no test item in the user's train
    for p in parts:
        assert p.users is inter.users and p.items is inter.items
        if inter.timestamps is not None:  # timestamps travel with their values
            key = dict(zip(zip(inter.user_index, inter.item_index), inter.timestamps))
            assert all(key[k] == t for k, t in zip(zip(p.user_index, p.item_index), p.timestamps))


def _same(a, b):
    return all((x.matrix != y.matrix).nnz == 0 for x, y in zip(_parts(a), _parts(b)))


@settings(max_examples=40, deadline=None)
@given(interactions(), st.sampled_from([0.1, 0.2, 0.25, 0.5, 0.8]), st.sampled_from([0.0, 0.1, 0.15]),
       st.integers(0, 3))
def test_holdout_properties(inter, f, v, seed):
    s = holdout_split(inter, f, validation=v, seed=seed)
    _check_partition(inter, s)
    n = inter.user_counts()
    assert np.all(np.abs(s.test.user_counts() - f * n) <= 0.5 + 1e-9)  # round half up: within half an item
    if v:
        assert np.all(np.abs(s.validation.user_counts() - v * n) <= 1)
    assert _same(s, holdout_split(inter, f, validation=v, seed=seed))


@settings(max_examples=40, deadline=None)
@given(interactions(), st.integers(2, 5), st.integers(0, 3), st.sampled_from([0.0, 0.1]))
def test_kfold_properties(inter, k, seed, v):
    folds = kfold_splits(inter, k, seed=seed, validation=v)
    n = inter.user_counts()
    tests = []
    for s in folds:
        _check_partition(inter, s)
        assert np.all(np.abs(s.test.user_counts() - n / k) < 1)  # fold sizes differ by at most one
        tests.append(s.test.matrix)
        if v:
            assert np.all(s.validation.user_counts() <= np.floor(v * n + 0.5))
    assert (sum(tests) != inter.matrix).nnz == 0  # the K test folds partition the data
    assert _same(folds[0], kfold_split(inter, k, 1, seed=seed, validation=v))


@settings(max_examples=40, deadline=None)
@given(interactions(), st.sampled_from([0.5, 0.7, 0.8]), st.sampled_from([0.0, 0.1]))
def test_temporal_properties(inter, f, v):
    s = temporal_split(inter, f, validation=v)
    _check_partition(inter, s)
    assert s.train.nnz + (s.validation.nnz if v else 0) == int(np.floor(f * inter.nnz + 0.5 + 1e-9))
    if s.test.nnz and s.train.nnz:
        assert s.train.timestamps.max() <= s.test.timestamps.min()  # no training on the future
    if v and s.validation.nnz:
        assert s.validation.timestamps.max() <= (s.test.timestamps.min() if s.test.nnz else np.inf)


@settings(max_examples=40, deadline=None)
@given(interactions(), st.integers(1, 3), st.integers(0, 2), st.integers(0, 2))
def test_leave_last_properties(inter, n, v, seed):
    s = leave_last_split(inter, n, validation=v, seed=seed)
    _check_partition(inter, s)
    nu = inter.user_counts()
    np.testing.assert_array_equal(s.test.user_counts(), np.minimum(n, np.maximum(nu - 1, 0)))
    assert np.all(s.train.user_counts()[nu > 0] >= 1)
    # every test interaction is at least as new as every train interaction of its user
    for u in range(inter.n_users):
        tr = s.train.timestamps[s.train.user_index == u]
        te = s.test.timestamps[s.test.user_index == u]
        if len(tr) and len(te):
            assert tr.max() <= te.min()
    assert _same(s, leave_last_split(inter, n, validation=v, seed=seed))


def test_make_split_specs_and_names():
    ds = generate("tiny")
    assert make_split(ds, "holdout:0.2").name == "holdout:0.2"
    s = make_split(ds, "holdout:0.2:val=0.1", seed=1)
    assert s.validation is not None and s.name == "holdout:0.2:val=0.1"
    assert _same(s, holdout_split(ds.interactions, 0.2, validation=0.1, seed=1))
    assert _same(make_split(ds, "kfold:5:2", seed=2), kfold_split(ds.interactions, 5, 2, seed=2))
    t = make_split(ds.interactions, "temporal:0.8:val=0.1")
    assert (t.train.nnz, t.validation.nnz, t.test.nnz) == (840, 120, 240)
    assert make_split(ds, "leave-last:1").test.nnz == ds.interactions.n_users
    assert make_split(ds, "leave-last").test.nnz == ds.interactions.n_users
    for bad in ("holdout", "holdout:x", "kfold:5:6", "temporal:1.5", "split:0.2", "u1"):
        with pytest.raises(ConfigError):
            make_split(ds, bad)


def test_temporal_needs_timestamps():
    it = Interactions.from_arrays(np.array([0]), np.array([0]), None, Vocab([1]), Vocab([1]))
    with pytest.raises(ConfigError, match="timestamps"):
        make_split(it, "temporal:0.8")


@pytest.mark.realdata
def test_provided_split_by_name(ml100k_dir):
    ds = load_ml100k(ml100k_dir)
    s = make_split(ds, "u3")
    assert s is ds.splits["u3"] and s.test.nnz == 20_000
    h = make_split(ds, "holdout:0.2")
    # ML-100K: every user has ≥ 20 ratings, so round(0.2 n_u) per user
    np.testing.assert_array_equal(h.test.user_counts(), np.floor(0.2 * ds.interactions.user_counts() + 0.5))
