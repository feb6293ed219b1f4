"""On a real two-node Ray cluster (loopback, `ray start`, token authentication on; `tests/ray_cluster.py`):
`recdiv eval|compare --backend ray`, the Python API, a killed worker (retried) and a worker that keeps dying (one
clear error, nothing written), and the experiment runner's `recdiv run --backend ray` from a driver that has the
token but not RAY_AUTH_MODE — each equal to the local path. One cluster serves the module's one test, and is
stopped at its end whatever happens.

Every driver is a fresh process with the cluster's environment (RAY_ADDRESS, RAY_AUTH_MODE=token,
RAY_AUTH_TOKEN_PATH), as a user's would be. Ray is a dev dependency: under CI=true a missing `ray` fails."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from tests.eval.test_stream import _write, without_provenance
from tests.ray_cluster import RayCluster

if os.environ.get("CI", "").lower() != "true":
    pytest.importorskip("ray")

pytestmark = pytest.mark.slow
RECDIV = [sys.executable, "-m", "recdiv"]


def _run(cmd, env, **kw):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, **kw)


def test_evaluation_and_experiments_on_a_two_node_cluster(tmp_path):
    paths = _write(tmp_path, 13, n_users=40, n_items=30, k=10, shuffle=True)
    files = [str(paths["qrels.txt"]), str(paths["run.txt"]), str(paths["base.txt"])]
    side = ["--train", str(paths["train.tsv"]), "--aspects", str(paths["aspects.tsv"])]
    measures = ["-m", "nDCG@10", "AP", "alpha-nDCG@5", "EILD", "Gini(disc=log)", "HLU_breese"]
    local_eval = _run([*RECDIV, "eval", *files, *side, *measures, "lexirecall@5", "--baseline", "base", "--format",
                       "json"], os.environ)
    local_cmp = _run([*RECDIV, "compare", *files, *side, *measures, "--format", "json"], os.environ)
    assert local_eval.returncode == local_cmp.returncode == 0, local_eval.stderr + local_cmp.stderr
    with RayCluster(tmp_path / "cluster") as cluster:
        env = cluster.client_env()
        work = tmp_path / "work"
        # the command line: the same output as the local path
        remote = _run([*RECDIV, "eval", *files, *side, *measures, "lexirecall@5", "--baseline", "base", "--format",
                       "json", "--backend", "ray", "--workdir", str(work)], env)
        assert remote.returncode == 0, remote.stderr
        assert without_provenance(remote.stdout) == without_provenance(local_eval.stdout)
        assert remote.stderr == local_eval.stderr
        remote = _run([*RECDIV, "compare", *files, *side, *measures, "--format", "json", "--backend", "ray",
                       "--workdir", str(work)], env)
        assert remote.returncode == 0, remote.stderr
        assert without_provenance(remote.stdout) == without_provenance(local_cmp.stdout)
        assert not any(work.iterdir())  # partitions and per-user files removed
        # the Python API; a worker killed once is retried; one that keeps dying is one error and no result
        script = textwrap.dedent(f"""
            import os, sys
            import recdiv.eval.ray_backend as rb
            import recdiv.eval.stream as stream
            from recdiv.eval.io import evaluate_files
            from recdiv.eval.stream import evaluate_stream
            from tests.eval.test_stream import _same
            q = {str(paths["qrels.txt"])!r}
            runs = {{"run": {str(paths["run.txt"])!r}, "base": {str(paths["base.txt"])!r}}}
            ms = ["P@5", "nDCG", "ERR-IA@5", "EPC", "Coverage", "FCP"]
            kw = dict(train={str(paths["train.tsv"])!r}, aspects={str(paths["aspects.tsv"])!r})
            base = evaluate_files(q, runs, ms, **kw)
            _same(evaluate_stream(q, runs, ms, backend="ray", partitions=3, workdir={str(work)!r}, **kw).evaluation,
                  base)
            task, marker = stream.group_task, {str(tmp_path / "killed")!r}
            def dies_once(job, parts):
                if parts == [1] and not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)  # the worker process dies
                return task(job, parts)
            stream.group_task = dies_once
            _same(evaluate_stream(q, runs, ms, backend="ray", partitions=3, workdir={str(work)!r}, **kw).evaluation,
                  base)
            assert os.path.exists(marker)
            stream.group_task = lambda job, parts: os._exit(1)
            try:
                evaluate_stream(q, runs, ms, backend="ray", partitions=3, workdir={str(work)!r}, **kw)
            except rb.ClusterError as e:
                print("error:", e)
            print("done")
            """)
        out = _run([sys.executable, "-c", script], env, cwd=os.getcwd())
        assert out.returncode == 0, out.stderr[-3000:]
        lines = out.stdout.splitlines()  # (Ray's driver also prints the workers' deaths)
        assert "done" in lines
        assert any(line.startswith("error: the Ray task of partitions 0-0 failed after 3 retries (") and
                   line.endswith("); no result was written") for line in lines), out.stdout
        assert not any(work.iterdir())
        # the experiment runner on the same cluster
        from tests.experiment.conftest import TINY_TOML

        toml = tmp_path / "tiny.toml"
        toml.write_text(TINY_TOML)
        # a driver that has the token but not RAY_AUTH_MODE (Ray's `ray start` turns authentication on when it finds
        # a token; a driver given RAY_ADDRESS does not): recdiv presents the token (recdiv.cluster.connect_ray)
        no_mode = {k: v for k, v in env.items() if k != "RAY_AUTH_MODE"}
        ran = _run([*RECDIV, "run", str(toml), "--backend", "ray", "--out", str(tmp_path / "ray-run"), "--quiet"],
                   no_mode)
        assert ran.returncode == 0, ran.stderr[-2000:]
    local = _run([*RECDIV, "run", str(toml), "--out", str(tmp_path / "local-run"), "--quiet"], os.environ)
    assert local.returncode == 0, local.stderr[-2000:]
    for name in ("scores.parquet", "system_scores.parquet"):
        a, b = (pd.read_parquet(tmp_path / run / name) for run in ("local-run", "ray-run"))
        keys = [c for c in ("dataset", "split", "system", "measure", "user") if c in a]
        pd.testing.assert_frame_equal(b.sort_values(keys).reset_index(drop=True),
                                      a.sort_values(keys).reset_index(drop=True))
