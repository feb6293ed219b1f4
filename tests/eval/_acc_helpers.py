"""Builders shared by the accuracy tests: Qrels and Rankings from plain dicts with string ids."""

from __future__ import annotations

import pandas as pd

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab


def build(qrels: dict[str, dict[str, float]], run: dict[str, dict[str, float]]) -> tuple[Rankings, Qrels]:
    """Qrels {user: {item: grade}} and run {user: {item: score}} over shared vocabularies; the run is ordered
    by score descending, ties by item id descending (trec_eval)."""
    qf = pd.DataFrame([(u, i, float(g)) for u, d in qrels.items() for i, g in d.items()],
                      columns=["user", "item", "grade"])
    rf = pd.DataFrame([(u, i, float(s)) for u, d in run.items() for i, s in d.items()],
                      columns=["user", "item", "score"])
    users = Vocab.from_values(qf["user"], rf["user"], pd.Series(list(qrels) + list(run), dtype=object))
    items = Vocab.from_values(qf["item"], rf["item"])
    return Rankings.from_frame(rf, users, items), Qrels.from_frame(qf, users, items)


def example_a() -> tuple[Rankings, Qrels]:
    """METRICS.md §A Example A: grades a5 b4 c3 d2 e4, list (x, a, c, b, y)."""
    return build({"u": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 4}},
                 {"u": {"x": 5, "a": 4, "c": 3, "b": 2, "y": 1}})
