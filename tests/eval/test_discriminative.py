"""Discriminative power (METRICS.md §F.5): Valcarce DP, Sakai ASL curves and fraction significant."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.eval.meta.discriminative import (
    asl_curve,
    discriminative_power,
    measure_report,
    sakai_power,
    valcarce_dp,
)
from recdiv.eval.results import Results
from recdiv.eval.stats.significance import bootstrap_test, permutation_test


def test_worked_example():
    p = [0.01, 0.20, 0.03]
    assert valcarce_dp(p) == pytest.approx(0.24)
    assert sakai_power(p, 0.05) == pytest.approx(2 / 3)


def _systems(n=120, S=4, seed=0):
    rng = np.random.default_rng(seed)
    user = rng.random(n)
    return np.clip(user[None, :] + np.linspace(0, 0.09, S)[:, None] + rng.normal(0, 0.1, (S, n)), 0, 1)


def test_valcarce_dp_equals_pairwise_randomisation():
    Y = _systems()
    dp = discriminative_power(Y, n_samples=5000, seed=1)
    assert dp.pairs == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    ref = [permutation_test(Y[i], Y[j], n_samples=5000, seed=1).p_value for i, j in dp.pairs]
    assert dp.p_values == pytest.approx(ref, abs=0)
    assert dp.dp == pytest.approx(sum(ref))
    assert np.all(np.diff(dp.curve) <= 0)
    assert dp.fraction == pytest.approx(np.mean(np.array(ref) < 0.05))


def test_sakai_asl_curve():
    Y = _systems(seed=3)
    dp = discriminative_power(Y, method="sakai", n_samples=400, seed=2)
    ref = [bootstrap_test(Y[i], Y[j], n_samples=400, seed=2).p_value for i, j in dp.pairs]
    assert dp.p_values == pytest.approx(ref, abs=0)
    assert asl_curve(Y, n_samples=400, seed=2) == pytest.approx(sorted(ref, reverse=True))


def test_more_users_more_discriminative():
    """A measure evaluated on more users separates the same systems better (lower DP)."""
    small = discriminative_power(_systems(n=40, seed=5), n_samples=4000)
    large = discriminative_power(_systems(n=400, seed=5), n_samples=4000)
    assert large.dp < small.dp and large.fraction >= small.fraction


def test_results_integration():
    Y = _systems(S=3)
    r = Results({f"s{k}": {"m": Y[k], "noise": np.random.default_rng(k).random(120)} for k in range(3)})
    rep = measure_report(r, n_samples=2000)
    assert set(rep) == {"m", "noise"} and rep["m"].names == ["s0", "s1", "s2"]
    assert rep["m"].dp < rep["noise"].dp
    assert r.discriminative_power("m", n_samples=2000).to_dict()["pairs"][0]["a"] == "s0"
