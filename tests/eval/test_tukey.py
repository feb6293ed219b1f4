"""Tukey HSD with user blocking (METRICS.md §F.3, §F.4), cross-checked with a hand-written two-way ANOVA."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from recdiv.errors import ConfigError
from recdiv.eval.stats.tukey import tukey_hsd

S1 = (0.6, 0.5, 0.7, 0.4, 0.8)
S2 = (0.5, 0.5, 0.6, 0.3, 0.6)
S3 = (0.3, 0.4, 0.4, 0.2, 0.5)


def test_worked_example():
    r = tukey_hsd({"S1": S1, "S2": S2, "S3": S3})
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
    r = tukey_hsd(Y)
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
    blocked = tukey_hsd(Y).p_values
    one_way = stats.tukey_hsd(*Y).pvalue[np.triu_indices(3, 1)]
    assert (blocked < 1e-6).all() and (one_way > 0.1).all()  # the user effect swamps one-way HSD


def test_errors():
    with pytest.raises(ConfigError):
        tukey_hsd([[1.0, 2.0]])
    with pytest.raises(ConfigError):
        tukey_hsd([[1.0, np.nan], [1.0, 2.0]])
