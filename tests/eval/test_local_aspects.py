"""nDCG-IA and RBU work on each chunk of users' own aspects (`intents.local_aspects`): the same bits as over every
aspect of the space, and no items × aspects array — with subtopic qrels every user has aspects of their own, so
that array grows with the square of the users (ML-100K u1: 56,602 × 5,771)."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.eval import parse_measure
from recdiv.eval.io import load_inputs
from recdiv.eval.metrics import intents
from recdiv.limits import MAX_DENSE_CELLS
from tests.eval.test_subtopics_ndeval import write_case

MEASURES = ["nDCG-IA(weights=uniform)@5", "nDCG-IA(weights=uniform,gain=rating)@20", "RBU(weights=uniform)@10",
            "RBU(grade=binary,weights=uniform)@20", "RBU(weights=uniform,p=0.5,e=0.1)"]


def _every_aspect(view, items):
    """The former computation: the indicator over every aspect of the space."""
    n_asp = intents.aspect_space(view).n_aspects
    tab = intents.aspect_table(view)[items]
    asp = np.zeros((*items.shape, n_asp + 1), dtype=bool)
    np.put_along_axis(asp, tab, True, axis=-1)
    return np.arange(n_asp), asp[..., :n_asp]


def _genre_case(tmp_path, seed):
    rng = np.random.default_rng(seed)
    (tmp_path / "asp").write_text("".join(f"i{i}\tg{g}\n" for i in range(60)
                                          for g in rng.choice(8, size=rng.integers(0, 4), replace=False)))
    (tmp_path / "q").write_text("".join(f"u{u} 0 i{i} {rng.integers(1, 6)}\n" for u in range(40)
                                        for i in rng.choice(60, size=rng.integers(1, 25), replace=False)))
    (tmp_path / "r").write_text("".join(f"u{u} Q0 i{i} {k + 1} {30 - k} s\n" for u in range(40)
                                        for k, i in enumerate(rng.choice(60, size=rng.integers(1, 30),
                                                                         replace=False))))
    return load_inputs(tmp_path / "q", [tmp_path / "r"], aspects=tmp_path / "asp", threshold=3)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("kind", ["subtopics", "genres"])
def test_local_aspects_give_the_bits_of_every_aspect(tmp_path, monkeypatch, seed, kind):
    if kind == "subtopics":
        qrels, runs = write_case(tmp_path, seed)
        inputs = load_inputs(None, runs[:1], subtopics=qrels)
    else:
        inputs = _genre_case(tmp_path, seed)
    run = next(iter(inputs.runs.values()))
    local = {m: parse_measure(m).per_user(run, inputs.qrels, inputs.context) for m in MEASURES}
    inputs.context.cache.clear()
    monkeypatch.setattr(intents, "local_aspects", _every_aspect)
    for mod in ("recdiv.eval.metrics.intent_aware", "recdiv.eval.metrics.intent_utility"):
        monkeypatch.setattr(f"{mod}.local_aspects", _every_aspect)
    for m in MEASURES:
        every = parse_measure(m).per_user(run, inputs.qrels, inputs.context)
        assert (every != 0).any(), m
        np.testing.assert_array_equal(local[m], every, err_msg=m)


def test_subtopics_of_many_users_need_no_items_by_aspects_array(tmp_path):
    """1,200 topics × 40 documents × 6 subtopics: 48,000 virtual items × 7,200 subtopics = 345.6 M cells, beyond the
    dense-array limit — computed chunk by chunk of users."""
    rng = np.random.default_rng(0)
    lines, run = [], []
    for t in range(1200):
        docs = rng.choice(500, size=40, replace=False)
        for d in docs:
            lines += [f"t{t} s{s} d{d} {int(rng.random() < 0.4)}\n" for s in rng.choice(6, size=2, replace=False)]
        run += [f"t{t} Q0 d{d} {k + 1} {40 - k} r\n" for k, d in enumerate(rng.permutation(docs)[:20])]
    (tmp_path / "sub").write_text("".join(lines))
    (tmp_path / "run").write_text("".join(run))
    inputs = load_inputs(None, [tmp_path / "run"], subtopics=tmp_path / "sub")
    space = inputs.context.aspects
    assert len(space.items) * space.n_aspects > MAX_DENSE_CELLS
    ndcg_ia, rbu = (parse_measure(m).per_user(inputs.runs["run"], inputs.qrels, inputs.context)
                    for m in ("nDCG-IA(weights=uniform)@20", "RBU(weights=uniform,e=0)@20"))
    assert len(ndcg_ia) == len(rbu) > 1000
    assert 0 < ndcg_ia.mean() < 1 and 0 < rbu.mean() < 1 and (ndcg_ia > 0).sum() == (rbu > 0).sum()
