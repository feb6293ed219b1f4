"""MSD, COVER, SSD, Swap, FAIR and PlackettLuce: compiled loops = readable (NumPy) forms on random instances with tied
scores and repeated aspect sets, Swap against a per-user loop written from its definition, hand-worked lists, and
the Plackett–Luce reranker's samples."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from recdiv.aspects.similarity import Jaccard
from recdiv.aspects.space import AspectSpace
from recdiv.data.rankings import Rankings
from recdiv.data.samples import RankingSamples
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import make_reranker
from recdiv.diversifiers.base import CandidateBlock
from recdiv.diversifiers.cover import candidate_types
from recdiv.models.context import Context
from recdiv.testing.instances import random_instance
from tests.diversifiers.test_fused import template_only, tied_instance


def with_groups(ctx: Context, seed: int) -> Context:
    items = ctx.aspects.items
    prot = np.random.default_rng(seed).random(len(items)) < 0.3
    ctx.item_groups = AspectSpace(items, Vocab(["p"]), sp.csr_matrix(prot[:, None].astype(float)))
    return ctx


FUSED = [("MSD", {"lambda": 0.5}), ("MSD", {"lambda": 0.9}), ("MSD", {"lambda": 1.0}), ("MSD", {"lambda": 0.0}),
         ("COVER", {}), ("COVER", {"lambda": 0.9, "gamma": 1.0}), ("COVER", {"lambda": 0.2, "gamma": 0.3}),
         ("COVER", {"coverage": "max"}), ("COVER", {"lambda": 1.0}), ("COVER", {"lambda": 0.5, "norm": "rank"}),
         ("SSD", {}), ("SSD", {"lambda": 0.2, "gamma": 2.0}), ("SSD", {"window": 3}),
         ("SSD", {"window": 1, "bias": False}), ("SSD", {"lambda": 0.0}), ("SSD", {"lambda": 1.0}), ("FAIR", {}),
         ("FAIR", {"p": 0.8, "alpha": 0.2})]


@pytest.mark.parametrize(("name", "params"), FUSED, ids=[f"{c[0]}{c[1]}" for c in FUSED])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("jaccard", [False, True])
def test_fused_equals_template(name, params, seed, jaccard):
    cands, ctx = tied_instance(seed)
    with_groups(ctx, seed)
    if jaccard:
        ctx.similarity = Jaccard(ctx.aspects)
    rr = make_reranker(name, **params)
    block = CandidateBlock(cands.items, cands.scores, cands.items >= 0, cands.users, ctx)
    block.cache["k"] = 12
    assert rr._fused_applies() and rr.fused(block, 12) is not None  # the compiled path is really exercised
    fused = rr.rerank(cands, 12, ctx)
    template = template_only(make_reranker(name, **params)).rerank(cands, 12, ctx)
    np.testing.assert_array_equal(fused.items, template.items)


@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.6, 1.0])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("jaccard", [False, True])
def test_swap_compiled_equals_readable_and_reference(threshold, seed, jaccard):
    cands, ctx = tied_instance(seed)
    if jaccard:
        ctx.similarity = Jaccard(ctx.aspects)
    k = 8
    rr = make_reranker("Swap", threshold=threshold)
    fused = rr.rerank(cands, k, ctx)
    readable = make_reranker("Swap", threshold=threshold)
    readable._rerank_block = lambda block, k, rr=readable: _readable_swap(rr, block, k)
    np.testing.assert_array_equal(fused.items, readable.rerank(cands, k, ctx).items)
    space = ctx.aspects
    sets = [frozenset(space.membership[i].indices.tolist()) for i in range(len(space.items))]

    def sim(a, b):  # set cosine or Jaccard from the aspect sets; undefined for an item without aspects
        A, B = sets[a], sets[b]
        if not A or not B:
            return math.nan
        return len(A & B) / (len(A | B) if jaccard else math.sqrt(len(A) * len(B)))

    for r in range(len(cands)):
        v = cands.items[r] >= 0
        expect = reference_swap(cands.items[r][v].tolist(), cands.scores[r][v].tolist(), k, threshold, sim)
        assert fused.items[r][fused.items[r] >= 0].tolist() == expect, f"user row {r}"


def _readable_swap(rr, block, k):
    from recdiv.diversifiers.blocks import similarity_slicer
    from recdiv.diversifiers.normalize import normalize
    from recdiv.diversifiers.swap import _in_order

    slicer, _ = similarity_slicer(block.context.item_similarity(), block.items)
    relevant = normalize(block.scores, block.valid, rr.config.norm) >= rr.config.threshold
    return _in_order(rr._select(slicer, block, relevant, k), k)


def reference_swap(items, scores, k, threshold, sim):
    """Swap written from its definition, one user: contributions recomputed from scratch at every step, compared
    with a tolerance of 1e−9 (mathematically equal sums tie)."""
    lo, hi = min(scores), max(scores)
    shat = [1.0 if hi == lo else (s - lo) / (hi - lo) for s in scores]

    def d(a, b):
        s = sim(items[a], items[b])
        return 0.0 if math.isnan(s) else 1.0 - s

    R = list(range(min(k, len(items))))
    for c in range(len(R), len(items)):
        if shat[c] < threshold:
            break
        contrib = {i: sum(d(i, j) for j in R if j != i) for i in R}
        low = min(contrib.values())
        worst = max(i for i in R if abs(contrib[i] - low) <= 1e-9)
        rest = [j for j in R if j != worst]
        if sum(d(c, j) for j in rest) > sum(d(worst, j) for j in rest) + 1e-9:
            R = sorted([*rest, c])
    return [items[i] for i in R]


def test_swap_hand_worked():
    # aspects: a {x}, b {x}, c {x}, d {y}; k = 3: R = a, b, c (all alike); d (ŝ = 0 ≥ 0) has distance 1 to each:
    # the lowest-ranked member of the tied contributions (c) leaves: R = a, b, d
    items = Vocab(list("abcd"))
    space = AspectSpace(items, Vocab(["x", "y"]), sp.csr_matrix(np.array([[1, 0], [1, 0], [1, 0], [0, 1]], float)))
    cands = Rankings(np.array([0]), np.arange(4)[None, :], np.array([[4.0, 3, 2, 1]]), Vocab(["u"]), items)
    out = make_reranker("Swap", threshold=0.0).rerank(cands, 3, Context(aspects=space))
    assert items.id_of(out.items[0]).tolist() == ["a", "b", "d"]
    out = make_reranker("Swap", threshold=0.5).rerank(cands, 3, Context(aspects=space))  # ŝ(d) = 0 < 0.5
    assert items.id_of(out.items[0]).tolist() == ["a", "b", "c"]


def test_msd_and_cover_hand_worked():
    # a {x} 1.0, b {x} 0.9, c {y} 0.0 (ŝ); λ = 0.5, set cosine: MSD picks a, then b: 0.45 + 0.5·0 = 0.45 vs
    # c: 0 + 0.5·1 = 0.5 → c, then b
    items = Vocab(list("abc"))
    space = AspectSpace(items, Vocab(["x", "y"]), sp.csr_matrix(np.array([[1, 0], [1, 0], [0, 1]], float)))
    cands = Rankings(np.array([0]), np.arange(3)[None, :], np.array([[1.0, 0.9, 0.0]]), Vocab(["u"]), items)
    out = make_reranker("MSD").rerank(cands, 3, Context(aspects=space))
    assert items.id_of(out.items[0]).tolist() == ["a", "c", "b"]
    # COVER (sum, γ = 1, λ = 0.5): F(S) = (1/3)Σ_j c_j; gains at ∅: a 2/3 (covers a, b), b 2/3, c 1/3;
    # f = 0.5 + 0.5·2/3 (a) > 0.45 + 1/3 (b) > 0 + 1/6 (c) → a; then b 0.45 + 1/3 = 0.783 > c 1/6 → b, c
    out = make_reranker("COVER", gamma=1.0, **{"lambda": 0.5}).rerank(cands, 3, Context(aspects=space))
    assert items.id_of(out.items[0]).tolist() == ["a", "b", "c"]
    # γ = ½ saturates: after a, b's gain (1/3)(2(√2 − 1)) = 0.276 → 0.726; c's (1/3)·1 → 0.167: still a, b, c;
    # with λ = 0.1: b 0.09 + 0.9·0.276 = 0.339 < c 0 + 0.9·(1/3) = 0.3? no: 0.339 > 0.3 → a, b, c; λ = 0: c first
    out = make_reranker("COVER", **{"lambda": 0.0}).rerank(cands, 3, Context(aspects=space))
    assert items.id_of(out.items[0]).tolist() == ["a", "c", "b"]


@pytest.mark.parametrize("name", ["COVER", "SSD", "MSD"])
@pytest.mark.parametrize("jaccard", [False, True])
def test_undefined_relevance_takes_the_template_rule(name, jaccard):
    """Constant scores z-scored are NaN for every candidate: the compiled loops take the template's rule (the
    earliest remaining candidate) — COVER's lazy loop used to index past its arrays (a crash) here."""
    cands, ctx = random_instance(1, n_users=10, N=30, ragged=True)
    const = Rankings(cands.users, cands.items, np.where(cands.items >= 0, 1.0, np.nan), cands.user_vocab,
                     cands.item_vocab)
    if jaccard:
        ctx.similarity = Jaccard(ctx.aspects)
    for c in (cands, const):
        got = make_reranker(name, norm="zscore").rerank(c, 12, ctx)
        want = template_only(make_reranker(name, norm="zscore")).rerank(c, 12, ctx)
        np.testing.assert_array_equal(got.items, want.items)


def test_cover_types_group_equal_aspect_sets():
    cands, ctx = random_instance(0, n_users=4, n_items=30, N=20)
    block = CandidateBlock(cands.items, cands.scores, cands.items >= 0, cands.users, ctx)
    types, counts, _ = candidate_types(block)
    masks = ctx.item_similarity().bitmasks
    for u in range(block.n):
        v = block.valid[u]
        m = masks[block.items[u][v]]
        assert len(np.unique(m)) == int((counts[u] > 0).sum())  # one type per distinct aspect set
        for t in np.unique(types[u][v]):
            assert len(np.unique(m[types[u][v] == t])) == 1
        assert counts[u].sum() == v.sum()


# Plackett–Luce ----------------------------------------------------------------------------------------------------
def test_plackett_luce_is_seeded_and_block_invariant():
    cands, ctx = random_instance(3, n_users=20, N=15, ragged=True)
    a = make_reranker("PlackettLuce", seed=7).rerank(cands, 10, ctx)
    b = make_reranker("PlackettLuce", seed=7).rerank(cands, 10, ctx)
    np.testing.assert_array_equal(a.items, b.items)
    order = np.argsort(cands.users)
    np.testing.assert_array_equal(make_reranker("PlackettLuce", seed=7).rerank(cands.for_users(
        cands.users[order]), 10, ctx).items, a.items[order])  # users in another row order: the same lists
    c = make_reranker("PlackettLuce", seed=8).rerank(cands, 10, ctx)
    assert (c.items != a.items).any()
    for r in range(len(cands)):  # every list is a subset of the user's candidates, no repeats
        got = a.items[r][a.items[r] >= 0]
        assert len(set(got)) == len(got) and set(got) <= set(cands.items[r][cands.items[r] >= 0])


def test_plackett_luce_samples():
    cands, ctx = random_instance(4, n_users=6, N=12)
    out = make_reranker("PlackettLuce", samples=5, seed=1).rerank(cands, 4, ctx)
    assert isinstance(out, RankingSamples) and len(out) == 5
    assert len({tuple(s.items.ravel()) for s in out.samples}) == 5  # independent samples
    one = make_reranker("PlackettLuce", seed=1).rerank(cands, 4, ctx)
    np.testing.assert_array_equal(out.samples[0].items.shape, one.items.shape)
