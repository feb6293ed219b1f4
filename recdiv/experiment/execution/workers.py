"""Worker processes of a run (`--jobs N` pools and Ray workers): one native thread each, an end with the run's main
process, and the task environment of the run they serve.

A task reaches a worker as (the environment's JSON, the task): the worker rebuilds the environment
(`TaskEnv.from_json`: the experiment validated once, an empty `Inputs`) when the first task of a run arrives and
keeps it for the next ones, so its dataset and split stay loaded between tasks. `_served` is the only state a
worker keeps; the main process never sets it (inline tasks run with the runner's own environment).
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections import Counter

from recdiv.experiment.plan.graph import Task
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.experiment.tasks.task import run_task

#: one native thread per worker (the pool, or Ray with one task per CPU, provides the parallelism). Given to Ray
#: workers at process start, before numba or a BLAS library reads them: numba refuses a NUMBA_NUM_THREADS that
#: changes after its thread pool started.
WORKER_THREAD_ENV = {"RECDIV_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                     "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}

#: (JSON, environment) of the run this worker process serves
_served: tuple[str, TaskEnv] | None = None


def worker_task(env_json: str, task: Task) -> Counter:
    """A task in a worker process, in the environment `env_json` describes (rebuilt only for a new run)."""
    global _served
    if _served is None or _served[0] != env_json:
        _served = None  # the previous run's dataset goes before the next one is loaded
        _served = (env_json, TaskEnv.from_json(env_json))
    return run_task(_served[1], task)


def ray_task(env_json: str, task: Task) -> Counter:
    """A task on a Ray worker: one native thread (Ray runs one task per CPU), then the task itself."""
    worker_init()
    return worker_task(env_json, task)


def worker_init(parent: int | None = None) -> None:
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
    the temporary folder, `recdiv.experiment.execution.janitor`) and multiprocessing's resource tracker end by
    themselves."""
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
