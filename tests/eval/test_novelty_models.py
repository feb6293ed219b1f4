"""The three models of the framework on their own: discounts (§B.2), relevance (§B.4), spec parsing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.models.discount import parse_discount
from recdiv.models.relevance import parse_relevance, stop_probability

GRADES = np.array([5.0, 4.0, 3.0, 1.0, np.nan])  # last: unjudged


@pytest.mark.parametrize(("spec", "expected"), [
    ("none", [1, 1, 1, 1]),
    ("log", [1, 1 / math.log2(3), 0.5, 1 / math.log2(5)]),
    ("exp0.85", [1, 0.85, 0.85**2, 0.85**3]),
    ("exp(0.5)", [1, 0.5, 0.25, 0.125]),
    ("recip", [1, 0.5, 1 / 3, 0.25]),
])
def test_position_discounts(spec, expected):
    np.testing.assert_allclose(parse_discount(spec).positions(4), expected)


def test_cascade_and_relative_discounts():
    valid = np.array([[True, True, True, True, False]])
    prel = np.array([[0.5, 0.0, 1.0, 0.3, 0.0]])
    np.testing.assert_allclose(parse_discount("cascade").weights(valid, prel), [[1, 0.5, 0.5, 0, 0]])
    np.testing.assert_allclose(parse_discount("cascade(0.9)").weights(valid, prel),
                               [[1, 0.9 * 0.5, 0.81 * 0.5, 0, 0]])
    rel = parse_discount("cascade0.9").relative(valid, prel)[0]
    assert rel[0, 1] == 1 and rel[0, 2] == pytest.approx(0.9 * 1.0) and rel[0, 3] == pytest.approx(0.81 * 1.0 * 0.0)
    assert rel[1, 3] == pytest.approx(0.9 * 0.0) and rel[3, 0] == 1 and rel[2, 2] == 0
    log = parse_discount("log").relative(valid)
    assert log[0, 1] == 1 and log[0, 3] == pytest.approx(1 / math.log2(4)) and log[3, 0] == 1 and log[1, 1] == 0
    with pytest.raises(ConfigError):
        parse_discount("cascade").at(1)


def test_discount_specs_print_canonically():
    for spec in ("none", "log", "recip", "exp0.85", "cascade", "cascade0.9", "jk", "jk3", "halflife5"):
        assert parse_discount(spec).spec == spec
    assert parse_discount("exp(0.85)").spec == "exp0.85" and parse_discount("cascade(1)").spec == "cascade"
    for bad in ("exp", "exp0", "exp1.2", "cascade2", "zipf", "expx", "jk1", "halflife", "halflife1"):
        with pytest.raises(ConfigError):
            parse_discount(bad)


@pytest.mark.parametrize(("spec", "expected"), [
    ("none", [1, 1, 1, 1, 1]),
    ("binary", [1, 1, 0, 0, 0]),
    ("graded", [0.75, 0.25, 0, 0, 0]),  # τ_g = 3, g_max = 2
    ("graded_noneg", [1, 0.5, 0.25, 0.25, 0.25]),
    ("unnormalised", [3, 1, 0, 0, 0]),
    ("background0.1", [1, 1, 0, 0, 0.1]),
    ("background(0.3)", [1, 1, 0, 0, 0.3]),
])
def test_relevance_models(spec, expected):
    np.testing.assert_allclose(parse_relevance(spec).probability(GRADES, 4.0, 5.0), expected)


def test_relevance_indifference_override_and_errors():
    np.testing.assert_allclose(parse_relevance("graded", tau_g=4).probability(GRADES, 4.0, 5.0), [0.5, 0, 0, 0, 0])
    assert parse_relevance("background0.25").spec == "background0.25"
    for bad in ("gradual", "background", "background1.5"):
        with pytest.raises(ConfigError):
            parse_relevance(bad)


def test_stop_probability():
    """ERR's R = (2^g − 1)/2^g_max (Chapelle et al. 2009), shared by ERR, ERR-IA and RBU: hand values, a
    per-aspect g_max, and equal to the powers they wrote before on every grade of a half-star scale."""
    np.testing.assert_array_equal(stop_probability(np.array([0.0, 1.0, 2.0, 4.0]), 4.0),
                                  [0.0, 1 / 16, 3 / 16, 15 / 16])
    np.testing.assert_array_equal(stop_probability(np.array([1.0, 1.0]), np.array([1.0, 2.0])), [0.5, 0.25])
    g = np.arange(0.0, 10.5, 0.5)
    np.testing.assert_array_equal(stop_probability(g, 5.0), (2.0**g - 1.0) / 2.0**5.0)
