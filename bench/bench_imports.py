"""Start-up cost of the registries (issue 26): whole-process wall time of importing a module, or of a command, in
two checkouts, run alternately in one session (the machine is shared: compare the ratio, and quote the load).

    python bench/bench_imports.py --base /work/golden/tree-base --new . [--repeat 7]

Each checkout is run with its own `.venv/bin/python`; the figure is the median (and minimum) over the repetitions
of `python -c "import MODULE"` (and `recdiv --help`, `recdiv rerank --help`), with the numba/pycache already warm
(one untimed run first).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

CASES = [
    ("import recdiv", ["-c", "import recdiv"]),
    ("import recdiv.algorithms.registry", ["-c", "import recdiv.algorithms.registry"]),
    ("import recdiv.eval.catalog", ["-c", "import recdiv.eval.catalog"]),
    ("parse_measure('nDCG@10')", ["-c", "from recdiv.eval.catalog import parse_measure; parse_measure('nDCG@10')"]),
    ("import recdiv.data.load", ["-c", "import recdiv.data.load"]),
    ("recdiv --help", ["-m", "recdiv", "--help"]),
    ("recdiv rerank --help", ["-m", "recdiv", "rerank", "--help"]),
]


def wall(python: Path, args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run([str(python), *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="checkout before (with its .venv)")
    ap.add_argument("--new", type=Path, required=True, help="checkout after (with its .venv)")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    trees = {"base": a.base.resolve(), "new": a.new.resolve()}
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print(f"{'case':38} {'base median':>12} {'new median':>11} {'new/base':>9} {'base min':>9} {'new min':>8}")
    for label, args in CASES:
        times: dict[str, list[float]] = {"base": [], "new": []}
        for tree in trees.values():
            wall(tree / ".venv/bin/python", args, tree)  # warm
        for _ in range(a.repeat):
            for name, tree in trees.items():
                times[name].append(wall(tree / ".venv/bin/python", args, tree))
        mb, mn = statistics.median(times["base"]), statistics.median(times["new"])
        print(f"{label:38} {mb:11.3f}s {mn:10.3f}s {mn / mb:9.2f} {min(times['base']):8.3f}s "
              f"{min(times['new']):7.3f}s")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
