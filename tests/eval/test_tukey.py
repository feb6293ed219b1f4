"""Tukey HSD (METRICS.md §F.3, §F.4): the randomised paired test against hand-worked cases and an independent
brute force; the ANOVA-based one cross-checked with a hand-written two-way ANOVA."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from recdiv.errors import ConfigError
from recdiv.eval.stats.tukey import anova_tukey_hsd, randomised_tukey_hsd, tukey_hsd

S1 = (0.6, 0.5, 0.7, 0.4, 0.8)
S2 = (0.5, 0.5, 0.6, 0.3, 0.6)
S3 = (0.3, 0.4, 0.4, 0.2, 0.5)


def test_worked_example():
    r = anova_tukey_hsd({"S1": S1, "S2": S2, "S3": S3})
    assert r.mse == pytest.approx(0.0026667, abs=1e-7)
    assert r.df == 8
    assert r.pairs == [(0, 1), (0, 2), (1, 2)]
    assert r.q == pytest.approx([4.3301, 10.392, 6.0622], abs=1e-3)
    assert r.p_values == pytest.approx([0.03706, 0.000208, 0.006657], rel=2e-3)
    pm = r.p_matrix()
    assert pm[0, 1] == pm[1, 0] == r.p_values[0] and pm[2, 2] == 1


def _anova_by_sums_of_squares(Y):
    """Two-way ANOVA without interaction from the textbook sums of squares (independent of tukey.py)."""
    S, n = Y.shape
    grand = Y.mean()
    ss_total = ((Y - grand) ** 2).sum()
    ss_sys = n * ((Y.mean(axis=1) - grand) ** 2).sum()
    ss_user = S * ((Y.mean(axis=0) - grand) ** 2).sum()
    ss_err = ss_total - ss_sys - ss_user
    df = (S - 1) * (n - 1)
    return ss_err / df, df


def test_against_independent_anova():
    rng = np.random.default_rng(4)
    Y = rng.random((5, 40)) + np.linspace(0, 0.2, 5)[:, None] + rng.random(40)[None, :]  # user effect
    r = anova_tukey_hsd(Y)
    mse, df = _anova_by_sums_of_squares(Y)
    assert r.mse == pytest.approx(mse) and r.df == df
    # the same via least squares on the design matrix of the additive model
    S, n = Y.shape
    X = np.zeros((S * n, 1 + (S - 1) + (n - 1)))
    X[:, 0] = 1
    for s in range(1, S):
        X[s * n:(s + 1) * n, s] = 1
    for u in range(1, n):
        X[u::n, S - 1 + u] = 1
    _beta, res, *_ = np.linalg.lstsq(X, Y.ravel(), rcond=None)
    assert res[0] / df == pytest.approx(mse)
    for (i, j), q, p in zip(r.pairs, r.q, r.p_values):
        qq = abs(Y[i].mean() - Y[j].mean()) / np.sqrt(mse / n)
        assert q == pytest.approx(qq)
        assert p == pytest.approx(stats.studentized_range.sf(qq, S, df), rel=1e-6)


def test_blocking_differs_from_one_way():
    rng = np.random.default_rng(0)
    user = rng.normal(0, 1, 30)
    Y = np.vstack([user, user + 0.1 + rng.normal(0, 0.05, 30), user + 0.2 + rng.normal(0, 0.05, 30)])
    blocked = anova_tukey_hsd(Y).p_values
    one_way = stats.tukey_hsd(*Y).pvalue[np.triu_indices(3, 1)]
    assert (blocked < 1e-6).all() and (one_way > 0.1).all()  # the user effect swamps one-way HSD


def test_errors():
    with pytest.raises(ConfigError):
        tukey_hsd([[1.0, 2.0]])
    with pytest.raises(ConfigError):
        tukey_hsd([[1.0, np.nan], [1.0, 2.0]])


# randomised (paired) Tukey HSD -----------------------------------------------------------------------------------
def test_randomised_hand_worked_two_users():
    """Module docstring: both users score (3, 0, 0); both 3s on one system with probability 1/3."""
    Y = np.array([[3.0, 3.0], [0.0, 0.0], [0.0, 0.0]])
    r = randomised_tukey_hsd(Y)
    assert r.sampling == "exact" and r.n_samples == 36  # (3!)^2 within-user permutations
    assert r.p_values == pytest.approx([1 / 3, 1 / 3, 1.0], abs=1e-15)
    mc = randomised_tukey_hsd(Y, sampling="mc", n_samples=60_000, seed=1)
    assert mc.sampling == "monte-carlo"
    assert mc.p_values == pytest.approx([1 / 3, 1 / 3, 1.0], abs=0.01)


def test_randomised_hand_worked_three_users():
    """Three users scoring (3, 0, 0): the range reaches 3 only when all three 3s share a system: 3 · (1/3)^3 = 1/9.
    A fourth user with equal values (0.5, 0.5, 0.5) changes nothing (it is the same in every permutation)."""
    Y = np.array([[3.0, 3.0, 3.0, 0.5], [0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.5]])
    r = tukey_hsd(Y)
    assert r.method == "randomised" and r.n_samples == 6**3
    assert r.p_values == pytest.approx([1 / 9, 1 / 9, 1.0], abs=1e-15)


def _brute_force(Y):
    """Every within-user permutation, written independently of tukey.py: p = share with range ≥ |diff|."""
    import itertools

    S, n = Y.shape
    means = Y.mean(axis=1)
    pairs = [(i, j) for i in range(S) for j in range(i + 1, S)]
    hits = np.zeros(len(pairs))
    total = 0
    for perms in itertools.product(list(itertools.permutations(range(S))), repeat=n):
        Z = np.array([[Y[perms[u][s], u] for u in range(n)] for s in range(S)])
        r = Z.mean(axis=1).max() - Z.mean(axis=1).min()
        hits += [r >= abs(means[i] - means[j]) - 1e-12 for i, j in pairs]
        total += 1
    return hits / total


def test_randomised_exact_equals_brute_force_and_mc_converges():
    rng = np.random.default_rng(3)
    Y = np.round(rng.random((3, 4)) + np.array([[0.3], [0.1], [0.0]]), 2)
    exact = randomised_tukey_hsd(Y, n_samples=10**6)
    assert exact.sampling == "exact"
    assert exact.p_values == pytest.approx(_brute_force(Y), abs=1e-15)
    mc = randomised_tukey_hsd(Y, sampling="mc", n_samples=40_000, seed=5)
    assert mc.p_values == pytest.approx(exact.p_values, abs=0.012)
    again = randomised_tukey_hsd(Y, sampling="mc", n_samples=40_000, seed=5)
    assert (again.p_values == mc.p_values).all()  # seeded


def test_randomised_two_systems_is_the_permutation_test():
    """S = 2: a within-user permutation is a sign flip of d and the range is |mean(s∘d)|: Fisher's test."""
    from recdiv.eval.stats.significance import permutation_test

    rng = np.random.default_rng(9)
    x, y = rng.random(10), rng.random(10)
    assert randomised_tukey_hsd([x, y]).p_values[0] == pytest.approx(permutation_test(x, y, method="exact").p_value,
                                                                      abs=1e-15)


def test_randomised_keeps_the_pairing():
    """A large user effect with a small consistent system effect: the paired test finds it, as the blocked
    ANOVA does; one-way HSD (no pairing) does not."""
    rng = np.random.default_rng(0)
    user = rng.normal(0, 1, 30)
    Y = np.vstack([user, user + 0.1 + rng.normal(0, 0.05, 30), user + 0.2 + rng.normal(0, 0.05, 30)])
    p = randomised_tukey_hsd(Y, n_samples=2000).p_values
    assert (p < 0.01).all()
    assert (stats.tukey_hsd(*Y).pvalue[np.triu_indices(3, 1)] > 0.1).all()


def test_randomised_errors():
    with pytest.raises(ConfigError):
        tukey_hsd([[1.0, 2.0], [1.0, 3.0]], method="bogus")
    with pytest.raises(ConfigError):
        randomised_tukey_hsd([[1.0, 2.0], [1.0, 3.0]], sampling="nope")
    with pytest.raises(ConfigError):
        randomised_tukey_hsd([[1.0, 2.0], [1.0, 3.0]], n_samples=0)
