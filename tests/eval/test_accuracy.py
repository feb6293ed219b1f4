"""Accuracy metrics on the worked examples of METRICS.md §A and on the edge cases of §G.5."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.eval import EvalContext, parse_measure
from tests.eval._acc_helpers import build, example_a

# METRICS.md §A, Example A (τ = 4): every value printed there, bold ones re-run with trec_eval.
EXAMPLE_A = {
    "P@5": 0.4, "P@10": 0.2, "Recall@5": 2 / 3, "AP@5": 1 / 3, "AP": 1 / 3,
    "nDCG@5": 0.5503, "nDCG(gain=binary)@5": 0.4982, "nDCG(gain=exp)@5": 0.5425, "nDCG(gain=ranksys)@5": 0.5625,
    "nDCG@2": 0.4193, "RR": 0.5, "RR@5": 0.5, "Rprec": 1 / 3, "bpref": 0.5, "bpref@5": 0.5,
    "infAP": 1 / 3, "infAP(variant=valcarce)": 0.4583, "RBP(p=0.8)": 0.2624, "RBP(p=0.8)@5": 0.2624,
    "ERR": 0.488037, "ERR@5": 0.488037, "HLU": 0.6416, "HLU@5": 0.6416,
}


@pytest.mark.parametrize(("name", "expected"), EXAMPLE_A.items())
def test_example_a(name, expected):
    run, qrels = example_a()
    assert parse_measure(name).value(run, qrels) == pytest.approx(expected, abs=5e-5)


def test_example_a_exact_values():
    run, qrels = example_a()
    assert parse_measure("ERR").value(run, qrels) == pytest.approx(0.5 * 31 / 32 + 0.25 * 15 / 32 * (1 / 32), 1e-15)
    hl = 2 / 2 ** 0.25 + 1 / 2 ** 0.75
    hl_max = 2 + 1 / 2 ** 0.25 + 1 / 2 ** 0.5
    assert parse_measure("HLU").value(run, qrels) == pytest.approx(hl / hl_max, 1e-14)
    assert parse_measure("HLU_breese").value(run, qrels) == pytest.approx(100 * hl / hl_max, 1e-14)
    assert parse_measure("RBP(p=0.8)").value(run, qrels) == pytest.approx(0.2 * (0.8 + 0.8**3), 1e-15)
    assert parse_measure("F1@5").value(run, qrels) == pytest.approx(2 * 0.4 * (2 / 3) / (0.4 + 2 / 3), 1e-15)
    assert parse_measure("HitRate@1").value(run, qrels) == 0.0
    assert parse_measure("HitRate@2").value(run, qrels) == 1.0
    dcg = 5 / np.log2(3) + 4 / np.log2(5)  # a at 2, b at 4 (c earns 3 under gain=rating)
    dcg += 3 / np.log2(4)
    assert parse_measure("DCG@5").value(run, qrels) == pytest.approx(dcg, 1e-14)


def test_rbp_graded_uses_grade_over_max():
    run, qrels = example_a()
    p = 0.8  # a=5 at rank 2, c=3 at 3, b=4 at 4; r_max = 5
    expected = (1 - p) * (p * 5 + p**2 * 3 + p**3 * 4) / 5
    assert parse_measure("RBP(p=0.8,gain=graded)").value(run, qrels) == pytest.approx(expected, 1e-15)


def test_lecture_ndcg_jk2():
    # lecture: ratings in list order 4, 3, 0 (unjudged), 5 → DCG 9.5, IDCG 10.8928, nDCG 0.8721
    run, qrels = build({"u": {"a": 4, "b": 3, "d": 5}}, {"u": {"a": 4, "b": 3, "c": 2, "d": 1}})
    m = parse_measure("nDCG(disc=jk)@4")
    assert parse_measure("DCG(disc=jk)@4").value(run, qrels) == pytest.approx(9.5, 1e-14)
    assert m.value(run, qrels) == pytest.approx(9.5 / (9 + 3 / np.log2(3)), 1e-14)
    assert round(m.value(run, qrels), 4) == 0.8721


def test_rank_effectiveness_example():
    # METRICS.md §A.12: true a5 b4 c3 d2 e4; scores a .9, b .7, c .8, d .1, e .6
    run, qrels = build({"u": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 4}},
                       {"u": {"a": 0.9, "b": 0.7, "c": 0.8, "d": 0.1, "e": 0.6}})
    assert parse_measure("Spearman").value(run, qrels) == pytest.approx(0.6669, abs=5e-5)
    assert parse_measure("Kendall").value(run, qrels) == pytest.approx(0.5270, abs=5e-5)
    assert parse_measure("FCP").value(run, qrels) == pytest.approx(7 / 9, 1e-15)


def test_fcp_is_a_ratio_of_sums_and_skips_undefined_users():
    qrels = {"u": {"a": 5, "b": 4, "c": 3}, "v": {"a": 5, "b": 1}, "w": {"a": 4}}
    run = {"u": {"a": 3, "b": 2, "c": 1}, "v": {"a": 1, "b": 2}, "w": {"a": 1}}
    r, q = build(qrels, run)
    fcp = parse_measure("FCP")
    per_user = fcp.per_user(r, q)
    np.testing.assert_array_equal(per_user[:2], [1.0, 0.0])
    assert np.isnan(per_user[2])  # one rated item: no pair
    assert fcp.value(r, q) == pytest.approx(3 / 4)  # (3 + 0) / (3 + 1), not the mean 0.5
    sp = parse_measure("Spearman").per_user(r, q)
    assert np.isnan(sp[2]) and parse_measure("Spearman").value(r, q) == pytest.approx(np.nanmean(sp))


def test_user_without_list_scores_zero_and_counts():
    r, q = build({"u": {"a": 5}, "v": {"b": 5}}, {"u": {"a": 1.0}})
    for name in ["P@1", "Recall@1", "AP", "nDCG", "RR", "Rprec", "bpref", "infAP", "RBP", "ERR", "HLU", "F1@1",
                 "HitRate@1", "DCG"]:
        values = parse_measure(name).per_user(r, q)
        assert values[1] == 0.0, name
        assert values[0] > 0.0, name


def test_population_judged_gives_zero_for_users_without_relevant_items():
    r, q = build({"u": {"a": 5}, "v": {"b": 2, "c": 3}}, {"u": {"a": 1.0}, "v": {"b": 2.0, "c": 1.0}})
    relevant = EvalContext()
    judged = EvalContext(population="judged")
    assert len(parse_measure("AP").per_user(r, q, relevant)) == 1
    for name in ["Recall@5", "AP", "Rprec", "bpref", "infAP", "P@2", "RR"]:
        assert parse_measure(name).per_user(r, q, judged)[1] == 0.0, name
    # nDCG with gain=rating still has a positive ideal from judged non-relevant items (§G.5)
    v = parse_measure("nDCG").per_user(r, q, judged)[1]
    assert v == pytest.approx((2 + 3 / np.log2(3)) / (3 + 2 / np.log2(3)))
    assert parse_measure("nDCG(gain=binary)").per_user(r, q, judged)[1] == 0.0


def test_threshold_changes_relevance():
    run, qrels = example_a()
    ctx = EvalContext(threshold=3)
    assert parse_measure("P@5").value(run, qrels, ctx) == pytest.approx(3 / 5)
    assert parse_measure("Recall@5").value(run, qrels, ctx) == pytest.approx(3 / 4)


def test_many_grade_levels_use_the_sorting_path():
    # > 32 distinct grades: the ideal is built by sorting each user's grades
    rng = np.random.default_rng(1)
    grades = {f"i{j}": float(g) for j, g in enumerate(rng.random(60) * 5 + 0.01)}
    run = {"u": {f"i{j}": float(60 - j) for j in range(0, 60, 2)}}
    r, q = build({"u": grades}, run)
    ideal = np.sort(list(grades.values()))[::-1][:10]
    idcg = (ideal / np.log2(np.arange(2, 12))).sum()
    got = [grades[f"i{j}"] for j in range(0, 20, 2)]
    dcg = (np.array(got) / np.log2(np.arange(2, 12))).sum()
    assert parse_measure("nDCG@10").value(r, q) == pytest.approx(dcg / idcg, 1e-13)


def test_system_level_measure_has_no_per_user_values():
    run, qrels = example_a()
    with pytest.raises(ConfigError, match="system-level"):
        parse_measure("HLU_breese").per_user(run, qrels)


@pytest.mark.parametrize("bad", ["nDCG(gain=foo)", "nDCG(disc=exp)", "nDCG(b=3)", "RBP(p=1.5)", "RBP(gain=x)",
                                 "infAP(variant=x)", "HLU(alpha=1)", "P", "Rprec@5", "F1"])
def test_bad_parameters_are_config_errors(bad):
    with pytest.raises(ConfigError):
        parse_measure(bad)


def test_dcg_takes_every_position_discount():
    """One discount vocabulary (recdiv.models.discount): nDCG(disc=exp0.85), recip, halflife, jk<b>; Example A
    (x, a, c, b, y) with gain=rating, ideal a5 b4 e4 c3 d2."""
    run, qrels = example_a()
    gains, ideal = np.array([0, 5, 3, 4, 0.0]), np.array([5, 4, 4, 3, 2.0])
    k = np.arange(1, 6, dtype=float)
    for spec, disc in [("exp0.85", 0.85 ** (k - 1)), ("recip", 1 / k), ("halflife5", 2 ** (-(k - 1) / 4)),
                       ("none", np.ones(5)), ("log", 1 / np.log2(k + 1)),
                       ("jk3", np.where(k <= 3, 1, np.log(3) / np.log(np.maximum(k, 2))))]:
        want = (gains * disc).sum() / (ideal * disc).sum()
        assert parse_measure(f"nDCG(disc={spec})@5").value(run, qrels) == pytest.approx(want, rel=1e-14), spec
        assert parse_measure(f"DCG(disc={spec})@5").value(run, qrels) == pytest.approx((gains * disc).sum(), 1e-14)
    assert parse_measure("nDCG(disc=jk,b=3)@5") == parse_measure("nDCG(disc=jk,b=3)@5")
    assert parse_measure("nDCG(disc=jk,b=3)@5").value(run, qrels) == parse_measure("nDCG(disc=jk3)@5").value(run, qrels)
    with pytest.raises(ConfigError, match="depends on relevance"):
        parse_measure("nDCG(disc=cascade)@5")
    with pytest.raises(ConfigError, match="b is the log base of disc=jk"):
        parse_measure("nDCG(disc=exp0.85,b=3)")
