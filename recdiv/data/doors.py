"""Other libraries' runs and qrels through the reader layer (`recdiv.data.formats`): ranx `Run`/`Qrels` objects and
their JSON and Parquet files, LensKit `ItemListCollection` objects and their Parquet files.

- a ranx `Run` or `Qrels` (q_id, doc_id, score, as `to_dataframe()` gives them: `ranx_frame`); a NaN score is
  an error naming the query and the document (ranx keeps NaN in its runs); a Run where qrels are expected, or
  Qrels where a run is, is an error;
- a LensKit `ItemListCollection` keyed by one field (user_id, query_id, ...): recommendations need ordered lists
  (ranks) or scores, test lists give their ``rating`` field as the grade, 1 without one (implicit feedback);
- ranx's JSON files (``.json``: {query: {document: score}}, also ir_measures' and pytrec_eval's dict of dicts);
- Parquet in ranx's layout (q_id, doc_id, score — the score of a qrels file is its relevance) and in LensKit's
  native layout (one row per list: the key and a list column ``items`` of item_id, score, rank, rating, ...).

`OBJECT_DOORS` are registered by `recdiv.data.formats` on first use; none imports its library (the objects are
recognised by their type's module). `adapt` rewrites the layouts above into the reader's columns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recdiv.errors import ConfigError, DataError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["OBJECT_DOORS", "adapt", "ranx_frame", "read_json", "rewritten"]


def _of(obj, library: str, *names: str) -> bool:
    t = type(obj)
    return t.__module__.split(".")[0] == library and any(c.__name__ in names for c in t.__mro__)


# ranx ------------------------------------------------------------------------------------------------------------
def _is_ranx(obj) -> bool:
    return _of(obj, "ranx", "Run", "Qrels")


def _ranx_table(obj, kind: str):
    what = type(obj).__name__
    if (kind == "qrels") != (what == "Qrels"):
        raise ConfigError(f"a ranx {what} where {'qrels' if kind == 'qrels' else 'a run'} are expected")
    frame = ranx_frame(obj)
    import numpy as np

    score = frame["score"].to_numpy(np.float64)
    bad = ~np.isfinite(score)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise DataError(f"the score of query {frame['q_id'].iloc[j]!r}, document {frame['doc_id'].iloc[j]!r} is "
                        f"{float(score[j])!r}; scores must be finite numbers", f"ranx {what}")
    return frame.rename(columns={"q_id": "user", "doc_id": "item", "score": "grade" if kind == "qrels" else "score"})


def ranx_frame(obj):
    """The frame `to_dataframe()` gives (q_id, doc_id, score: the same rows, order and dtypes), built from
    `to_dict()`: each query's numba dictionary is converted once, where `to_dataframe` looks every entry up from
    Python (about 3× faster; bench/README.md, "Adapters to other tools")."""
    import pandas as pd

    queries, docs, scores = [], [], []
    for query, row in obj.to_dict().items():
        queries += [query] * len(row)
        docs += row.keys()
        scores += row.values()
    return pd.DataFrame({"q_id": queries, "doc_id": docs, "score": scores})


# LensKit ---------------------------------------------------------------------------------------------------------
def _is_itemlists(obj) -> bool:
    return _of(obj, "lenskit", "ItemListCollection")


def _itemlists_table(obj, kind: str):
    keys = list(obj.key_fields)
    if len(keys) != 1:
        raise ConfigError(f"item list collections keyed by one field (user_id) are read; this one is keyed by "
                          f"{', '.join(keys)}")
    frame = obj.to_df()
    if "item_id" not in frame:
        raise ConfigError("the item lists have no item ids (item_id)")
    frame = frame.rename(columns={keys[0]: "user", "item_id": "item"})
    return _lists_frame(frame, kind, "LensKit item lists")


def _lists_frame(frame, kind: str, what: str):
    """Columns user, item and, for a run, rank or score; for qrels, grade (rating, else 1)."""
    if kind == "run":
        if "rank" not in frame and "score" not in frame:
            raise DataError("the recommendation lists have neither ranks (ordered lists) nor scores: their order is "
                            "unknown", what)
        return frame[[c for c in ("user", "item", "rank", "score") if c in frame]]
    grade = frame["rating"] if "rating" in frame else 1.0
    return frame[["user", "item"]].assign(grade=grade)


#: (name, accepts, to_table) of every library whose objects `recdiv.data.formats` reads
OBJECT_DOORS = [("ranx", _is_ranx, _ranx_table), ("LensKit", _is_itemlists, _itemlists_table)]


# layouts of files and tables -------------------------------------------------------------------------------------
def rewritten(names: list[str], kind: str) -> str | None:
    """The other library's layout `adapt` rewrites, by column names: "lenskit" (native item lists), "ranx" (qrels
    with the relevance as `score`), or None."""
    if "items" in names and not {"item", "item_id", "doc_id"} & set(names):
        return "lenskit"
    if kind == "qrels" and "q_id" in names and "score" in names and not {"grade", "relevance", "rating"} & set(names):
        return "ranx"
    return None


def adapt(arrow: pa.Table, kind: str, where: str) -> pa.Table:
    """A table in LensKit's native layout (a list column ``items``) flattened to one row per item; ranx's qrels
    layout (q_id, doc_id, score) with the score as the grade; anything else as it is."""
    layout = rewritten(arrow.column_names, kind)
    if layout == "lenskit":
        return _flatten_lists(arrow, kind, where)
    if layout == "ranx":
        return arrow.rename_columns(["grade" if n == "score" else n for n in arrow.column_names])
    return arrow


def _flatten_lists(arrow: pa.Table, kind: str, where: str) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    if not (pa.types.is_list(arrow.schema.field("items").type)
            and pa.types.is_struct(arrow.schema.field("items").type.value_type)):
        raise DataError("the items column is not a list of item records (LensKit's native layout)", where)
    keys = [n for n in arrow.column_names if n != "items"]
    if len(keys) != 1:
        raise DataError(f"item lists keyed by one field (user_id) are read; these are keyed by {', '.join(keys)}",
                        where)
    lists = arrow.column("items").combine_chunks()
    parents = pc.list_parent_indices(lists)
    flat = pc.list_flatten(lists)
    cols = {"user": pc.take(arrow.column(keys[0]), parents)}
    for field in flat.type:
        cols["item" if field.name == "item_id" else field.name] = flat.field(field.name)
    if "item" not in cols:
        raise DataError("the item lists have no item ids (item_id)", where)
    table = pa.table({c: cols[c] for c in ("user", "item", "rank", "score", "rating") if c in cols})
    if kind == "run":
        if "rank" not in cols and "score" not in cols:
            raise DataError("the recommendation lists have neither ranks (ordered lists) nor scores: their order is "
                            "unknown", where)
        return table.drop_columns([c for c in ("rating",) if c in cols])
    if "rating" in cols:
        return table.rename_columns(["grade" if c == "rating" else c for c in table.column_names])
    return table.append_column("grade", pa.array([1.0] * table.num_rows, pa.float64()))


def read_json(path: Path, kind: str) -> pa.Table:
    """ranx's JSON runs and qrels (also ir_measures' and pytrec_eval's): {query: {document: score or relevance}}."""
    import pyarrow as pa

    try:
        with open(path, encoding="utf-8") as f:
            data: Any = json.load(f)
    except FileNotFoundError:
        raise DataError("no such file", path) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DataError(f"not a JSON file: {e}", path) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise DataError("a JSON run or qrels file is an object {query: {document: score}}", path)
    users, items, values = [], [], []
    for q, docs in data.items():
        for d, v in docs.items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise DataError(f"query {q!r}, document {d!r}: {v!r} is not a number", path)
            users.append(str(q))
            items.append(str(d))
            values.append(float(v))
    return pa.table({"user": pa.array(users, pa.string()), "item": pa.array(items, pa.string()),
                     "grade" if kind == "qrels" else "score": pa.array(values, pa.float64())})
