"""Measure parsing, printing and the registry (recdiv/eval/measure.py), and the generated metric reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from recdiv.errors import ConfigError
from recdiv.eval import list_measures, parse_measure, parse_measures
from recdiv.eval.measure import REGISTRY, Measure
from recdiv.eval.reference import markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


@pytest.mark.parametrize("text", ["P@10", "Recall@5", "AP", "AP@100", "nDCG@10", "nDCG(gain=exp)@10",
                                  "nDCG(gain=binary,disc=jk)@5", "nDCG(disc=jk,b=3)", "RBP(p=0.8)",
                                  "RBP(p=0.5,gain=graded)@20", "infAP(variant=valcarce)@10", "HLU(d=2,alpha=3)@10",
                                  "HLU_breese", "Spearman", "Kendall", "FCP", "bpref@10", "ERR@20", "F1@5",
                                  "HitRate@10", "RR@10", "Rprec", "DCG@5"])
def test_canonical_round_trip(text):
    m = parse_measure(text)
    assert str(m) == text
    assert parse_measure(str(m)) == m
    assert hash(parse_measure(str(m))) == hash(m)


def test_parsing_normalises_and_compares():
    assert str(parse_measure(" ndcg ( gain = rating ) @ 10 ")) == "nDCG@10"  # case-insensitive name, default dropped
    assert parse_measure("RBP(p=0.90)") == parse_measure("RBP")
    assert parse_measure("nDCG(disc=jk,b=2.0)") == parse_measure("nDCG(disc=jk)")
    assert parse_measure("nDCG@10") != parse_measure("nDCG@5")
    assert parse_measure("nDCG") @ 10 == parse_measure("nDCG@10")
    assert {parse_measure("P@10"): 1}[parse_measure("P@10")] == 1
    m = parse_measure("RBP(p=0.8)@5")
    assert m.p == 0.8 and m.cutoff == 5 and m.gain == "binary"
    with pytest.raises(AttributeError):
        m.p = 0.5


@pytest.mark.parametrize(("text", "message"), [
    ("Foo@10", "unknown measure"), ("nDCG(gain)@10", "key=value"), ("nDCG(x=1)", "no parameter"),
    ("P@0", "positive"), ("P@x", "positive"), ("RBP(p=abc)", "not a valid float"), ("Rprec@10", "no cutoff"),
    ("P", "needs a cutoff"), ("nDCG(((", "cannot parse"),
])
def test_parse_errors(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_measure(text)


def test_registry_lists_every_accuracy_measure_with_documentation():
    names = {c.NAME for c in list_measures()}
    expected = {"P", "Recall", "AP", "nDCG", "DCG", "RR", "Rprec", "bpref", "infAP", "RBP", "ERR", "F1",
                "HitRate", "HLU", "HLU_breese", "Spearman", "Kendall", "FCP"}
    assert expected <= names
    for name in expected:
        cls = REGISTRY[name]
        assert cls.FORMULA and cls.CITATION and cls.SECTION.startswith("A."), name
        assert cls.__doc__ and "METRICS.md" in cls.__doc__, name
    assert parse_measures(["P@1", "AP"]) == [parse_measure("P@1"), parse_measure("AP")]


def test_register_rejects_a_second_class_with_the_same_name():
    from recdiv.eval.measure import register

    with pytest.raises(ValueError, match="registered twice"):
        register(type("Other", (Measure,), {"NAME": "P"}))


def test_docs_metrics_md_is_up_to_date():
    assert DOCS.read_text(encoding="utf-8") == markdown(), (
        "docs/metrics.md is out of date: run `.venv/bin/python -m recdiv.eval.reference > docs/metrics.md`")
