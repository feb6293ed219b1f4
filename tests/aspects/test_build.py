"""Explicit aspect spaces from dataset attributes (recdiv.aspects.build)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from recdiv.aspects.build import genre_space, space_from_attribute, tag_space
from recdiv.data.interactions import Attribute, Dataset, Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.models.intent import user_aspect_distribution


def _tag_dataset() -> Dataset:
    items = Vocab([10, 20, 30])
    users = Vocab([1])
    inter = Interactions.from_arrays(np.array([0]), np.array([0]), None, users, items)
    # weights = number of users who applied the tag
    m = sp.csr_matrix(np.array([[5, 1, 3, 0], [0, 2, 2, 0], [1, 0, 0, 0]], float))
    return Dataset("toy", inter, {"tags": Attribute(m, Vocab(["rock", "pop", "jazz", "unused"]))})


def test_tag_space_min_users_and_top():
    ds = _tag_dataset()
    s = tag_space(ds, min_users=2)
    assert list(s.names.ids) == ["rock", "pop", "jazz"]
    assert [sorted(s.names.ids[s.membership[i].indices]) for i in range(3)] == [["jazz", "rock"], ["jazz", "pop"], []]
    s = tag_space(ds, top_tags=1)
    # per artist the most used tag; ties (artist 20: pop 2, jazz 2) → lower tag index (pop)
    assert [list(s.names.ids[s.membership[i].indices]) for i in range(3)] == [["rock"], ["pop"], ["rock"]]
    np.testing.assert_allclose(s.membership.toarray().sum(axis=1), [5, 2, 1])


def test_unknown_attribute_is_config_error():
    with pytest.raises(ConfigError, match="no attribute 'genres'"):
        genre_space(_tag_dataset())
    with pytest.raises(ConfigError):
        space_from_attribute(_tag_dataset(), "tags", top=0)


@pytest.mark.realdata
def test_ml100k_genres(ml100k_dir):
    from recdiv.data.movielens import load_ml100k

    ds = load_ml100k(ml100k_dir, splits=False)
    s = genre_space(ds)
    assert s.n_aspects == 19 and len(s.items) == 1682
    assert s.membership.nnz == 2893  # genre flags in u.item
    p = user_aspect_distribution(s, ds.interactions)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


@pytest.mark.realdata
def test_lastfm_tags(lastfm_dir):
    from recdiv.data.lastfm import load_hetrec_lastfm

    ds = load_hetrec_lastfm(lastfm_dir, min_tag_users=1)
    s = tag_space(ds, top_tags=5, min_users=2)
    assert (s.n_item_aspects <= 5).all()
    assert s.membership.data.min() >= 2
    assert len(s.names) == len(np.unique(s.membership.indices))
