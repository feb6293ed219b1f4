"""What the explorer shares (lists, measures, the intervals and p-values of the population table, kept across
states and sessions) never changes what a state shows: states asked one after another and from several threads at
once on one engine show exactly what each shows when it is computed alone on a new engine."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from recdiv.explore import views
from recdiv.explore.engine import Engine
from recdiv.explore.state import MAX_DEPTH, Diversifier
from tests.explore.conftest import synthetic_state

D = Diversifier
STATES = [
    synthetic_state(),
    synthetic_state(a=D(reranker="MMR", params={"lambda": 0.3})),  # a λ move: B's parts are kept
    synthetic_state(a=D(reranker="MMR", params={"lambda": 0.3}), b=D(reranker="PM2", params={"lambda": 0.5})),
    synthetic_state(a=D(reranker="MMR", params={"lambda": 0.3}), user="7"),
    synthetic_state(k=5, measures=("nDCG@5", "EPC@5", "ILD@5", "alpha-nDCG@5")),
    synthetic_state(b=None),
    synthetic_state(a=D(reranker="xQuAD", params={"lambda": 0.5}), b=D(reranker="MMR", params={"lambda": 0.5})),
]


def _shown(engine: Engine, state) -> dict:
    p = engine.prepare(state)
    shown = {"population": views.population(engine, p), "user": views.user_view(engine, p)}
    if state in STATES[:2]:  # the curve's points are the same systems' measures (its own tests: test_app.py)
        shown["curve"] = views.curve(engine, p)["points"]
    return shown


def test_shared_caches_show_what_each_state_shows_alone(synthetic_catalog):
    alone = [_shown(Engine(synthetic_catalog), s) for s in STATES]
    shared = Engine(synthetic_catalog)
    assert [_shown(shared, s) for s in STATES] == alone
    assert [_shown(shared, s) for s in reversed(STATES)] == alone[::-1]  # now from the caches
    crowd = Engine(synthetic_catalog)
    with ThreadPoolExecutor(4) as pool:  # sessions at once, each state asked by two of them
        got = list(pool.map(lambda s: _shown(crowd, s), STATES + STATES))
    assert got == alone + alone


@pytest.mark.parametrize(("name", "params"), [("pop", {}), ("user-knn", {}), ("wrmf", {"factors": 8})])
def test_the_first_n_of_the_deepest_candidates_are_recommends_top_n(synthetic_catalog, name, params):
    """A change of n takes the first n of the top MAX_DEPTH (ties included: pop's scores tie a lot)."""
    engine = Engine(synthetic_catalog)
    for n in (1, 7, 50, MAX_DEPTH):
        p = engine.prepare(synthetic_state(recommender=name, recommender_params=params, n=n, k=1, measures=("P@1",)))
        got, _ = engine.candidates(p)
        model, _ = engine.model(p, name, p.config.recommenders[0].params)
        want = model.recommend(engine.users(p), n, exclude=p.data.split.train)
        assert got.k == min(n, len(p.data.split.train.items)) and np.array_equal(got.users, want.users)
        np.testing.assert_array_equal(got.items, want.items)
        np.testing.assert_array_equal(got.scores, want.scores)


@pytest.mark.parametrize(("a", "b"), [("MMR", "xQuAD"), ("DPP", "PM2"), ("IASelect", "Calibrated"), ("SSD", "COVER")])
def test_lists_at_any_k_are_the_rerankers_own(synthetic_catalog, a, b):
    """A depth-free reranker's lists are the first k of a deeper reranking and its blocks are kept across λ
    (`Engine.ranking`): they equal the reranker's own top-k lists, scores included, for k below, at and above
    the depth it reranks to, after deeper and shallower states."""
    from recdiv.diversifiers.registry import make_reranker

    engine = Engine(synthetic_catalog)
    for k, lam in ((15, 0.5), (3, 0.5), (10, 0.2), (20, 0.2), (7, 0.9)):
        state = synthetic_state(k=k, a=D(reranker=a), b=D(reranker=b, params={"lambda": lam}),
                                measures=(f"nDCG@{k}",))
        p = engine.prepare(state)
        cands, _ = engine.candidates(p)
        for label, d in (("A", state.a), ("B", state.b)):
            got, _ = engine.ranking(p, label)
            ctx = Engine(synthetic_catalog).rerank_context(p, "genres")[0]
            want = make_reranker(d.reranker, **d.params).rerank(cands, k, ctx)
            np.testing.assert_array_equal(got.items, want.items, err_msg=f"{d.reranker} k={k}")
            np.testing.assert_array_equal(got.scores, want.scores)
            np.testing.assert_array_equal(got.users, want.users)
