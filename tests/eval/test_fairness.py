"""Expected exposure (EE-L, EE-D, EE-R), AWRF and GroupExposure: hand-worked examples, the decomposition
EE-L = EE-D − 2·EE-R + ‖ε*‖², Plackett–Luce expectations against enumerated permutations, AWRF against SciPy's
Jensen–Shannon distance in both conventions (base 2; TREC Fair Ranking's base e), and stochastic runs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import jensenshannon

from recdiv.aspects.space import AspectSpace
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.samples import RankingSamples
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.evaluate import evaluate
from recdiv.models.context import Context

U, I = Vocab(["u1"]), Vocab(list("abcde"))
QRELS = Qrels.from_arrays(np.array([0, 0, 0]), np.array([0, 1, 2]), np.array([5.0, 5.0, 2.0]), U, I)  # a, b relevant


def run(items: str, scores=None) -> Rankings:
    idx = I.lookup(np.array(list(items)))[None, :]
    sc = np.arange(len(items), 0, -1.0)[None, :] if scores is None else np.asarray(scores, float)[None, :]
    return Rankings(np.array([0]), idx, sc, U, I)


def values(runs, measures, context=None):
    return evaluate(runs, QRELS, measures, context).values


def test_hand_worked_deterministic_and_stochastic():
    # disc = exp0.5, K = 2: w = (1, ½); m = 2 relevant of n = 5: ε*_rel = (1 + ½)/2 = ¾, ε*_non = 0 (no attention
    # is left below position 2). Ranking (a, c): ε_a = 1, ε_c = ½: EE-D = 1.25, EE-R = ¾, ‖ε*‖² = 2·(¾)² = 1.125,
    # EE-L = (1 − ¾)² + (½)² + (0 − ¾)² (b, unshown) = 0.875 = 1.25 − 1.5 + 1.125
    v = values({"det": run("ac"), "ideal": RankingSamples([run("ab"), run("ba")])}, ["EE-L@2", "EE-D@2", "EE-R@2"])
    assert v["det"] == pytest.approx({"EE-L@2": 0.875, "EE-D@2": 1.25, "EE-R@2": 0.75})
    # the ideal policy (shuffle the relevant items on top): ε = ε*: EE-L = 0, EE-D = EE-R = ‖ε*‖²
    assert v["ideal"] == pytest.approx({"EE-L@2": 0.0, "EE-D@2": 1.125, "EE-R@2": 1.125})


def test_hand_worked_non_relevant_target():
    # K = 3, disc = none: w = (1, 1, 1); m = 2, n = 5: ε*_rel = 1, ε*_non = 1/3 (position 3 shared by c, d, e).
    # Ranking (c, a, d): ε = c 1, a 1, d 1: EE-R = 1/3 + 1 + 1/3 = 5/3; EE-L = (1 − ⅓)² + 0 + (1 − ⅓)² + b (0 − 1)²
    # + e (0 − ⅓)² = 4/9 + 4/9 + 1 + 1/9 = 2
    v = values({"r": run("cad")}, ["EE-L(disc=none)@3", "EE-R(disc=none)@3", "EE-D(disc=none)@3"])["r"]
    assert v == pytest.approx({"EE-L(disc=none)@3": 2.0, "EE-R(disc=none)@3": 5 / 3, "EE-D(disc=none)@3": 3.0})


def random_world(seed: int, n_users=12, n_items=30, width=10):
    rng = np.random.default_rng(seed)
    users, items = Vocab(np.arange(n_users)), Vocab(np.arange(n_items))
    rows, cols, grades = [], [], []
    for u in range(n_users):
        for i in rng.choice(n_items, rng.integers(1, 8), replace=False):
            rows.append(u), cols.append(i), grades.append(float(rng.integers(1, 6)))
    qrels = Qrels.from_arrays(np.array(rows), np.array(cols), np.array(grades), users, items)
    cand = np.stack([rng.choice(n_items, width, replace=False) for _ in range(n_users)])
    scores = -np.sort(-rng.normal(size=(n_users, width)), axis=1)
    return qrels, Rankings(np.arange(n_users), cand, scores, users, items)


@pytest.mark.parametrize("disc", ["exp0.5", "log", "none"])
@pytest.mark.parametrize("samples", [0, 50])
def test_loss_decomposes(disc, samples):
    qrels, r = random_world(1)
    names = [f"EE-{t}(disc={disc},samples={samples})@5" for t in "LDR"]
    ctx = Context(threshold=3.0)
    L, D, R = (parse_measure(m).per_user(r, qrels, ctx) for m in names)
    m = qrels.n_relevant(3.0)[qrels.population(3.0, "relevant")]
    w = np.cumsum([1.0 if disc == "none" else (1 / math.log2(j + 2) if disc == "log" else 0.5 ** j)
                   for j in range(5)])  # the target's squared norm ‖ε*‖² from its definition
    top = w[np.minimum(m, 5) - 1]
    e_rel, e_non = top / m, (w[-1] - top) / (len(r.item_vocab) - m)
    target = m * e_rel ** 2 + (len(r.item_vocab) - m) * e_non ** 2
    np.testing.assert_allclose(L, D - 2 * R + target, atol=1e-12)


def test_plackett_luce_expectation_is_the_enumerated_one():
    # scores (2, 1, 0) on a, c, b; softmax weights; K = 2, disc = exp0.5: ε_i = Σ_π P(π)·disc(rank_π(i))
    r = run("acb", [2.0, 1.0, 0.0])
    w = np.exp([2.0, 1.0, 0.0]) / np.exp([2.0, 1.0, 0.0]).sum()
    eps = np.zeros(3)
    for perm in itertools.permutations(range(3)):
        p, rest = 1.0, [0, 1, 2]
        for i in perm:
            p *= w[i] / w[rest].sum()
            rest.remove(i)
        eps[perm[0]] += p * 1.0
        eps[perm[1]] += p * 0.5
    # positions: a 0, c 1, b 2; relevant a, b; ε* = ¾ for a and b
    expect_d = float((eps ** 2).sum())
    expect_r = 0.75 * (eps[0] + eps[2])
    got = values({"r": r}, ["EE-D(samples=20000)@2", "EE-R(samples=20000)@2"])["r"]
    assert got["EE-D(samples=20000)@2"] == pytest.approx(expect_d, abs=0.01)
    assert got["EE-R(samples=20000)@2"] == pytest.approx(expect_r, abs=0.01)
    again = values({"r": r}, ["EE-D(samples=20000)@2"])["r"]["EE-D(samples=20000)@2"]
    assert again == got["EE-D(samples=20000)@2"]  # seeded
    other = values({"r": r}, ["EE-D(samples=20000,seed=1)@2"])["r"]["EE-D(samples=20000,seed=1)@2"]
    assert other != again


def test_stochastic_run_gives_expected_values_of_other_measures():
    qrels, r = random_world(2)
    samples = [Rankings(r.users, np.roll(r.items, s, axis=1), r.scores, r.user_vocab, r.item_vocab) for s in range(3)]
    ev = evaluate({"s": RankingSamples(samples)}, qrels, ["nDCG@5", "P@3", "Gini@5"], Context(threshold=3.0))
    each = [evaluate({"x": s}, qrels, ["nDCG@5", "P@3", "Gini@5"], Context(threshold=3.0)) for s in samples]
    np.testing.assert_allclose(ev.user_values("s", "nDCG@5"), np.mean([e.user_values("x", "nDCG@5") for e in each],
                                                                        axis=0))
    assert ev.value("s", "Gini@5") == pytest.approx(np.mean([e.value("x", "Gini@5") for e in each]))
    own = evaluate({"s": RankingSamples(samples)}, qrels, ["EE-L(samples=5)@5", "EE-L@5"], Context(threshold=3.0))
    assert own.value("s", "EE-L(samples=5)@5") == own.value("s", "EE-L@5")  # a stochastic run: its own samples
    with pytest.raises(ConfigError, match="stochastic run"):
        parse_measure("lexirecall").compare(RankingSamples(samples), r, qrels, Context(threshold=3.0))


def test_cutoff_and_limits():
    with pytest.raises(ConfigError, match="needs a cutoff"):
        parse_measure("EE-L")
    with pytest.raises(ConfigError, match="samples"):
        parse_measure("EE-L(samples=1000001)@10")


# groups -----------------------------------------------------------------------------------------------------------
GROUPS = AspectSpace(I, Vocab(["g1", "g2"]), sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 0], [0, 1], [0, 0]], float)))


def test_awrf_hand_worked_and_scipy():
    # list (a g1, b g2, c g1), disc jk: w = (1, 1, 1/log2 3) → E = (1 + 0.6309, 1)/2.6309 = (0.6199, 0.3801);
    # catalogue: a, c g1; b, d g2; e no group → T = (2/5, 2/5, 1/5)
    ctx = Context(item_groups=GROUPS)
    w3 = 1 / math.log2(3)
    E = np.array([1 + w3, 1.0, 0.0]) / (2 + w3)
    T = np.array([0.4, 0.4, 0.2])
    m = 0.5 * (E + T)
    js2 = 0.5 * sum(p * math.log2(p / q) for p, q in zip(E, m) if p > 0) + 0.5 * sum(
        p * math.log2(p / q) for p, q in zip(T, m) if p > 0)
    v = values({"r": run("abc")}, ["AWRF", "AWRF(base=e)", "AWRF(target=uniform)", "GroupExposure(group=g1)",
                                   "GroupExposure(group=g2)@1", "GroupExposure(group=ungrouped)"], ctx)["r"]
    assert v["AWRF"] == pytest.approx(1 - js2)
    assert v["AWRF"] == pytest.approx(1 - jensenshannon(E, T, base=2) ** 2)
    assert v["AWRF(base=e)"] == pytest.approx(1 - jensenshannon(E, T) ** 2)  # TREC Fair Ranking 2021-22's form
    assert v["AWRF(target=uniform)"] == pytest.approx(1 - jensenshannon(E, np.full(3, 1 / 3), base=2) ** 2)
    assert v["GroupExposure(group=g1)"] == pytest.approx((1 + w3) / (2 + w3))
    assert v["GroupExposure(group=g2)@1"] == 0.0
    assert v["GroupExposure(group=ungrouped)"] == 0.0


def test_awrf_of_a_stochastic_run_is_that_of_the_expected_exposure():
    ctx = Context(item_groups=GROUPS)
    v = values({"s": RankingSamples([run("ab"), run("ba"), run("ae")])},
               ["AWRF(disc=none)", "GroupExposure(group=g1,disc=none)"], ctx)["s"]
    E = np.array([3.0, 2.0, 1.0]) / 6  # a three times, b twice, e once; all positions weigh 1
    assert v["AWRF(disc=none)"] == pytest.approx(1 - jensenshannon(E, [0.4, 0.4, 0.2], base=2) ** 2)
    assert v["GroupExposure(group=g1,disc=none)"] == pytest.approx(0.5)


def test_group_errors():
    with pytest.raises(ConfigError, match="needs the group"):
        parse_measure("GroupExposure")
    with pytest.raises(ConfigError, match="no item group 'x'"):
        values({"r": run("ab")}, ["GroupExposure(group=x)"], Context(item_groups=GROUPS))
    with pytest.raises(ConfigError, match="item_groups"):
        values({"r": run("ab")}, ["AWRF"])
