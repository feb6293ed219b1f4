"""Runs a task graph on an executor: submits every task whose dependencies are done, collects the counters of
work done and reused, reports progress with an ETA learnt per kind of task."""

from __future__ import annotations

import concurrent.futures as cf
from collections import Counter

from recdiv.experiment.plan.graph import Task
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.progress import TaskEstimate, fmt_seconds

#: relative cost of the kinds of task before any has finished (`recdiv.progress.TaskEstimate` learns the rest)
TASK_PRIORS = {"fit": 8.0, "rerank": 2.0, "score": 1.0}


def task_kind(task: Task) -> str:
    """The kind of a task for its duration estimate: "fit:<model>", "rerank:<reranker>" or "score"."""
    if task.kind == "model":
        return f"fit:{task.plan.name}"
    s = task.plan.system
    return "score" if s.diversifier is None else f"rerank:{s.reranker}"


class Scheduler:
    """Submits tasks whose dependencies are done; collects their stage counters (`stats`); reports progress."""

    def __init__(self, executor, env: TaskEnv, progress=None, workers: int = 1):
        self.executor = executor
        self.env = env
        self.progress = progress
        self.workers = workers
        self.stats: Counter = Counter()

    def run(self, tasks: list[Task], title: str) -> None:
        """Run `tasks` (dependencies: positions in the list) to the end; the first error stops the run."""
        kinds = [task_kind(t) for t in tasks]
        estimate = TaskEstimate(Counter(kinds), {k: TASK_PRIORS[k.partition(":")[0]] for k in kinds}, self.workers)
        bar = self.progress.add_task(title, total=len(tasks), eta="?") if self.progress is not None else None
        done: set[int] = set()
        pending: dict[cf.Future, int] = {}
        try:
            while len(done) < len(tasks):
                self._submit_ready(tasks, done, pending)
                if not pending:
                    raise RuntimeError("experiment tasks have unsatisfiable dependencies")
                finished, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
                for fut in finished:
                    i = pending.pop(fut)
                    stats = fut.result()
                    estimate.finished(kinds[i], stats.pop("_seconds", 0.0))
                    self.stats.update(stats)
                    done.add(i)
                    if bar is not None:
                        self.progress.update(bar, advance=1, description=f"{title} {tasks[i].label}"[:90],
                                             eta=fmt_seconds(estimate.remaining()))
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise
        if bar is not None:
            self.progress.update(bar, description=title)

    def _submit_ready(self, tasks: list[Task], done: set[int], pending: dict[cf.Future, int]) -> None:
        submitted = set(pending.values()) | done
        for i, t in enumerate(tasks):
            if i not in submitted and all(d in done for d in t.deps):
                fut = self.executor.submit(self.env, t)
                pending[fut] = i
                if fut.done() and fut.exception() is not None:
                    fut.result()  # fail fast (inline execution): later tasks must not run

