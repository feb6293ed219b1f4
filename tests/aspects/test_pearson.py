"""`RatingPearson` against scipy.stats.pearsonr on the co-rated users of every item pair."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from recdiv.aspects import similarity as pearson_mod
from recdiv.aspects.similarity import RatingPearson, similarity_from_name
from recdiv.data.interactions import Interactions
from recdiv.data.vocab import Vocab


def _data(seed: int, n_users: int = 30, n_items: int = 12, density: float = 0.4):
    rng = np.random.default_rng(seed)
    mask = rng.random((n_users, n_items)) < density
    r = rng.integers(1, 6, (n_users, n_items)).astype(float)
    r[:, 0] = 3.0  # a constant item: undefined correlation
    u, i = np.nonzero(mask)
    train = Interactions.from_arrays(u, i, r[u, i], Vocab(range(n_users)), Vocab(range(n_items)))
    return train, mask, r


def _scipy_sim(mask, r, i, j) -> float:
    both = mask[:, i] & mask[:, j]
    if both.sum() < 2:
        return np.nan
    x, y = r[both, i], r[both, j]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = stats.pearsonr(x, y).statistic
    return (1 + rho) / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_scipy_on_every_pair(seed):
    train, mask, r = _data(seed)
    sim = RatingPearson(train)
    n = train.n_items
    expected = np.array([[_scipy_sim(mask, r, i, j) for j in range(n)] for i in range(n)])
    got = sim.full()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[~np.isnan(got)], expected[~np.isnan(expected)], atol=1e-12)
    assert np.isnan(got[0]).all()  # the constant item


def test_sim_blocks_padding_and_large_catalog_path(monkeypatch):
    train, mask, r = _data(5, n_users=40, n_items=15)
    a = np.array([[0, 3, 5, -1], [2, 1, 14, 7]])
    b = np.array([[4, 6, -1], [9, 2, 3]])
    full = RatingPearson(train).sim(a, b)
    assert full.shape == (2, 4, 3)
    assert np.isnan(full[0, 3]).all() and np.isnan(full[0, :, 2]).all()
    for u in range(2):
        for x in range(4):
            for y in range(3):
                if a[u, x] >= 0 and b[u, y] >= 0:
                    e = _scipy_sim(mask, r, a[u, x], b[u, y])
                    assert (np.isnan(e) and np.isnan(full[u, x, y])) or full[u, x, y] == pytest.approx(e, abs=1e-12)
    monkeypatch.setattr(pearson_mod, "_FULL_LIMIT", 0)  # force the pair path of big catalogs
    for pairs in (2, 5, 12, 10_000):  # chunks of columns, of rows, one call
        monkeypatch.setattr(pearson_mod, "_PAIRS", pairs)
        np.testing.assert_array_equal(RatingPearson(train).sim(a, b), full)  # the same bits as the sparse products


@pytest.mark.parametrize("seed", range(4))
def test_paired_sums_equal_sparse_products_bit_for_bit(seed):
    train, _, _ = _data(seed, n_users=60, n_items=30)
    sim = RatingPearson(train)
    every = np.arange(30)
    whole = sim.matrix(every, every)
    rng = np.random.default_rng(seed)
    a = rng.integers(-1, 30, size=(7, 9))
    b = rng.integers(-1, 30, size=(7, 11))
    got = sim.paired(a, b)
    want = np.where((a >= 0)[:, :, None] & (b >= 0)[:, None, :],
                    whole[np.maximum(a, 0)[:, :, None], np.maximum(b, 0)[:, None, :]], np.nan)
    np.testing.assert_array_equal(got, want)


def test_min_common_and_registry():
    train, mask, _ = _data(3)
    s3 = RatingPearson(train, min_common=3).full()
    co = mask.T.astype(int) @ mask.astype(int)
    assert np.isnan(s3[co < 3]).all()
    assert isinstance(similarity_from_name("pearson", train=train), RatingPearson)
    with pytest.raises(ValueError):
        RatingPearson(train, min_common=1)
