"""Benchmark of the experiment runner: wall time, CPU time and peak memory of `recdiv demo` (fresh, resumed,
and with --jobs 2); with --full also the ML-100K thesis Table 1 experiment (examples/thesis-table1-ml100k.toml).

Each run is a separate `recdiv` process (so peak RSS is that run's own); CPU time includes worker processes.
There is no peer library with a declarative diversification-experiment runner to compare against; the figures
to compare are a fresh run against a resumed one (cache hits only) and 1 against 2 worker processes.

    .venv/bin/python bench/bench_experiment.py          # demo: fresh, resume, --jobs 2
    .venv/bin/python bench/bench_experiment.py --full   # + thesis Table 1 on ML-100K (5 folds, top-500 → 50)
    .venv/bin/python bench/bench_experiment.py --ml20m  # only: ML-20M scale (synthetic:ml-20m, 138K users)

--ml20m runs ML20M_TOML below: synthetic:ml-20m (138,493 users, 26,744 items, 20M ratings, generated in the run),
a 80/20 holdout, popularity top-100 candidates, xQuAD (λ = .5) over genres to k = 10, 10 measures, Wilcoxon tests
and the report; the target is a peak RSS within 24 GB. A second process that only builds the dataset, the split and
the test judgments measures how much of the peak is the data itself.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ML20M_TOML = """
name = "ml20m-scale"
description = "ML-20M scale: popularity top-100 reranked by xQuAD over genres, 10 measures."
seed = 0

[[datasets]]
name = "synthetic:ml-20m"
splits = ["holdout:0.2"]

[[recommenders]]
name = "pop"
label = "Pop"

[candidates]
n = 100
k = 10

[[aspects]]
name = "genres"
kind = "explicit"
attribute = "genres"

[[diversifiers]]
name = "xQuAD"
grid = { lambda = [0.5] }
aspects = ["genres"]

[metrics]
measures = ["P@10", "Recall@10", "nDCG@10", "RR@10", "EPC@10", "ILD@10", "alpha-nDCG@10", "ERR-IA@10",
            "S-recall@10", "AggregateDiversity@10"]
aspects = "genres"

[statistics]
test = "wilcoxon"

[report]
tradeoff = [["nDCG@10", "alpha-nDCG@10"]]
"""

DATA_CHILD = """
import json, resource, sys, time
from recdiv.data.load import load_dataset
from recdiv.data.qrels import Qrels
from recdiv.data.splits import make_split
t = time.perf_counter()
d = load_dataset(sys.argv[1])
t1 = time.perf_counter()
s = make_split(d, "holdout:0.2", seed=0)
q = Qrels.from_interactions(s.test)
t2 = time.perf_counter()
print(json.dumps({"seconds": t2 - t, "generate": t1 - t, "split": t2 - t1, "computed": {}, "cached": 0,
                  "ratings": int(d.interactions.matrix.nnz), "users": int(d.interactions.matrix.shape[0]),
                  "own_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

CHILD = """
import json, resource, sys, time
from recdiv.experiment.plan.inputs import Inputs
from recdiv.experiment.run import runner
from recdiv.experiment.run.demo import demo_config
from recdiv.experiment.spec.experiment import load_experiment
from recdiv.experiment.tasks import task

PHASES = []  # (phase, seconds, peak RSS MB after it): which phase raised the process's peak

def timed(module, name, label):
    fn = getattr(module, name)
    def wrapper(*args, **kw):
        t = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            tag = label(*args) if callable(label) else label
            PHASES.append((tag, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    setattr(module, name, wrapper)

if __name__ == "__main__":
    what, out, resume, jobs = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
    config = demo_config() if what == "demo" else load_experiment(what)
    timed(Inputs, "dataset", "load dataset")
    timed(Inputs, "split", "split")
    timed(task, "run_model_task", lambda env, t: f"fit + top-N: {t.plan.recommender or t.plan.name}")
    timed(task, "run_system_task", lambda env, t: f"rerank + metrics: {t.plan.system.name}")
    timed(runner, "collect_scores", "collect scores")
    timed(runner, "build_report", "statistics + report")
    t = time.perf_counter()
    r = runner.run_experiment(config, out, resume=resume, jobs=jobs, progress=False)
    print(json.dumps({"seconds": time.perf_counter() - t, "computed": dict(r.computed),
                      "cached": sum(r.cached.values()), "phases": PHASES,
                      "own_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(what: str, out: Path, resume: bool, jobs: int, child: str = CHILD) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", child, what, str(out), "1" if resume else "0", str(jobs)],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"{what}: run failed")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = info.get("own_rss_mb", after.ru_maxrss / 1024)
    return {"wall": wall, "inner": info["seconds"], "cpu": cpu, "rss_mb": rss,
            "computed": sum(info["computed"].values()), "cached": info["cached"], "info": info}


def ml20m(tmp: Path, preset: str = "ml-20m") -> list[tuple[str, dict]]:
    """The ML-20M scale runs; each child's peak RSS is its own (the data-only child runs first, so the running
    maximum of RUSAGE_CHILDREN after the full run is the larger of the two, reported as the full run's)."""
    toml = tmp / "ml20m.toml"
    toml.write_text(ML20M_TOML.replace("synthetic:ml-20m", f"synthetic:{preset}"), "utf-8")
    rows = [("ML-20M scale: data + split only", run(f"synthetic:{preset}", tmp / "data", False, 1, DATA_CHILD))]
    info = rows[0][1]["info"]
    print(f"synthetic:{preset}: {info['users']:,} users, {info['ratings']:,} ratings; generated in "
          f"{info['generate']:.1f} s, split + judgments in {info['split']:.1f} s", flush=True)
    rows.append(("ML-20M scale: full run (fresh)", run(str(toml), tmp / "ml20m", False, 1)))
    print("phases of the fresh run (seconds; the process's peak RSS after the phase, MB):")
    for phase, secs, peak in rows[-1][1]["info"]["phases"]:
        print(f"  {phase:<48} {secs:8.1f} s {peak:10.0f} MB")
    rows.append(("ML-20M scale: --resume", run(str(toml), tmp / "ml20m", True, 1)))
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also run the ML-100K thesis Table 1 experiment")
    ap.add_argument("--ml20m", action="store_true", help="only the ML-20M scale run (several minutes, ~GBs)")
    ap.add_argument("--preset", default="ml-20m", help="synthetic preset of --ml20m (ml-1m: a quick trial)")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.ml20m:
            rows = ml20m(Path(tmp), args.preset)
            _table(rows)
            print(f"load average (1, 5, 15 min) at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
            return 0
        demo = Path(tmp) / "demo"
        rows.append(("demo (fresh, --jobs 1)", run("demo", demo, False, 1)))
        rows.append(("demo (--resume, all cached)", run("demo", demo, True, 1)))
        rows.append(("demo (fresh, --jobs 2)", run("demo", Path(tmp) / "demo2", False, 2)))
        if args.full:
            t1 = str(ROOT / "examples" / "thesis-table1-ml100k.toml")
            rows.append(("thesis Table 1, ML-100K (fresh)", run(t1, Path(tmp) / "t1", False, 1)))
            rows.append(("thesis Table 1, ML-100K (--resume)", run(t1, Path(tmp) / "t1", True, 1)))
    _table(rows)
    return 0


def _table(rows: list[tuple[str, dict]]) -> None:
    print(f"{'run':<36} {'wall s':>8} {'in-run s':>9} {'CPU s':>8} {'peak RSS MB':>12} {'computed':>9} {'cached':>7}")
    for name, r in rows:
        print(f"{name:<36} {r['wall']:8.1f} {r['inner']:9.1f} {r['cpu']:8.1f} {r['rss_mb']:12.0f} {r['computed']:9d} "
              f"{r['cached']:7d}")
    print("peak RSS: of the run's own process (ru_maxrss); with --jobs 2 the workers' peaks are separate")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
