"""The shortcuts of the run reader and of `Rankings.from_arrays` (issue 15: `recdiv rerank` of a 3 M-line run) give
what the general path gives: the duplicate check group by group (rows grouped by user, no global sort) finds the
same first repeat as the sort of all rows, and rankings built from grouped, in-order lines (no sort) equal the
rankings of the same lines shuffled (sorted within each row), on random inputs with ties, NaN scores, ragged and
equal-length lists."""

from __future__ import annotations

import math

import numpy as np
import pytest

from recdiv.data._read import Codes
from recdiv.data.rankings import Rankings
from recdiv.data.textio import first_duplicate
from recdiv.data.vocab import Vocab


def _reference_first_duplicate(users, items) -> int | None:
    seen: set = set()
    first = None
    for j, key in enumerate(zip(users.tolist(), items.tolist())):
        if key in seen and first is None:
            first = j
        seen.add(key)
    return first


def _lines(rng, n_users, n_items, *, equal: bool, grouped: bool, repeat: bool):
    lengths = np.full(n_users, 6) if equal else rng.integers(1, 9, n_users)
    users = np.repeat(rng.permutation(n_users), lengths)
    items = np.concatenate([rng.choice(n_items, size=m, replace=False) for m in lengths])
    if repeat:  # one repeated (user, item): a line of some user copied to another place of that user's lines
        j = int(rng.integers(len(users)))
        same = np.flatnonzero(users == users[j])
        items[same[-1] if same[-1] != j else same[0]] = items[j]
    if not grouped:
        order = rng.permutation(len(users))
        users, items = users[order], items[order]
    return users.astype(np.int32), items.astype(np.int32)


@pytest.mark.parametrize("seed", range(40))
def test_first_duplicate_group_by_group_equals_the_reference(seed):
    rng = np.random.default_rng(seed)
    users, items = _lines(rng, int(rng.integers(1, 12)), 15, equal=seed % 2 == 0, grouped=seed % 3 != 0,
                          repeat=seed % 4 < 2)
    labels = np.array([f"x{j}" for j in range(15)], dtype=object)
    got = first_duplicate(Codes(users, labels[:12]), Codes(items, labels))
    assert got == _reference_first_duplicate(users, items)


def _reference_rows(users, items, scores, ranks, item_vocab, order):
    """Each user's lines sorted by score descending then item id in descending string order (NaN scores last), or
    by rank (ties in input order), with Python's sort."""
    rows = {}
    for j, u in enumerate(users.tolist()):
        rows.setdefault(u, []).append(j)
    sr = item_vocab.string_rank
    out = []
    for u in sorted(rows):
        if order == "rank":
            lines = sorted(rows[u], key=lambda j: (ranks[j], j))
        else:
            lines = sorted(rows[u], key=lambda j: (math.isnan(scores[j]), -scores[j] if not math.isnan(scores[j])
                                                   else 0.0, -sr[items[j]]))
        out.append([int(items[j]) for j in lines])
    return out


@pytest.mark.parametrize("seed", range(40))
def test_rankings_from_lines_in_any_order_equal_the_reference(seed):
    rng = np.random.default_rng(100 + seed)
    users, items = _lines(rng, int(rng.integers(1, 10)), 20, equal=seed % 2 == 0, grouped=seed % 3 != 0,
                          repeat=False)
    item_vocab = Vocab([f"i{j}" for j in range(20)])  # string order differs from index order (i10 < i2)
    user_vocab = Vocab([f"u{j}" for j in range(10)])
    scores = rng.integers(0, 4, len(users)).astype(float)  # many ties
    if seed % 5 == 0:
        scores[rng.random(len(users)) < 0.2] = np.nan
    ranks = rng.integers(1, 5, len(users)).astype(float)
    order = "rank" if seed % 7 == 0 else "score"
    if seed % 4 != 3:  # lines in ranking order within each user (as runs are written): the shortcut applies
        key = np.lexsort((-item_vocab.string_rank[items], np.nan_to_num(-scores, nan=np.inf), users)) \
            if order == "score" else np.lexsort((ranks, users))
        users, items, scores, ranks = users[key], items[key], scores[key], ranks[key]
    r = Rankings.from_arrays(users, items, scores, user_vocab, item_vocab, ranks=ranks, order=order)
    want = _reference_rows(users, items, scores, ranks, item_vocab, order)
    assert [row[row >= 0].tolist() for row in r.items] == want
    assert r.users.tolist() == sorted(set(users.tolist()))
    lookup = {(int(u), int(i)): s for u, i, s in zip(users, items, scores)}
    for u, row, s in zip(r.users, r.items, r.scores):
        v = row >= 0
        np.testing.assert_array_equal(s[v], [lookup[(int(u), int(i))] for i in row[v]])
        assert np.isnan(s[~v]).all()
