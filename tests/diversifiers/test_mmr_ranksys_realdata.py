"""Real data (ML-100K u1): MMR(variant=ranksys) reranks user-kNN candidates like the per-user reference of RankSys
0.4.3's rule (recdiv.diversifiers.reference: `LambdaReranker` z-scores with `Stats` ignoring NaN, `UserMMR`'s
running mean of distances, `GreedyReranker.selectItem`) on every user — with featureless candidates: the genre
space without Drama leaves the Drama-only films without features."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.algorithms.registry import make_recommender
from recdiv.aspects.build import genre_space
from recdiv.aspects.space import AspectSpace
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.diversifiers.reference import reference_rerank, user_environments

pytestmark = [pytest.mark.realdata]


@pytest.fixture(scope="module")
def u1_candidates(ml100k_dir):
    from recdiv.data.movielens import load_ml100k

    ds = load_ml100k(ml100k_dir)
    split = ds.splits["u1"]
    full = genre_space(ds)
    keep = full.names.lookup(np.array(["Drama"]))[0]
    m = full.membership.tolil()
    m[:, keep] = 0
    space = AspectSpace(full.items, full.names, m.tocsr(), "genres-without-drama")
    users = np.unique(split.test.user_index)
    cands = make_recommender("user-knn", feedback="implicit").fit(split.train).recommend(users, 40)
    return cands, RerankContext(train=split.train, aspects=space)


@pytest.mark.parametrize("lam", [0.5, 0.9])
def test_mmr_ranksys_equals_the_reference_rule_on_every_u1_user(u1_candidates, lam):
    cands, ctx = u1_candidates
    k = 10
    featureless = ~ctx.aspects.has_aspects
    valid = cands.items >= 0
    assert (featureless[np.where(valid, cands.items, 0)] & valid).any(axis=1).sum() > 100  # most users have some
    params = {"lambda": lam, "variant": "ranksys"}
    out = make_reranker("MMR", **params).rerank(cands, k, ctx)
    envs = user_environments(cands, ctx)
    for r in range(len(cands.users)):
        v = valid[r]
        pos = reference_rerank("MMR", params, cands.items[r][v].tolist(), cands.scores[r][v].tolist(), k, envs[r])
        assert out.items[r][out.items[r] >= 0].tolist() == cands.items[r][pos].tolist(), f"user row {r}"
