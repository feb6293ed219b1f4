"""From parsed files (`recdiv.data._read.Table`, ids dictionary-encoded) to recdiv's structures over shared
vocabularies, without a Python object per line: each distinct id is looked up once, rows are integer codes.

Used wherever several files must line up (`recdiv eval`: qrels, runs, train, aspects; `recdiv rerank`: run,
aspects, train)."""

from __future__ import annotations

import numpy as np

from recdiv.data._read import Codes, Table
from recdiv.data.csr import CSRArrays, csr_arrays
from recdiv.data.interactions import Interactions
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import DataError


def shared_vocab(*columns: Codes) -> Vocab:
    """The sorted vocabulary of the ids of dictionary-encoded columns (from their distinct labels only)."""
    return Vocab.from_values(*(c.labels for c in columns))


def dense(col: Codes, vocab: Vocab, table: Table | None = None, problem: str = "id {id!r} is unknown") -> np.ndarray:
    """Dense indices in `vocab` of a dictionary-encoded column. An id missing from `vocab` is a DataError at its
    line of `table` (`problem` formatted with the id) when `table` is given, else a KeyError."""
    index = vocab.lookup(col.labels, missing="-1" if table is not None else "error")
    if table is not None and (index < 0).any():
        missing = int(np.flatnonzero(index < 0)[0])
        raise table.error(problem.format(id=col.labels[missing]), int(np.flatnonzero(col.codes == missing)[0]))
    return index.astype(np.int32 if len(vocab) < 2**31 else np.int64)[col.codes]


def rankings_of(table: Table, users: Vocab, items: Vocab, *, order: str = "score") -> Rankings:
    """A TREC run's rankings (see `Rankings.from_arrays`)."""
    try:
        return Rankings.from_arrays(dense(table["user"], users), dense(table["item"], items), table["score"], users,
                                    items, ranks=table.columns.get("rank"), order=order)
    except ValueError as e:  # duplicates are caught by the reader; this is a last guard
        raise DataError(str(e), table.path) from None


def qrels_of(table: Table, users: Vocab, items: Vocab) -> Qrels:
    return Qrels.from_arrays(dense(table["user"], users), dense(table["item"], items), table["grade"], users, items)


def interactions_of(table: Table, users: Vocab, items: Vocab) -> Interactions:
    return Interactions.from_arrays(dense(table["user"], users), dense(table["item"], items), table["value"], users,
                                    items, timestamps=table.columns.get("timestamp"))


def aspect_matrix(table: Table, items: Vocab, *, unknown: str = "error") -> tuple[Vocab, CSRArrays]:
    """(aspect names, items × aspects CSR arrays of weights) of an item-aspect file (no SciPy matrix). Lines of
    items missing from `items`: an error (`unknown="error"`), or left out (`"drop"`: item groups of a catalogue
    larger than the run)."""
    names = shared_vocab(table["aspect"])
    if unknown == "drop":
        index = items.lookup(table["item"].labels, missing="-1")[table["item"].codes]
        keep = index >= 0
        m, _ = csr_arrays(index[keep], dense(table["aspect"], names)[keep], np.asarray(table["weight"])[keep],
                         (len(items), len(names)))
        return names, m
    m, _ = csr_arrays(dense(table["item"], items), dense(table["aspect"], names), table["weight"],
                     (len(items), len(names)))
    return names, m
