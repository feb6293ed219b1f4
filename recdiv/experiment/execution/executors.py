"""Where tasks run: in this process (``jobs=1``), in worker processes (``jobs>1``, `concurrent.futures` over a
forkserver) or on Ray (``backend="ray"``). Every executor offers `submit(env, task) -> Future` and
`shutdown(cancel_futures)`; tasks communicate only through the artefact store, so all three give identical
artefacts.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import logging
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.util
import os

from recdiv.errors import ConfigError
from recdiv.experiment.execution import janitor, workers
from recdiv.experiment.execution.workers import WORKER_THREAD_ENV, ray_task, worker_init, worker_task
from recdiv.experiment.plan.graph import Task
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.experiment.tasks.task import run_task

#: object store of a local Ray instance: tasks exchange only small task descriptions and counters through Ray
#: (artefacts go through the store on disk), so a small store suffices (Ray's default is 30% of the memory)
RAY_OBJECT_STORE_BYTES = 256 * 1024**2
RAY_RUNTIME_ENV = {"env_vars": WORKER_THREAD_ENV}


def check_executor(jobs: int, backend: str) -> None:
    """The run options: a positive number of jobs, a known backend (Ray installed for `ray`)."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"--jobs must be a positive integer, got {jobs!r}")
    if backend == "ray":
        try:
            importlib.import_module("ray")
        except ModuleNotFoundError:
            raise ConfigError("--backend ray needs the optional `ray` package (pip install 'recdiv[ray]'); "
                              "use --backend local") from None
    elif backend != "local":
        raise ConfigError(f"unknown backend {backend!r} (local, ray)")


class InlineExecutor:
    """Runs each task at submission (jobs = 1): the same code path as the pools, without processes."""

    def submit(self, env: TaskEnv, task: Task) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(run_task(env, task))
        except BaseException as e:  # delivered to the scheduler, which re-raises it
            fut.set_exception(e)
        return fut

    def shutdown(self, cancel_futures: bool = False) -> None:
        pass


class PoolExecutor:
    """Worker processes forked from a forkserver that has imported the task modules once (no inherited threads or
    locks, as with plain fork; no per-worker import cost, as with spawn)."""

    def __init__(self, jobs: int):
        ctx = multiprocessing.get_context("forkserver")
        # the janitor removes the temporary folder when the forkserver ends, even after a SIGKILL of this process
        ctx.set_forkserver_preload(_preload())
        try:
            tempdir = multiprocessing.util.get_temp_dir()  # where the forkserver's socket lives
            os.environ[janitor.TEMPDIR_ENV] = f"{os.getpid()}:{tempdir}"
            try:
                multiprocessing.forkserver.ensure_running()
            finally:
                del os.environ[janitor.TEMPDIR_ENV]
        except OSError as e:  # e.g. "AF_UNIX path too long" under a long TMPDIR
            raise ConfigError(f"--jobs {jobs}: cannot start the worker processes ({e}; a shorter TMPDIR may help)") \
                from None
        self._pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=worker_init,
                                            initargs=(os.getpid(),))

    def submit(self, env: TaskEnv, task: Task) -> cf.Future:
        return self._pool.submit(worker_task, env.json, task)

    def shutdown(self, cancel_futures: bool = False) -> None:
        self._pool.shutdown(cancel_futures=cancel_futures)


def _preload() -> list[str]:
    """The modules the forkserver imports once for all workers: the janitor, the tasks and their components."""
    import recdiv.algorithms.registry
    import recdiv.data.load
    import recdiv.data.splits
    import recdiv.diversifiers.registry
    import recdiv.eval

    return [m.__name__ for m in (janitor, workers, recdiv.eval, recdiv.algorithms.registry,
                                 recdiv.diversifiers.registry, recdiv.data.load, recdiv.data.splits)]


class RayExecutor:
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
        self._remote = ray.remote(num_cpus=1, max_retries=0, runtime_env=RAY_RUNTIME_ENV)(ray_task)
        self._refs: list = []
        self._env: tuple[str, object] | None = None  # (JSON, its object reference): put once per run

    def submit(self, env: TaskEnv, task: Task) -> cf.Future:
        if self._env is None or self._env[0] != env.json:
            self._env = (env.json, self._ray.put(env.json))
        ref = self._remote.remote(self._env[1], task)
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


def make_executor(jobs: int, backend: str) -> InlineExecutor | PoolExecutor | RayExecutor:
    """The executor of `jobs` parallel tasks on `backend` (local, ray); ConfigError when it cannot start."""
    check_executor(jobs, backend)
    if backend == "ray":
        return RayExecutor(jobs)
    if jobs == 1:
        return InlineExecutor()
    return PoolExecutor(jobs)
