"""Real data (ML-100K u1): IA-Select and xQuAD with genre aspects raise α-nDCG@50 and ILD@50 over MF and user-kNN
candidate lists (500 candidates → 50), as in the thesis' experiments."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.algorithms.registry import make_recommender
from recdiv.aspects.build import genre_space
from recdiv.data.qrels import Qrels
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.eval.context import EvalContext
from recdiv.eval.evaluate import evaluate

pytestmark = [pytest.mark.realdata]


@pytest.fixture(scope="module")
def ml100k_u1(ml100k_dir):
    from recdiv.data.movielens import load_ml100k

    ds = load_ml100k(ml100k_dir)
    return ds, ds.splits["u1"] if "u1" in ds.splits else next(iter(ds.splits.values()))


@pytest.mark.parametrize("baseline", ["mf-als", "user-knn"])
def test_ia_select_and_xquad_raise_alpha_ndcg_and_ild(ml100k_u1, baseline):
    ds, split = ml100k_u1
    space = genre_space(ds)
    qrels = Qrels.from_interactions(split.test)
    rec = make_recommender(baseline).fit(split.train)
    users = np.unique(split.test.user_index)
    cands = rec.recommend(users, 500)
    ctx = RerankContext(train=split.train, aspects=space)
    runs = {"base": cands.truncate(50),
            "IASelect": make_reranker("IASelect").rerank(cands, 50, ctx),
            "xQuAD": make_reranker("xQuAD", **{"lambda": 0.5}).rerank(cands, 50, ctx)}
    res = evaluate(runs, qrels, ["alpha-nDCG@50", "ILD@50"], EvalContext(train=split.train, aspects=space))
    means = {r: {m: float(np.nanmean(v)) for m, v in per.items()} for r, per in res.per_user.items()}
    print(baseline, {r: {m: round(v, 4) for m, v in x.items()} for r, x in means.items()})
    for r in ("IASelect", "xQuAD"):
        assert means[r]["alpha-nDCG@50"] > means["base"]["alpha-nDCG@50"], means
        assert means[r]["ILD@50"] > means["base"]["ILD@50"], means
