"""The synthetic generator: determinism, exact sizes, genre structure, long tail, MNAR, genre concentration,
and the block (chunked) path in bounded memory. The ML-20M preset is not run here (see bench/bench_data.py)."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

from recdiv import ConfigError
from recdiv.arrays.concentration import gini
from recdiv.data.synthetic import PRESETS, generate


@pytest.fixture(scope="module")
def small():
    return generate("small")


def _same(a, b) -> bool:
    ia, ib = a.interactions, b.interactions
    return ((ia.matrix != ib.matrix).nnz == 0 and np.array_equal(ia.timestamps, ib.timestamps)
            and (a.attributes["genres"].matrix != b.attributes["genres"].matrix).nnz == 0)


def test_deterministic_from_seed():
    assert _same(generate("tiny", seed=3), generate("tiny", seed=3))
    assert not _same(generate("tiny", seed=3), generate("tiny", seed=4))


@pytest.mark.parametrize("preset", ["tiny", "ml-100k"])
def test_exact_sizes(preset):
    ds = generate(preset)
    n_u, n_i, n_r = PRESETS[preset]
    it = ds.interactions
    assert (it.n_users, it.n_items, it.nnz) == (n_u, n_i, n_r)


def test_small_preset_shape_and_speed(small):
    it = small.interactions
    assert (it.n_users, it.n_items, it.nnz) == PRESETS["small"] == (1000, 1500, 60_000)
    assert it.kind == "explicit" and it.scale == (1.0, 5.0)
    assert set(np.unique(it.values)) <= {1, 2, 3, 4, 5} and len(np.unique(it.values)) == 5
    assert it.timestamps is not None and len(it.timestamps) == it.nnz
    assert it.user_counts().min() >= 20
    t = time.perf_counter()
    generate("small", seed=1)
    assert time.perf_counter() - t < 2.0


def test_default_preset_is_small_and_overrides():
    assert generate(n_users=50, n_ratings=2000).interactions.n_users == 50
    assert generate().name == "synthetic:small:seed=0"
    ds = generate("tiny", n_items=200, n_ratings=900, n_genres=5)
    assert (ds.interactions.n_items, ds.interactions.nnz, ds.attributes["genres"].n_values) == (200, 900, 5)
    with pytest.raises(ConfigError, match="unknown synthetic preset"):
        generate("ml-7m")
    with pytest.raises(ConfigError, match="too dense"):
        generate("tiny", n_ratings=40 * 120)


def test_items_have_one_to_three_genres_with_skewed_popularity(small):
    g = small.attributes["genres"].matrix
    per_item = np.diff(g.indptr)
    assert per_item.min() == 1 and per_item.max() == 3
    share = np.bincount(g.indices, minlength=18) / g.shape[0]
    assert share[0] > 3 * share[-1]  # genre popularity is skewed
    assert small.attributes["genres"].names.ids[0] == "Drama"


def test_long_tail_popularity(small):
    counts = np.sort(small.interactions.item_counts())[::-1]
    assert counts[: len(counts) // 10].sum() > 0.35 * counts.sum()  # top 10% of items: > 35% of ratings
    assert gini(counts) > 0.45


def test_missing_not_at_random_and_genre_concentration(small):
    """Observed ratings skew high (liked items are observed more), and a user's high ratings fall on the
    user's favourite genre far more often than the catalog share of that genre."""
    it = small.interactions
    vals = np.bincount(it.values.astype(int), minlength=6)[1:] / it.nnz
    assert vals[3] + vals[4] > 0.5 and vals[0] < 0.1
    theta = small.extras["user_genre_pref"]
    fav = theta.argmax(axis=1)
    g = small.attributes["genres"].matrix.tocsc()
    u, i, r = it.user_index, it.item_index, it.values
    has_fav = np.asarray(g[i, :].multiply(np.eye(18)[fav[u]]).sum(axis=1)).ravel() > 0
    catalog = np.asarray(g[:, fav].sum(axis=0)).ravel() / g.shape[0]
    share_high = has_fav[r >= 4].mean()
    share_low = has_fav[r <= 2].mean()
    assert share_high > share_low + 0.1
    assert share_high > 1.5 * catalog.mean()


def test_block_path_is_exact_and_memory_bounded():
    """Small blocks exercise the chunked path: sizes stay exact and the traced peak stays a small multiple of
    the output (so ML-20M scale stays bounded: see bench/bench_data.py for the measured 20M run)."""
    tracemalloc.start()
    ds = generate(n_users=3000, n_items=2000, n_ratings=150_000, block_users=256, seed=5)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    it = ds.interactions
    assert (it.n_users, it.n_items, it.nnz) == (3000, 2000, 150_000)
    out_bytes = it.matrix.data.nbytes + it.matrix.indices.nbytes + it.timestamps.nbytes
    assert peak < 12 * out_bytes + 30e6
    assert np.all(np.diff(it.matrix.indptr) >= 1)
    m = it.matrix
    for r in range(0, 3000, 97):  # indices sorted and unique within rows
        row = m.indices[m.indptr[r] : m.indptr[r + 1]]
        assert np.all(np.diff(row) > 0)


def test_block_size_changes_stream_not_statistics():
    a = generate("tiny", block_users=7)
    b = generate("tiny")
    assert a.interactions.nnz == b.interactions.nnz
    np.testing.assert_array_equal(a.interactions.user_counts(), b.interactions.user_counts())
