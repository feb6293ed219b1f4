"""αβ-nDCG (Parapar & Radlinski 2021) on Example C of METRICS.md §C.11 and its options."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.eval import EvalContext, parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.meta.ideal import ideal_ordering
from recdiv.eval.metrics.unified import gamma_weights
from tests.eval.test_intent_aware import build_case, example_c


def test_example_c_value_gains_and_ideal():
    run, qrels, ctx = example_c()
    m = parse_measure("ab-nDCG@5")
    assert m.per_user(run, qrels, ctx)[0] == pytest.approx(0.8045, abs=5e-5)
    v = RunView.of(ctx, run, qrels)
    gamma = gamma_weights(v, "train")
    np.testing.assert_allclose(gamma[0], [0.6, 4 / 15, 2 / 15])
    np.testing.assert_allclose(m.gains(v, v.items, v.grades, gamma)[0],
                               [0.24, 0.289333333, 0.000666667, 0.066666667, 0.013333333], atol=1e-9)
    items, gains = m.ideal(v, gamma, 5)
    assert list(qrels.items.id_of(items[0])) == ["i1", "i6", "i5", "i2", "i4"]
    np.testing.assert_allclose(gains[0], [0.393333333, 0.15, 0.066666667, 0.06, 0.053333333], atol=1e-9)
    # hand formula for the value
    disc = 1 / np.log2(np.arange(2, 7))
    want = np.dot([0.24, 0.28933333, 0.00066667, 0.06666667, 0.01333333], disc) / np.dot(gains[0], disc)
    assert m.per_user(run, qrels, ctx)[0] == pytest.approx(want, rel=1e-6)


def test_gamma_from_training_needs_train():
    run, qrels, ctx = example_c()
    bare = EvalContext(aspects=ctx.aspects, scale=ctx.scale)
    with pytest.raises(ConfigError, match="train"):
        parse_measure("ab-nDCG@5").per_user(run, qrels, bare)
    # γ from the test items needs no training data: eq. 9 on the judged test items
    v = RunView.of(bare, run, qrels)
    mass = np.array([5 + 4 + 5, 5 + 4, 2 + 5], dtype=float)  # A: i1,i2,i6; C: i1,i4; D: i3,i5
    np.testing.assert_allclose(gamma_weights(v, "test")[0], mass / mass.sum())
    assert 0 < parse_measure("ab-nDCG(gamma_source=test)@5").per_user(run, qrels, bare)[0] <= 1


def test_paper_ideal_ordering_need_not_maximise_with_training_gamma():
    """METRICS.md G.3.5: on Example C the 1-step redundant-aspect perturbation beats the P&R ideal at K = 6."""
    _, qrels, ctx = example_c()
    ideal = ideal_ordering(qrels, ctx.aspects, 6)
    m = parse_measure("ab-nDCG@6")
    assert m.per_user(ideal, qrels, ctx)[0] == pytest.approx(0.9804, abs=5e-5)
    pert = ideal.items.copy()
    pert[0, [1, 2]] = pert[0, [2, 1]]  # (i1, i6, i5, i4, i2, i3)
    from recdiv.data import Rankings

    r2 = Rankings(ideal.users, pert, ideal.scores, ideal.user_vocab, ideal.item_vocab)
    assert m.per_user(r2, qrels, ctx)[0] == pytest.approx(0.9995, abs=5e-5)


def test_nonrel_to_zero_and_unjudged_items():
    # one aspect; j rated 2 (below τ) vs an unjudged item x: with nonrel_to_zero j is worth nothing
    aspects = [("j", "A"), ("x", "A"), ("g", "A")]
    qrels = [("u", "j", 2.0), ("u", "g", 5.0)]
    run = [("u", "j", 2.0), ("u", "x", 1.0)]
    r, q, ctx = build_case(qrels, run, aspects, train_rows=[("u", "g", 5.0)])
    plain = parse_measure("ab-nDCG@2").per_user(r, q, ctx)[0]
    zero = parse_measure("ab-nDCG(nonrel_to_zero=true)@2").per_user(r, q, ctx)[0]
    # plain: G1 = .5·.4 = .2, G2 = .005·(1 − .2) ; ideal over judged {g 5, j 2}: .5, then .2·.5
    disc = 1 / np.log2([2, 3])
    assert plain == pytest.approx(np.dot([0.2, 0.005 * 0.8], disc) / np.dot([0.5, 0.1], disc))
    assert zero == pytest.approx(np.dot([0.0, 0.005], disc) / 0.5)


def test_items_without_aspects_have_no_gain_and_canonical_name():
    aspects = [("a", "A")]
    qrels = [("u", "a", 5.0), ("u", "b", 5.0)]
    run = [("u", "b", 2.0), ("u", "a", 1.0)]
    r, q, ctx = build_case(qrels, run, aspects, train_rows=[("u", "a", 4.0)])
    got = parse_measure("ab-nDCG@2").per_user(r, q, ctx)[0]
    assert got == pytest.approx(1 / np.log2(3))
    assert str(parse_measure("ab-nDCG(alpha=0.005,beta=0.5)@10")) == "ab-nDCG@10"
    assert str(parse_measure("ab-nDCG(beta=0.7,gamma_source=test)@100")) == "ab-nDCG(beta=0.7,gamma_source=test)@100"
