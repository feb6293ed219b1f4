"""P&R's eight axioms (METRICS.md §F.8): αβ-nDCG on generated instances, the concrete instances of §F.8,
and counterexamples showing α-nDCG fails AspRel, MoreAsp and MissOverNon (P&R Table 1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.eval import axioms as ax
from recdiv.eval.axioms import Case, Item

AB = ax.measure_metric("ab-nDCG@10")
ALPHA = ax.measure_metric("alpha-nDCG@10")


def single(name, rating, *aspects):
    return Item(name, rating, frozenset(aspects))


# -- §F.8 concrete instances (α = .005, β = .5, r = 5; non-relevant = unjudged featureless) ---------------
def test_concrete_pri():
    case = Case((single("a", 3.0, 0), single("b", 5.0, 0)), (1,))
    assert AB(case) == pytest.approx(0.8759, abs=5e-5)
    assert AB(case.swap(0, 1)) == pytest.approx(1.0)
    assert ax.pri(AB, case, 0, 1) is True


def test_concrete_asprel():
    case = Case((single("a", 5.0, 0), single("b", 5.0, 1)), (3, 2))  # w = (.6, .4)
    assert AB(case) == pytest.approx(1.0)
    assert AB(case.swap(0, 1)) == pytest.approx(0.9134, abs=5e-5)
    assert ax.asp_rel(AB, case, 0, 1) is True


def test_concrete_missovernon():
    case = Case((single("j", 0.0, 0), single("x", None, 0)), (1,), pool=(single("g", 5.0, 0),))
    assert AB(case) == pytest.approx(0.00631, abs=5e-6)
    assert AB(case.swap(0, 1)) == pytest.approx(0.01)
    assert ax.miss_over_non(AB, case, 0) is True


def test_concrete_topheav_and_topheavcomp():
    assert ax.top_heav(AB, 1)
    assert not ax.top_heav_comp(AB, 1) and not ax.top_heav_comp(AB, 2) and ax.top_heav_comp(AB, 3)
    rel = [single(f"r{i}", 5.0, i) for i in range(3)]
    fill = [Item(f"n{i}", None) for i in range(5)]
    top = Case(tuple(rel[:1] + fill), (1, 1, 1), tuple(rel[1:]))
    bottom = Case(tuple(fill[:3] + rel), (1, 1, 1))
    assert AB(top) == pytest.approx(0.4693, abs=5e-5) and AB(bottom) == pytest.approx(0.5508, abs=5e-5)


# -- αβ-nDCG satisfies the axioms on generated instances ------------------------------------------------
@pytest.mark.parametrize("axiom", ["Pri", "Deep", "AspRel", "MissOverNon"])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_ab_ndcg_universal_axioms(axiom, seed):
    case, args = ax.instance(axiom, np.random.default_rng(seed))
    assert ax._PREDICATES[axiom](AB, case, *args) is True, (case, args)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_ab_ndcg_moreasp_at_the_top(seed):
    case, args = ax.instance("MoreAsp", np.random.default_rng(seed), top=True)
    assert ax.more_asp(AB, case, *args) is True, (case, args)


def test_ab_ndcg_moreasp_can_fail_deeper_in_the_list():
    """Finding: with j ⊋ j' at ranks 5–6 the discount ratio log2(6)/log2(7) = .921 exceeds the gain ratio, so
    αβ-nDCG prefers the single-aspect item first: MoreAsp holds at the top of the list, not everywhere."""
    fill = [Item(f"n{i}", None) for i in range(4)]
    case = Case((*fill, single("j", 5.0, 0, 1), single("j2", 5.0, 1)), (1, 1))
    assert ax.more_asp(AB, case, 4) is False
    top = Case((single("j", 5.0, 0, 1), single("j2", 5.0, 1)), (1, 1))
    assert ax.more_asp(AB, top, 0) is True


def test_ab_ndcg_existential_axioms():
    res = ax.check_axioms(AB, axioms=("NonPriSatAsp", "TopHeav", "TopHeavComp"), max_size=10)
    assert all(r.holds for r in res.values())
    assert res["TopHeav"].example == 1 and res["TopHeavComp"].example == 3


# -- α-nDCG fails AspRel, MoreAsp and MissOverNon (P&R Table 1) ------------------------------------------
def test_alpha_ndcg_counterexamples():
    # AspRel / MoreAsp: α-nDCG ignores the user's aspect interest, so the swap changes nothing
    case = Case((single("a", 5.0, 0), single("b", 5.0, 1)), (3, 1))
    assert ax.asp_rel(ALPHA, case, 0, 1) is False
    assert ax.more_asp(ALPHA, case, 0) is False
    assert ALPHA(case) == pytest.approx(ALPHA(case.swap(0, 1)))
    # MissOverNon: an unjudged item and a known non-relevant one are both worth nothing
    case = Case((single("j", 0.0, 0), single("x", None, 0)), (1,), pool=(single("g", 5.0, 0),))
    assert ax.miss_over_non(ALPHA, case, 0) is False
    assert ALPHA(case) == ALPHA(case.swap(0, 1)) == 0.0
    # while α-nDCG does satisfy the existential top-heaviness axioms
    res = ax.check_axioms(ALPHA, axioms=("TopHeav", "TopHeavComp"), max_size=10)
    assert res["TopHeav"].holds and res["TopHeavComp"].holds


def test_check_axioms_and_table1_api():
    res = ax.check_axioms(ALPHA, n_cases=5, max_size=5, axioms=("AspRel", "MissOverNon", "TopHeav"))
    assert not res["AspRel"].holds and res["AspRel"].example is not None
    assert not res["MissOverNon"].holds and res["TopHeav"].holds
    table = ax.table1({"alpha-nDCG": ALPHA}, n_cases=3, max_size=5)
    lines = table.splitlines()
    assert lines[0].startswith("| metric | Pri | Deep |") and lines[2].startswith("| alpha-nDCG |")
    assert lines[2].count("|") == len(ax.AXIOMS) + 2
