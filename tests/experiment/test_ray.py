"""`--backend ray` on a local Ray instance: the same artefacts and results as the local backend.

One Ray session (2 CPUs, no dashboard) serves the whole module and is shut down at its end. Ray is a dev
dependency: under CI=true a missing `ray` fails instead of skipping.
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter

import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.experiment.execution import executors
from recdiv.experiment.plan.graph import plan_split
from recdiv.experiment.plan.systems import plan_systems
from recdiv.experiment.report.summary import summarize
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.experiment.storage.cache import Store
from recdiv.experiment.storage.folder import read_results
from recdiv.experiment.tasks.environment import TaskEnv
from tests.experiment.conftest import TINY_TOML, tiny_data

if os.environ.get("CI", "").lower() == "true":
    import ray
else:
    ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow

# one split × (2 recommenders + MMR(λ=.2, .6) × {genres, latent} × 2 recommenders + IA-Select[genres] on SVD)
EXPECTED = Counter({"fit": 2, "candidates": 2, "aspects": 1 + 1, "rerank": 9, "scores": 11})


def _config():
    data = tiny_data()
    data["datasets"][0]["splits"] = ["kfold:2:1"]
    return validate(data, "tiny.toml")


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["dataset", "split", "system", "measure", "user"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def ray_session():
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING,
             object_store_memory=executors.RAY_OBJECT_STORE_BYTES)
    yield ray
    ray.shutdown()


def test_ray_backend(ray_session, tmp_path, capsys):
    """All checks that need the Ray session are steps of one test: with pytest-xdist, tests of one module may run
    in different processes, and each would start its own Ray instance."""
    _identical_results(tmp_path)
    _resume_through_the_command_line(tmp_path, capsys)
    _task_errors_reach_the_caller(tmp_path / "empty")


def _identical_results(root):
    """The experiment run with the local backend (in this process) and with Ray (2 workers)."""
    config = _config()
    local = run_experiment(config, root / "local", progress=False, report=False)
    remote = run_experiment(config, root / "ray", backend="ray", jobs=2, progress=False, report=False)
    assert local.computed == remote.computed == EXPECTED
    assert sum(remote.cached.values()) == 0
    a, b = pd.read_parquet(root / "local" / "scores.parquet"), pd.read_parquet(root / "ray" / "scores.parquet")
    assert len(a) > 0
    pd.testing.assert_frame_equal(_sorted(b), _sorted(a))
    pd.testing.assert_frame_equal(pd.read_parquet(root / "ray" / "system_scores.parquet"),
                                  pd.read_parquet(root / "local" / "system_scores.parquet"))
    # the summary (means, intervals, tests) of both runs
    summaries = [summarize(*read_results(root / name)) for name in ("local", "ray")]
    assert summaries[0]["p_value"].notna().any()
    pd.testing.assert_frame_equal(summaries[1], summaries[0])
    # the artefact store holds the same files with the same contents (content-hash keys, same arrays)
    files = {p.relative_to(root / "local" / "cache") for p in (root / "local" / "cache").rglob("*") if p.is_file()}
    assert files == {p.relative_to(root / "ray" / "cache") for p in (root / "ray" / "cache").rglob("*") if p.is_file()}
    for rel in files:
        if rel.suffix == ".parquet":
            pd.testing.assert_frame_equal(pd.read_parquet(root / "ray" / "cache" / rel),
                                          pd.read_parquet(root / "local" / "cache" / rel))
        else:
            assert (root / "ray" / "cache" / rel).read_bytes() == (root / "local" / "cache" / rel).read_bytes(), rel
    assert not list((root / "ray").rglob(".*.tmp"))
    assert ray.is_initialized()  # a session the caller started is left running


def _resume_through_the_command_line(root, capsys):
    """`recdiv run --backend ray --resume` reuses every artefact the local backend wrote."""
    toml = root / "tiny.toml"
    text = TINY_TOML.replace('splits = ["kfold:2:1", "kfold:2:2"]', 'splits = ["kfold:2:1"]')
    toml.write_text(text + '\n[report]\ntradeoff = [["P@5", "ILD@5"]]\n', "utf-8")
    before = pd.read_parquet(root / "local" / "scores.parquet")
    assert main(["run", str(toml), "--out", str(root / "local"), "--resume", "--backend", "ray", "--jobs", "2",
                 "--quiet"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"computed: nothing; reused 1[0-9] cached artefacts", err), err
    pd.testing.assert_frame_equal(_sorted(pd.read_parquet(root / "local" / "scores.parquet")), _sorted(before))
    assert (root / "local" / "summary.csv").is_file() and (root / "local" / "report.html").is_file()


def _task_errors_reach_the_caller(tmp_path):
    """A failing remote task stops the run with its own error type (here: a missing candidates artefact)."""
    config = _config()
    env = TaskEnv.create(config, Store(tmp_path, resume=True, since_ns=0))
    tasks = plan_split(config, plan_systems(config), 0, "kfold:2:1", "d", "s", 0)
    system_task = next(t for t in tasks if t.kind == "system")
    executor = executors.make_executor(2, "ray")
    try:
        with pytest.raises(RuntimeError, match="missing from the store"):
            executor.submit(env, system_task).result(timeout=120)
    finally:
        executor.shutdown(cancel_futures=True)
    assert ray.is_initialized()


def test_ray_executor_starts_and_stops_its_own_local_instance(monkeypatch):
    """Without a running instance: a local one with --jobs CPUs, no dashboard, quiet workers; shut down at the end."""
    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **kw: calls.append(("init", kw)))
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append(("shutdown", {})))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    executor = executors.make_executor(3, "ray")
    executor.shutdown()
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING,
             "ignore_reinit_error": True}
    assert calls == [("init", {"num_cpus": 3, "object_store_memory": executors.RAY_OBJECT_STORE_BYTES,
                               "runtime_env": {"env_vars": executors.WORKER_THREAD_ENV}, **quiet}),
                     ("shutdown", {})]
    assert executors.WORKER_THREAD_ENV["NUMBA_NUM_THREADS"] == "1"
    calls.clear()
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6379")
    executors.make_executor(3, "ray").shutdown()
    assert calls[0][0] == "init" and "num_cpus" not in calls[0][1] and calls[1][0] == "shutdown"
