"""Trade-off fronts (recdiv.eval.stats.fronts): hand-worked front, hypervolume, area and retention points, bootstrap
intervals (degenerate and seeded), lower-is-better axes, and the comparison of two fronts."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.eval.stats.fronts import compare_fronts, front_area, hypervolume, pareto_front, retention, tradeoff

# four systems, two users: means A (0.5, 0.2), B (0.3, 0.4), C (0.2, 0.3) (dominated by B), D (0.1, 0.5)
NAMES = ["A", "B", "C", "D"]
X = np.array([[0.4, 0.6], [0.3, 0.3], [0.2, 0.2], [0.1, 0.1]])
Y = np.array([[0.1, 0.3], [0.5, 0.3], [0.3, 0.3], [0.6, 0.4]])


def test_hand_worked_front_statistics():
    mx, my = X.mean(axis=1), Y.mean(axis=1)
    assert pareto_front(mx, my).tolist() == [3, 1, 0]  # D, B, A in increasing x; C is dominated by B
    # staircase against (0, 0): D 0.1·0.5 + B (0.3 − 0.1)·0.4 + A (0.5 − 0.3)·0.2 = 0.05 + 0.08 + 0.04
    assert hypervolume(mx, my, (0.0, 0.0)) == pytest.approx(0.17)
    # against the nadir (0.1, 0.2) only B dominates it strictly: (0.3 − 0.1)·(0.4 − 0.2)
    assert hypervolume(mx, my, (0.1, 0.2)) == pytest.approx(0.04)
    # trapezoids above y = 0.2: D–B 0.2·(0.3 + 0.2)/2 = 0.05, B–A 0.2·(0.2 + 0)/2 = 0.02
    assert front_area(mx, my, (0.1, 0.2)) == pytest.approx(0.07)
    assert front_area(mx, my, (0.2, 0.2)) == pytest.approx(0.02)  # D is left of r_x: only B–A counts
    # baseline A (x = 0.5): 95 % → only A (0.2); 60 % → x ≥ 0.3: B, A → 0.4; 10 % → everyone → 0.5
    assert [retention(mx, my, 0.5, f) for f in (0.95, 0.6, 0.1)] == pytest.approx([0.2, 0.4, 0.5])
    assert np.isnan(retention(mx, my, 1.0, 0.95))  # with a baseline x of 1, no system reaches 0.95


def test_tradeoff_values_and_intervals():
    t = tradeoff(X, Y, NAMES, ("nDCG@10", "ILD@10"), baseline="A", fractions=(0.95, 0.6), n_samples=400, seed=3)
    assert t.front == ("D", "B", "A") and t.reference == pytest.approx((0.1, 0.2))
    assert t.hypervolume.value == pytest.approx(0.04) and t.area.value == pytest.approx(0.07)
    assert t.retention[0.95].value == pytest.approx(0.2) and t.retention[0.6].value == pytest.approx(0.4)
    for e in (t.hypervolume, t.area, *t.retention.values()):
        assert e.low <= e.high
    assert t.front_frequency["C"] < 1.0 and t.front_frequency["D"] == 1.0  # D has the best y in every resample
    again = tradeoff(X, Y, NAMES, ("nDCG@10", "ILD@10"), baseline="A", fractions=(0.95, 0.6), n_samples=400, seed=3)
    assert again.to_dict() == t.to_dict()  # seeded
    # identical users: every resample is the data, the interval collapses onto the value
    same = tradeoff(np.repeat(X.mean(axis=1, keepdims=True), 5, 1), np.repeat(Y.mean(axis=1, keepdims=True), 5, 1),
                    NAMES, n_samples=50)
    assert (same.hypervolume.low, same.hypervolume.high) == pytest.approx((0.04, 0.04))


def test_lower_is_better_axis_is_negated():
    # y lower is better (e.g. ILS): negate the data and say so — the same geometry, reference and values mirrored
    t = tradeoff(X, -Y, NAMES, ("nDCG@10", "ILS@10"), (True, False), baseline="A", fractions=(0.6,), n_samples=50)
    assert t.front == ("D", "B", "A") and t.reference == pytest.approx((0.1, -0.2))
    assert t.hypervolume.value == pytest.approx(0.04)
    assert t.retention[0.6].value == pytest.approx(-0.4)  # the best (lowest) ILS among the retaining systems


def test_compare_fronts():
    fam_a, fam_b = [0, 1], [2]  # {A, B} against {C}: B dominates C in every resample
    cmp = compare_fronts(X[fam_a], Y[fam_a], ["A", "B"], X[fam_b], Y[fam_b], ["C"], n_samples=200, seed=1)
    assert cmp.a_dominates == 1.0 and cmp.b_dominates == 0.0
    # common reference: nadir of all five means (0.2, 0.2): HV(A, B) = (0.3 − 0.2)·(0.4 − 0.2) = 0.02; HV(C) = 0
    assert cmp.a.reference == pytest.approx((0.2, 0.2))
    assert cmp.difference.value == pytest.approx(0.02) and cmp.difference.low >= 0
    assert cmp.p_value <= 0.05 + 1e-12 or cmp.difference.low > 0


def test_limits_and_errors():
    with pytest.raises(ConfigError, match="resamples"):
        tradeoff(X, Y, NAMES, n_samples=0)
    with pytest.raises(ConfigError, match="baseline 'Z'"):
        tradeoff(X, Y, NAMES, baseline="Z")
    with pytest.raises(ConfigError, match="NaN"):
        tradeoff(np.where(X > 0.5, np.nan, X), Y, NAMES)
    with pytest.raises(ConfigError, match="same users"):
        compare_fronts(X, Y, NAMES, X[:, :1], Y[:, :1], NAMES)
