"""Runs an experiment: dataset → split → fit recommender → top-N candidates → rerank → per-user metrics →
statistics and report, caching every stage's artefact under a content hash so that `--resume` redoes nothing
that finished.

Work is planned as tasks over grid cells:

- a *model task* per (dataset, split, model): fits a recommender (or the model of a latent aspect space), writes
  its top-N candidates and the latent aspect spaces derived from it;
- a *system task* per (dataset, split, system): reranks the candidates (diversified systems) and computes the
  per-user values of every measure.

System tasks wait for the model tasks they read from. Tasks run in this process (``jobs=1``), in worker
processes (``jobs>1``, `concurrent.futures`) or on Ray (``backend="ray"``); they communicate only through the
artefact store, so all three give identical artefacts.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.util
import os
import select
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from recdiv.errors import ConfigError, RecdivError
from recdiv.experiment.cache import Store, frame_bytes, hash_config, write_bytes, write_json
from recdiv.experiment.checks import check_executor, check_run
from recdiv.experiment.config import ExperimentConfig, RecommenderSpec, fmt_param
from recdiv.experiment.folder import begin_commit, check_output, end_commit
from recdiv.experiment.janitor import TEMPDIR_ENV
from recdiv.experiment.selection import selected_params
from recdiv.experiment.stages import (
    SYSTEM_LEVEL_USER,
    Env,
    ModelPlan,
    SystemPlan,
    aspect_key,
    build_explicit_space,
    component_source,
    forget,
    load_data,
    load_split,
    recommender_params,
    remember,
    run_model_task,
    run_system_task,
    save_space,
)
from recdiv.experiment.stamps import inputs_key, inputs_record, stampable, unchanged_run

STAGES = ("fit", "candidates", "aspects", "rerank", "scores")


_fmt = fmt_param


# planning -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class System:
    """One evaluated system: a recommender's list, possibly reranked by a diversifier setting over aspects."""

    name: str
    recommender: str
    diversifier: str | None = None
    reranker: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, Any], ...] = ()
    aspects: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "recommender": self.recommender, "diversifier": self.diversifier,
                "reranker": self.reranker, "params": dict(self.params), "grid": dict(self.grid),
                "aspects": self.aspects}


def plan_systems(config: ExperimentConfig) -> list[System]:
    """Every system of the experiment: each recommender, then each diversifier grid point × aspects × recommender."""
    systems = [System(r.key, r.key) for r in config.recommenders]
    for d in config.diversifiers:
        recs = d.recommenders or [r.key for r in config.recommenders]
        for rec in recs:
            for point in d.grid_points():
                for asp in d.aspects or [None]:
                    grid = ",".join(f"{k}={_fmt(v)}" for k, v in point.items())
                    name = f"{rec}+{d.key}" + (f"({grid})" if grid else "") + (f"[{asp}]" if asp else "")
                    params = {**d.params, **point}
                    systems.append(System(name, rec, d.key, d.name, tuple(params.items()), tuple(point.items()), asp))
    seen = set()
    for s in systems:
        if s.name in seen:
            raise ConfigError(f"two systems are both named {s.name!r}: give one diversifier a distinct `label`")
        seen.add(s.name)
    return systems


def plan_models(config: ExperimentConfig, sfp: str, selected: dict[str, dict[str, Any]] | None = None
                ) -> list[ModelPlan]:
    """The models to fit on a split (recommenders, and models of latent aspect spaces, each fitted once);
    `selected`: the grid point chosen on this split for each recommender with `select`."""
    by_fit: dict[str, dict[str, Any]] = {}
    selected = selected or {}

    def add(r: RecommenderSpec) -> str:
        given = {**r.params, **selected.get(r.key, {})}
        params = recommender_params(r.name, given, config.seed)
        key = hash_config("fit", sfp, r.name, params, config.seed, component_source("recommender", r.name))
        by_fit.setdefault(key, {"name": r.name, "params": params, "recommender": None, "latent": []})
        return key

    for r in config.recommenders:
        key = add(r)
        by_fit[key]["recommender"] = by_fit[key]["recommender"] or r.key
    recs = {r.key: r for r in config.recommenders}
    for a in config.aspects:
        if a.kind == "latent":
            src = recs[a.recommender] if a.recommender else RecommenderSpec(name=a.model, params=a.params)
            key = add(src)
            by_fit[key]["latent"].append((a.name, aspect_key(a, "", key)))
    out = []
    for key, m in by_fit.items():
        users = (config.metrics.threshold, config.metrics.population)  # whose lists are computed
        cand = hash_config("candidates", key, config.candidates.n, users) if m["recommender"] else None
        out.append(ModelPlan(m["name"], tuple(m["params"].items()), key, cand, m["recommender"], tuple(m["latent"])))
    return out


# planning a split ------------------------------------------------------------------------------------------------
@dataclass
class Task:
    kind: str  # "model" | "system"
    env: Env
    plan: Any
    deps: tuple[int, ...] = ()
    label: str = ""


def plan_split(config: ExperimentConfig, systems: list[System], env_base: dict[str, Any], di: int, spec: str,
               dfp: str, sfp: str, first: int, selected: dict[str, dict[str, Any]] | None = None) -> list[Task]:
    """Tasks of one split; task ids start at `first` (dependencies refer to those ids)."""
    env = Env(dataset=di, split=spec, **env_base)
    dname = config.datasets[di].key
    models = plan_models(config, sfp, selected)
    tasks = [Task("model", env, m, (), f"{dname}/{spec}: fit {m.recommender or m.name}") for m in models]
    model_of_rec = {m.recommender: first + i for i, m in enumerate(models) if m.recommender}
    cand_key = {m.recommender: m.candidates_key for m in models if m.recommender}
    latent_key = {name: (first + i, key) for i, m in enumerate(models) for name, key in m.latent}
    spaces = {a.name: a for a in config.aspects}

    def space_ref(name: str | None) -> tuple[str | None, tuple[int, ...]]:
        if name is None:
            return None, ()
        if spaces[name].kind == "explicit":
            return aspect_key(spaces[name], dfp, None), ()
        tid, key = latent_key[name]
        return key, (tid,)

    eval_key, eval_deps = space_ref(config.evaluation_aspects)
    ctx_key = hash_config("eval", sfp, eval_key, config.metrics.model_dump(mode="json", exclude={"measures"}))
    k = config.candidates.k
    for s in systems:
        ck = cand_key[s.recommender]
        rkey, rdeps = space_ref(s.aspects)
        if s.diversifier is None:
            ranking_key = hash_config("baseline", ck, k)
        else:
            ranking_key = hash_config("rerank", ck, rkey, s.reranker, dict(s.params), k, config.seed, sfp,
                                      component_source("reranker", s.reranker))
        deps = tuple(sorted({model_of_rec[s.recommender], *rdeps, *eval_deps}))
        plan = SystemPlan(s, ck, ranking_key, rkey, hash_config("scores", ranking_key, ctx_key), eval_key,
                          tuple(config.metrics.measures))
        tasks.append(Task("system", env, plan, deps, f"{dname}/{spec}: {s.name}"))
    return tasks


def run_task(task: Task) -> Counter:
    """Entry point of every task (in this process, a worker process or a Ray worker); the Counter's "_seconds"
    is the task's own duration (for the ETA)."""
    t0 = time.perf_counter()
    stats = run_model_task(task.env, task.plan) if task.kind == "model" else run_system_task(task.env, task.plan)
    stats["_seconds"] = time.perf_counter() - t0
    return stats


#: relative cost of the kinds of task before any has finished (`recdiv.progress.TaskEstimate` learns the rest)
TASK_PRIORS = {"fit": 8.0, "rerank": 2.0, "score": 1.0}


def task_kind(task: Task) -> str:
    if task.kind == "model":
        return f"fit:{task.plan.name}"
    s = task.plan.system
    return "score" if s.diversifier is None else f"rerank:{s.reranker}"


# execution ---------------------------------------------------------------------------------------------------------
class _InlineExecutor:
    """Runs each task at submission (jobs = 1): the same code path as the pools, without processes."""

    def submit(self, fn, *args) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args))
        except BaseException as e:  # delivered to the scheduler, which re-raises it
            fut.set_exception(e)
        return fut

    def shutdown(self, cancel_futures: bool = False) -> None:
        pass


class _RayExecutor:
    """Submits tasks as Ray remote tasks (one CPU each).

    Without a running Ray instance, starts a local one with `jobs` CPUs (no dashboard, worker output not
    forwarded) and shuts it down at the end; with ``RAY_ADDRESS`` set, joins that cluster instead, with its token
    authentication (`recdiv.cluster.connect_ray`; the output folder must then be on a file system that all nodes
    share). An instance that is already initialised in
    this process (``ray.init`` by the caller) is used as it is and left running.
    """

    def __init__(self, jobs: int):
        import ray

        from recdiv.cluster import connect_ray

        self._owned = not ray.is_initialized()
        options = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING,
                   "ignore_reinit_error": True, "runtime_env": RAY_RUNTIME_ENV}
        if not os.environ.get("RAY_ADDRESS"):
            options.update(num_cpus=jobs, object_store_memory=RAY_OBJECT_STORE_BYTES)
        self._ray = connect_ray(**options)
        self._remote = ray.remote(num_cpus=1, max_retries=0, runtime_env=RAY_RUNTIME_ENV)(_ray_task)
        self._refs: list = []

    def submit(self, fn, *args) -> cf.Future:
        ref = self._remote.remote(*args)
        self._refs.append(ref)
        return ref.future()

    def shutdown(self, cancel_futures: bool = False) -> None:
        if cancel_futures and self._refs:
            ready, _ = self._ray.wait(self._refs, num_returns=len(self._refs), timeout=0)
            done = set(ready)
            for ref in self._refs:
                if ref not in done:
                    with contextlib.suppress(Exception):
                        self._ray.cancel(ref)
        self._refs = []
        if self._owned:
            self._ray.shutdown()


#: object store of a local Ray instance: tasks exchange only small task descriptions and counters through Ray
#: (artefacts go through the store on disk), so a small store suffices (Ray's default is 30% of the memory)
RAY_OBJECT_STORE_BYTES = 256 * 1024**2

#: one native thread per worker (Ray runs one task per CPU). Given to Ray workers at process start, before numba
#: or a BLAS library reads them: numba refuses a NUMBA_NUM_THREADS that changes after its thread pool started.
WORKER_THREAD_ENV = {"RECDIV_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                     "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
RAY_RUNTIME_ENV = {"env_vars": WORKER_THREAD_ENV}


def _ray_task(task: Task) -> Counter:
    """A task on a Ray worker: one native thread (Ray runs one task per CPU), then the task itself."""
    _worker_init()
    return run_task(task)


def _worker_init(parent: int | None = None) -> None:
    """Worker processes: one thread each for the native libraries (the pool provides the parallelism); local
    workers also end with the run's main process `parent` (see `_die_with`)."""
    for var, value in WORKER_THREAD_ENV.items():
        os.environ.setdefault(var, value)
    with contextlib.suppress(Exception):
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    if parent is not None:
        _die_with(parent)


def _die_with(parent: int) -> None:
    """End this worker when process `parent` ends, however it ends (SIGKILL included).

    A pool worker is a child of the forkserver, not of the main process, so neither a parent-death signal nor the
    pool's own pipes notice a killed main process. A daemon thread waits on a pidfd of the main process (Linux ≥
    5.3; elsewhere it polls the pid once a second) and exits the worker at once; the forkserver (which then removes
    the temporary folder, `recdiv.experiment.janitor`) and multiprocessing's resource tracker end by themselves."""
    def watch() -> None:
        try:
            fd = os.pidfd_open(parent)
        except ProcessLookupError:
            fd = None  # already gone
        except (AttributeError, OSError):  # no pidfd on this system: poll
            fd = -1
            with contextlib.suppress(ProcessLookupError, PermissionError):
                while True:
                    os.kill(parent, 0)
                    time.sleep(1.0)
        if fd is not None and fd >= 0:
            select.select([fd], [], [])
        os._exit(1)

    threading.Thread(target=watch, name="recdiv-parent-watch", daemon=True).start()


def make_executor(jobs: int, backend: str):
    check_executor(jobs, backend)
    if backend == "ray":
        return _RayExecutor(jobs)
    if jobs == 1:
        return _InlineExecutor()
    # forkserver: workers fork from a clean server process that has imported recdiv's stage modules once (no
    # inherited threads or locks, as with plain fork; no per-worker import cost, as with spawn)
    ctx = multiprocessing.get_context("forkserver")
    # the janitor removes the temporary folder when the forkserver ends, even after a SIGKILL of this process
    ctx.set_forkserver_preload(["recdiv.experiment.janitor", "recdiv.experiment.stages", "recdiv.eval",
                                "recdiv.algorithms.registry", "recdiv.diversifiers.registry", "recdiv.data.load",
                                "recdiv.data.splits"])
    try:
        tempdir = multiprocessing.util.get_temp_dir()  # where the forkserver's socket lives (removed at a normal exit)
        os.environ[TEMPDIR_ENV] = f"{os.getpid()}:{tempdir}"
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            del os.environ[TEMPDIR_ENV]
    except OSError as e:  # e.g. "AF_UNIX path too long" under a long TMPDIR
        raise ConfigError(f"--jobs {jobs}: cannot start the worker processes ({e}; a shorter TMPDIR may help)") \
            from None
    return cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                                  initargs=(os.getpid(),))


class Scheduler:
    """Submits tasks whose dependencies are done; collects their stage counters; reports progress."""

    def __init__(self, executor, progress=None, workers: int = 1):
        self.executor = executor
        self.progress = progress
        self.workers = workers
        self.stats: Counter = Counter()
        self._bar = None

    def run(self, tasks: list[Task], title: str) -> None:
        from recdiv.progress import TaskEstimate, fmt_seconds

        kinds = [task_kind(t) for t in tasks]
        priors = {k: TASK_PRIORS[k.partition(":")[0]] for k in kinds}
        estimate = TaskEstimate(Counter(kinds), priors, self.workers)
        if self.progress is not None:
            self._bar = self.progress.add_task(title, total=len(tasks), eta="?")
        done: set[int] = set()
        pending: dict[cf.Future, int] = {}
        submitted: set[int] = set()
        try:
            while len(done) < len(tasks):
                for i, t in enumerate(tasks):
                    if i not in submitted and all(d in done for d in t.deps):
                        submitted.add(i)
                        fut = self.executor.submit(run_task, t)
                        pending[fut] = i
                        if fut.done() and fut.exception() is not None:
                            fut.result()  # fail fast (inline execution): later tasks must not run
                if not pending:
                    raise RuntimeError("experiment tasks have unsatisfiable dependencies")
                finished, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
                for fut in finished:
                    i = pending.pop(fut)
                    stats = fut.result()
                    estimate.finished(kinds[i], stats.pop("_seconds", 0.0))
                    self.stats.update(stats)
                    done.add(i)
                    if self._bar is not None:
                        self.progress.update(self._bar, advance=1, description=f"{title} {tasks[i].label}"[:90],
                                             eta=fmt_seconds(estimate.remaining()))
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
        if self._bar is not None:
            self.progress.update(self._bar, description=title)


# the run ---------------------------------------------------------------------------------------------------------
@dataclass
class RunResult:
    """Where the outputs are and how much work each stage did (`computed`) or reused (`cached`)."""

    out: Path
    computed: Counter = field(default_factory=Counter)
    cached: Counter = field(default_factory=Counter)
    damaged: list[str] = field(default_factory=list)  # cache artefacts found damaged (and recomputed)
    seconds: float = 0.0
    report: Any = None


def run_experiment(
    config: ExperimentConfig,
    out: str | Path | None = None,
    *,
    resume: bool = False,
    force: bool = False,
    jobs: int = 1,
    backend: str = "local",
    progress: bool = True,
    report: bool = True,
) -> RunResult:
    """Run (or resume) an experiment and write its outputs; see the module docstring and docs/experiments.md.

    Everything is validated first (`recdiv.experiment.checks.check_run`), before anything is written; the results
    replace those of the output folder only once all the work has finished (`recdiv.experiment.folder`). An output
    folder holding another experiment's results is refused unless `force`."""
    t0 = time.perf_counter()
    option = "--out" if out is not None else f"{config.source}: {'output' if config.output else 'name'}:"
    out = config.output_dir(out)
    try:
        systems = plan_systems(config)
    except ConfigError as e:
        raise config.error("diversifiers", e) from None
    if resume:  # nothing changed since the last complete run: nothing to do (recdiv.experiment.stamps)
        check_executor(jobs, backend)
        check_output(config, out, resume=resume, force=force, option=option)
        cached = unchanged_run(config, out)
        if cached is not None:
            result = RunResult(out, cached=cached)
            if report:
                result.report = _report(out, progress)
            result.seconds = time.perf_counter() - t0
            return result
    stamp = inputs_key(config)  # before any data is read: the stamp certifies the inputs this run started from
    check_run(config, out, resume=resume, force=force, jobs=jobs, backend=backend, systems=systems, option=option)
    stamp = stamp if stampable(config) else None
    executor = make_executor(jobs, backend)  # can fail too (the system refuses processes): still nothing written
    prog = _progress() if progress else None
    sched = Scheduler(executor, prog, jobs)
    index: list[tuple[str, str, SystemPlan]] = []
    artefacts: list[str] = []  # what a resume checks before it may skip the run (the inputs stamp)
    selections: dict[str, dict] = {}
    try:
        store = Store.for_run(out / "cache", resume)
        store.remove_partial()
        env_base = {"store_root": str(store.root.resolve()), "resume": resume, "since_ns": store.since_ns,
                    "config": config.model_dump(mode="json")}
        remember(config)
        with prog or contextlib.nullcontext():
            for di, dcfg in enumerate(config.datasets):
                dataset, dfp = load_data(config, di)
                for a in config.aspects:  # explicit spaces: once per dataset, in this process
                    akey = aspect_key(a, dfp, None)
                    if a.kind != "explicit":
                        continue
                    artefacts.append(_relative(store, "aspects", akey, "npz"))
                    if store.has("aspects", akey, "npz"):
                        sched.stats["aspects:cached"] += 1
                    else:
                        save_space(store, akey, build_explicit_space(a, dataset), None)
                        sched.stats["aspects"] += 1
                tasks: list[Task] = []
                for spec in dcfg.splits:
                    _, sfp = load_split(config, di, spec)
                    chosen = selected_params(config, di, spec, store, selections.setdefault(dcfg.key, {})
                                             .setdefault(spec, {}))  # recommender grids with `select`
                    new = plan_split(config, systems, env_base, di, spec, dfp, sfp, len(tasks), chosen)
                    tasks += new
                    index += [(dcfg.key, spec, t.plan) for t in new if t.kind == "system"]
                    artefacts += checked_artefacts(store, new)
                sched.run(tasks, f"{dcfg.key}")
    except RecdivError as e:  # found while working (after the checks): still name the experiment file
        raise config.error("", e) from None
    finally:
        executor.shutdown(cancel_futures=True)
    result = RunResult(out, seconds=0.0, damaged=list(store.damaged))
    for k, v in sched.stats.items():
        stage, _, tag = k.partition(":")
        if stage == "damaged":
            result.damaged.append(tag)
        else:
            (result.cached if tag == "cached" else result.computed)[stage] += v
    try:
        # the results, written as one set (recdiv.experiment.folder): staged in .pending/, then moved into place
        scores, system_scores = collect_scores(store, index)
        pending = begin_commit(out)
        write_json(pending / "experiment.json", config.model_dump(mode="json"))
        write_json(pending / "systems.json", [s.to_json() for s in systems])
        write_bytes(pending / "scores.parquet", frame_bytes(scores))
        if system_scores is not None:
            write_bytes(pending / "system_scores.parquet", frame_bytes(system_scores))
        if any(r.select is not None for r in config.recommenders):
            write_json(pending / "selection.json", selections)
        from recdiv.experiment.groups import write_groups

        write_groups(config, index, pending)  # [report] groups: the group of every evaluated (split, user)
        if config.meta is not None:
            from recdiv.experiment.meta import split_analyses

            split_analyses(config, env_base, index, pending)  # [meta] robustness and perturbation, per split (cached)
        end_commit(out, config.name, inputs_record(stamp, artefacts))
    finally:
        forget()  # inline tasks memoised the datasets in this process (stages._MEMO): keep none after the run
    if report:
        result.report = _report(out, progress)
    result.seconds = time.perf_counter() - t0
    return result


def _report(out: Path, progress: bool):
    """The report of `out`: kept if its stamp says its inputs are unchanged, else rebuilt."""
    from recdiv.experiment.report import build_report, current_report

    return current_report(out) or build_report(out, progress=None if progress else False)


def _relative(store: Store, stage: str, key: str, ext: str) -> str:
    return store.path(stage, key, ext).relative_to(store.root).as_posix()


def checked_artefacts(store: Store, tasks: list[Task]) -> list[str]:
    """The artefacts of `tasks` that a resumed run checks before reusing them (their tasks are skipped when they are
    intact): candidates, latent aspect spaces, per-user scores."""
    out = []
    for t in tasks:
        if t.kind == "model":
            if t.plan.candidates_key is not None:
                out.append(_relative(store, "candidates", t.plan.candidates_key, "npz"))
            out += [_relative(store, "aspects", k, "npz") for _, k in t.plan.latent]
        else:
            out.append(_relative(store, "scores", t.plan.scores_key, "parquet"))
    return out


def collect_scores(store: Store, index: list[tuple[str, str, SystemPlan]]) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The per-user score artefacts as one frame (the results' scores.parquet), and the system-level ones (None if
    there are none)."""
    per_user, system_level = [], []
    for dataset, split, plan in index:
        f = store.load_frame("scores", plan.scores_key)
        if f is None:
            raise RuntimeError(f"scores of {plan.system.name} on {dataset}/{split} are missing from the store")
        f = f[f["measure"].isin(plan.measures)]
        f = f.assign(dataset=dataset, split=split, system=plan.system.name)
        sl = f["user"] == SYSTEM_LEVEL_USER
        per_user.append(f[~sl])
        system_level.append(f[sl].drop(columns="user"))
    cols = ["dataset", "split", "system", "measure", "user", "value"]
    frame = pd.concat(per_user, ignore_index=True)[cols] if per_user else pd.DataFrame(columns=cols)
    sys_frame = pd.concat(system_level, ignore_index=True)[[*cols[:4], "value"]] if system_level else None
    return frame, (sys_frame if sys_frame is not None and len(sys_frame) else None)


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    # the ETA is `recdiv.progress.TaskEstimate`'s: per-kind task durations (a fit costs more than a rerank), not
    # rich's tasks-per-second rate, which early fast tasks make far too optimistic
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("ETA {task.fields[eta]}"), transient=False)
