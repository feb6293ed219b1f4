"""recdiv's measures as ir_measures measures: usable in `ir_measures.calc_aggregate`, `iter_calc`, `evaluator` and
PyTerrier's `pt.Experiment`, beside ir_measures' own.

    import ir_measures
    import recdiv.ir_measures as rd

    measures = [ir_measures.nDCG@10, rd.RBU(p=0.8)@10, rd.alpha_nDCG@7, rd.measure("ab-nDCG(beta=0.25)@10")]
    ir_measures.calc_aggregate(measures, qrels, run)          # any ir_measures qrels and run
    genres = rd.Data(aspects="genres.tsv", train="train.tsv")  # what some measures need besides qrels and a run
    ir_measures.calc_aggregate([rd.ILD(data=genres)@10, rd.EPC(data=genres)@10], qrels, run)
    ir_measures.calc_aggregate([rd.lexirecall(baseline=bm25_run)@10], qrels, run)

Every measure of `recdiv eval --list` with a value per user is offered: as a module attribute (`rd.nDCG_IA`,
`rd.S_RR`, `rd.alpha_nDCG`: the spelling rule of `recdiv.registry` ignores case and punctuation) or from a recdiv
string (`rd.measure("EU(alpha=0.5)@20")`); parameters are recdiv's (`rd.RBU(p=0.8)@10`).

How the numbers are made: ir_measures' runtime provider (the one `ir_measures.define` uses, first in its default
pipeline) hands each measure the qrels and the run as data frames; they become recdiv `Qrels` and `Rankings` the way
`recdiv eval` reads TREC files (ids as strings, a run ordered by score with ties broken by document id in descending
string order, as trec_eval), and `recdiv.eval.evaluate` computes the values: the same numbers as `recdiv eval` on
the same data written as files (tests/test_ir_measures.py checks each kind of measure).

Settings (`Data`), and what they mean for ir_measures' conventions:

- relevance: relevant ⇔ grade ≥ `threshold`, default 1 (trec_eval's and ir_measures' convention; recdiv's command
  line defaults to 4 for 1–5 ratings);
- averaging: over every query of the qrels (`population="judged"`, ir_measures' convention); with "relevant",
  queries without a relevant document get NaN per query and are left out of the mean, as in `recdiv eval`;
- aspects: intent-aware and unified measures read the qrels' `iteration` field as the subtopic when no `aspects` are
  bound and the field holds anything but TREC's "0" (ndeval's subtopic qrels, as ir_measures' own alpha_nDCG
  does), exactly as `recdiv eval --subtopics`;
  `Data(aspects=...)` gives item aspects or features instead (a file `item aspect [weight]` or a frame with columns
  item, aspect[, weight]), `train=` the training interactions (a file `user item value [timestamp]` or a frame
  user, item[, value][, timestamp]), `previous=` the base lists of RBO, LIP and ESSD (a run, or a TREC run file);
- r_max of ERR, ERR-IA, RBU and graded gains: `scale=(min, max)`, else the largest grade of the qrels (as
  `recdiv eval`; PyTerrier evaluating in batches sees the grades of each batch only: give the scale);
- pairwise measures (lexirecall, lexiprecision) take `baseline=`, a run: per query the preference π ∈ {−1, 0, +1}
  of the evaluated run over it, their mean the aggregate.

System-level measures (Gini, aggregate diversity, ...) and those whose system value pools all users' pairs (FCP,
RMSE, MAE) have no per-query value that ir_measures could average: they are refused with a message pointing to
`recdiv.evaluate`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
import pandas as pd
from ir_measures.measures.base import Agg, Measure, ParamInfo

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, RecdivError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext
from recdiv.eval.measure import MEASURES
from recdiv.eval.measure import Measure as RecdivMeasure

__all__ = ["Data", "RecdivIrMeasure", "measure"]


@dataclass(frozen=True, eq=False)
class Data:
    """What recdiv's measures may need besides the qrels and the run, bound to measures with `data=`.

    threshold: relevant ⇔ grade ≥ threshold (default 1, ir_measures' convention); population: "judged" (every
    query of the qrels, default) or "relevant" (queries with a relevant document); scale: the rating scale
    (min, max) or "min:max" (r_max); aspects, train, previous: a file path or a data frame (see the module
    docstring); name: how measures bound to this data print (default: made from what is bound).
    """

    threshold: float = 1.0
    population: str = "judged"
    scale: tuple[float, float] | str | None = None
    aspects: Any = None
    train: Any = None
    previous: Any = None
    name: str | None = None

    def __post_init__(self):
        if self.population not in ("judged", "relevant"):
            raise ConfigError(f"population must be judged or relevant, got {self.population!r}")
        if not isinstance(self.threshold, int | float) or not math.isfinite(self.threshold):
            raise ConfigError(f"threshold must be a finite number, got {self.threshold!r}")
        from recdiv.eval.io import parse_rating_scale

        object.__setattr__(self, "scale", parse_rating_scale(self.scale, "scale"))
        if self.previous is not None and not isinstance(self.previous, str | Path | pd.DataFrame):
            object.__setattr__(self, "previous", _run_frame(self.previous))  # an iterator is read once, here

    def label(self) -> str:
        """How measures bound to this data print: the name, else the settings that differ from the defaults."""
        if self.name is not None:
            return self.name
        parts = [f"threshold={self.threshold:g}"] if self.threshold != 1.0 else []
        parts += [f"population={self.population}"] if self.population != "judged" else []
        parts += [f"scale={self.scale[0]:g}:{self.scale[1]:g}"] if self.scale is not None else []
        parts += [f"{k}={_label(v)}" for k in ("aspects", "train", "previous") if (v := getattr(self, k)) is not None]
        return ",".join(parts)

    def frames(self) -> dict[str, pd.DataFrame]:
        """The bound side data as frames with recdiv's columns (files read once, then kept)."""
        got = self.__dict__.get("_frames")
        if got is None:
            got = {k: _side_frame(k, v) for k in ("aspects", "train", "previous")
                   if (v := getattr(self, k)) is not None}
            object.__setattr__(self, "_frames", got)
        return got


DEFAULT_DATA = Data()
#: printed before every measure of this module: ir_measures takes measures that print alike for the same measure
PREFIX = "recdiv."


def _label(obj: Any) -> str:
    """A short, stable name of a file or of a table's content (a hash of its rows)."""
    if isinstance(obj, str | Path):
        return Path(obj).name
    frame = obj if isinstance(obj, pd.DataFrame) else _run_frame(obj)
    digest = int(pd.util.hash_pandas_object(frame, index=False).sum()) & 0xFFFFFFFF
    return f"<{len(frame)} rows #{digest:08x}>"


# from ir_measures' inputs to recdiv's -----------------------------------------------------------------------------
_SIDE_READERS = {"aspects": "read_item_aspects_tsv", "train": "read_interactions_tsv", "previous": "read_trec_run"}
_SIDE_COLUMNS = {"aspects": ("item", "aspect"), "train": ("user", "item"), "previous": ("user", "item")}


def _side_frame(kind: str, obj: Any) -> pd.DataFrame:
    if isinstance(obj, str | Path):
        from recdiv.data import textio

        return getattr(textio, _SIDE_READERS[kind])(obj)
    frame = _ir_run(obj) if kind == "previous" else obj
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"Data({kind}=...) takes a file path or a pandas DataFrame, got {type(obj).__name__}")
    missing = [c for c in _SIDE_COLUMNS[kind] if c not in frame.columns]
    if missing:
        raise ConfigError(f"Data({kind}=...): the frame has no column {missing[0]!r} (columns: "
                          f"{', '.join(map(str, frame.columns))}; needed: {', '.join(_SIDE_COLUMNS[kind])})")
    frame = frame.assign(**{c: frame[c].astype(str) for c in ("user", "item") if c in frame.columns})
    if kind == "aspects":
        frame = frame.assign(aspect=frame["aspect"].astype(str),
                             weight=frame["weight"].astype(np.float64) if "weight" in frame else 1.0)
    elif kind == "train" and "value" not in frame:
        frame = frame.assign(value=1.0)
    return frame


def _run_frame(run: Any) -> pd.DataFrame:
    """Any ir_measures run (frame, dict of dicts, ScoredDoc iterable) or a TREC run file as a frame with columns
    query_id, doc_id, score."""
    if isinstance(run, str | Path):
        from recdiv.data.textio import read_trec_run

        f = read_trec_run(run)
        return pd.DataFrame({"query_id": f["user"], "doc_id": f["item"], "score": f["score"]})
    return ir_measures.util.RunConverter(run).as_pd_dataframe()


def _ir_run(run: Any) -> pd.DataFrame:
    """A run with recdiv's columns: user, item, score (ids as strings; a NaN score is an error)."""
    f = _run_frame(run)
    score = f["score"].to_numpy(np.float64)
    if np.isnan(score).any():
        j = int(np.flatnonzero(np.isnan(score))[0])
        raise ConfigError(f"run: the score of query {f['query_id'].iloc[j]!r}, document {f['doc_id'].iloc[j]!r} "
                          "is NaN")
    return pd.DataFrame({"user": f["query_id"].astype(str).to_numpy(), "item": f["doc_id"].astype(str).to_numpy(),
                         "score": score})


def _qrels_frame(qrels: pd.DataFrame) -> pd.DataFrame:
    grade = qrels["relevance"].to_numpy(np.float64)
    frame = pd.DataFrame({"user": qrels["query_id"].astype(str).to_numpy(),
                          "item": qrels["doc_id"].astype(str).to_numpy(), "grade": grade})
    if "iteration" in qrels.columns:  # subtopic qrels: an iteration field other than TREC's "0" (or "Q0")
        subtopic = qrels["iteration"].astype(str).to_numpy()
        if not np.isin(subtopic, ("0", "Q0")).all():
            frame["subtopic"] = subtopic
    return frame


def _inputs(measure: RecdivMeasure, data: Data, qrels: pd.DataFrame, runs: dict[str, pd.DataFrame]):
    """(qrels, {name: rankings}, context) over shared vocabularies, as `recdiv.eval.io.load_inputs` builds them from
    files: the subtopic form (`--subtopics`) when the measure needs aspects and none are bound."""
    context = EvalContext(threshold=float(data.threshold), population=data.population,  # type: ignore[arg-type]
                          scale=data.scale)
    if "aspects" in measure.NEEDS and data.aspects is None and "subtopic" in qrels:
        from recdiv.eval.subtopics import run_frame, subtopic_qrels, subtopic_space, virtual_ids

        sf = pd.DataFrame({"topic": qrels["user"], "subtopic": qrels["subtopic"], "doc": qrels["item"],
                           "judgment": qrels["grade"]})
        rfs = {name: run_frame(f) for name, f in runs.items()}
        users = Vocab.from_values(sf["topic"], *(f["user"] for f in rfs.values()))
        items = Vocab.from_values(virtual_ids(sf["topic"], sf["doc"]), *(f["item"] for f in rfs.values()))
        context.aspects = subtopic_space(sf, items, context.threshold)
        return (subtopic_qrels(sf, users, items),
                {name: Rankings.from_frame(f, users, items) for name, f in rfs.items()}, context)
    side = data.frames()
    if qrels.duplicated(["user", "item"]).any():  # subtopic qrels: a document's grade is its largest judgment
        qrels = qrels.groupby(["user", "item"], sort=False, as_index=False)["grade"].max()
    users = Vocab.from_values(qrels["user"], *(f["user"] for f in (*runs.values(), *side.values()) if "user" in f))
    items = Vocab.from_values(qrels["item"], *(f["item"] for f in (*runs.values(), *side.values())))
    q = Qrels.from_frame(qrels, users, items)
    if "train" in side:
        from recdiv.data.interactions import Interactions

        t = side["train"]
        context.train = Interactions.from_arrays(
            users.lookup(t["user"].to_numpy()), items.lookup(t["item"].to_numpy()), t["value"].to_numpy(np.float64),
            users, items, timestamps=t["timestamp"].to_numpy(np.int64) if "timestamp" in t else None)
    if "aspects" in side:
        from recdiv.aspects.space import AspectSpace
        from recdiv.data.csr import csr_arrays

        a = side["aspects"]
        names = Vocab.from_values(a["aspect"])
        m, _ = csr_arrays(items.lookup(a["item"].to_numpy()), names.lookup(a["aspect"].to_numpy()),
                          a["weight"].to_numpy(np.float64), (len(items), len(names)))
        context.aspects = AspectSpace(items, names, m)
    if "previous" in side:
        context.previous = Rankings.from_frame(side["previous"], users, items)
    return q, {name: Rankings.from_frame(f, users, items) for name, f in runs.items()}, context


# the measures ------------------------------------------------------------------------------------------------------
class _Aggregate(Agg):
    """recdiv's system value from the per-query values, taken in the order recdiv computes it (the evaluated users in
    id order): the same float as `recdiv eval`. With population "relevant", the NaN of the queries outside it (the
    value ir_measures gives a query that was not yielded) are left out."""

    def __init__(self, measure: RecdivMeasure, drop_nan: bool):
        self.measure, self.drop_nan, self.values = measure, drop_nan, []

    def add(self, value):
        self.values.append(value)

    def result(self) -> float:
        v = np.asarray(self.values, dtype=np.float64)
        if self.drop_nan:
            v = v[~np.isnan(v)]
        if self.measure.KIND == "pairwise":  # the system value of `recdiv.eval.evaluate`
            return float(np.mean(v)) if len(v) else 0.0
        return float(self.measure.aggregate(v, None))


class RecdivIrMeasure(Measure):
    """An ir_measures measure computed by recdiv (one subclass per recdiv measure class: `measure`, or a module
    attribute). Parameters: recdiv's, `cutoff` (also `@K`), `data` (a `Data`) and, for pairwise measures,
    `baseline` (a run)."""

    ENTRY: Any = None  # the recdiv registry entry

    def __init__(self, **params):
        super().__init__(**params)

    @property
    def DEFAULT(self) -> float:
        return math.nan if self._data.population == "relevant" else 0.0

    @property
    def _data(self) -> Data:
        return self.params.get("data") or DEFAULT_DATA

    @property
    def recdiv(self) -> RecdivMeasure:
        """The recdiv measure (parameters checked; ConfigError naming what is wrong)."""
        got = self.__dict__.get("_recdiv")
        if got is None:
            own = {k: v for k, v in self.params.items() if k not in ("cutoff", "data", "baseline")}
            got = self.ENTRY.obj(self.params.get("cutoff"), **{**self.ENTRY.preset, **own})
            self._check(got)
            self.__dict__["_recdiv"] = got
        return got

    def _check(self, m: RecdivMeasure) -> None:
        data, baseline = self.params.get("data"), self.params.get("baseline")
        if data is not None and not isinstance(data, Data):
            raise ConfigError(f"{m}: data= takes a recdiv.ir_measures.Data, got {type(data).__name__}")
        if m.KIND == "system":
            raise ConfigError(f"{m} is a system-level measure: it has no per-query values for ir_measures to "
                              "average (use recdiv.evaluate or `recdiv eval`)")
        if getattr(m, "POOLED", False):
            raise ConfigError(f"{m}: its system value pools every user's pairs, not a mean of per-query values "
                              "(use recdiv.evaluate or `recdiv eval`)")
        if m.KIND == "pairwise" and baseline is None:
            raise ConfigError(f"{m} compares the run with another: give it the other run, "
                              f"{self.ENTRY.name}(baseline=RUN)")
        if m.KIND != "pairwise" and baseline is not None:
            raise ConfigError(f"{m} is not a pairwise measure: it takes no baseline")

    def validate_params(self):
        if not self.validated:
            self.recdiv  # noqa: B018 (builds and checks)
            self.validated = True

    def runtime_impl(self, qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[ir_measures.Metric]:
        """Per-query values (the hook of ir_measures' runtime provider)."""
        m, data = self.recdiv, self._data
        q = _qrels_frame(qrels)
        runs = {"run": _ir_run(run)}
        if m.KIND == "pairwise":
            runs["baseline"] = _ir_run(self.params["baseline"])
        from recdiv.eval.evaluate import evaluate

        if "aspects" in m.NEEDS and data.aspects is None and "subtopic" in q:  # as `recdiv eval --subtopics`
            from recdiv.eval.io import measure_conventions

            m = parse_measure(str(m), measure_conventions(None, True))
        try:
            qr, rankings, context = _inputs(m, data, q, runs)
            ev = evaluate(rankings, qr, [m], context, baseline="baseline" if m.KIND == "pairwise" else None)
        except RecdivError as e:
            hint = " (bind side data with data=recdiv.ir_measures.Data(train=..., aspects=..., previous=...))"
            raise ConfigError(f"{self}: {e}" + (hint if "context" in str(e) else "")) from None
        original = dict(zip(q["user"], qrels["query_id"]))  # report the qrels' own query ids (int or str)
        for user, value in zip(ev.users, ev.per_user["run"][str(m)]):
            yield ir_measures.Metric(original.get(str(user), str(user)), self, float(value))

    def aggregator(self) -> Agg:
        return _Aggregate(self.recdiv, self._data.population == "relevant")

    def __repr__(self) -> str:
        try:
            text = PREFIX + str(self.recdiv)
        except RecdivError:
            return PREFIX + super().__repr__()
        extra = []
        if self.params.get("data") is not None and self._data.label():
            extra.append(f"data={self._data.label()}")
        if self.params.get("baseline") is not None:
            extra.append(f"baseline={_label(self.params['baseline'])}")
        if not extra:
            return text
        head, at, cut = text.partition("@")
        if head.endswith(")"):
            head = head[:-1] + "," + ",".join(extra) + ")"
        else:
            head += "(" + ",".join(extra) + ")"
        return head + at + cut


_CLASSES: dict[str, type[RecdivIrMeasure]] = {}


def _class_of(entry) -> type[RecdivIrMeasure]:
    """The ir_measures measure class of a recdiv registry entry (made once per name)."""
    key = entry.name + repr(sorted(entry.preset.items()))
    cls = _CLASSES.get(key)
    if cls is None:
        params = {p.name: ParamInfo(default=p.default, desc=p.description) for p in entry.obj.PARAMS}
        params["cutoff"] = ParamInfo(dtype=int, desc="ranking cutoff K")
        params["data"] = ParamInfo(desc="recdiv.ir_measures.Data: settings and side data")
        params["baseline"] = ParamInfo(desc="the run a pairwise measure compares with")
        cls = type(entry.name, (RecdivIrMeasure,), {"NAME": entry.name, "__name__": entry.name, "ENTRY": entry,
                                                     "SUPPORTED_PARAMS": params, "__doc__": entry.obj.__doc__})
        _CLASSES[key] = cls
    return cls


def measure(spec: str | RecdivMeasure, *, data: Data | None = None, baseline: Any = None) -> RecdivIrMeasure:
    """The ir_measures measure of a recdiv measure string (``"RBU(p=0.8)@10"``) or object, bound to `data` (a
    `Data`) and, for a pairwise measure, a `baseline` run."""
    m = parse_measure(spec)
    entry = MEASURES.entry(m.NAME)
    params: dict[str, Any] = {k: v for k, v in m.params.items() if v != m.param_map()[k].default}
    if m.cutoff is not None:
        params["cutoff"] = m.cutoff
    if data is not None:
        params["data"] = data
    if baseline is not None:  # an iterator of ScoredDoc is read once, here
        params["baseline"] = baseline if isinstance(baseline, str | Path | pd.DataFrame) else _run_frame(baseline)
    out = _class_of(entry)(**params)
    out.validate_params()
    return out


def __getattr__(name: str) -> RecdivIrMeasure:
    """`recdiv.ir_measures.RBU` etc.: every recdiv measure by any spelling of its name."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        entry = MEASURES.entry(name)
    except ConfigError:
        raise AttributeError(f"module 'recdiv.ir_measures' has no measure {name!r}") from None
    return _class_of(entry)()
