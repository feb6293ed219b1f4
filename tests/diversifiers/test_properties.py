"""Property tests (METRICS.md §G.6): ordered subsets without repeats, length min(k, N), pure-relevance settings keep
the baseline order, IA-Select gains are increments of P(S|u); plus registry/config validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.diversifiers import RERANKERS, make_reranker
from recdiv.errors import ConfigError
from recdiv.models.intent import item_aspect_distribution
from recdiv.testing.instances import random_instance
from recdiv.testing.properties import check_keeps_order, check_output, check_reranker

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 20), name=st.sampled_from(sorted(RERANKERS)))
def test_output_is_ordered_subset(seed, k, name):
    cands, ctx = random_instance(seed, n_users=3, N=12)
    check_output(cands, make_reranker(name).rerank(cands, k, ctx).check(), k)


@pytest.mark.parametrize("name", sorted(RERANKERS))
def test_every_builtin_passes_the_kit(name):
    """recdiv.testing's property checks, as a reranker author runs them, hold for every built-in reranker."""
    check_reranker(make_reranker(name), seeds=range(3))


def test_the_kit_finds_a_broken_reranker():
    class Repeats:  # returns each user's first candidate k times
        def rerank(self, candidates, k, context):
            out = make_reranker("MMR", **{"lambda": 1.0}).rerank(candidates, k, context)
            out.items[:, 1:] = np.where(out.items[:, 1:] >= 0, out.items[:, :1], -1)
            return out

    with pytest.raises(AssertionError, match="repeats an item"):
        check_reranker(Repeats())
    with pytest.raises(AssertionError, match="differ from the baseline's top"):
        check_keeps_order(make_reranker("MMR", **{"lambda": 0.0}))


#: the pure-relevance settings every reranker class declares (`Reranker.PURE_RELEVANCE`)
PURE = [(name, params) for name in sorted(RERANKERS) for params in RERANKERS.get(name).PURE_RELEVANCE]


def test_the_pure_relevance_settings_are_declared():
    assert len(PURE) >= 13 and ("MMR", {"lambda": 1.0}) in PURE and ("xQuAD", {"lambda": 0.0}) in PURE


@SETTINGS
@given(seed=st.integers(0, 10_000), k=st.integers(1, 15), case=st.sampled_from(PURE))
def test_pure_relevance_keeps_baseline_order(seed, k, case):
    name, params = case
    check_keeps_order(make_reranker(name, **params), seeds=[seed], ks=[k], n_users=3, N=12)


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_ia_select_gain_is_increment_of_coverage(seed):
    """f(i|S) = P(S ∪ {i}|u) − P(S|u), P(S|u) = Σ_a p(a|u)(1 − Π_{j∈S}(1 − V(j|a))), at every step."""
    cands, ctx = random_instance(seed, n_users=3, N=10)
    rr = make_reranker("IASelect")
    seen = []
    orig = rr.objective

    def spy(state, block, remaining, t):
        f = orig(state, block, remaining, t)
        seen.append((remaining.copy(), f.copy()))
        return f

    rr.objective = spy
    out = rr.rerank(cands, 6, ctx)
    space = ctx.aspects
    pai = item_aspect_distribution(space).toarray()
    pu_all = ctx.user_distribution("count")
    for r in range(len(cands)):
        v = cands.items[r] >= 0
        s = cands.scores[r][v]
        shat = (s - s.min()) / (s.max() - s.min())
        V = shat[:, None] * pai[cands.items[r][v]]
        pu = pu_all[cands.users[r]] if cands.users[r] < ctx.train.n_users else np.full(space.n_aspects, 1 / 5)

        def coverage(S, pu=pu, V=V):
            return float(np.sum(pu * (1 - np.prod([1 - V[j] for j in S], axis=0)))) if S else 0.0

        chosen = [int(np.flatnonzero(cands.items[r] == it)[0]) for it in out.items[r] if it >= 0]
        for t, (remaining, f) in enumerate(seen):
            for i in np.flatnonzero(remaining[r]):
                assert math.isclose(f[r, i], coverage([*chosen[:t], i]) - coverage(chosen[:t]), abs_tol=1e-12)


def test_registry_and_config_errors():
    assert list(RERANKERS) == ["MMR", "Ziegler", "IASelect", "xQuAD", "NGD", "PM2", "DPP", "Calibrated", "Random",
                               "PlackettLuce", "FAIR", "MSD", "SSD", "COVER", "Swap"]
    with pytest.raises(ConfigError, match="unknown reranker 'MRR'"):
        make_reranker("MRR")
    with pytest.raises(ConfigError, match="lambda"):
        make_reranker("MMR", **{"lambda": 1.5})
    with pytest.raises(ConfigError, match=r"extra|lamda"):
        make_reranker("xQuAD", lamda=0.5)
    assert make_reranker("mmr", **{"lambda": 0.8}).config.lambda_ == 0.8
    assert repr(make_reranker("MMR")) == "MMR(lambda=0.5, variant='thesis', norm='minmax')"


def test_short_lists_and_k_larger_than_n():
    cands, ctx = random_instance(5, n_users=3, N=6)
    for name in RERANKERS:
        out = make_reranker(name).rerank(cands, 50, ctx)
        assert out.k == 6
        np.testing.assert_array_equal(out.lengths, (cands.items >= 0).sum(axis=1))
