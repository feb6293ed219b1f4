"""MSD, SSD, COVER and DPP against Pyversity 0.2 (`pyversity.diversify`) on shared inputs: item embeddings (recdiv's
`LatentCosine` over the same vectors) and raw scores, every user's candidates reranked by both.

Conventions (each checked, then mapped): Pyversity's `diversity` d weighs the diversity term (recdiv's λ weighs
relevance: λ = 1 − d) and uses raw scores (recdiv `norm=none`); it computes in float32 (recdiv in float64), so the
instances are random and untied. SSD z-scores the scores with the population sd (`normalize_scores=True`): recdiv
gets those z-scores with `norm=none` (its own `norm=zscore` uses the sample sd). COVER sums the coverage over the
candidates, recdiv averages it (F/|C|): d ↔ λ with λ/(1 − λ) = (1 − d)/(|C|·d). DPP weighs items by exp(β·z) with
z = (s − mean)/(sd + 1.19e−7) and β = 1 − d: recdiv's `theta` = 2β/(1 + 2β) on those z (norm=none) gives the same
kernel; k stays below the embedding rank so that neither stops early."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.aspects.similarity import LatentCosine
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import make_reranker
from recdiv.models.context import Context

pyv = pytest.importorskip("pyversity")

EPS32 = float(np.finfo(np.float32).eps)


def instance(seed: int, n_users: int = 8, n_items: int = 120, N: int = 40, dim: int = 24):
    rng = np.random.default_rng(seed)
    factors = rng.normal(size=(n_items, dim))
    cand = np.stack([rng.choice(n_items, N, replace=False) for _ in range(n_users)])
    scores = -np.sort(-rng.gamma(2.0, 1.0, size=(n_users, N)), axis=1)
    items = Vocab(np.arange(n_items))
    cands = Rankings(np.arange(n_users), cand, scores, Vocab(np.arange(n_users)), items)
    return cands, factors, Context(similarity=LatentCosine(factors))


def with_scores(cands: Rankings, scores: np.ndarray) -> Rankings:
    return Rankings(cands.users, cands.items, scores, cands.user_vocab, cands.item_vocab)


def zscores(s: np.ndarray, eps: float = 0.0) -> np.ndarray:
    return (s - s.mean(axis=1, keepdims=True)) / (s.std(axis=1, keepdims=True) + eps)


def pyversity_lists(cands, factors, k, strategy, diversity, scores=None, **kw):
    scores = cands.scores if scores is None else scores
    return [cands.items[u][pyv.diversify(factors[cands.items[u]], scores[u], k, strategy=strategy,
                                         diversity=diversity, **kw).indices] for u in range(len(cands))]


@pytest.mark.parametrize("d", [0.0, 0.3, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_msd(d, seed):
    cands, factors, ctx = instance(seed)
    ours = make_reranker("MSD", **{"lambda": 1.0 - d, "norm": "none"}).rerank(cands, 15, ctx)
    for u, theirs in enumerate(pyversity_lists(cands, factors, 15, "msd", d)):
        np.testing.assert_array_equal(ours.items[u], theirs, err_msg=f"user {u}")


@pytest.mark.parametrize(("d", "window", "gamma"), [(0.3, None, 1.0), (0.5, None, 1.0), (0.8, None, 2.0),
                                                     (0.5, 3, 1.0), (0.9, 5, 0.5), (1.0, None, 1.0)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ssd(d, window, gamma, seed):
    cands, factors, ctx = instance(seed)
    z = zscores(cands.scores)  # Pyversity's normalize_scores (population sd)
    rr = make_reranker("SSD", **{"lambda": 1.0 - d, "gamma": gamma, "window": window, "norm": "none"})
    ours = rr.rerank(with_scores(cands, z), 15, ctx)
    for u, theirs in enumerate(pyversity_lists(cands, factors, 15, "ssd", d, window=window, gamma=gamma)):
        np.testing.assert_array_equal(ours.items[u], theirs, err_msg=f"user {u}")


@pytest.mark.parametrize("d", [0.2, 0.5, 0.9])
@pytest.mark.parametrize("gamma", [0.5, 1.0, 0.3])
@pytest.mark.parametrize("seed", [0, 1])
def test_cover(d, gamma, seed):
    cands, factors, ctx = instance(seed, N=30)
    N = cands.k
    lam = (1.0 - d) / (N * d + 1.0 - d)  # λ/(1 − λ) = (1 − d)/(|C|·d)
    ours = make_reranker("COVER", **{"lambda": lam, "gamma": gamma, "norm": "none"}).rerank(cands, 12, ctx)
    for u, theirs in enumerate(pyversity_lists(cands, factors, 12, "cover", d, gamma=gamma)):
        np.testing.assert_array_equal(ours.items[u], theirs, err_msg=f"user {u}")


@pytest.mark.parametrize("d", [0.2, 0.5, 0.8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dpp(d, seed):
    cands, factors, ctx = instance(seed)
    beta = 1.0 - d
    z = zscores(cands.scores, EPS32)
    ours = make_reranker("DPP", theta=2 * beta / (1 + 2 * beta), norm="none").rerank(with_scores(cands, z), 12, ctx)
    for u, theirs in enumerate(pyversity_lists(cands, factors, 12, "dpp", d)):
        np.testing.assert_array_equal(ours.items[u], theirs, err_msg=f"user {u}")
