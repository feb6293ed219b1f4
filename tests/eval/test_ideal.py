"""Parapar & Radlinski ideal ordering (METRICS.md §F.7): worked example and a per-user reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.eval.meta.ideal import ideal_ordering
from tests.eval.test_intent_aware import build_case, example_c


def test_example_c_ideal_ordering():
    _, qrels, ctx = example_c()
    r, asp = ideal_ordering(qrels, ctx.aspects, 6, return_aspects=True)
    assert list(qrels.items.id_of(r.items[0])) == ["i1", "i5", "i6", "i4", "i2", "i3"]
    assert list(ctx.aspects.names.id_of(asp[0])) == ["A", "D", "A", "C", "A", "D"]
    short = ideal_ordering(qrels, ctx.aspects, 3)
    assert list(qrels.items.id_of(short.items[0])) == ["i1", "i5", "i6"]
    assert np.all(np.diff(short.scores[0]) < 0)


def reference(grades: dict, aspects: dict, n_asp: int, k: int, index: dict) -> list:
    """Straightforward per-user implementation of §F.7."""
    def eq9(items):
        mass = np.zeros(n_asp)
        for i in items:
            for a in aspects[i]:
                mass[a] += grades[i]
        return mass / mass.sum() if mass.sum() > 0 else mass

    wu = eq9(grades)
    if wu.sum() == 0:
        wu = np.full(n_asp, 1 / n_asp)
    key = sorted(grades, key=lambda i: (-grades[i], -len(aspects[i]), index[i]))
    out, used = [], []
    while len(out) < min(k, len(grades)):
        wi = eq9(out)
        order = sorted(range(n_asp), key=lambda a: (-(wu[a] - wi[a]), a))
        pick = None
        for a in order:
            cands = [i for i in key if a in aspects[i] and i not in out]
            if cands:
                pick = cands[0]
                break
        if pick is None:
            pick = next(i for i in key if i not in out)
        out.append(pick)
        used.append(pick)
    return out


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_matches_per_user_reference(data):
    n_asp = data.draw(st.integers(1, 4))
    ids = [f"d{i:02d}" for i in range(data.draw(st.integers(2, 12)))]
    asp_rows = [(d, f"a{a}") for d in ids for a in data.draw(st.sets(st.integers(0, n_asp - 1), max_size=n_asp))]
    qrels_rows = []
    for u in ["u1", "u2", "u3"]:
        for d in data.draw(st.lists(st.sampled_from(ids), unique=True, min_size=1)):
            qrels_rows.append((u, d, float(data.draw(st.integers(1, 5)))))
    k = data.draw(st.integers(1, 12))
    _, q, ctx = build_case(qrels_rows, [("u1", ids[0], 1.0)], asp_rows or [(ids[0], "a0")])
    space = ctx.aspects
    r = ideal_ordering(q, space, k)
    dense = space.dense(dtype=bool)
    for row, u in enumerate(r.users):
        m = q.matrix[u]
        grades = {int(i): float(g) for i, g in zip(m.indices, m.data)}
        aspects = {i: set(np.flatnonzero(dense[i]).tolist()) for i in grades}
        want = reference(grades, aspects, space.n_aspects, k, {i: i for i in grades})
        got = [int(i) for i in r.items[row] if i >= 0]
        assert got == want
