"""Latent aspect spaces: dominant MF factors, pLSA and LDA topics (recdiv.aspects.latent, METRICS.md §E.11)."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.aspects.latent import factor_space, item_topic_distribution, lda_space, plsa_space
from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError

ITEMS = Vocab(["a", "b", "c"])
Q = np.array([[0.9, -2.0, 0.1], [0.0, 0.0, 0.0], [-0.5, 0.2, 0.3]])


def test_dominant_factors_signed_and_abs():
    s = factor_space(Q, 1, ITEMS)
    assert [s.membership[i].indices.tolist() for i in range(3)] == [[0], [], [2]]
    s = factor_space(Q, 2, ITEMS, abs=True)
    assert [s.membership[i].indices.tolist() for i in range(3)] == [[0, 1], [], [0, 2]]
    assert (s.membership.data == 1).all()


def test_factor_l_required_in_range():
    with pytest.raises(ConfigError):
        factor_space(Q, 0, ITEMS)
    with pytest.raises(ConfigError):
        factor_space(Q, 4, ITEMS)


def test_plsa_item_topics_by_bayes():
    p_z_u = np.array([[0.8, 0.2], [0.4, 0.6]])  # p(z) = (.6, .4)
    p_i_z = np.array([[0.5, 0.5, 0.0], [0.1, 0.3, 0.6]])
    pzi = item_topic_distribution(p_z_u, p_i_z)
    # item a: .5·.6 = .30 vs .1·.4 = .04 → (.30/.34, .04/.34)
    np.testing.assert_allclose(pzi[0], [0.30 / 0.34, 0.04 / 0.34])
    np.testing.assert_allclose(pzi[2], [0.0, 1.0])
    space = plsa_space(p_z_u, p_i_z, ITEMS, top=1)
    assert isinstance(space, AspectSpace) and space.n_aspects == 2
    assert [space.membership[i].indices.tolist() for i in range(3)] == [[0], [0], [1]]
    np.testing.assert_allclose(space.user_topics, p_z_u)


def test_lda_space_shapes_and_determinism():
    rng = np.random.default_rng(0)
    users, items = Vocab(range(30)), Vocab(range(20))
    u = np.repeat(np.arange(30), 5)
    i = np.concatenate([rng.choice(20, 5, replace=False) for _ in range(30)])
    train = Interactions.from_arrays(u, i, None, users, items)
    s1, s2 = lda_space(train, 4, seed=1, max_iter=5), lda_space(train, 4, seed=1, max_iter=5)
    p1, p2 = s1.user_topics, s2.user_topics
    assert isinstance(s1, AspectSpace) and s1.n_aspects == 4 and p1.shape == (30, 4)
    np.testing.assert_allclose(p1, p2)
    np.testing.assert_allclose(p1.sum(axis=1), 1.0)
    np.testing.assert_allclose(s1.membership.toarray().sum(axis=1), 1.0)


def test_topic_spaces_former_pair_unpacks_with_a_warning():
    """plsa_space/lda_space returned (space, p(z|u)): code that unpacks it keeps working, warned (FutureWarning:
    shown to users), until the pair is removed; the TopicSpace kind builds the same space."""
    from recdiv.aspects.kinds import TopicSpace

    p_z_u = np.array([[0.8, 0.2], [0.4, 0.6]])
    p_i_z = np.array([[0.5, 0.5, 0.0], [0.1, 0.3, 0.6]])
    result = plsa_space(p_z_u, p_i_z, ITEMS)
    with pytest.warns(FutureWarning, match=r"use space\.user_topics"):
        space, pu = result
    assert space is result and pu is result.user_topics
    built = TopicSpace().build(p_z_u, p_i_z, ITEMS)
    assert np.array_equal(built.membership.toarray(), result.membership.toarray())
