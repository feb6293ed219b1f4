"""Evaluation at any size: runs and qrels streamed in blocks into partitions by user (`recdiv.eval.ingest`), then
evaluated partition by partition within a memory budget — in this process, or on a Ray cluster — and merged into
the same `Evaluation` the in-memory path gives, bit for bit.

Why the values are the same: a partition holds all lines and all judgments of its users on the vocabularies of the
whole evaluation, and a per-user value depends only on its user's list, judgments and the context (training data,
aspects, previous lists, r_max — all global); the per-user values are put back in the order of the evaluated
population, so means are the same pairwise sums; what a system value needs besides per-user values is a mergeable
partial result (`recdiv.eval.partial`): counts, per-user arrays in user order, unions.

    evaluation, coverages = evaluate_stream(qrels, runs, measures, memory="1G")          # local
    evaluation, coverages = evaluate_stream(qrels, runs, measures, backend="ray")        # RAY_ADDRESS's cluster
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recdiv.data.formats import input_format as formats_input_format
from recdiv.data.formats import iter_qrels, iter_run, read_run
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import PAD, Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError, RecdivError
from recdiv.eval.context import EvalContext
from recdiv.eval.evaluate import Evaluation
from recdiv.eval.ingest import (
    DEFAULT_MEMORY,
    SPILL_BYTES_PER_LINE,
    Encoder,
    Folder,
    block_rows,
    encoded,
    estimated_lines,
    free_space,
    parse_memory,
    partitions_for,
    prefetched,
    read_vocab,
    remove_folder,
    temporary_folder,
    write_vocab,
)
from recdiv.eval.io import (
    RunCoverage,
    RunSources,
    coverage_counts,
    iter_predictions,
    named_runs,
    parse_rating_scale,
    predicted_counts,
    run_names,
)
from recdiv.eval.measure import Measure, PairwiseMeasure
from recdiv.eval.partial import merge

BACKENDS = ("local", "ray")
#: processes evaluating groups of partitions at once on this machine (each with its share of the budget)
PROCESSES = min(2, os.cpu_count() or 1)


@dataclass(frozen=True)
class Job:
    """What evaluating a partition needs, as plain values (a cluster's workers get this and the folder)."""

    folder: str
    n_parts: int
    inputs: tuple[str, ...]
    lines: dict
    runs: tuple[str, ...]
    measures: tuple[str, ...]
    baseline: str | None
    threshold: float
    population: str
    scale: tuple[float, float] | None
    r_max: float | None  # the largest grade of the qrels (r_max when no scale is declared)
    widths: dict  # run -> its longest list: every group's rankings have the width of the whole run's
    train: str | None = None
    aspects: str | None = None
    previous: str | None = None
    input_format: str | None = None
    item_groups: str | None = None
    predictions: tuple[str, ...] = ()  # the runs read from rating-prediction files (`--predictions`)
    sources: dict = field(default_factory=dict)  # run -> where it was read from (for messages)


@dataclass
class Part:
    """What one group of partitions gives back: per-user values (dense users of the group's population), the
    partial results of the system values and the coverage counts of every run."""

    users: np.ndarray
    values: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    states: dict[str, dict[str, object]] = field(default_factory=dict)
    coverage: dict[str, np.ndarray] = field(default_factory=dict)  # listed, matched, unjudged, outside, example
    n_judged: int = 0  # users with a judgment
    predicted: dict[str, tuple[int, int]] = field(default_factory=dict)  # `recdiv.eval.io.predicted_counts`


class Worker:
    """Evaluates groups of partitions of a `Job`: vocabularies and context are loaded once per worker."""

    def __init__(self, job: Job, context: EvalContext | None = None, vocabs=None):
        from recdiv.eval.catalog import parse_measures

        self.job = job
        self.folder = Folder(Path(job.folder), job.n_parts, list(job.inputs), dict(job.lines))
        path = Path(job.folder)
        self.users, self.items = vocabs or (read_vocab(path / "vocab-users.arrow"),
                                            read_vocab(path / "vocab-items.arrow"))
        self.user_dense = np.load(path / "codes-users.npy")
        self.item_dense = np.load(path / "codes-items.npy")
        self.measures = parse_measures(list(job.measures))
        self.context = context if context is not None else self._context()

    def _context(self) -> EvalContext:
        from recdiv.eval.io import context_of

        return context_of(self.users, self.items, threshold=self.job.threshold, population=self.job.population,
                          scale=self.job.scale, train=self.job.train, aspects=self.job.aspects,
                          item_groups=self.job.item_groups,
                          previous=self.job.previous, input_format=self.job.input_format)

    def qrels(self, parts: Iterable[int]) -> Qrels:
        u, i, g = _concat(self.folder.read("qrels", p) for p in parts)
        q = Qrels.from_arrays(self.user_dense[u], self.item_dense[i], g, self.users, self.items)
        if self.job.scale is None and self.job.r_max is not None:
            q.scale = (0.0, self.job.r_max)  # r_max of the whole qrels, not of this group's
        return q

    def rankings(self, run: str, parts: Iterable[int]) -> Rankings:
        """The lists of a run for the users of some partitions, as wide as the whole run's (numpy's sums along a
        row depend on its length)."""
        u, i, s = _concat(self.folder.read(run, p) for p in parts)
        try:
            rk = Rankings.from_arrays(self.user_dense[u], self.item_dense[i], s, self.users, self.items)
        except ValueError as e:
            raise self._repeated(run, u, i) or e from None
        extra = int(self.job.widths[run]) - rk.k
        if extra > 0:
            rk = Rankings(rk.users, np.pad(rk.items, ((0, 0), (0, extra)), constant_values=PAD),
                          np.pad(rk.scores, ((0, 0), (0, extra)), constant_values=np.nan), self.users, self.items)
        return rk

    def _repeated(self, run: str, users: np.ndarray, items: np.ndarray) -> DataError | None:
        """The error for a (user, item) pair a run lists twice in places of its file that the first pass read
        in different blocks (a repeat within a block is found there, with its line), or None."""
        keys, counts = np.unique(users.astype(np.int64) << 32 | items.astype(np.int64), return_counts=True)
        if not (counts > 1).any():
            return None
        key = int(keys[counts > 1][0])
        user, item = self.users.id_of(self.user_dense[key >> 32]), self.items.id_of(self.item_dense[key & 0xFFFFFFFF])
        what = "prediction" if run in self.job.predictions else "item in a user's ranking"
        return DataError(f"duplicate {what} (user {str(user)!r}, item {str(item)!r}), in two places of the file",
                         self.job.sources.get(run, run))

    def evaluate(self, parts: list[int]) -> Part:
        ctx = self.context
        qrels = self.qrels(parts)
        runs = {name: self.rankings(name, parts) for name in self.job.runs}
        population = qrels.population(ctx.threshold, ctx.population)
        out = Part(population)
        try:
            for name, run in runs.items():
                out.values[name], out.states[name] = {}, {}
                for m in self.measures:
                    key = str(m)
                    if m.KIND == "per-user":
                        view = m.run_view(run, qrels, ctx)
                        v = out.values[name][key] = m.per_user(run, qrels, ctx)
                        out.states[name][key] = m.aggregate_state(v, view)
                    elif m.KIND == "pairwise":
                        out.values[name][key] = m.compare(run, runs[self.job.baseline], qrels, ctx)
                    else:
                        out.states[name][key] = m.block_state(run, qrels, ctx)
                out.coverage[name] = coverage_counts(run, qrels, ctx)
                if name in self.job.predictions and any(m.FAMILY == "rating" for m in self.measures):
                    out.predicted[name] = predicted_counts(run, qrels, ctx)
            out.n_judged = int((qrels.n_judged() > 0).sum())
        finally:
            for obj in (qrels, *runs.values()):
                ctx.cache.forget(obj)
        return out


def _concat(parts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parts = list(parts)
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))  # type: ignore[return-value]


def _groups(folder: Folder, runs: tuple[str, ...], memory: int) -> list[list[int]]:
    """Consecutive partitions grouped so that each group's run lines fit the budget."""
    from recdiv.eval.ingest import BASE_MEMORY, BYTES_PER_LINE

    per_part = sum(folder.lines.get(r, np.zeros(folder.n_parts, np.int64)) for r in runs)
    room = max((memory - BASE_MEMORY) // BYTES_PER_LINE, 1)
    groups: list[list[int]] = [[]]
    size = 0
    for p in range(folder.n_parts):
        n = int(per_part[p]) if np.ndim(per_part) else 0
        if groups[-1] and size + n > room:
            groups.append([])
            size = 0
        groups[-1].append(p)
        size += n
    return groups


# the first pass ------------------------------------------------------------------------------------------------
@dataclass
class Ingested:
    """What the first pass gives: the job, the vocabularies and the context over them, r_max and its source."""

    job: Job
    users: object
    items: object
    context: EvalContext
    r_max: tuple[float, str]


class _Widths:
    """Lines per user code of one input, over every block: a run's longest list."""

    def __init__(self):
        self.counts = np.zeros(0, np.int64)

    def add(self, codes: np.ndarray) -> None:
        if not len(codes):
            return
        lo, hi = int(codes.min()), int(codes.max()) + 1  # a block's users: codes close together, not all of them
        if hi > len(self.counts):
            self.counts = np.concatenate([self.counts, np.zeros(max(hi - len(self.counts), len(self.counts)),
                                                                np.int64)])
        self.counts[lo:hi] += np.bincount(codes - lo, minlength=hi - lo)

    def longest(self) -> int:
        return int(self.counts.max()) if len(self.counts) else 0


def ingest_all(qrels, runs: dict, *, threshold: float, population: str, scale, train, aspects, previous,
               input_format, folder: Path, n_parts: int, measures: list[str], baseline,
               item_groups=None, rows: int = 1 << 20, predictions: dict | None = None) -> Ingested:
    """Read every input once into the folder (qrels, runs and rating `predictions` {name: file} by blocks of
    whole users, the context files whole); the vocabularies and code maps beside them. `rows`: rows per block."""
    from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv
    from recdiv.data.vocab import Vocab
    from recdiv.eval.catalog import parse_measures
    from recdiv.eval.io import check_previous, check_scale, context_of

    store = Folder(folder, n_parts)
    users, items = Encoder(), Encoder()
    top = -np.inf
    judged = []  # the users of the qrels (codes), for the check of the base lists
    for table, codes, item_codes in prefetched(encoded(iter_qrels(qrels, format=input_format, rows=rows), users,
                                                       items)):
        check_scale(table, "grade", scale)
        if len(table):
            top = max(top, float(table["grade"].max()))
        judged.append(np.unique(codes))
        store.append("qrels", codes, item_codes, table["grade"])
    widths = {}
    predictions = predictions or {}
    sources = [(name, iter_run(source, format=input_format, rows=rows)) for name, source in runs.items()]
    sources += [(name, iter_predictions(path, rows)) for name, path in predictions.items()]
    for name, blocks in sources:
        widths[name] = _Widths()
        for table, codes, item_codes in prefetched(encoded(blocks, users, items)):
            widths[name].add(codes)
            store.append(name, codes, item_codes, table["score"])
    store.flush()
    import pyarrow as pa

    pa.default_memory_pool().release_unused()  # the readers' blocks: its allocator would keep them otherwise
    tt = parse_interactions_tsv(train) if train is not None else None
    at = parse_item_aspects_tsv(aspects) if aspects is not None else None
    gt = parse_item_aspects_tsv(item_groups) if item_groups is not None else None
    pt = read_run(previous, format=input_format) if previous is not None else None
    user_ids, item_ids = np.array(users.labels(), dtype=object), np.array(items.labels(), dtype=object)
    user_vocab = Vocab.from_values(user_ids, *(t["user"].labels for t in (tt, pt) if t is not None))
    item_vocab = Vocab.from_values(item_ids, *(t["item"].labels for t in (tt, pt, at, gt) if t is not None))
    np.save(folder / "codes-users.npy", user_vocab.lookup(user_ids))
    np.save(folder / "codes-items.npy", item_vocab.lookup(item_ids))
    write_vocab(folder / "vocab-users.arrow", user_vocab.ids)
    write_vocab(folder / "vocab-items.arrow", item_vocab.ids)
    context = context_of(user_vocab, item_vocab, threshold=threshold, population=population, scale=scale,
                         tables=(tt, at, gt, pt))
    if pt is not None and judged:
        check_previous(parse_measures(measures), context.previous,
                       np.unique(user_vocab.lookup(user_ids[np.concatenate(judged)])), previous, "users of the qrels")
    r_max = None if top == -np.inf else top
    job = Job(str(folder), n_parts, tuple(store.inputs), dict(store.lines), (*runs, *predictions), tuple(measures),
              baseline, float(threshold), population, scale, r_max, {n: w.longest() for n, w in widths.items()},
              *(None if x is None else str(x) for x in (train, aspects, previous)), input_format,
              None if item_groups is None else str(item_groups), tuple(predictions),
              {n: str(src) for n, src in (*runs.items(), *predictions.items()) if isinstance(src, str | Path)})
    if scale is not None:
        source = (float(scale[1]), "the declared rating scale")
    elif r_max is not None:
        source = (r_max, "the largest grade in the qrels")
    else:
        source = (1.0, "no grade in the qrels (default 1)")
    return Ingested(job, user_vocab, item_vocab, context, source)


# merging ------------------------------------------------------------------------------------------------------
def merge_parts(parts: list[Part], job: Job, measures: list[Measure], users_vocab,
                n_items: int) -> tuple[Evaluation, list[RunCoverage]]:
    """The `Evaluation` and the coverage of every run from the results of all groups."""
    pop = np.concatenate([p.users for p in parts]) if parts else np.zeros(0, np.int64)
    order = np.argsort(pop, kind="stable")
    population = pop[order]
    per_user: dict[str, dict[str, np.ndarray]] = {}
    values: dict[str, dict[str, float]] = {}
    coverages = []
    for name in job.runs:
        per_user[name], values[name] = {}, {}
        for m in measures:
            key = str(m)
            if m.KIND in ("per-user", "pairwise"):
                v = np.concatenate([p.values[name][key] for p in parts])[order] if parts else np.zeros(0)
                per_user[name][key] = v
                if m.KIND == "pairwise":
                    values[name][key] = float(np.mean(v)) if len(v) else 0.0
                else:
                    state = merge([p.states[name][key] for p in parts]) if parts else None
                    values[name][key] = float(m.aggregate_final(v, state))
            else:
                values[name][key] = float(m.finish(merge([p.states[name][key] for p in parts]), n_items))
        counts = np.sum([p.coverage[name][:4] for p in parts], axis=0) if parts else np.zeros(4, np.int64)
        firsts = [int(p.coverage[name][4]) for p in parts if p.coverage[name][4] >= 0]
        example = str(users_vocab.id_of(min(firsts))) if firsts else None
        coverages.append(RunCoverage(name, int(counts[0]), len(population), int(counts[1]), int(counts[2]),
                                     int(counts[3]), example))
    evaluation = Evaluation(tuple(measures), job.runs, np.asarray(users_vocab.id_of(population)), per_user, values,
                            float(job.threshold), job.population)
    return evaluation, coverages


#: in a process `_evaluate_here` forked: the worker it evaluates its groups with
_FORKED: Worker | None = None


def _forked_start(worker: Worker) -> None:
    """In a forked evaluation process: keep the worker (inherited with the fork, not pickled); Ctrl-C and SIGTERM
    are the parent's to handle (it stops its children); kernels run serially (`recdiv.jit.SERIAL_ONLY`)."""
    import signal

    import recdiv.jit

    global _FORKED
    _FORKED = worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    recdiv.jit.SERIAL_ONLY = True


def _forked_evaluate(group: list[int]) -> Part:
    assert _FORKED is not None
    return _FORKED.evaluate(group)


def _needs_aspects(measures: list[Measure]) -> bool:
    """Whether a measure reads the items' aspects: its per-user tables (rank × aspect) are not in the budget's
    per-line cost, so two processes at once would pass it (α-nDCG@20 + ERR-IA@20 at 10⁸ lines: 2.1 GB for the
    process tree at the default 1G); their groups are evaluated one at a time in this process."""
    return any("aspects" in m.NEEDS for m in measures)


def _evaluate_here(ing: Ingested, groups: list[list[int]], processes: int) -> list[Part]:
    """The groups evaluated on this machine, results in group order: in this process, or by `processes` forked
    processes that inherit the vocabularies and context (NumPy holds the GIL for much of a group's many small
    steps, so threads would mostly wait for each other). A process that dies (killed, out of memory) stops the
    evaluation with one error; Ctrl-C or SIGTERM here ends the children at once."""
    import multiprocessing

    worker = Worker(ing.job, ing.context, (ing.users, ing.items))
    if processes <= 1 or len(groups) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [worker.evaluate(g) for g in groups]
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(min(processes, len(groups)), multiprocessing.get_context("fork"),
                               initializer=_forked_start, initargs=(worker,))
    try:
        return list(pool.map(_forked_evaluate, groups))
    except BrokenProcessPool:
        raise RecdivError("a process evaluating partitions ended abruptly (killed, or out of memory: a smaller "
                        "--memory gives smaller groups)") from None
    except BaseException:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()  # the running groups too, not only those waiting (shutdown cancels those)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def group_task(job: Job, parts: list[int]) -> Part:
    """One group on a cluster's worker: evaluate it, write its per-user values into the folder (`write_part`)."""
    part = Worker(job).evaluate(parts)
    return write_part(part, Path(job.folder) / "results" / f"group-{parts[0]}.parquet")


def write_part(part: Part, path: Path) -> Part:
    """Write a group's per-user values to `path` (Parquet: user, then run/measure columns); the part without them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"user": pa.array(part.users, pa.int64())}
    for run, values in part.values.items():
        for m, v in values.items():
            cols[f"{run}\t{m}"] = pa.array(np.asarray(v, dtype=np.float64), pa.float64())
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(pa.table(cols), tmp)
    tmp.replace(path)  # a task retried after a crash rewrites the whole file
    return Part(part.users, {run: dict.fromkeys(v, str(path)) for run, v in part.values.items()}, part.states,
                part.coverage, part.n_judged, part.predicted)


def read_part(part: Part) -> Part:
    """A part written by `write_part` with its per-user values read back."""
    import pyarrow.parquet as pq

    paths = {p for v in part.values.values() for p in v.values()}
    table = pq.read_table(paths.pop()) if paths else None
    values = {run: {m: table.column(f"{run}\t{m}").to_numpy() for m in v} for run, v in part.values.items()}
    return Part(part.users, values, part.states, part.coverage, part.n_judged, part.predicted)


def run_lines(runs: RunSources, input_format: str | None = None) -> int:
    """About how many lines the runs hold (`recdiv.eval.ingest.estimated_lines`)."""
    return sum(estimated_lines(src, formats_input_format(src, input_format) if isinstance(src, str | Path) else "")
               for src in named_runs(runs).values())


def streaming_needed(runs: RunSources, memory: str | int, backend: str = "local",
                     input_format: str | None = None) -> bool:
    """Whether runs this large are evaluated in blocks (`evaluate_stream`) within `memory` rather than in memory at
    once: always on Ray, else when the whole evaluation would not fit (about `IN_MEMORY_BYTES_PER_LINE` a line)."""
    from recdiv.eval.ingest import BASE_MEMORY, IN_MEMORY_BYTES_PER_LINE

    if backend == "ray":
        return True
    return BASE_MEMORY + run_lines(runs, input_format) * IN_MEMORY_BYTES_PER_LINE > parse_memory(memory)


# the entry point ----------------------------------------------------------------------------------------------
@dataclass
class Streamed:
    """A streamed evaluation: the `Evaluation`, the coverage of every run, and what the notes need."""

    evaluation: Evaluation
    coverages: list[RunCoverage]
    context: EvalContext
    users: Vocab  # the user vocabulary (dense indices of the context's training data)
    r_max: tuple[float, str]
    n_judged: int
    n_parts: int
    n_groups: int
    predicted: dict[str, tuple[int, int]] = field(default_factory=dict)  # `recdiv.eval.io.predicted_counts`


def evaluate_stream(
    qrels,
    runs: RunSources,
    measures,
    *,
    train=None,
    aspects=None,
    item_groups=None,
    previous=None,
    predictions=(),
    threshold: float | None = None,
    population: str | None = None,
    scale=None,
    baseline: str | None = None,
    input_format: str | None = None,
    memory: str | int = DEFAULT_MEMORY,
    backend: str = "local",
    workdir: str | Path | None = None,
    partitions: int | None = None,
) -> Streamed:
    """Evaluate runs of any size within `memory` (bytes, or "1G"): every input is read once in blocks into
    partitions by user (temporary files in `workdir`), the partitions are evaluated in groups that fit the budget —
    here (`backend="local"`) or as tasks on the Ray cluster at RAY_ADDRESS (`backend="ray"`, `workdir` on storage
    every node sees) — and their results merged. The numbers are those of `recdiv.eval.io.evaluate_files`.
    `predictions`: rating-prediction files, evaluated as runs (as in `evaluate_files`). `partitions` fixes the
    number of partitions, each then evaluated alone (tests, tuning)."""
    from recdiv.eval.catalog import parse_measures
    from recdiv.eval.io import baseline_name

    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    population = "relevant" if population is None else population  # as `load_inputs` without conventions
    if population not in ("relevant", "judged"):
        raise ConfigError(f"population must be relevant or judged, got {population!r}")
    budget = parse_memory(memory)
    ms = parse_measures([measures] if isinstance(measures, str) else measures)
    sources = named_runs(runs)
    paths = list(sources) if isinstance(runs, dict) else list(runs)
    predicted = dict(zip(run_names(list(predictions)) if isinstance(runs, dict)
                         else run_names([*paths, *predictions])[len(paths):], predictions))
    for twice in set(predicted) & set(sources):
        raise ConfigError(f"{twice}: the same run is given twice; give each run once")
    baseline = baseline_name(baseline, [*paths, *predicted.values()], [*sources, *predicted])
    for m in ms:
        if isinstance(m, PairwiseMeasure) and baseline is None:
            raise ConfigError(f"{m} compares two runs: name the run to compare the others with (--baseline RUN)")
    scale = parse_rating_scale(scale)
    threshold = 4.0 if threshold is None else float(threshold)
    lines = run_lines(sources, input_format) + run_lines(list(predicted.values()), "trec")
    if partitions is None:
        n_parts = partitions_for(lines, budget)
    elif partitions < 1:
        raise ConfigError(f"partitions must be positive, got {partitions}")
    else:
        n_parts = int(partitions)
    folder = temporary_folder(workdir)
    try:  # from the folder's creation on: a SIGTERM or Ctrl-C at any point removes it (`finally`)
        need = lines * SPILL_BYTES_PER_LINE
        if free_space(folder) < need:
            raise ConfigError(f"{folder.parent}: about {need / 2**30:.1f} GB of temporary files are needed, "
                              f"{free_space(folder.parent) / 2**30:.1f} GB are free: give another folder (--workdir)")
        ing = ingest_all(qrels, sources, threshold=threshold, population=population, scale=scale, train=train,
                         aspects=aspects, previous=previous, input_format=input_format, folder=folder,
                         n_parts=n_parts, measures=[str(m) for m in ms], baseline=baseline,
                         item_groups=item_groups, rows=block_rows(budget), predictions=predicted)
        for m in ms:
            m._check_context(ing.context)
        store = Folder(folder, n_parts, list(ing.job.inputs), dict(ing.job.lines))
        processes = 1 if backend == "ray" or _needs_aspects(ms) else PROCESSES
        groups = [[p] for p in range(n_parts)] if partitions else _groups(store, ing.job.runs, budget // processes)
        if backend == "ray":
            from recdiv.eval.ray_backend import run_on_ray

            (folder / "results").mkdir()
            done = run_on_ray(group_task, [(ing.job, g) for g in groups],
                              [f"partitions {g[0]}-{g[-1]}" for g in groups])
            parts = [read_part(p) for p in done]
        else:
            parts = _evaluate_here(ing, groups, processes)
        evaluation, coverages = merge_parts(parts, ing.job, ms, ing.users, len(ing.items))
    except OSError as e:  # NumPy's tofile says only "N requested and M written" when the disk is full
        if e.errno not in (errno.ENOSPC, errno.EDQUOT) and "written" not in str(e):
            raise
        raise DataError(f"the temporary partitions could not be written ({e.strerror or e}: the file system is "
                        f"full?); about {need / 2**30:.1f} GB are needed: free space or give another folder "
                        "(--workdir)", folder.parent) from None
    finally:
        remove_folder(folder)
    counts = {name: tuple(int(sum(p.predicted[name][j] for p in parts)) for j in (0, 1)) for name in predicted
              if any(name in p.predicted for p in parts)}
    return Streamed(evaluation, coverages, ing.context, ing.users, ing.r_max, sum(p.n_judged for p in parts),
                    n_parts, len(groups), counts)  # type: ignore[arg-type]


__all__ = ["BACKENDS", "Job", "Part", "Streamed", "Worker", "evaluate_stream"]
