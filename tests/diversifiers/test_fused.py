"""The compiled per-user loops (recdiv/diversifiers/greedy_kernels.py) select exactly what the NumPy template
selects, and what the per-user reference loops select, on random instances with tied scores and repeated aspect sets.

MMR and IA-Select are compared with the reference loop on untied scores only: with exactly tied scores, the template
(before and after the fused loops were added) and the reference loop compute some mathematically equal objective values
in a different floating-point order (e.g. 1/√|A|·1/√|B| against 1/√(|A||B|)), so such ties can break differently."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.aspects.similarity import Jaccard
from recdiv.data.rankings import Rankings
from recdiv.diversifiers import make_reranker
from recdiv.diversifiers.base import CandidateBlock
from recdiv.diversifiers.greedy_kernels import pairwise_sum
from recdiv.diversifiers.reference import reference_rerank
from recdiv.diversifiers.reference import user_environments as user_envs
from recdiv.testing.instances import random_instance

FUSED = [("MMR", {"lambda": 0.5}), ("MMR", {"lambda": 0.8}), ("MMR", {"lambda": 1.0}), ("IASelect", {}),
         ("xQuAD", {"lambda": 0.5}), ("xQuAD", {"lambda": 0.9, "alpha": 0.5}), ("PM2", {"lambda": 0.5}),
         ("PM2", {"lambda": 0.9}), ("Calibrated", {"lambda": 0.5}), ("Calibrated", {"lambda": 0.9})]


def tied_instance(seed: int):
    """random_instance with scores rounded to halves (many exact ties), 60 candidates from 40 items × 5 aspects."""
    cands, ctx = random_instance(seed, n_users=8, n_items=70, N=30)
    scores = np.round(cands.scores * 2) / 2
    return Rankings(cands.users, cands.items, scores, cands.user_vocab, cands.item_vocab), ctx


def template_only(rr):
    rr.fused = lambda block, k: None  # an instance attribute: the NumPy template runs
    return rr


@pytest.mark.parametrize(("name", "params"), FUSED, ids=[f"{c[0]}{c[1]}" for c in FUSED])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fused_equals_template_and_reference(name, params, seed):
    cands, ctx = tied_instance(seed)
    k = 12
    rr = make_reranker(name, **params)
    block = CandidateBlock(cands.items, cands.scores, cands.items >= 0, cands.users, ctx)
    block.cache["k"] = k
    assert rr._fused_applies() and rr.fused(block, k) is not None  # the compiled path is really exercised
    fused = rr.rerank(cands, k, ctx)
    template = template_only(make_reranker(name, **params)).rerank(cands, k, ctx)
    np.testing.assert_array_equal(fused.items, template.items)
    if name in ("MMR", "IASelect"):
        cands, ctx = random_instance(seed, n_users=8, n_items=70, N=30)
        fused = make_reranker(name, **params).rerank(cands, k, ctx)
    envs = user_envs(cands, ctx)
    for r in range(len(cands)):
        v = cands.items[r] >= 0
        pos = reference_rerank(name, params, cands.items[r][v].tolist(), cands.scores[r][v].tolist(), k, envs[r])
        assert fused.items[r][fused.items[r] >= 0].tolist() == cands.items[r][pos].tolist(), f"user row {r}"


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("seed", [4, 5])
def test_fused_mmr_jaccard_equals_template(lam, seed):
    cands, ctx = tied_instance(seed)
    ctx.similarity = Jaccard(ctx.aspects)
    fused = make_reranker("MMR", **{"lambda": lam}).rerank(cands, 10, ctx)
    template = template_only(make_reranker("MMR", **{"lambda": lam})).rerank(cands, 10, ctx)
    np.testing.assert_array_equal(fused.items, template.items)


def test_replaced_objective_runs_the_template():
    rr = make_reranker("xQuAD")
    assert rr._fused_applies()
    rr.objective = rr.objective  # e.g. a spy, as in test_example_e
    assert not rr._fused_applies()


@pytest.mark.parametrize("F", [1, 5, 7, 8, 9, 17, 18, 19, 40, 64, 127, 128])
def test_pairwise_sum_is_numpys_row_sum(F):
    rng = np.random.default_rng(F)
    a = rng.random((200, F)) * np.exp(rng.normal(size=(200, F)) * 4)
    a[rng.random(a.shape) < 0.5] = 0.0
    want = a.sum(axis=1)
    got = np.array([pairwise_sum(a[r], 0, F) for r in range(len(a))])
    assert got.tobytes() == want.tobytes()
