"""Benchmark of the experiment runner: wall time, CPU time and peak memory of `recdiv demo` (fresh, resumed,
and with --jobs 2); with --full also the ML-100K thesis Table 1 experiment (examples/thesis-table1-ml100k.toml).

Each run is a separate `recdiv` process (so peak RSS is that run's own); CPU time includes worker processes.
There is no peer library with a declarative diversification-experiment runner to compare against; the figures
to compare are a fresh run against a resumed one (cache hits only) and 1 against 2 worker processes.

    .venv/bin/python bench/bench_experiment.py          # demo: fresh, resume, --jobs 2
    .venv/bin/python bench/bench_experiment.py --full   # + thesis Table 1 on ML-100K (5 folds, top-500 → 50)
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

CHILD = """
import json, sys, time
from recdiv.experiment.config import load_experiment
from recdiv.experiment.demo import demo_config
from recdiv.experiment.runner import run_experiment
if __name__ == "__main__":
    what, out, resume, jobs = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
    config = demo_config() if what == "demo" else load_experiment(what)
    t = time.perf_counter()
    r = run_experiment(config, out, resume=resume, jobs=jobs, progress=False)
    print(json.dumps({"seconds": time.perf_counter() - t, "computed": dict(r.computed),
                      "cached": sum(r.cached.values())}))
"""


def run(what: str, out: Path, resume: bool, jobs: int) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, what, str(out), "1" if resume else "0", str(jobs)],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"{what}: run failed")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "inner": info["seconds"], "cpu": cpu, "rss_mb": after.ru_maxrss / 1024,
            "computed": sum(info["computed"].values()), "cached": info["cached"]}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also run the ML-100K thesis Table 1 experiment")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        rows.append(("demo (fresh, --jobs 1)", run("demo", demo, False, 1)))
        rows.append(("demo (--resume, all cached)", run("demo", demo, True, 1)))
        rows.append(("demo (fresh, --jobs 2)", run("demo", Path(tmp) / "demo2", False, 2)))
        if args.full:
            t1 = str(ROOT / "examples" / "thesis-table1-ml100k.toml")
            rows.append(("thesis Table 1, ML-100K (fresh)", run(t1, Path(tmp) / "t1", False, 1)))
            rows.append(("thesis Table 1, ML-100K (--resume)", run(t1, Path(tmp) / "t1", True, 1)))
    print(f"{'run':<36} {'wall s':>8} {'in-run s':>9} {'CPU s':>8} {'peak RSS MB':>12} {'computed':>9} {'cached':>7}")
    for name, r in rows:
        print(f"{name:<36} {r['wall']:8.1f} {r['inner']:9.1f} {r['cpu']:8.1f} {r['rss_mb']:12.0f} {r['computed']:9d} "
              f"{r['cached']:7d}")
    print("peak RSS: the largest child process so far (ru_maxrss of RUSAGE_CHILDREN is a running maximum)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
