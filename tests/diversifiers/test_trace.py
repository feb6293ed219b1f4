"""`GreedyReranker.trace`: the greedy template with the objective (and its relevance and diversity parts) recorded
at the step each item was chosen — the explorer's view of a list. The traced positions are `rerank`'s; the parts
are checked against METRICS.md "Example E" worked by hand (tests/diversifiers/test_example_e.py)."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.diversifiers import make_reranker
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.diversifiers.registry import RERANKERS
from recdiv.testing.examples import example_e, ids
from recdiv.testing.instances import random_instance

SPLIT = {"MMR", "xQuAD", "NGD", "Calibrated", "Ziegler", "MSD", "SSD", "COVER"}  # relevance + diversity objectives
SETTINGS = [("MMR", {"lambda": 0.5}), ("MMR", {"lambda": 0.8, "variant": "ranksys"}), ("xQuAD", {}),
            ("xQuAD", {"lambda": 0.7, "norm": "zscore"}), ("IASelect", {}), ("PM2", {"lambda": 0.6}),
            ("NGD", {"lambda": 0.4}), ("DPP", {}), ("Calibrated", {"lambda": 0.5}), ("Ziegler", {"theta_F": 0.6}),
            ("FAIR", {"p": 0.7}), ("MSD", {"lambda": 0.5}), ("SSD", {"window": 3}), ("COVER", {})]


def test_every_greedy_builtin_is_covered():
    greedy = {e.name for e in RERANKERS.entries() if issubclass(e.obj, GreedyReranker)}
    assert greedy == {name for name, _ in SETTINGS}


@pytest.mark.parametrize(("name", "params"), SETTINGS, ids=[f"{n}{p}" for n, p in SETTINGS])
@pytest.mark.parametrize("seed", [0, 1])
def test_trace_selects_what_rerank_selects(name, params, seed):
    cands, ctx = random_instance(seed, n_users=7, n_items=50, N=20)
    k = 8
    out = make_reranker(name, **params).rerank(cands, k, ctx)
    tr = make_reranker(name, **params).trace(cands, k, ctx)
    rows = np.arange(len(cands))[:, None]
    chosen = np.where(tr.positions >= 0, cands.items[rows, np.maximum(tr.positions, 0)], -1)
    np.testing.assert_array_equal(chosen, out.items)
    assert tr.steps == k
    assert np.isfinite(tr.objective[tr.positions >= 0]).any()
    if name in SPLIT:
        assert tr.relevance is not None and tr.diversity is not None
        both = np.isfinite(tr.objective)
        np.testing.assert_allclose(tr.relevance[both] + tr.diversity[both], tr.objective[both], atol=1e-12)
    else:
        assert tr.relevance is None and tr.diversity is None
    for r in range(len(cands)):  # one user alone: the same list as in the whole population
        one = make_reranker(name, **params).trace(cands.for_users(cands.users[r:r + 1]), k, ctx)
        np.testing.assert_array_equal(one.positions[0], tr.positions[r])
        np.testing.assert_allclose(one.objective[0], tr.objective[r], atol=1e-12)


def test_mmr_parts_by_hand():
    # ŝ = (1, .75, .5, .25, 0); λ = .8: c1 (.8, 0); then c2: .8·.75 = .6 and −(1 − .8)·cos(c2, c1) = −.2; then c3:
    # .8·.5 = .4, C shares nothing with A: 0 (test_example_e: MMR λ = .8 selects c1, c2, c3)
    cands, ctx = example_e()
    tr = make_reranker("MMR", **{"lambda": 0.8}).trace(cands, 3, ctx)
    assert tr.positions[0].tolist() == [0, 1, 2]
    np.testing.assert_allclose(tr.relevance[0], [0.8, 0.6, 0.4], atol=1e-12)
    np.testing.assert_allclose(tr.diversity[0], [0.0, -0.2, 0.0], atol=1e-12)


def test_xquad_parts_by_hand():
    # Santos et al.'s form (norm=sum, λ = .5): P(i|u) = s/3.5; p(a|u) = (A .5, C .25, D .25). Step 1 c1: relevance
    # .5·.9/3.5, coverage .5·(.5·.3913); step 2 c5: .5·.5/3.5 and .5·(.25·1); step 3 c4: .5·.6/3.5 and
    # .5·(.5·(1 − .3913)·.2609 + .25·.4615) (test_example_e.test_xquad_default_step_values)
    cands, ctx = example_e()
    rr = make_reranker("xQuAD")
    tr = rr.trace(cands, 3, ctx)
    assert ids(rr.rerank(cands, 3, ctx)) == ("c1", "c5", "c4")
    assert tr.positions[0].tolist() == [0, 4, 3]
    np.testing.assert_allclose(tr.relevance[0], [0.5 * 0.9 / 3.5, 0.5 * 0.5 / 3.5, 0.5 * 0.6 / 3.5], atol=1e-12)
    pa_c1 = 0.9 / (0.9 + 0.8 + 0.6)  # P(c1|u,A) = .3913
    pa_c4, pc_c4 = 0.6 / 2.3, 0.6 / 1.3
    expected = [0.5 * 0.5 * pa_c1, 0.5 * 0.25, 0.5 * (0.5 * (1 - pa_c1) * pa_c4 + 0.25 * pc_c4)]
    np.testing.assert_allclose(tr.diversity[0], expected, atol=1e-12)
    np.testing.assert_allclose(tr.objective[0], [0.226398, 0.196429, 0.183104], atol=1e-6)


def test_trace_of_a_shortcut_records_no_step():
    # NGD with λ = 0 returns the baseline order without running the template
    cands, ctx = example_e()
    tr = make_reranker("NGD", **{"lambda": 0.0}).trace(cands, 3, ctx)
    assert tr.positions[0].tolist() == [0, 1, 2] and tr.steps == 0 and tr.relevance is None
    assert np.isnan(tr.objective).all()
