"""Paired tests (METRICS.md §F.1, §F.4 worked example), effect sizes, CIs; oracles: SciPy, ranx, enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from recdiv.errors import ConfigError
from recdiv.eval.stats.significance import (
    PAIRED_TESTS,
    bootstrap_pvalues,
    bootstrap_test,
    cohens_dz,
    confidence_interval,
    paired_differences,
    paired_t,
    paired_test,
    pairwise_pvalues,
    permutation_pvalues,
    permutation_test,
    sign_test,
    wilcoxon,
)

X = np.array([0.5, 0.3, 0.8, 0.2, 0.6, 0.4])
Y = np.array([0.4, 0.3, 0.5, 0.3, 0.3, 0.1])


# --------------------------------------------------------------------------------------------- §F.4 worked example
def test_differences_are_rounded():
    d = paired_differences(X, Y)
    assert d.tolist() == [0.1, 0.0, 0.3, -0.1, 0.3, 0.3]
    assert len(np.unique(np.abs(d[d != 0]))) == 2  # 0.6 − 0.3 and 0.8 − 0.5 are tied after rounding


def test_paired_t_worked_example():
    r = paired_t(X, Y)
    assert r.statistic == pytest.approx(2.0868, abs=1e-4)
    assert r.p_value == pytest.approx(0.09127, abs=1e-5)
    assert paired_t(X, Y, "greater").p_value == pytest.approx(0.04563, abs=1e-5)
    assert paired_t(X, Y, "less").p_value == pytest.approx(1 - 0.04563, abs=1e-5)
    assert r.mean_difference == pytest.approx(0.15)


def test_wilcoxon_worked_example():
    r = wilcoxon(X, Y)
    assert r.method == "approx"  # tied |d| ⇒ normal approximation
    assert r.statistic == 13.5  # W⁺
    assert r.p_value == pytest.approx(0.09769, abs=1e-5)
    assert wilcoxon(X, Y, "greater").p_value == pytest.approx(0.04884, abs=1e-5)
    assert wilcoxon(X, Y, method="exact").p_value == pytest.approx(0.1875)
    assert wilcoxon(X, Y, "greater", method="exact").p_value == pytest.approx(0.09375)
    # z = 1.6562 under the tie-corrected variance, no continuity correction
    n, ranks = 5, stats.rankdata([0.1, 0.3, 0.1, 0.3, 0.3])
    var = n * (n + 1) * (2 * n + 1) / 24 - sum(t**3 - t for t in (2, 3)) / 48
    z = (13.5 - n * (n + 1) / 4) / np.sqrt(var)
    assert z == pytest.approx(1.6562, abs=1e-4) and ranks.sum() == 15
    assert r.p_value == pytest.approx(2 * stats.norm.sf(z))


def test_sign_worked_example():
    assert sign_test(X, Y).p_value == pytest.approx(0.375)
    assert sign_test(X, Y, "greater").p_value == pytest.approx(0.1875)
    assert sign_test(X, Y).statistic == 4


def test_permutation_worked_example_exact_and_monte_carlo():
    r = permutation_test(X, Y)
    assert r.method == "exact" and r.p_value == pytest.approx(0.1875)  # 12 of 64 flips
    mc = permutation_test(X, Y, method="mc", n_samples=100_000, seed=0)
    assert mc.method == "monte-carlo" and mc.p_value == pytest.approx(0.18696, abs=1e-12)
    # the documented sampling procedure: rng.choice([-1, 1], size=(B, n))
    s = np.random.default_rng(0).choice([-1.0, 1.0], size=(100_000, 6))
    assert np.mean(np.abs(s @ paired_differences(X, Y) / 6) >= 0.15 - 1e-12) == mc.p_value
    plus = permutation_test(X, Y, method="mc", seed=0, plus_one=True)
    assert plus.p_value == pytest.approx((18696 + 1) / 100_001)


def test_mc_stream_is_independent_of_chunk_size():
    d = np.random.default_rng(3).normal(0.05, 0.3, size=(37, 3))
    a = permutation_pvalues(d, method="mc", n_samples=5000, seed=7, chunk=64)[0]
    b = permutation_pvalues(d, method="mc", n_samples=5000, seed=7, chunk=5000)[0]
    c = permutation_pvalues(d, method="mc", n_samples=5000, seed=7, chunk=3)[0]
    assert np.array_equal(a, b) and np.array_equal(a, c)


def test_bootstrap_worked_example():
    r = bootstrap_test(X, Y, n_samples=1000, seed=0)
    assert r.p_value == pytest.approx(0.072)
    # independent re-implementation of Sakai's studentised shift method
    d = paired_differences(X, Y)
    n, w = len(d), d - d.mean()
    t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    ws = w[np.random.default_rng(0).integers(0, n, size=(1000, n))]
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = ws.std(axis=1, ddof=1)
        t = np.where(sd == 0, 0.0, ws.mean(axis=1) / (sd / np.sqrt(n)))
    assert r.p_value == np.mean(np.abs(t) >= abs(t_obs))


# --------------------------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("alt", ["two-sided", "greater", "less"])
def test_t_equals_scipy(alt):
    rng = np.random.default_rng(11)
    x, y = rng.random(40), rng.random(40)
    assert paired_t(x, y, alt).p_value == pytest.approx(stats.ttest_rel(x, y, alternative=alt).pvalue, rel=1e-9)


@pytest.mark.parametrize("alt", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [12, 80])
def test_wilcoxon_and_binomial_equal_scipy(alt, n):
    rng = np.random.default_rng(n)
    x, y = rng.random(n), rng.random(n)
    method = "exact" if n <= 50 else "approx"
    ref = stats.wilcoxon(x - y, zero_method="wilcox", correction=False, method=method, alternative=alt).pvalue
    r = wilcoxon(x, y, alt)
    assert r.method == method and r.p_value == pytest.approx(ref, rel=1e-9)
    k = int((x > y).sum())
    assert sign_test(x, y, alt).p_value == pytest.approx(stats.binomtest(k, n, 0.5, alternative=alt).pvalue)


def test_wilcoxon_ties_use_approx_with_tie_correction():
    x = np.array([3, 5, 4, 2, 5, 4, 4, 1, 3, 5.0]) / 5
    y = np.array([2, 4, 4, 3, 3, 2, 3, 1, 1, 4.0]) / 5
    r = wilcoxon(x, y)
    assert r.method == "approx"
    d = np.round(x - y, 12)
    ref = stats.wilcoxon(d[d != 0], correction=False, method="approx").pvalue
    assert r.p_value == pytest.approx(ref)


@pytest.mark.parametrize("n", [1, 5, 9, 16])
@pytest.mark.parametrize("alt", ["two-sided", "greater", "less"])
def test_permutation_exact_equals_brute_force(n, alt):
    rng = np.random.default_rng(n)
    x, y = np.round(rng.random(n), 1), np.round(rng.random(n), 1)  # discrete: exact ties matter
    d = np.round(x - y, 12)
    flips = np.array(list(itertools.product([-1, 1], repeat=n)))
    means = flips @ d / n
    t = d.mean()
    if alt == "two-sided":
        ref = np.mean(np.abs(means) >= abs(t) - 1e-12)
    elif alt == "greater":
        ref = np.mean(means >= t - 1e-12)
    else:
        ref = np.mean(means <= t + 1e-12)
    r = permutation_test(x, y, alt)
    assert r.method == "exact" and r.p_value == pytest.approx(ref, abs=1e-15)
    mc = permutation_test(x, y, alt, method="mc", n_samples=20_000, seed=1)
    assert abs(mc.p_value - ref) <= 5 * np.sqrt(max(ref * (1 - ref), 1e-4) / 20_000)


def test_permutation_agrees_with_ranx_within_monte_carlo_error():
    from ranx.statistical_tests import fisher_randomization_test

    rng = np.random.default_rng(5)
    n, B = 300, 20_000
    for shift in (0.0, 0.02, 0.05):
        x = rng.random(n)
        y = np.clip(x - shift + rng.normal(0, 0.25, n), 0, 1)
        ours = permutation_test(x, y, n_samples=B, seed=0).p_value
        theirs, _ = fisher_randomization_test(x, y, B, 0.01, 42)
        se = np.sqrt(max(ours * (1 - ours), 1e-3) * 2 / B)
        assert abs(ours - theirs) <= 5 * se, (shift, ours, theirs)


def test_batched_pvalues_equal_single_calls():
    rng = np.random.default_rng(9)
    D = rng.normal(0.02, 0.2, size=(60, 4))
    batch = pairwise_pvalues(D, "permutation", n_samples=4000, seed=3)
    single = [permutation_test(D[:, j], n_samples=4000, seed=3).p_value for j in range(4)]
    assert np.array_equal(batch, single)
    boot = pairwise_pvalues(D, "bootstrap", n_samples=500, seed=3)
    assert np.array_equal(boot, [bootstrap_test(D[:, j], n_samples=500, seed=3).p_value for j in range(4)])
    for test in ("t", "wilcoxon", "sign"):
        assert np.allclose(pairwise_pvalues(D, test), [paired_test(D[:, j], None, test).p_value for j in range(4)])


# --------------------------------------------------------------------------------------------- effect sizes and CIs
def test_effect_size_and_confidence_intervals():
    d = paired_differences(X, Y)
    assert cohens_dz(d) == pytest.approx(d.mean() / d.std(ddof=1))
    lo, hi = confidence_interval(X, Y)
    half = stats.t.ppf(0.975, 5) * d.std(ddof=1) / np.sqrt(6)
    assert (lo, hi) == pytest.approx((0.15 - half, 0.15 + half))
    # the t-CI excludes 0 exactly when the two-sided t p-value is below 1 − level
    assert (lo > 0) == (paired_t(X, Y).p_value < 0.05)
    blo, bhi = confidence_interval(X, Y, method="bootstrap", n_samples=2000, seed=0)
    means = d[np.random.default_rng(0).integers(0, 6, size=(2000, 6))].mean(axis=1)
    assert (blo, bhi) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def test_degenerate_inputs():
    z = np.zeros(5)
    for t in PAIRED_TESTS:
        assert paired_test(z, z, t).p_value == 1.0
    c = np.full(5, 0.1)
    assert paired_t(c, z).p_value == 0.0 and paired_t(c, z).statistic == np.inf
    assert bootstrap_pvalues(c - z, n_samples=100)[0] == 0.0
    with pytest.raises(ConfigError, match="same users"):
        paired_t(np.ones(3), np.ones(4))
    with pytest.raises(ConfigError, match="finite"):
        paired_t(np.array([1.0, np.nan]), np.ones(2))
    with pytest.raises(ConfigError, match="unknown test"):
        paired_test(X, Y, "anova")


# --------------------------------------------------------------------------------------------- properties (§G.6)
_vals = st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=3, max_size=14)


@settings(max_examples=40, deadline=None)
@given(_vals, st.floats(-2, 2, allow_nan=False), st.sampled_from(PAIRED_TESTS))
def test_paired_tests_depend_only_on_d(d, shift, test):
    d = np.round(np.asarray(d), 6)
    x = np.round(d + shift, 6)
    y = np.full(len(d), np.round(shift, 6))
    y2 = np.round(y + 0.25, 6)
    x2 = np.round(x + 0.25, 6)
    p1 = paired_test(x, y, test, n_samples=300, seed=1).p_value
    p2 = paired_test(x2, y2, test, n_samples=300, seed=1).p_value
    assert p1 == pytest.approx(p2, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(_vals, st.floats(0.01, 100))
def test_sign_test_depends_only_on_signs(d, scale):
    d = np.round(np.asarray(d), 6)  # signs are taken after the 12-decimal rounding of §0.7
    warped = np.sign(d) * (np.abs(d) * scale + 1) ** 2
    assert sign_test(d).p_value == pytest.approx(sign_test(warped).p_value)


@settings(max_examples=40, deadline=None)
@given(_vals, st.sampled_from([0.5, 2.0, 4.0, 10.0]), st.sampled_from(["t", "permutation", "bootstrap"]))
def test_scale_invariance(d, c, test):
    d = np.round(np.asarray(d), 6)
    p1 = paired_test(d, None, test, n_samples=400, seed=2).p_value
    p2 = paired_test(d * c, None, test, n_samples=400, seed=2).p_value
    assert p1 == pytest.approx(p2, abs=1e-9)


def test_bootstrap_ties_do_not_depend_on_scale():
    # resampling [0, 0, 1] as (1, 1, 0) gives t* = t_obs exactly: rounding at ×10 once decided that tie the other way
    p = [paired_test(np.array([0.0, 0.0, 1.0]) * c, None, "bootstrap", n_samples=400, seed=2).p_value
         for c in (1.0, 10.0, 0.1, 4.0)]
    assert p == [p[0]] * 4
    # independent count over the same draws: w = (−1/3, −1/3, 2/3); the 1 drawn once gives mean(w*) = 0, t* = 0;
    # twice gives w* with the mean and sd of d, t* = t_obs (the tie); never or thrice gives sd 0, |t*| = ∞
    idx = np.random.default_rng(2).integers(0, 3, size=(400, 3))
    n_one = (idx == 2).sum(axis=1)
    assert p[0] == pytest.approx(np.isin(n_one, (0, 2, 3)).mean(), abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=20, max_size=40), st.integers(0, 2**31))
def test_same_seed_same_pvalues(d, seed):
    d = np.asarray(d)
    for test in ("permutation", "bootstrap"):
        a = paired_test(d, None, test, seed=seed, n_samples=500).p_value
        b = paired_test(d, None, test, seed=seed, n_samples=500).p_value
        assert a == b


@pytest.mark.parametrize(("rows", "n"), [(2, 7), (4, 6040), (3, 5), (1, 1)])
def test_fast_sign_bits_equal_plain_integers(rows, n):
    from recdiv.eval.stats.significance import _bits

    rng_a, rng_b = np.random.default_rng(42), np.random.default_rng(42)
    for _ in range(2):  # the streams stay aligned across calls
        assert np.array_equal(_bits(rng_a, rows, n), rng_b.integers(0, 2, size=(rows, n)).astype(np.float64))
