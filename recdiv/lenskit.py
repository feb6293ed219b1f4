"""recdiv's measures as LensKit metrics: `RecdivMetric` is a LensKit 2025.8 `ListMetric`, accepted by
`MeasurementCollector.add_metric` and `RunAnalysis`, beside LensKit's own metrics.

    from lenskit.metrics import MeasurementCollector, NDCG
    from recdiv.lenskit import RecdivMetric

    collector = MeasurementCollector()
    collector.add_metric(NDCG(n=10))
    collector.add_metric(RecdivMetric("alpha-nDCG@10", aspects="genres.tsv"))   # item aspects: a file or a frame
    collector.add_metric(RecdivMetric("RBP(p=0.8)@10"))
    for key, recs in recommendations:
        collector.measure_list(recs, test.lookup(key), **key._asdict())
    collector.list_metrics()            # one row per list; statistics: recdiv.Results.from_frame

A LensKit list metric sees one recommendation list and that user's test items, nothing else: each list is
evaluated as one user by `recdiv.eval.evaluate` (ids as text, an ordered list in its order, an unordered one by
score with ties broken by item id in descending string order, as `recdiv eval` orders a TREC run). The grade of a
test item is its `grade_field` (default ``rating``; 1 where the lists have none); relevant ⇔ grade ≥ `threshold`,
default 0: every test item is relevant, as in LensKit's metrics. Measures that need more than the list, its test
items and the items' aspects — a training profile (novelty, profile intent weights), the base list (RBO, LIP,
ESSD), another run (lexirecall), all users at once (Gini, aggregate diversity) — are refused with the route that
has it: `recdiv.evaluate_files` over whole collections, or `recdiv compare` on their Parquet files.

Why the reference-run and pairwise measures cannot be list metrics (LensKit 2025.8): a metric is called as
`measure_list(output, test)` — the list and its test items, nothing else; `MeasurementCollector.measure_list(
output, test, **keys)` keeps the keys (user id) for its own index and does not hand them to the metric, so a
metric cannot find the user's base list or the other system's list in a collection; `GlobalMetric.measure_run`
sees whole collections but gives one number per run, and only the deprecated `RunAnalysis` calls it. LensKit's
own `rank_biased_overlap(reference, reranked)` and `least_item_promoted` are plain functions outside the metric
API for that reason (lkpy #767). Over collections, `recdiv.evaluate_files(test, {"mmr": mmr, "knn": knn},
["RBO@10", "lexirecall@10"], previous=knn, baseline="knn")` gives them per user, the same values as `recdiv eval
--previous/--baseline` on the Parquet files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from lenskit.data import ItemList
from lenskit.metrics import ListMetric

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext
from recdiv.eval.measure import Measure

__all__ = ["RecdivMetric"]

_ONE_USER = Vocab(np.array(["user"], dtype=object))


class RecdivMetric(ListMetric):
    """A recdiv measure (``"alpha-nDCG@10"``, a `Measure`) as a LensKit list metric.

    threshold: relevant ⇔ test grade ≥ threshold (default 0: every test item); grade_field: the test lists' field
    holding grades (default ``rating``; 1 when absent); aspects: item aspects or features for the measures that
    need them (an item-aspect file ``item aspect [weight]`` or a frame with columns item, aspect[, weight]);
    scale: the rating scale (min, max), r_max of ERR, ERR-IA, RBU and graded gains (default: the largest grade of
    each list's test items); label: the column name (default the measure's canonical string).
    A list without test items measures NaN (as LensKit's NDCG); a user without recommendations gets `default` 0.
    """

    default = 0.0

    def __init__(self, measure: str | Measure, *, threshold: float = 0.0, grade_field: str = "rating",
                 aspects: Any = None, scale: tuple[float, float] | None = None, label: str | None = None):
        self.measure = parse_measure(measure)
        m = self.measure
        if m.KIND == "pairwise" or "previous" in m.NEEDS:
            other, option = (("the other system's list", 'baseline="b"') if m.KIND == "pairwise"
                              else ("the user's base list", "previous=base"))
            raise ConfigError(f"{m} needs {other}, which a LensKit list metric cannot reach (LensKit calls "
                              "measure_list(output, test) without the user's key): evaluate the collections with "
                              f"recdiv.evaluate_files(test, {{\"a\": recs, \"b\": other}}, [{str(m)!r}], {option})")
        if m.KIND != "per-user" or m.POOLED:
            what = "is a system-level measure" if m.KIND == "system" else "pools every user's pairs"
            raise ConfigError(f"{m} {what}: a LensKit list metric sees one list at a time; evaluate whole "
                              "collections with recdiv.evaluate_files")
        other = [n for n in m.NEEDS if n != "aspects"]
        if other:
            raise ConfigError(f"{m} needs `{other[0]}`, which a LensKit list metric does not see (one list and its "
                              "test items); evaluate whole collections with recdiv.evaluate_files")
        if "aspects" in m.NEEDS and aspects is None:
            raise ConfigError(f"{m} needs item aspects: RecdivMetric({str(m)!r}, aspects=FILE or frame)")
        self.threshold, self.grade_field, self.scale = float(threshold), grade_field, scale
        self._label = label or str(m)
        self._aspects = _AspectIndex(aspects) if aspects is not None else None

    @property
    def label(self) -> str:
        return self._label

    def measure_list(self, output: ItemList, test: ItemList, /) -> float:
        """The measure's value of one list against its test items (NaN without test items)."""
        if len(test) == 0:
            return float("nan")
        rec_ids, test_ids = _ids(output), _ids(test)
        for what, ids in (("recommendation", rec_ids), ("test", test_ids)):
            distinct, counts = np.unique(ids, return_counts=True)
            if (counts > 1).any():
                raise ConfigError(f"{self.label}: the {what} list holds item {distinct[counts > 1][0]!r} twice")
        items = Vocab.from_values(rec_ids, test_ids)
        zeros = np.zeros(len(output), dtype=np.int64)
        if output.ordered:
            run = Rankings.from_arrays(zeros, items.lookup(rec_ids), None, _ONE_USER, items,
                                       ranks=np.arange(1, len(output) + 1, dtype=np.float64), order="rank")
        else:
            scores = output.scores()
            if scores is None:
                raise ConfigError(f"{self.label}: the recommendation list is neither ordered (ranks) nor scored")
            run = Rankings.from_arrays(zeros, items.lookup(rec_ids), np.asarray(scores, np.float64), _ONE_USER,
                                       items)
        grades = test.field(self.grade_field)
        grades = np.ones(len(test)) if grades is None else np.asarray(grades, dtype=np.float64)
        qrels = Qrels.from_arrays(np.zeros(len(test), dtype=np.int64), items.lookup(test_ids), grades, _ONE_USER,
                                  items)
        context = EvalContext(threshold=self.threshold, population="judged", scale=self.scale)
        if self._aspects is not None:
            context.aspects = self._aspects.space(items)
        values = self.measure.per_user(run, qrels, context)
        return float(values[0]) if len(values) else float("nan")


def _ids(il: ItemList) -> np.ndarray:
    """Item ids as text (integer ids in decimal), as every door of recdiv reads them."""
    return np.asarray([str(i) for i in il.ids()], dtype=object)


class _AspectIndex:
    """Item aspects read once; `space(items)` gives the aspect space of a list's items."""

    def __init__(self, aspects: Any):
        import pandas as pd

        if isinstance(aspects, str | Path):
            from recdiv.data.textio import read_item_aspects_tsv

            frame = read_item_aspects_tsv(aspects)
        elif isinstance(aspects, pd.DataFrame):
            missing = [c for c in ("item", "aspect") if c not in aspects.columns]
            if missing:
                raise ConfigError(f"aspects: the frame has no column {missing[0]!r} (columns: "
                                  f"{', '.join(map(str, aspects.columns))}; needed: item, aspect[, weight])")
            frame = aspects
        else:
            raise ConfigError(f"aspects: a file path or a pandas DataFrame, got {type(aspects).__name__}")
        self.names = Vocab.from_values(frame["aspect"].astype(str).to_numpy())
        self.rows: dict[str, list[tuple[int, float]]] = {}
        weights = frame["weight"].to_numpy(np.float64) if "weight" in frame else np.ones(len(frame))
        for item, aspect, w in zip(frame["item"].astype(str), self.names.lookup(frame["aspect"].astype(str).to_numpy()),
                                   weights):
            self.rows.setdefault(item, []).append((int(aspect), float(w)))

    def space(self, items: Vocab):
        from recdiv.aspects.space import AspectSpace
        from recdiv.data.csr import csr_arrays

        rows, cols, vals = [], [], []
        for r, item in enumerate(items.ids):
            for a, w in self.rows.get(str(item), ()):
                rows.append(r)
                cols.append(a)
                vals.append(w)
        m, _ = csr_arrays(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64),
                          np.asarray(vals, dtype=np.float64), (len(items), len(self.names)))
        return AspectSpace(items, self.names, m)
