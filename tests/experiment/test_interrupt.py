"""A real interruption: `recdiv run` killed with SIGKILL mid-way, then `--resume`, gives the outputs of an
uninterrupted run; the killed run leaves no half-written file that looks like a finished artefact."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import load_experiment

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# 2 splits × (2 recommenders + MMR × 2 λ × 2 spaces × 2 recommenders + xQuAD[genres] × 2 recommenders) = 24 systems
SMALL_TOML = """
name = "small"
seed = 5

[[datasets]]
name = "synthetic:tiny"
splits = ["kfold:2:1", "kfold:2:2"]

[[recommenders]]
name = "pop"

[[recommenders]]
name = "pure-svd"
label = "SVD"
params = { factors = 8 }

[candidates]
n = 40
k = 10

[[aspects]]
name = "genres"
kind = "explicit"
attribute = "genres"

[[aspects]]
name = "latent"
kind = "latent"
recommender = "SVD"
l = 2

[[diversifiers]]
name = "MMR"
grid = { lambda = [0.3, 0.7] }
aspects = ["genres", "latent"]

[[diversifiers]]
name = "xQuAD"
grid = { lambda = [0.5] }
aspects = ["genres"]

[metrics]
measures = ["P@10", "nDCG@10", "ILD@10", "alpha-nDCG@10", "EPC@10", "AggregateDiversity@10"]
population = "judged"

[statistics]
test = "wilcoxon"

[report]
tradeoff = [["nDCG@10", "ILD@10"]]
"""

ARTEFACT = re.compile(r"^[0-9a-f]{64}\.(npz|parquet|json)$")


def _artefacts(cache: Path) -> list[Path]:
    """Files in the store named as finished artefacts (temporary files are `.<name>.<random>.tmp`)."""
    return sorted(p for p in cache.rglob("*") if p.is_file() and ARTEFACT.match(p.name))


def _cli(toml: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "recdiv", "run", str(toml), "--out", str(out), "--quiet", *extra]


def _run_and_kill(toml: Path, out: Path, threshold: int, log: Path) -> bool:
    """Start `recdiv run`, SIGKILL it once `threshold` score artefacts (or, threshold 0, any artefact) exist.
    Returns whether it was killed (False: it finished first)."""
    with open(log, "wb") as fh:
        proc = subprocess.Popen(_cli(toml, out), cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 240
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            cache = out / "cache"
            found = _artefacts(cache / "scores") if threshold else _artefacts(cache)
            if len(found) >= max(threshold, 1):
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return True
            time.sleep(0.005)
        assert proc.poll() is not None, "recdiv run did not finish"
        assert proc.returncode == 0, log.read_text(errors="replace")
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _load(path: Path) -> None:
    """Read a finished artefact completely (a truncated file fails here)."""
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            for k in z.files:
                z[k]
    elif path.suffix == ".parquet":
        pd.read_parquet(path)
    else:
        path.read_text("utf-8")


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(list(frame.columns[:-1])).reset_index(drop=True)


def test_sigkill_then_resume_gives_the_uninterrupted_results(tmp_path):
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL_TOML, "utf-8")
    ref = tmp_path / "ref"
    run_experiment(load_experiment(toml), ref, progress=False)  # uninterrupted, in this process
    n_scores = len(_artefacts(ref / "cache" / "scores"))
    assert n_scores == 2 * 12

    # kill after a few systems are evaluated; if the run was too fast for that, kill at its first artefact
    out, killed = None, False
    for attempt, threshold in enumerate((3, 0)):
        out = tmp_path / f"run{attempt}"
        killed = _run_and_kill(toml, out, threshold, tmp_path / f"run{attempt}.log")
        if killed:
            break
    assert killed, "recdiv run finished before it could be killed"
    assert not (out / "summary.csv").exists()
    before = _artefacts(out / "cache")
    assert before
    for p in before:  # everything that looks finished is complete
        _load(p)
    scored = len(_artefacts(out / "cache" / "scores"))
    assert scored < n_scores

    resumed = subprocess.run(_cli(toml, out, "--resume"), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    m = re.search(r"computed: (.*); reused (\d+) cached artefacts", resumed.stderr)
    assert m, resumed.stderr
    assert int(m.group(2)) >= 1  # reused work of the killed run
    computed = dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", m.group(1)))
    assert computed["scores"] == n_scores - scored  # and evaluated exactly the systems the killed run had not

    # the same outputs as the uninterrupted run
    assert not list(out.rglob(".*.tmp"))
    assert [p.relative_to(out) for p in _artefacts(out / "cache")] == [p.relative_to(ref) for p in
                                                                      _artefacts(ref / "cache")]
    for name in ("scores.parquet", "system_scores.parquet"):
        a, b = pd.read_parquet(ref / name), pd.read_parquet(out / name)
        assert len(a) > 0
        pd.testing.assert_frame_equal(_sorted(b), _sorted(a))
    for name in ("summary.csv", "summary.md", "summary.tex"):
        assert (out / name).read_text("utf-8") == (ref / name).read_text("utf-8"), name
    for p in _artefacts(ref / "cache" / "scores"):
        q = out / p.relative_to(ref)
        pd.testing.assert_frame_equal(_sorted(pd.read_parquet(q)), _sorted(pd.read_parquet(p)))
