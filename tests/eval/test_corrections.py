"""Multiple-comparison corrections (METRICS.md §F.2, §F.4) against hand computations and SciPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from recdiv.errors import ConfigError
from recdiv.eval.stats.corrections import adjust, benjamini_hochberg, bonferroni, holm

P = [0.01, 0.04, 0.03, 0.2]


def test_worked_example():
    assert bonferroni(P) == pytest.approx([0.04, 0.16, 0.12, 0.8])
    assert holm(P) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert benjamini_hochberg(P) == pytest.approx([0.04, 0.0533333, 0.0533333, 0.2], abs=1e-6)
    assert adjust(P, "none") == pytest.approx(P)
    assert adjust(P, "fdr") == pytest.approx(benjamini_hochberg(P))


def _holm_hand(p):
    """statsmodels `multipletests(method="holm")` written out: sorted, (m − j)·p, running max, clipped."""
    p = np.asarray(p)
    m = len(p)
    o = np.argsort(p)
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(o):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _bh_hand(p):
    """statsmodels `multipletests(method="fdr_bh")` written out: running min from the largest p down."""
    p = np.asarray(p)
    m = len(p)
    o = np.argsort(p)
    out = np.empty(m)
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = o[rank]
        running = min(running, m * p[i] / (rank + 1))
        out[i] = min(1.0, running)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30))
def test_against_hand_computations(p):
    p = np.asarray(p)
    assert holm(p) == pytest.approx(_holm_hand(p))
    assert benjamini_hochberg(p) == pytest.approx(_bh_hand(p))
    assert benjamini_hochberg(p) == pytest.approx(stats.false_discovery_control(p))
    assert bonferroni(p) == pytest.approx(np.minimum(1, len(p) * p))
    # ordering: BH ≤ Holm ≤ Bonferroni, all ≥ p
    assert (benjamini_hochberg(p) <= holm(p) + 1e-15).all()
    assert (holm(p) <= bonferroni(p) + 1e-15).all()
    assert (benjamini_hochberg(p) >= p - 1e-15).all()


def test_bad_input():
    with pytest.raises(ConfigError, match="unknown correction"):
        adjust(P, "sidak")
    with pytest.raises(ConfigError, match=r"\[0, 1\]"):
        holm([0.1, 1.5])
