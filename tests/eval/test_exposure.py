"""System-level exposure metrics (METRICS.md §B.9): the worked example and independent formulas."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.arrays.concentration import gini
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext, RunView
from recdiv.eval.metrics.exposure import exposure_counts


@pytest.fixture()
def example():
    """Lists u1 (a,b), u2 (a,c), u3 (a,b); catalog {a..e}; u4 has a list but no test data."""
    users, items = Vocab(["u1", "u2", "u3", "u4"]), Vocab(list("abcde"))
    rows = [("u1", "a", 2), ("u1", "b", 1), ("u2", "a", 2), ("u2", "c", 1), ("u3", "a", 2), ("u3", "b", 1),
            ("u4", "e", 1)]
    run = Rankings.from_frame(pd.DataFrame(rows, columns=["user", "item", "score"]), users, items)
    qrels = Qrels.from_frame(pd.DataFrame([("u1", "b", 5.0), ("u2", "a", 4.0), ("u3", "d", 5.0), ("u3", "a", 1.0)],
                                          columns=["user", "item", "grade"]), users, items)
    return run, qrels


@pytest.mark.parametrize(("name", "expected"), [
    ("AggregateDiversity", 3), ("Coverage", 0.6), ("Entropy", 1.4591), ("Gini", 0.6667), ("GiniDiversity", 0.3333),
    ("AggregateDiversity(rel=binary)", 2),  # a (relevant to u2) and b (to u1); c is relevant to nobody
    ("Coverage(rel=binary)", 0.4),
    ("AggregateDiversity(users=run)", 4),  # u4's list (e) counts when every list of the run is taken
    ("AggregateDiversity@1", 1), ("Entropy@1", 0.0),
])
def test_worked_example(example, name, expected):
    run, qrels = example
    assert parse_measure(name).value(run, qrels, EvalContext()) == pytest.approx(expected, abs=5e-5)


def test_discounted_counts(example):
    run, qrels = example
    view = RunView.of(EvalContext(), run, qrels)
    np.testing.assert_allclose(exposure_counts(view.items, 5, "log"), [3, 2 / math.log2(3), 1 / math.log2(3), 0, 0])
    p = np.array([3, 2 / math.log2(3), 1 / math.log2(3)])
    p /= p.sum()
    assert parse_measure("Entropy(disc=log)").value(run, qrels) == pytest.approx(-(p * np.log2(p)).sum())


def test_no_per_user_values(example):
    run, qrels = example
    with pytest.raises(ConfigError, match="system-level"):
        parse_measure("Gini").per_user(run, qrels)
    assert parse_measure("Gini").KIND == "system"
    assert not parse_measure("Gini").HIGHER_IS_BETTER


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 100), min_size=2, max_size=30))
def test_gini_equals_mean_absolute_difference_form(values):
    x = np.array(values)
    if x.sum() <= 0:
        assert gini(x) == 0.0
        return
    n = len(x)
    y = x / x.max()  # the reference on scaled values (Gini is scale-free): with subnormal values such as
    # [0, 5e-324] the unscaled formula divides by a mean that underflows and gives inf
    mad = np.abs(y[:, None] - y[None, :]).sum() / (2 * n * n * y.mean())  # standard Gini
    assert gini(x) == pytest.approx(mad * n / (n - 1), abs=1e-9)  # METRICS.md normalises by n − 1
    assert -1e-12 <= gini(x) <= 1 + 1e-12


def test_gini_extremes():
    assert gini(np.ones(7)) == pytest.approx(0.0)
    assert gini(np.array([0, 0, 0, 5.0])) == pytest.approx(1.0)
