"""Run every benchmark script in bench/ in its default (short) mode and print their figures.

Usage: python -m bench [NAME ...]   (NAME = data, accuracy, novelty, intent, diversifiers, stats, algorithms, ...)
Each script compares recdiv against a peer library in the same process; results are recorded in bench/README.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    failed = []
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        rc = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        if rc:
            failed.append(script.stem)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
