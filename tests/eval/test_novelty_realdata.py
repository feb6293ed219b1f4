"""Thesis §4.8.1 on MovieLens 100K (u1 split, genres as aspects): random recommendations score highest on the
relevance-unaware metrics and lowest on the relevance-aware ones, compared with a popularity ranking."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.aspects.space import AspectSpace
from recdiv.data.movielens import load_ml100k
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def ml100k_u1(ml100k_dir):
    ds = load_ml100k(ml100k_dir)
    split = ds.splits["u1"]
    train, qrels = split.train, Qrels.from_interactions(split.test)
    aspects = AspectSpace.from_attribute(ds.attributes["genres"], ds.items, "genres")
    users = np.flatnonzero(np.diff(qrels.matrix.indptr) > 0)
    seen = train.matrix[users].toarray() > 0

    def top50(scores: np.ndarray) -> Rankings:
        return Rankings.from_scores(users, np.where(seen, -np.inf, scores), 50, ds.users, ds.items)

    rng = np.random.default_rng(20120101)
    random = top50(rng.random((len(users), train.n_items)))
    popular = top50(np.broadcast_to(train.item_counts().astype(float), (len(users), train.n_items)))
    ctx = EvalContext(train=train, aspects=aspects, scale=(1, 5))
    return {"random": random, "popular": popular}, qrels, ctx


# EILD(dist=jaccard) is a near tie on ML-100K (random 0.8206 < popular 0.8252), like the near ties the thesis
# reports on MovieLens; the set-cosine variant separates the two.
@pytest.mark.parametrize("metric", ["EPC", "EIP", "EFD", "EPD", "EILD", "ILD", "EPC(disc=exp0.85)",
                                    "EILD(disc=exp0.85)"])
def test_random_wins_relevance_unaware(ml100k_u1, metric):
    runs, qrels, ctx = ml100k_u1
    m = parse_measure(metric + "@50")
    assert m.value(runs["random"], qrels, ctx) > m.value(runs["popular"], qrels, ctx)


@pytest.mark.parametrize("metric", ["EPC(rel=binary)", "EPC(rel=graded)", "EIP(rel=binary)", "EPD(rel=graded)",
                                    "EILD(rel=binary)", "EILD(rel=graded)", "EILD(dist=jaccard,rel=binary)",
                                    "EPC(disc=exp0.85,rel=graded)", "EILD(disc=exp0.85,rel=graded)"])
def test_random_loses_relevance_aware(ml100k_u1, metric):
    runs, qrels, ctx = ml100k_u1
    m = parse_measure(metric + "@50")
    assert m.value(runs["random"], qrels, ctx) < m.value(runs["popular"], qrels, ctx)


def test_values_in_range_and_exposure(ml100k_u1):
    runs, qrels, ctx = ml100k_u1
    for run in runs.values():
        for name in ("EPC@50", "EILD@50", "EPD@50", "ILD@50"):
            v = parse_measure(name).per_user(run, qrels, ctx)
            assert np.all((v >= 0) & (v <= 1)), name
    agg = parse_measure("AggregateDiversity@50")
    assert agg.value(runs["random"], qrels, ctx) > agg.value(runs["popular"], qrels, ctx)
    gini = parse_measure("Gini@50")
    assert gini.value(runs["random"], qrels, ctx) < gini.value(runs["popular"], qrels, ctx)
