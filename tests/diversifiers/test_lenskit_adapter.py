"""A recdiv reranker inside a small LensKit 2025 pipeline gives the same lists as recdiv called directly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lenskit import recommend
from lenskit.basic import PopScorer
from lenskit.basic.candidates import UnratedTrainingItemsCandidateSelector
from lenskit.basic.history import UserTrainingHistoryLookup
from lenskit.basic.topn import TopNRanker
from lenskit.data import ID, ItemList, RecQuery
from lenskit.pipeline import PipelineBuilder

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.lenskit_io import interactions_to_lenskit
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.diversifiers.lenskit_adapter import DiversifierComponent


def _data():
    rng = np.random.default_rng(3)
    users, items = Vocab(range(1, 41)), Vocab(range(100, 160))
    u = np.repeat(np.arange(40), 8)
    i = np.concatenate([rng.choice(60, 8, replace=False, p=np.linspace(2, 1, 60) / np.linspace(2, 1, 60).sum())
                        for _ in range(40)])
    train = Interactions.from_arrays(u, i, rng.integers(1, 6, len(u)).astype(float), users, items)
    asp = pd.DataFrame([(it, f"g{a}") for it in items.ids for a in rng.choice(6, rng.integers(1, 3), replace=False)],
                       columns=["item", "aspect"])
    return train, AspectSpace.from_frame(asp, items)


@pytest.mark.parametrize(("method", "params"), [("xQuAD", {"lambda": 0.7}), ("MMR", {}), ("NGD", {})])
def test_pipeline_equals_direct_call(method, params):
    train, space = _data()
    pb = PipelineBuilder()
    query = pb.create_input("query", RecQuery, ID, ItemList)
    n = pb.create_input("n", int, None)
    lookup = pb.add_component("history-lookup", UserTrainingHistoryLookup, query=query)
    cands = pb.add_component("candidate-selector", UnratedTrainingItemsCandidateSelector, query=lookup)
    scores = pb.add_component("scorer", PopScorer, query=lookup, items=cands)
    ranked = pb.add_component("ranker", TopNRanker, {"n": 20}, items=scores)
    rr = DiversifierComponent(method=method, params=params, aspects=space)
    pb.add_component("reranker", rr, items=ranked, query=lookup, n=n)
    pb.alias("recommender", "reranker")
    pb.default_component("recommender")
    pipe = pb.build()
    pipe.train(interactions_to_lenskit(train))

    ctx = RerankContext(train=train, aspects=space)
    for user in (1, 7, 23):
        base = pipe.run("ranker", query=user)
        got = recommend(pipe, user, n=5)
        cand = Rankings(np.array([train.users.lookup([user])[0]]), train.items.lookup(base.ids())[None, :],
                        base.scores()[None, :], train.users, train.items)
        want = make_reranker(method, **params).rerank(cand, 5, ctx)
        assert list(got.ids()) == list(train.items.id_of(want.items[0]))
        assert got.ordered and len(got) == 5
