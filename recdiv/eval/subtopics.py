"""TREC subtopic qrels (ndeval's format ``topic subtopic doc judgment``), for the intent-aware and unified measures.

Aspects are global per item (`AspectSpace`), subtopics belong to a topic (a user). recdiv maps each (topic, doc)
pair of the subtopic qrels and of the runs to its own *virtual item* ``topic<TAB>doc``:

- its aspects are the topic's subtopics for which the document is relevant (judgment ≥ τ and > 0), named
  ``topic<TAB>subtopic`` — so A(i) is the per-topic subtopic set ndeval works with, and rel(u,i,a) =
  rel(u,i)·[a ∈ A(i)] is exactly ndeval's per-subtopic relevance;
- its grade (the topic-level qrels) is the document's largest judgment over its subtopic lines (ndeval: a
  document relevant to any subtopic is relevant to the topic); a document judged 0 everywhere is judged
  non-relevant; run documents absent from the subtopic qrels are unjudged and have no aspects.

The virtual ids keep ndeval's orders: within one topic, ``topic<TAB>doc`` sorts like ``doc``, so run ties (item id
descending) and greedy-ideal ties (largest docno) are decided by the document id as in ndeval. The existing
vectorised kernels then run unchanged (docs/intent-aware.md says why this design and what it gives up: measures
that use one grade per item take the document's largest judgment).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.aspects.space import AspectSpace
from recdiv.data._read import Table, parse_table
from recdiv.data.qrels import Qrels, is_relevant
from recdiv.data.textio import GRADE_RANGE, check_duplicates
from recdiv.data.vocab import Vocab

SUBTOPIC_LAYOUT = [("topic", "id"), ("subtopic", "id"), ("doc", "id"), ("judgment", "float")]
SEP = "\t"  # never inside an id (the formats are whitespace-separated)


def read_subtopic_qrels(path: str | Path) -> Table:
    """Subtopic qrels (topic subtopic doc judgment) -> Table topic, subtopic, doc, judgment (judgments −127..127
    as read; `.frame()` gives a DataFrame with ids as strings). A repeated (topic, subtopic, doc) is an error."""
    table = parse_table(path, SUBTOPIC_LAYOUT, sep=None, comments=True,
                        what="subtopic qrels file (topic subtopic doc judgment)")
    g = table["judgment"]
    bad = (g < GRADE_RANGE[0]) | (g > GRADE_RANGE[1])
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise table.error(f"judgment must be between {GRADE_RANGE[0]} and {GRADE_RANGE[1]}, got {float(g[j]):g}", j)
    check_duplicates(table, ["topic", "subtopic", "doc"], "subtopic judgment")
    return table


def virtual_ids(topics, docs) -> np.ndarray:
    """``topic<TAB>doc`` for paired arrays of ids."""
    return (pd.Series(np.asarray(topics), dtype=str) + SEP + pd.Series(np.asarray(docs), dtype=str)).to_numpy()


def subtopic_qrels(frame: pd.DataFrame, users: Vocab, items: Vocab) -> Qrels:
    """Topic-level qrels over the virtual items: each (topic, doc)'s largest judgment."""
    per_doc = frame.assign(item=virtual_ids(frame["topic"], frame["doc"])).groupby(["topic", "item"], sort=False)
    best = per_doc["judgment"].max().reset_index()
    return Qrels.from_frame(pd.DataFrame({"user": best["topic"], "item": best["item"], "grade": best["judgment"]}),
                            users, items)


def subtopic_space(frame: pd.DataFrame, items: Vocab, threshold: float) -> AspectSpace:
    """The virtual items' aspects: the subtopics each (topic, doc) is relevant to (judgment ≥ τ and > 0)."""
    g = frame["judgment"].to_numpy(np.float64)
    rel = frame[is_relevant(g, threshold) & (g > 0)]
    names = Vocab.from_values(virtual_ids(frame["topic"], frame["subtopic"]))  # every subtopic, judged relevant or not
    rows = items.lookup(virtual_ids(rel["topic"], rel["doc"]))
    cols = names.lookup(virtual_ids(rel["topic"], rel["subtopic"]))
    m = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(items), len(names)))
    m.sum_duplicates()
    return AspectSpace(items, names, m, "subtopics")


def run_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A run (user, item, score, ...) with its items replaced by the virtual ``user<TAB>item`` ids."""
    return frame.assign(item=virtual_ids(frame["user"], frame["item"]))
