"""Every baseline: n unseen items per user, deterministic by seed; registry and interface behaviour."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.algorithms import RECOMMENDERS, make_recommender
from recdiv.data import Interactions, Vocab
from recdiv.errors import ConfigError
from tests.algorithms.conftest import random_attribute, random_interactions

FAST = {"bpr": {"iterations": 10}, "plsa": {"max_iter": 20}, "mf-als": {"factors": 8}, "pure-svd": {"factors": 5},
        "wrmf": {"factors": 8}}
NAMES = sorted(RECOMMENDERS)


def fit(name: str, train: Interactions, **params):
    model = make_recommender(name, **{**FAST.get(name, {}), **params})
    side = {"attributes": random_attribute(train.n_items)} if name == "content" else {}
    return model.fit(train, **side)


def test_registry_names():
    assert set(RECOMMENDERS) == {"pop", "random", "avg-rating", "user-knn", "item-knn", "mf-als", "wrmf", "bpr",
                                 "pure-svd", "content", "plsa", "lda"}


def test_unknown_name_and_param_are_config_errors():
    with pytest.raises(ConfigError, match="'nope'"):
        make_recommender("nope")
    with pytest.raises(ConfigError, match="neighbours"):
        make_recommender("user-knn", neighbours=5)
    with pytest.raises(ConfigError, match="k"):
        make_recommender("user-knn", k=0)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["explicit", "implicit"])
def test_n_unseen_items_deterministic(name, kind):
    train = random_interactions(kind=kind, seed=5)
    users = np.arange(train.n_users)
    n = 10
    seed = {"seed": 7} if "seed" in RECOMMENDERS[name].Config.model_fields else {}
    r = fit(name, train, **seed).recommend(users, n)
    r.check()
    assert r.items.shape == (train.n_users, n)
    assert (r.lengths == n).all(), name
    for row, u in enumerate(r.users):
        assert not set(r.items[row]) & set(train.matrix[u].indices), f"{name} recommended a training item"
    assert (np.diff(r.scores, axis=1) <= 1e-12).all(), "scores must be non-increasing"
    again = fit(name, train, **seed)
    r2 = again.recommend(users, n)
    np.testing.assert_array_equal(r.items, r2.items)
    np.testing.assert_allclose(r.scores, r2.scores)


@pytest.mark.parametrize("name", ["random", "bpr", "wrmf", "plsa", "pure-svd", "mf-als"])
def test_seed_changes_result(name):
    train = random_interactions(kind="implicit" if name in ("bpr", "wrmf", "plsa") else "explicit", seed=2)
    users = np.arange(train.n_users)
    a = fit(name, train, seed=1).recommend(users, 10)
    b = fit(name, train, seed=2).recommend(users, 10)
    assert not np.allclose(a.scores, b.scores)


def test_popularity_order_and_tie_rule():
    # items 1..12; item 5 has 3 users, item 7 has 2, all others 1 -> ties by external id, descending string order
    users, items = [0, 1, 2, 0, 1], [5, 5, 5, 7, 7]
    users += [3] * 10
    items += [i for i in range(1, 13) if i not in (5, 7)]
    train = Interactions.from_arrays(np.array(users), np.array(items) - 1, None, Vocab(range(5)), Vocab(range(1, 13)))
    r = make_recommender("pop").fit(train).recommend(np.array([4]), 12)
    ids = train.items.id_of(r.items[0]).tolist()
    assert ids == [5, 7, 9, 8, 6, 4, 3, 2, 12, 11, 10, 1]
    np.testing.assert_array_equal(r.scores[0][:3], [3, 2, 1])


def test_avg_rating_penalty():
    # item 1: one 5-star rating -> 5·1/5 = 1; item 2: five 4s -> 4; item 3: two ratings 5, 3 -> 4·2/5 = 1.6
    u = np.array([0, 0, 1, 2, 3, 4, 0, 1])
    i = np.array([0, 1, 1, 1, 1, 1, 2, 2])
    v = np.array([5, 4, 4, 4, 4, 4, 5, 3.0])
    train = Interactions.from_arrays(u, i, v, Vocab(range(6)), Vocab([1, 2, 3]))
    m = make_recommender("avg-rating").fit(train)
    np.testing.assert_allclose(m.item_scores_, [1.0, 4.0, 1.6])
    r = m.recommend(np.array([5]), 3)
    assert train.items.id_of(r.items[0]).tolist() == [2, 3, 1]


def test_user_without_training_data_gets_empty_row():
    train = random_interactions()
    m = train.matrix.tolil()
    m[0, :] = 0
    csr = m.tocsr()
    csr.eliminate_zeros()
    u, i = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr)), csr.indices
    train = Interactions.from_arrays(u, i, csr.data, train.users, train.items)
    for name in ("user-knn", "mf-als", "wrmf"):
        r = fit(name, train).recommend(np.array([0, 1]), 5)
        assert (r.items[0] == -1).all() and np.isnan(r.scores[0]).all()
        assert (r.items[1] >= 0).all()
    r = fit("pop", train).recommend(np.array([0]), 5)  # non-personalised: everyone can be scored
    assert (r.items[0] >= 0).all()


def test_random_lists_do_not_depend_on_batching():
    train = random_interactions()
    m = make_recommender("random", seed=3).fit(train)
    full = m.recommend(np.arange(train.n_users), 8)
    one = m.recommend(np.array([7]), 8)
    np.testing.assert_array_equal(full.items[7], one.items[0])


def test_exclude_none_and_other():
    train = random_interactions()
    m = make_recommender("pop").fit(train)
    top = m.recommend(np.arange(3), train.n_items, exclude=None)
    assert (top.lengths == train.n_items).all()
    custom = train.select(train.user_index == 0)
    r = m.recommend(np.array([0, 1]), train.n_items, exclude=custom)
    assert r.lengths[0] == train.n_items - train.matrix[0].nnz and r.lengths[1] == train.n_items


def test_score_pairs_and_grid_match_recommend():
    train = random_interactions()
    m = fit("mf-als", train)
    r = m.recommend(np.arange(train.n_users), 5)
    grid = m.score(r.users, r.items)
    np.testing.assert_allclose(grid, r.scores, rtol=1e-12)
    pairs = m.score(r.users, r.items[:, 0])
    np.testing.assert_allclose(pairs, r.scores[:, 0], rtol=1e-12)
    padded = r.items.copy()
    padded[:, -1] = -1
    assert np.isnan(m.score(r.users, padded)[:, -1]).all()


def test_content_needs_attributes():
    train = random_interactions()
    with pytest.raises(ConfigError, match="attributes"):
        make_recommender("content").fit(train)
    m = make_recommender("content").set_attributes(random_attribute(train.n_items)).fit(train)
    assert (m.recommend(np.arange(3), 5).lengths == 5).all()


def test_content_cosine_hand_example():
    # items: a=[1,0], b=[1,1], c=[0,1]; user rated a with 4 -> profile [4,0]; cos(b)=1/√2, cos(c)=0
    import scipy.sparse as sp

    from recdiv.data import Attribute

    attr = Attribute(sp.csr_matrix(np.array([[1.0, 0], [1, 1], [0, 1]])), Vocab(["x", "y"]))
    train = Interactions.from_arrays(np.array([0]), np.array([0]), np.array([4.0]), Vocab([1]), Vocab(["a", "b", "c"]))
    m = make_recommender("content").fit(train, attributes=attr)
    np.testing.assert_allclose(m.score(np.array([0, 0]), np.array([1, 2])), [2 ** -0.5, 0.0])


def test_plsa_distributions():
    train = random_interactions(kind="implicit")
    m = fit("plsa", train, topics=4)
    assert m.user_topics.shape == (train.n_users, 4) and m.item_topics.shape == (4, train.n_items)
    np.testing.assert_allclose(m.user_topics.sum(axis=1), 1.0)
    np.testing.assert_allclose(m.item_topics.sum(axis=1), 1.0)
    s = m.score(np.arange(train.n_users)[:, None].repeat(train.n_items, 1)[:, 0], np.zeros(train.n_users, int))
    np.testing.assert_allclose(s, m.user_topics @ m.item_topics[:, 0])
