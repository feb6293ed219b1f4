"""Start-up cost (issue 26: "`recdiv --help` and `import recdiv` no slower"): whole-process wall and CPU time of
importing a module, or of a command, in two checkouts, paired and interleaved in one session (the machine is shared:
compare the ratios, and quote the load).

    python bench/bench_imports.py --base /work/golden/tree-base --new . [--repeat 15] [--only "import recdiv"]

Each checkout is run with its own `.venv/bin/python` (its `recdiv` console script for `recdiv --help`), from compiled
bytecode as an installed recdiv runs: PYTHONDONTWRITEBYTECODE is unset and each checkout's bytecode goes to a folder
of its own (PYTHONPYCACHEPREFIX under the system's temporary folder), so neither tree is written to. Every
repetition runs each case once in each checkout, back to back, the order alternating between repetitions (base first,
then new first, ...), so both see the same load; one untimed run of each first warms the page cache, the pycache and
numba's cache. The figures: the median and minimum wall time, and the median CPU time (user + sys of the child, from
`os.wait4`), over the repetitions, and the median of the paired ratios new/base.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

CASES = [
    ("import recdiv", ["-c", "import recdiv"]),
    ("recdiv --help", ["<script>", "--help"]),
    ("python -m recdiv --help", ["-m", "recdiv", "--help"]),
    ("recdiv rerank --help", ["<script>", "rerank", "--help"]),
    ("import recdiv.algorithms.registry", ["-c", "import recdiv.algorithms.registry"]),
    ("import recdiv.eval.catalog", ["-c", "import recdiv.eval.catalog"]),
    ("parse_measure('nDCG@10')", ["-c", "from recdiv.eval.catalog import parse_measure; parse_measure('nDCG@10')"]),
    ("import recdiv.data.load", ["-c", "import recdiv.data.load"]),
]


def environment(tree: Path) -> dict[str, str]:
    """The environment of the processes run in `tree`: bytecode written and read, in a folder of the tree's own."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    digest = hashlib.sha256(str(tree).encode()).hexdigest()[:12]
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"recdiv-bench-imports-{digest}")
    return env


#: the console script's code, for --python (run in the tree's folder, so that its recdiv is the one imported)
SCRIPT = "import sys; sys.argv[0] = 'recdiv'; from recdiv.cli import main; sys.exit(main())"


def run(tree: Path, args: list[str], python: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds user + sys) of one whole process in `tree` (with `python`: that interpreter, the
    tree's code imported from its folder, instead of the tree's venv)."""
    venv = tree / ".venv" / "bin"
    if python is not None:
        argv = [str(python), "-c", SCRIPT, *args[1:]] if args[0] == "<script>" else [str(python), *args]
    else:
        argv = [str(venv / "recdiv"), *args[1:]] if args[0] == "<script>" else [str(venv / "python"), *args]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=environment(tree))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} (in {tree}) exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="checkout before (with its .venv)")
    ap.add_argument("--new", type=Path, required=True, help="checkout after (with its .venv)")
    ap.add_argument("--repeat", type=int, default=15, help="paired repetitions per case (default 15)")
    ap.add_argument("--only", action="append", default=None, metavar="CASE", help="run only this case (repeatable)")
    ap.add_argument("--python", type=Path, default=None,
                    help="run both trees with this interpreter (each tree's code from its folder): the code's "
                         "difference alone, without the two venvs' (their packages, their console scripts)")
    a = ap.parse_args()
    trees = {"base": a.base.resolve(), "new": a.new.resolve()}
    for name, tree in trees.items():
        commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        print(f"{name}: {tree} at {commit or '?'}")
    if a.python:
        print(f"both with {a.python}")
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {a.repeat} paired repetitions")
    print(f"{'case':34} {'base wall':>10} {'new wall':>9} {'new/base':>9} {'base min':>9} {'new min':>8} "
          f"{'base CPU':>9} {'new CPU':>8} {'CPU n/b':>8}")
    for label, args in CASES:
        if a.only and label not in a.only:
            continue
        for tree in trees.values():
            run(tree, args, a.python)  # warm
        wall: dict[str, list[float]] = {"base": [], "new": []}
        cpu: dict[str, list[float]] = {"base": [], "new": []}
        for i in range(a.repeat):
            for name in (("base", "new") if i % 2 == 0 else ("new", "base")):
                w, c = run(trees[name], args, a.python)
                wall[name].append(w)
                cpu[name].append(c)
        med = {k: statistics.median(v) for k, v in wall.items()}
        cmed = {k: statistics.median(v) for k, v in cpu.items()}
        ratio = statistics.median(n / b for n, b in zip(wall["new"], wall["base"]))
        cratio = statistics.median(n / b for n, b in zip(cpu["new"], cpu["base"]))
        print(f"{label:34} {med['base']:9.3f}s {med['new']:8.3f}s {ratio:9.2f} {min(wall['base']):8.3f}s "
              f"{min(wall['new']):7.3f}s {cmed['base']:8.3f}s {cmed['new']:7.3f}s {cratio:8.2f}", flush=True)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
