"""The entry point of every task, wherever it runs (this process, a worker process, a Ray worker)."""

from __future__ import annotations

import time
from collections import Counter

from recdiv.experiment.plan.graph import Task
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.experiment.tasks.model import run_model_task
from recdiv.experiment.tasks.system import run_system_task


def run_task(env: TaskEnv, task: Task) -> Counter:
    """Run `task` in `env`: the work done and reused per stage, "damaged:<artefact>" for every cache artefact the
    task found damaged (and recomputed), and "_seconds", the task's own duration (for the ETA)."""
    t0 = time.perf_counter()
    seen = len(env.store.damaged)
    try:
        stats = (run_model_task if task.kind == "model" else run_system_task)(env, task)
        stats.update(f"damaged:{p}" for p in env.store.damaged[seen:])
    finally:
        del env.store.damaged[seen:]  # reported by the task's counter, not twice by the run's store
    stats["_seconds"] = time.perf_counter() - t0
    return stats
