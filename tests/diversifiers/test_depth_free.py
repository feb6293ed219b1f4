"""`Reranker.DEPTH_FREE` (the first j of a top-k list is the top-j list) holds for every reranker that declares it,
and PM-2 and FA*IR, which read k, are right not to; `rerank(..., blocks=)` (what blocks derive from the candidates
kept across rerankings, the explorer's λ sweeps) gives the lists of a reranking that keeps nothing."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.diversifiers import RERANKERS, make_reranker
from recdiv.testing.instances import random_instance

FREE = sorted(n for n in RERANKERS if RERANKERS.get(n).DEPTH_FREE)
PARAMS = {"MMR": {"lambda": 0.3}, "xQuAD": {"lambda": 0.8}, "MSD": {"lambda": 0.2}, "SSD": {"lambda": 0.4},
          "DPP": {"theta": 0.2}, "NGD": {"lambda": 0.7}, "Calibrated": {"lambda": 0.9}, "COVER": {"lambda": 0.3}}


def test_the_greedy_rerankers_are_depth_free_but_pm2_and_fair():
    assert {"MMR", "xQuAD", "IASelect", "DPP", "Calibrated", "MSD", "SSD", "COVER", "NGD", "Ziegler"} <= set(FREE)
    assert not {"PM2", "FAIR", "Swap", "Random", "PlackettLuce"} & set(FREE)


@pytest.mark.parametrize("name", FREE)
def test_first_j_of_a_top_k_list_is_the_top_j_list(name):
    for seed in range(4):
        cands, ctx = random_instance(seed, n_users=6, N=14)
        for params in ({}, PARAMS.get(name, {})):
            deep = make_reranker(name, **params).rerank(cands, 12, ctx)
            for j in (1, 3, 7, 11):
                short = make_reranker(name, **params).rerank(cands, j, ctx)
                np.testing.assert_array_equal(deep.items[:, :j], short.items, err_msg=f"{name} {params} j={j}")


def test_fair_is_not_depth_free():
    """FA*IR's table m(t) is taken at the significance α_c corrected for k prefixes: a longer list can start
    differently (so the explorer reranks it anew). (PM-2's votes p(a|u)·k scale every quotient alike, so only
    rounding could tell its depths apart: it says False too, the safe side.)"""
    differ = 0
    for seed in range(10):
        cands, ctx = random_instance(seed, n_users=6, N=14)
        fair = make_reranker("FAIR", p=0.6, alpha=0.1)
        differ += not np.array_equal(fair.rerank(cands, 12, ctx).items[:, :4], fair.rerank(cands, 4, ctx).items)
    assert differ > 0


@pytest.mark.parametrize("name", ["xQuAD", "PM2", "IASelect", "Calibrated", "MMR", "FAIR"])
def test_blocks_kept_across_a_sweep_give_the_same_lists(name):
    cands, ctx = random_instance(3, n_users=9, N=16)
    param = {"IASelect": None, "FAIR": "p"}.get(name, "lambda")
    blocks: dict = {}
    for v in (0.0, 0.3, 0.7, 1.0) if param else (None,):
        params = {} if param is None else {param: min(max(v, 0.05), 0.95) if name == "FAIR" else v}
        for k in (10, 4):
            kept = make_reranker(name, **params).rerank(cands, k, ctx, blocks=blocks)
            alone = make_reranker(name, **params).rerank(cands, k, ctx)
            np.testing.assert_array_equal(kept.items, alone.items, err_msg=f"{name} {params} k={k}")
            np.testing.assert_array_equal(kept.scores, alone.scores)
    assert blocks  # something was kept
