"""Worked examples of the Vargas & Castells framework: thesis Tables 3–4 (METRICS.md §B.7) and the
distance/popularity example of §B.8, every cell."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.eval.catalog import MEASURES, parse_measure
from recdiv.eval.context import EvalContext, RunView
from recdiv.models.discount import parse_discount
from recdiv.models.relevance import parse_relevance


def _rankings(user_vocab, item_vocab, rows: dict) -> Rankings:
    frame = pd.DataFrame(
        [(u, i, float(len(items) - k)) for u, items in rows.items() for k, i in enumerate(items)],
        columns=["user", "item", "score"],
    )
    return Rankings.from_frame(frame, user_vocab, item_vocab, order="score")


# --- §B.7: thesis Tables 3–4 -------------------------------------------------------------------------------

RATERS = {"R1": (1000, 1000, 500, 500, 10, 10, 10, 10, 10, 10), "R2": (10, 10, 10, 500, 500, 1000, 1000, 1000, 10, 10)}
RELEVANT = (1, 1, 1, 1, 1, 1, 1, 0, 0, 0)


@pytest.fixture(scope="module")
def thesis_example():
    items = Vocab([f"{r}_{k}" for r in RATERS for k in range(10)] + ["extra"])
    users = Vocab(list(range(1001)))  # 1000 training users + the target user 1000 (no training data)
    rows, cols = [], []
    for r, counts in RATERS.items():
        for k, c in enumerate(counts):
            rows += list(range(c))
            cols += [items.lookup([f"{r}_{k}"])[0]] * c
    train = Interactions.from_arrays(np.array(rows), np.array(cols), None, users, items)
    grades = [(1000, f"{r}_{k}", float(g)) for r in RATERS for k, g in enumerate(RELEVANT)]
    qrels = Qrels.from_frame(pd.DataFrame([*grades, (1000, "extra", 1.0)], columns=["user", "item", "grade"]),
                             users, items)
    runs = {r: _rankings(users, items, {1000: [f"{r}_{k}" for k in range(10)]}) for r in RATERS}
    return runs, qrels, EvalContext(threshold=1, train=train)


@pytest.mark.parametrize(
    ("measure", "r1", "r2"),
    [
        ("EPC@10", 0.6940, 0.5950),
        ("EPC(disc=log)@10", 0.5343, 0.6829),
        ("EPC(rel=binary)@10", 0.3970, 0.3970),
        ("EPC(disc=log,rel=binary)@10", 0.3370, 0.5543),
        ("EPC(rel=unnormalised)@10", 0.3970, 0.3970),  # 2^g − 1 with τ_g = τ − 1 = 0, as printed in Table 4
        ("EPC(disc=log,rel=unnormalised)@10", 0.3370, 0.5543),
    ],
)
def test_thesis_table_4(thesis_example, measure, r1, r2):
    runs, qrels, ctx = thesis_example
    m = parse_measure(measure)
    assert m.value(runs["R1"], qrels, ctx) == pytest.approx(r1, abs=5e-5)
    assert m.value(runs["R2"], qrels, ctx) == pytest.approx(r2, abs=5e-5)


def test_thesis_table_4_graded_halves(thesis_example):
    """Dividing by 2^g_max = 2 halves the relevance-aware values (METRICS.md §B.7 note)."""
    runs, qrels, ctx = thesis_example
    m = parse_measure("EPC(disc=log,rel=graded)@10")
    assert m.value(runs["R1"], qrels, ctx) == pytest.approx(0.1685, abs=5e-5)
    assert m.value(runs["R2"], qrels, ctx) == pytest.approx(0.2771, abs=5e-5)


# --- §B.8: distances, profile, popularity, previous list ----------------------------------------------------


@pytest.fixture(scope="module")
def example2():
    items = Vocab(["i1", "i2", "i3", "i4", "p1", "p2", "f"])
    users = Vocab(["u", *(f"o{k}" for k in range(9))])
    pairs = [("u", "p1"), ("u", "p2")]
    pairs += [(f"o{k}", "i1") for k in range(5)] + [(f"o{k}", "i2") for k in range(2)] + [("o0", "i3")]
    pairs += [(f"o{k}", "f") for k in range(9)] + [("o5", "p2")]
    train = Interactions.from_frame(pd.DataFrame(pairs, columns=["user", "item"]).assign(value=4.0),
                                    users=users, items=items)
    assert train.nnz == 20
    aspects = AspectSpace.from_frame(
        pd.DataFrame([("i1", "A"), ("i1", "C"), ("i2", "A"), ("i3", "D"), ("p1", "A"), ("p2", "C"), ("p2", "D")],
                     columns=["item", "aspect"]),
        items,
    )
    qrels = Qrels.from_frame(pd.DataFrame([("u", "i1", 5.0), ("u", "i2", 2.0), ("u", "i3", 4.0)],
                                          columns=["user", "item", "grade"]), users, items)
    run = _rankings(users, items, {"u": ["i1", "i2", "i3"]})
    previous = _rankings(users, items, {"u": ["i3", "i4"]})
    ctx = EvalContext(train=train, aspects=aspects, previous=previous, scale=(1, 5))
    return run, qrels, ctx


B8 = {  # metric -> {(disc, rel): value}
    "EILD(dist=jaccard{})": {("none", "none"): 0.8333, ("none", "binary"): 0.6667, ("log", "none"): 0.7821,
                             ("log", "binary"): 0.7039, ("exp0.85", "none"): 0.8123, ("exp0.85", "binary"): 0.6696},
    "EPD(dist=jaccard{})": {("none", "none"): 0.6111, ("none", "binary"): 0.4444, ("log", "none"): 0.5978,
                            ("log", "binary"): 0.4497},
    "EPC{}": {("none", "none"): 0.7333, ("none", "binary"): 0.4667, ("log", "none"): 0.6827,
              ("log", "binary"): 0.4458},
    "EIP{}": {("none", "none"): 2.2146, ("log", "none"): 1.9362},
    "EFD{}": {("none", "none"): 3.2146, ("log", "none"): 2.9362},
    "ESSD{}": {("none", "none"): 0.6667, ("log", "none"): 0.7654},
}


def _name(template: str, disc: str, rel: str) -> str:
    ps = [p for p in (f"disc={disc}" if disc != "none" else "", f"rel={rel}" if rel != "none" else "") if p]
    if template.startswith("EILD(") or template.startswith("EPD("):
        return template.format("".join("," + p for p in ps))
    return template.format(f"({','.join(ps)})" if ps else "")


@pytest.mark.parametrize(("template", "disc", "rel", "expected"),
                         [(t, d, r, v) for t, cells in B8.items() for (d, r), v in cells.items()])
def test_example_2_table(example2, template, disc, rel, expected):
    run, qrels, ctx = example2
    m = parse_measure(_name(template, disc, rel))
    assert m.value(run, qrels, ctx) == pytest.approx(expected, abs=5e-5)


def test_example_2_ild_and_msi(example2):
    run, qrels, ctx = example2
    assert parse_measure("ILD(dist=jaccard)").value(run, qrels, ctx) == pytest.approx(0.8333, abs=5e-5)
    assert parse_measure("MSI").value(run, qrels, ctx) == pytest.approx(2.2146, abs=5e-5)


def test_example_2_cascade(example2):
    run, qrels, ctx = example2
    view = RunView.of(ctx, run, qrels)
    prel = parse_relevance("binary").ranked(view.grades, view.items >= 0, view.threshold, view.max_grade)
    np.testing.assert_allclose(parse_discount("cascade").weights(view.items >= 0, prel), [[1.0, 0.0, 0.0]])
    # with the cascade only i1 is seen: EPC = nov_PC(i1) = 0.5
    assert parse_measure("EPC(disc=cascade,rel=binary)").value(run, qrels, ctx) == pytest.approx(0.5)


POSITION_DISCOUNTS = ("none", "log", "jk", "jk3", "recip", "exp0.85", "halflife5")
CASCADE_DISCOUNTS = ("cascade", "cascade0.9")
DISC_MEASURES = sorted(n for n in MEASURES.names() if any(p.name == "disc" for p in MEASURES.get(n).PARAMS))


def test_every_disc_parameter_reads_the_one_vocabulary():
    """Every measure's `disc` is read by recdiv.models.discount (nothing parses a discount by hand)."""
    assert {"nDCG", "DCG", "EPC", "EILD", "Gini", "Entropy"} <= set(DISC_MEASURES)
    for name in DISC_MEASURES:
        (p,) = [p for p in MEASURES.get(name).PARAMS if p.name == "disc"]
        with pytest.raises(ConfigError, match="unknown rank discount"):
            p.spec("zipf")


@pytest.mark.parametrize("name", DISC_MEASURES)
def test_every_disc_measure_takes_every_position_discount(example2, name):
    """nDCG(disc=exp0.85), Gini(disc=halflife5), EPC(disc=jk3): every discount of position in every measure with
    a `disc` parameter; the discounts that depend on relevance (cascade) in the framework's measures, and a clear
    error where the measure takes discounts of position alone."""
    run, qrels, ctx = example2
    more = ""
    if "item_groups" in MEASURES.get(name).NEEDS:  # the aspects serve as item groups
        ctx = dataclasses.replace(ctx, item_groups=ctx.aspects, cache=type(ctx.cache)())
        more = ",group=A" if any(p.name == "group" for p in MEASURES.get(name).PARAMS) else ""
    for spec in POSITION_DISCOUNTS:
        assert np.isfinite(parse_measure(f"{name}(disc={spec}{more})@3").value(run, qrels, ctx)), spec
    (p,) = [p for p in MEASURES.get(name).PARAMS if p.name == "disc"]
    for spec in CASCADE_DISCOUNTS:
        if p.spec is parse_discount:
            assert np.isfinite(parse_measure(f"{name}(disc={spec}{more})@3").value(run, qrels, ctx)), spec
        else:
            with pytest.raises(ConfigError, match="discounts of position alone: none, log, jk"):
                parse_measure(f"{name}(disc={spec}{more})@3")
