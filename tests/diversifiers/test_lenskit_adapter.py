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
from lenskit.knn import ItemKNNScorer
from lenskit.pipeline import PipelineBuilder

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.lenskit_io import interactions_to_lenskit
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.diversifiers.lenskit_adapter import DiversifierComponent, reindex_space


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


def _builder_pipeline(method, params, space, candidates):
    from recdiv.diversifiers.lenskit_adapter import RecPipelineBuilder

    builder = RecPipelineBuilder()
    builder.scorer(ItemKNNScorer, {"max_nbrs": 10, "feedback": "implicit"})
    builder.reranker(DiversifierComponent(method=method, params=params, candidates=candidates, aspects=space))
    return builder.build()


@pytest.mark.parametrize(("method", "params"), [("xQuAD", {}), ("MMR", {"lambda": 0.7}), ("PM2", {}),
                                                ("IASelect", {}), ("NGD", {})])
def test_builder_pipeline_equals_the_cli_on_every_user(tmp_path, method, params):
    """LensKit's RecPipelineBuilder (recdiv's wiring) and its clone give, for every user, the lists `recdiv rerank`
    makes of the same candidates: the user's profile reaches the reranker, and the candidates are the
    component's `candidates` (25), not the n = 5 asked for."""
    from recdiv.cli import main
    from recdiv.data.textio import read_trec_run, write_interactions_tsv, write_item_aspects_tsv, write_trec_run

    train, space = _data()
    frame = train.to_frame()
    data = interactions_to_lenskit(train)
    pipe = _builder_pipeline(method, params, space, candidates=25)
    pipe.train(data)
    clone = pipe.clone()
    clone.train(data)
    write_interactions_tsv(frame, tmp_path / "train.tsv")
    write_item_aspects_tsv(space.to_frame().drop(columns="weight"), tmp_path / "aspects.tsv")
    rows = []
    for user in train.users.ids:
        base = pipe.run("ranker", query=user)
        ids, scores = base.ids()[:25], base.scores()[:25]
        rows += [(user, i, r + 1, s) for r, (i, s) in enumerate(zip(ids, scores))]
    write_trec_run(pd.DataFrame(rows, columns=["user", "item", "rank", "score"]), tmp_path / "cands.run")
    argv = ["rerank", str(tmp_path / "cands.run"), "--method", method, "--aspects", str(tmp_path / "aspects.tsv"),
            "--train", str(tmp_path / "train.tsv"), "--order", "rank", "-k", "5", "-o", str(tmp_path / "out.run")]
    for k, v in params.items():
        argv += ["--param", f"{k}={v}"]
    assert main(argv) == 0
    cli = read_trec_run(tmp_path / "out.run").groupby("user")["item"].apply(list).to_dict()
    for user in train.users.ids:
        want = cli[str(user)]
        assert [str(x) for x in recommend(pipe, user, n=5).ids()] == want, user
        assert [str(x) for x in recommend(clone, user, n=5).ids()] == want, user
    if method == "xQuAD":  # LensKit's own builder passes neither the user nor the 25 candidates
        from lenskit.pipeline import RecPipelineBuilder as LensKitBuilder

        plain = LensKitBuilder()
        plain.scorer(ItemKNNScorer, {"max_nbrs": 10, "feedback": "implicit"})
        plain.reranker(DiversifierComponent(method=method, params=params, candidates=25, aspects=space))
        plain = plain.build()
        plain.train(data)
        assert any([str(x) for x in recommend(plain, u, n=5).ids()] != cli[str(u)] for u in train.users.ids)


def test_component_config_keeps_the_aspects(tmp_path):
    """The aspect space lives in the component's configuration: a pipeline rebuilt from its config (clone, saved
    pipelines) has it; an aspect file works the same way."""
    from recdiv.data.textio import write_item_aspects_tsv

    _, space = _data()
    comp = DiversifierComponent(method="xQuAD", aspects=space)
    again = DiversifierComponent(comp.config)
    assert again.aspect_space().names == space.names
    np.testing.assert_array_equal(reindex_space(again.aspect_space(), space.items).membership.toarray(),
                                  space.membership.toarray())
    write_item_aspects_tsv(space.to_frame(), tmp_path / "a.tsv")
    from_file = DiversifierComponent(method="xQuAD", aspects_file=str(tmp_path / "a.tsv"))
    assert from_file.aspect_space().n_aspects == space.n_aspects
    with pytest.raises(Exception, match="once"):
        DiversifierComponent(method="xQuAD", aspects=space, aspects_file=str(tmp_path / "a.tsv"))
