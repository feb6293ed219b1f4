"""Runs an experiment: dataset → split → fit recommender → top-N candidates → rerank → per-user metrics →
statistics and report, caching every stage's artefact under a content hash so that `--resume` redoes nothing
that finished.

`run_experiment` composes the layers below it: the checks (`recdiv.experiment.run.checks`), the plan of each
split (`recdiv.experiment.plan`), its tasks run by an executor (`recdiv.experiment.execution`) in one typed
environment (`recdiv.experiment.tasks.environment.TaskEnv`), the results committed to the output folder as one set
(`recdiv.experiment.storage.folder`) with the analyses that follow the scores (`recdiv.experiment.analyses`), then
the report (`recdiv.experiment.report`).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from recdiv.errors import ConfigError, RecdivError
from recdiv.experiment.analyses.groups import write_groups
from recdiv.experiment.analyses.meta import split_analyses
from recdiv.experiment.execution.executors import check_executor, make_executor
from recdiv.experiment.execution.scheduler import Scheduler
from recdiv.experiment.plan.graph import (
    SystemPlan,
    Task,
    aspect_key,
    checked_artefacts,
    explicit_space_artefact,
    plan_split,
)
from recdiv.experiment.plan.inputs import Inputs
from recdiv.experiment.plan.selection import selected_params
from recdiv.experiment.plan.systems import System, plan_systems
from recdiv.experiment.report.build import build_report, current_report
from recdiv.experiment.run.checks import check_run
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.cache import Store, frame_bytes, write_json
from recdiv.experiment.storage.folder import begin_commit, check_output, end_commit
from recdiv.experiment.storage.stamps import inputs_key, inputs_record, stampable, unchanged_run
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.experiment.tasks.spaces import build_explicit_space, save_space
from recdiv.experiment.tasks.system import SYSTEM_LEVEL_USER
from recdiv.outputs import write_bytes


@dataclass
class RunResult:
    """Where the outputs are and how much work each stage did (`computed`) or reused (`cached`)."""

    out: Path
    computed: Counter = field(default_factory=Counter)
    cached: Counter = field(default_factory=Counter)
    damaged: list[str] = field(default_factory=list)  # cache artefacts found damaged (and recomputed)
    seconds: float = 0.0
    report: Any = None


@dataclass
class _Work:
    """What a run accumulates: the system tasks of every split (dataset, split, plan), the artefacts a resume
    checks, the recommender grid points chosen on each split, the work done and reused per stage."""

    index: list[tuple[str, str, SystemPlan]] = field(default_factory=list)
    artefacts: list[str] = field(default_factory=list)
    selections: dict[str, dict] = field(default_factory=dict)
    stats: Counter = field(default_factory=Counter)


def run_experiment(config: ExperimentConfig, out: str | Path | None = None, *, resume: bool = False,
                   force: bool = False, jobs: int = 1, backend: str = "local", progress: bool = True,
                   report: bool = True) -> RunResult:
    """Run (or resume) an experiment and write its outputs; see the module docstring and docs/experiments.md.

    Everything is validated first (`recdiv.experiment.run.checks.check_run`), before anything is written; the
    results replace those of the output folder only once all the work has finished
    (`recdiv.experiment.storage.folder`). An output folder holding another experiment's results is refused unless
    `force`."""
    t0 = time.perf_counter()
    option = "--out" if out is not None else f"{config.source}: {'output' if config.output else 'name'}:"
    out = config.output_dir(out)
    try:
        systems = plan_systems(config)
    except ConfigError as e:
        raise config.error("diversifiers", e) from None
    result = _unchanged(config, out, resume, force, jobs, backend, option) if resume else None
    if result is None:
        stamp = inputs_key(config)  # before any data is read: the stamp certifies the inputs this run started from
        inputs = Inputs(config)
        check_run(config, out, inputs=inputs, resume=resume, force=force, jobs=jobs, backend=backend,
                  systems=systems, option=option)
        executor = make_executor(jobs, backend)  # can fail too (the system refuses processes): nothing written yet
        env, work = _compute(inputs, executor, out, resume, systems, jobs, progress)
        result = _tally(out, env.store, work.stats)
        _commit(env, out, systems, work, stamp if stampable(config) else None)
    if report:
        result.report = current_report(out) or build_report(out, progress=None if progress else False)
    result.seconds = time.perf_counter() - t0
    return result


def _unchanged(config: ExperimentConfig, out: Path, resume: bool, force: bool, jobs: int, backend: str,
               option: str) -> RunResult | None:
    """A resume with nothing to do (`recdiv.experiment.storage.stamps`): its result, else None."""
    check_executor(jobs, backend)
    check_output(config, out, resume=resume, force=force, option=option)
    cached = unchanged_run(config, out)
    return None if cached is None else RunResult(out, cached=cached)


def _compute(inputs: Inputs, executor, out: Path, resume: bool, systems: list[System], jobs: int,
             progress: bool) -> tuple[TaskEnv, _Work]:
    """Every task of every dataset and split, dataset after dataset, with the artefact store in `out`/cache; the
    stage counters in `work.stats`."""
    config = inputs.config
    prog = _progress() if progress else None
    work = _Work()
    try:
        env = TaskEnv(config, Store.for_run(out / "cache", resume), inputs)
        env.store.remove_partial()
        sched = Scheduler(executor, env, prog, jobs)
        with prog or contextlib.nullcontext():
            for di, dcfg in enumerate(config.datasets):
                tasks = _plan_dataset(env, di, systems, work, sched.stats)
                sched.run(tasks, f"{dcfg.key}")
    except RecdivError as e:  # found while working (after the checks): still name the experiment file
        raise config.error("", e) from None
    finally:
        executor.shutdown(cancel_futures=True)
    work.stats = sched.stats
    return env, work


def _plan_dataset(env: TaskEnv, di: int, systems: list[System], work: _Work, stats: Counter) -> list[Task]:
    """The tasks of dataset `di` (all its splits), after its explicit aspect spaces (built here, once per dataset)
    and the hyperparameter selection of each split."""
    config, store, dcfg = env.config, env.store, env.config.datasets[di]
    dataset, dfp = env.inputs.dataset(di)
    for a in config.aspects:
        if a.kind != "explicit":
            continue
        akey = aspect_key(a, dfp, None)
        work.artefacts.append(explicit_space_artefact(store, akey))
        if store.has("aspects", akey, "npz"):
            stats["aspects:cached"] += 1
        else:
            save_space(store, akey, build_explicit_space(a, dataset), None)
            stats["aspects"] += 1
    tasks: list[Task] = []
    for spec in dcfg.splits:
        _, sfp = env.inputs.split(di, spec)
        chosen = selected_params(env.inputs, di, spec, store,
                                 work.selections.setdefault(dcfg.key, {}).setdefault(spec, {}))
        new = plan_split(config, systems, di, spec, dfp, sfp, len(tasks), chosen)
        tasks += new
        work.index += [(dcfg.key, spec, t.plan) for t in new if t.kind == "system"]
        work.artefacts += checked_artefacts(store, new)
    return tasks


def _tally(out: Path, store: Store, stats: Counter) -> RunResult:
    """The run's result from the tasks' counters: stages computed, artefacts reused, damaged artefacts."""
    result = RunResult(out, damaged=list(store.damaged))
    for k, v in stats.items():
        stage, _, tag = k.partition(":")
        if stage == "damaged":
            result.damaged.append(tag)
        else:
            (result.cached if tag == "cached" else result.computed)[stage] += v
    return result


def _commit(env: TaskEnv, out: Path, systems: list[System], work: _Work, stamp: str | None) -> None:
    """The results, written as one set (`recdiv.experiment.storage.folder`): staged in .pending/, then moved into
    place; with them the analyses that follow the scores ([report] groups, [meta] per split)."""
    config = env.config
    scores, system_scores = collect_scores(env.store, work.index)
    pending = begin_commit(out)
    write_json(pending / "experiment.json", config.model_dump(mode="json"))
    write_json(pending / "systems.json", [s.to_json() for s in systems])
    write_bytes(pending / "scores.parquet", frame_bytes(scores))
    if system_scores is not None:
        write_bytes(pending / "system_scores.parquet", frame_bytes(system_scores))
    if any(r.select is not None for r in config.recommenders):
        write_json(pending / "selection.json", work.selections)
    write_groups(env, work.index, pending)  # [report] groups: the group of every evaluated (split, user)
    if config.meta is not None:
        split_analyses(env, work.index, pending)  # [meta] robustness and perturbation, per split (cached)
    end_commit(out, config.name, inputs_record(stamp, work.artefacts))


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
