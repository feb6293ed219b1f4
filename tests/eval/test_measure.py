"""Measure parsing, printing and the registry (recdiv/eval/measure.py), and the generated metric reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from recdiv.errors import ConfigError
from recdiv.eval import list_measures, parse_measure, parse_measures
from recdiv.eval.catalog import MEASURES
from recdiv.eval.measure import Measure
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
        cls = MEASURES[name]
        assert cls.FORMULA and cls.CITATION and cls.SECTION.startswith("A."), name
        assert cls.__doc__ and "docs/metrics.md" in cls.__doc__, name
    assert parse_measures(["P@1", "AP"]) == [parse_measure("P@1"), parse_measure("AP")]


def test_register_rejects_a_second_class_with_the_same_name():
    from recdiv.eval.measure import register

    with pytest.raises(ValueError, match="is taken"):
        register(type("Other", (Measure,), {"NAME": "P"}))
    with pytest.raises(ValueError, match="is taken"):  # the same name in another spelling
        register(type("Other", (Measure,), {"NAME": "n-DCG"}))


def test_docs_metrics_md_is_up_to_date():
    assert DOCS.read_text(encoding="utf-8") == markdown(), (
        "docs/metrics.md is out of date: run `.venv/bin/python -m recdiv.eval.reference > docs/metrics.md`")


def test_names_ignore_case_and_punctuation_and_suggest():
    assert parse_measure("AlphaNDCG@10") == parse_measure("alpha-nDCG@10") == parse_measure("alpha_ndcg@10")
    assert str(parse_measure("err_ia(variant=ndeval)@20")) == "ERR-IA(variant=ndeval)@20"
    with pytest.raises(ConfigError, match=r"did you mean 'nDCG'"):
        parse_measure("ndgc@10")


def test_declared_parameters_check_values():
    from recdiv.eval.measure import Param

    with pytest.raises(ConfigError, match=r"RBP: p must be in \(0, 1\), got 1.5"):
        parse_measure("RBP(p=1.5)")
    with pytest.raises(ConfigError, match="gain must be one of rating, binary, exp, ranksys"):
        parse_measure("nDCG(gain=foo)")
    with pytest.raises(ConfigError, match=r"EPC: disc=exp2: exponential discount"):
        parse_measure("EPC(disc=exp2)")
    with pytest.raises(ConfigError, match="given twice"):
        parse_measure("RBP(p=0.5,p=0.6)")
    p = Param("x", float, 0.5, "a share", low=0.0, high=1.0, high_open=True)
    assert p.describe() == "a share; in [0, 1)" and p.coerce("M", "0.25") == 0.25
    with pytest.raises(ConfigError, match="not a valid float"):
        p.coerce("M", "abc")


def test_kinds_and_direction():
    from recdiv.eval.measure import PairwiseMeasure, PerUserMeasure, SystemMeasure

    assert isinstance(parse_measure("nDCG@10"), PerUserMeasure) and parse_measure("nDCG@10").KIND == "per-user"
    assert isinstance(parse_measure("Gini"), SystemMeasure) and not parse_measure("Gini").HIGHER_IS_BETTER
    assert isinstance(parse_measure("lexirecall"), PairwiseMeasure)
    assert isinstance(parse_measure("HLU_breese"), SystemMeasure)
    assert all(c.KIND in ("per-user", "system", "pairwise") for c in list_measures())
    lower = {c.NAME for c in list_measures() if not c.HIGHER_IS_BETTER}
    assert lower == {"Gini", "ARP", "PopRSP", "PopREO", "Miscalibration", "ILS", "RMSE", "MAE", "EE-L", "EE-D"}


def test_aliases_and_spellings_of_other_tools(monkeypatch):
    """The mechanism the trec_eval / ir_measures / ranx spellings use: a name alias with preset parameters
    (and cutoff), and whole-string spellings."""
    from recdiv.eval import catalog
    from recdiv.eval.catalog import MEASURES
    from recdiv.registry import Registry

    reg = Registry("measure")
    for e in MEASURES.entries():
        reg.add(e.name, e.obj, aliases=e.aliases)
    monkeypatch.setattr(catalog, "MEASURES", reg)
    monkeypatch.setattr(catalog, "_SPELLINGS", [])
    reg.alias("precision", "P")
    reg.alias("ndcg_exp", "nDCG", gain="exp")
    reg.alias("p_ten", "P", cutoff=10)
    catalog.add_spelling(r"P\.(\d+)", r"P@\1")
    catalog.add_spelling(r"ndcg_cut_(\d+)", r"nDCG@\1")
    catalog.add_spelling("map", "AP")
    assert parse_measure("precision@10") == parse_measure("P@10")
    assert parse_measure("ndcg_exp@5") == parse_measure("nDCG(gain=exp)@5")
    assert parse_measure("NDCG_EXP(gain=exp)@5") == parse_measure("nDCG(gain=exp)@5")
    with pytest.raises(ConfigError, match="stands for gain=exp"):
        parse_measure("ndcg_exp(gain=rating)@5")
    assert parse_measure("p_ten") == parse_measure("P@10")
    with pytest.raises(ConfigError, match="cutoff 10"):
        parse_measure("p_ten@5")
    assert parse_measure("P.10") == parse_measure("P@10")
    assert parse_measure("ndcg_cut_20") == parse_measure("nDCG@20")
    assert parse_measure("map") == parse_measure("AP")


def test_architecture_doc_metric_example_runs(monkeypatch):
    """docs/architecture.md's one-file metric registers and evaluates (in a copy of the registry)."""
    import re

    from recdiv.eval import catalog, measure
    from recdiv.registry import Registry
    from tests.eval._acc_helpers import example_a

    reg = Registry("measure")
    for e in measure.MEASURES.entries():
        reg.add(e.name, e.obj, aliases=e.aliases)
    monkeypatch.setattr(measure, "MEASURES", reg)
    monkeypatch.setattr(catalog, "MEASURES", reg)
    text = (DOCS.parent / "architecture.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "class DiscountedHits" in b]
    exec(compile(__import__("textwrap").dedent(block), "architecture.md", "exec"), {})
    run, qrels = example_a()  # relevant a (rank 2), b (rank 4)
    assert parse_measure("dhits(disc=recip)@5").value(run, qrels) == pytest.approx(1 / 2 + 1 / 4)
