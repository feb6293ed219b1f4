"""docs/diversifiers.md's reranker table is generated from the registered reranker classes (recdiv.diversifiers.docs),
as docs/metrics.md is from the measures."""

from __future__ import annotations

from recdiv.diversifiers.docs import DOCS, parameters, pure_relevance, table, updated
from recdiv.diversifiers.registry import RERANKERS


def test_the_reranker_table_is_up_to_date():
    text = DOCS.read_text(encoding="utf-8")
    assert text == updated(text), "out of date: run `.venv/bin/python -m recdiv.diversifiers.docs`"


def test_every_reranker_states_its_objective_and_parameters():
    rows = table().splitlines()[2:]
    assert [r.split(" | ")[0] for r in rows] == [f"| `{n}`" for n in RERANKERS.names()]
    for e in RERANKERS.entries():
        assert e.obj.FORMULA, e.name
    mmr = parameters(RERANKERS.get("MMR"))
    assert mmr == "`lambda`=0.5, `variant`=thesis\\|ranksys, `norm`=minmax\\|max\\|sum\\|rank\\|none"
    assert parameters(RERANKERS.get("Random")) == "`seed`=None (seed; None = the context's seed)"


def test_the_pure_relevance_settings_come_from_the_classes():
    text = pure_relevance()
    assert "MMR `lambda`=1 or `lambda`=0, `variant`=ranksys; Ziegler `theta_F`=0;" in text
    assert all(f"{e.name} " in text for e in RERANKERS.entries() if e.obj.PURE_RELEVANCE)
    assert "Random" not in text and "PlackettLuce" not in text  # they declare none
