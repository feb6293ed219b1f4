"""Hand-checkable cases and agreement with the wrapped libraries (LensKit, implicit)."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.algorithms import make_recommender
from recdiv.data import Interactions, Vocab
from tests.algorithms.conftest import random_interactions


def two_users(kind: str) -> Interactions:
    # A rated items 0:5, 1:3; B rated 0:4, 1:2, 2:5; item 3 unrated
    return Interactions.from_arrays(np.array([0, 0, 1, 1, 1]), np.array([0, 1, 0, 1, 2]),
                                    np.array([5, 3, 4, 2, 5.0]), Vocab(["A", "B"]), Vocab(["i0", "i1", "i2", "i3"]),
                                    kind=kind)


def test_user_knn_two_user_example_explicit():
    # centred: A (+1, −1), B (1/3, −5/3, 4/3); sim = 2 / (√2·√(42/9)) > 0; prediction for A on i2:
    # μ_A + sim·(4/3)/sim = 4 + 4/3; i3 has no rater -> not scored, so A's list is just [i2]
    m = make_recommender("user-knn", feedback="explicit").fit(two_users("explicit"))
    r = m.recommend(np.array([0]), 5)
    assert r.items[0].tolist() == [2, -1, -1, -1]
    assert r.scores[0, 0] == pytest.approx(4 + 4 / 3)


def test_user_knn_two_user_example_implicit():
    # binary cosine(A, B) = 2 / (√2·√3); implicit score = sum of neighbour similarities
    m = make_recommender("user-knn").fit(two_users("implicit"))
    assert m.score(np.array([0]), np.array([2]))[0] == pytest.approx(2 / np.sqrt(6))


@pytest.mark.parametrize("kind", ["explicit", "implicit"])
@pytest.mark.parametrize(("name", "params"), [("user-knn", {"k": 5}), ("item-knn", {"k": 4}),
                                              ("user-knn", {"k": 3, "min_nbrs": 2}),
                                              ("item-knn", {"k": 3, "min_nbrs": 2})])
def test_native_knn_matches_lenskit(kind, name, params):
    # real-valued ratings: no similarity ties, so neighbour selection is unambiguous
    rng = np.random.default_rng(4)
    base = random_interactions(n_users=50, n_items=35, kind="explicit", seed=9)
    train = base.with_values(rng.uniform(1, 5, base.nnz), kind=kind)
    users = np.arange(train.n_users)
    native = make_recommender(name, feedback="auto", **params).fit(train)  # auto: the data's kind decides
    lenskit = make_recommender(name, backend="lenskit", feedback="auto", **params).fit(train)
    a, b = native._score_block(users), lenskit._score_block(users)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)  # LensKit computes in float32


def test_item_knn_save_nbrs_matches_lenskit():
    rng = np.random.default_rng(4)
    base = random_interactions(n_users=50, n_items=35, seed=9)
    train = base.with_values(rng.uniform(1, 5, base.nnz))
    # explicit: real-valued ratings have no similarity ties (binary data would tie at the save_nbrs-th neighbour)
    a = make_recommender("item-knn", k=4, save_nbrs=10, feedback="explicit").fit(train)._score_block(np.arange(50))
    b = make_recommender("item-knn", k=4, save_nbrs=10, feedback="explicit",
                         backend="lenskit").fit(train)._score_block(np.arange(50))
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


def test_biased_mf_matches_lenskit_scorer():
    from lenskit.data import ItemList, RecQuery

    train = random_interactions(seed=11)
    m = make_recommender("mf-als", factors=6, seed=3).fit(train)
    assert m.item_factors.shape == (train.n_items, 6)
    items = ItemList(item_ids=np.arange(train.n_items))
    for u in (0, 5, 17):
        ref = m.lk_scorer_(RecQuery(user_id=u), items).scores()
        np.testing.assert_allclose(m.score(np.full(train.n_items, u), np.arange(train.n_items)), ref, rtol=1e-5,
                                   atol=1e-5)


def test_pure_svd_recovers_rank_two_matrix():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.5, 1.5, (12, 2)), rng.uniform(0.5, 1.5, (9, 2))
    r = a @ b.T  # dense rank-2, every cell stored
    u, i = np.nonzero(np.ones_like(r))
    train = Interactions.from_arrays(u, i, r[u, i], Vocab(range(12)), Vocab(range(9)))
    m = make_recommender("pure-svd", factors=2, algorithm="arpack").fit(train)
    assert m.item_factors.shape == (9, 2)
    got = m.score(np.repeat(np.arange(12), 9), np.tile(np.arange(9), 12)).reshape(12, 9)
    np.testing.assert_allclose(got, r, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(m.item_factors.T @ m.item_factors, np.eye(2), atol=1e-12)


def test_wrmf_matches_implicit_recommend():
    train = random_interactions(kind="implicit", seed=6)
    m = make_recommender("wrmf", factors=8, seed=2).fit(train)
    users = np.arange(train.n_users)
    _, scores = m.model_.recommend(users, train.matrix.astype(np.float32).tocsr(), N=5)
    r = m.recommend(users, 5)
    np.testing.assert_allclose(r.scores, scores, rtol=1e-4)


@pytest.mark.parametrize(("kind", "params"), [
    ("explicit", {"k": 4}), ("implicit", {"k": 3, "min_nbrs": 2}), ("explicit", {"k": 5, "save_nbrs": 8}),
    ("integer", {"k": 6}), ("integer-implicit", {"k": 4, "min_nbrs": 3}), ("explicit", {"k": 70}),
])
def test_item_knn_dense_path_equals_sparse_kernel(monkeypatch, kind, params):
    """The dense-similarity kernel gives bit-identical scores to the sparse one (same neighbours, same sums),
    also with similarity ties (integer ratings, binary data), save_nbrs, min_nbrs and k > 64 (np.partition path)."""
    import recdiv.algorithms.knn as knn

    n_items = 150 if params["k"] > 64 else 35
    base = random_interactions(n_users=60, n_items=n_items, density=0.6 if n_items > 35 else 0.3, seed=9)
    rng = np.random.default_rng(1)
    values = rng.uniform(1, 5, base.nnz) if not kind.startswith("integer") else base.values
    train = base.with_values(values, kind="implicit" if kind.endswith("implicit") else "explicit")
    users = np.arange(train.n_users)
    dense = make_recommender("item-knn", feedback="auto", **params).fit(train)
    assert dense.sims_dense_ is not None
    monkeypatch.setattr(knn, "DENSE_MAX_CELLS", 0)
    sparse = make_recommender("item-knn", feedback="auto", **params).fit(train)
    assert sparse.sims_dense_ is None
    a, b = dense._score_block(users), sparse._score_block(users)
    assert np.isfinite(a).any()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("name", "params", "dense"), [
    ("user-knn", {"k": 5}, None), ("user-knn", {"k": 3, "feedback": "explicit"}, None),
    ("item-knn", {"k": 4}, True), ("item-knn", {"k": 4, "feedback": "explicit"}, False),
])
def test_knn_serial_and_parallel_kernels_agree(monkeypatch, name, params, dense):
    """The k-NN kernels (recdiv.algorithms.knn_kernels, one `per_user_kernel` each): serial and parallel versions
    give bit-identical scores, whatever the number of users."""
    import functools

    import recdiv.algorithms.knn as knn
    import recdiv.algorithms.knn_kernels as kernels

    if dense is False:
        monkeypatch.setattr(knn, "DENSE_MAX_CELLS", 0)
    train = random_interactions(n_users=70, n_items=45, density=0.3, seed=5)
    model = make_recommender(name, **params).fit(train)
    assert dense is None or (model.sims_dense_ is not None) == dense
    scores = {}
    for parallel in (False, True):
        for kernel in ("user_knn_scores", "item_knn_scores", "item_knn_dense_scores"):
            monkeypatch.setattr(knn, kernel, functools.partial(getattr(kernels, kernel), parallel=parallel))
        scores[parallel] = model._score_block(np.arange(train.n_users))
    assert np.isfinite(scores[False]).any()
    np.testing.assert_array_equal(scores[False], scores[True])
