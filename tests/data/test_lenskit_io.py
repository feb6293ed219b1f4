"""Conversions to and from LensKit 2025.8 (`lenskit.data`)."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.data import Rankings, Vocab
from recdiv.data.lenskit_io import (
    interactions_from_lenskit,
    interactions_to_lenskit,
    qrels_from_itemlists,
    rankings_from_itemlists,
    rankings_to_itemlists,
)
from recdiv.data.synthetic import generate

ld = pytest.importorskip("lenskit.data")


@pytest.fixture(scope="module")
def tiny():
    return generate("tiny").interactions


def test_rankings_roundtrip_keyed_by_external_user_id(tiny):
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, size=(6, tiny.n_items)).astype(float)  # ties
    r = Rankings.from_scores(np.array([0, 2, 3, 5, 7, 9]), scores, 5, tiny.users, tiny.items)
    ilc = rankings_to_itemlists(r)
    assert ilc.key_fields == ("user_id",) and len(ilc) == 6
    il = ilc.lookup(user_id=int(tiny.users.id_of(2)))
    assert il.ordered and il.ids().tolist() == tiny.items.id_of(r.items[1]).tolist()
    np.testing.assert_allclose(il.scores(), r.scores[1])
    back = rankings_from_itemlists(ilc, tiny.users, tiny.items)
    np.testing.assert_array_equal(back.users, r.users)
    np.testing.assert_array_equal(back.items, r.items)


def test_unordered_lists_sorted_by_score_with_tie_rule():
    users, items = Vocab(["u"]), Vocab(["a", "c", "x", "b"])
    ilc = ld.ListILC(["user_id"])
    ilc.add(ld.ItemList(item_ids=["a", "b", "x", "c"], scores=[2.0, 1.0, 2.0, 2.0], ordered=False), user_id="u")
    r = rankings_from_itemlists(ilc, users, items)
    assert items.id_of(r.items[0]).tolist() == ["x", "c", "a", "b"]  # METRICS.md §0.5


def test_qrels_from_itemlists_uses_rating_field():
    users, items = Vocab([1, 2]), Vocab([10, 20, 30])
    ilc = ld.ListILC(["user_id"])
    ilc.add(ld.ItemList(item_ids=[10, 30], rating=[4.0, 2.5]), user_id=1)
    ilc.add(ld.ItemList(item_ids=[20]), user_id=2)
    q = qrels_from_itemlists(ilc, users, items)
    np.testing.assert_array_equal(q.matrix.toarray(), [[4, 0, 2.5], [0, 1, 0]])


def test_interactions_to_and_from_lenskit(tiny):
    ds = interactions_to_lenskit(tiny)
    assert ds.user_count == tiny.n_users and ds.item_count == tiny.n_items
    np.testing.assert_array_equal(ds.users.ids(), tiny.users.ids)
    m = ds.interaction_matrix(format="scipy", field="rating")
    assert (m != tiny.matrix).nnz == 0  # same order of users and items, same values
    back = interactions_from_lenskit(ds)
    assert (back.matrix != tiny.matrix).nnz == 0 and np.array_equal(back.timestamps, tiny.timestamps)
    assert back.kind == "explicit"
    implicit = interactions_to_lenskit(tiny.with_values(np.ones(tiny.nnz), kind="implicit"))
    assert interactions_from_lenskit(implicit).kind == "implicit"
