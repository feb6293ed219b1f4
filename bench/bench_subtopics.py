"""nDCG-IA and RBU over TREC subtopic qrels (`recdiv eval --subtopics`) on MovieLens 100K u1, against the same
measures over the genres (`--aspects`), and optionally against another recdiv (an older checkout) on the same
files: whole-process wall time, CPU time and peak memory (GNU time), median of --repeat runs, and whether the
two recdivs print the same bytes.

With subtopic qrels every user has aspects of their own (user × genre: 5,771 subtopics of 459 users on u1, and
56,602 virtual items), so anything sized items × aspects or users × K × aspects grows with the square of the
users; the measures work on each chunk of users' own aspects (`recdiv.eval.metrics.intents.local_aspects`).

    python bench/bench_subtopics.py [--before /path/to/old/.venv/bin/recdiv] [--repeat 3]

Files (written once into $RECDIV_BENCH_CACHE or ~/.cache/recdiv-bench/subtopics-u1): `recdiv data export
ml-100k --split u1` (data from $RECDIV_DATA or the first shared/data above the repository), a top-100 WRMF run,
and subtopic qrels "user genre item 0/1" (the genres of every judged item, relevant when the grade is >= 4: as
bench/golden.py).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _files import CACHE
from bench_cli import measure
from golden import find_data

REPO = Path(__file__).resolve().parents[1]
RECDIV = str(Path(sys.executable).with_name("recdiv"))
MEASURES = ["nDCG-IA(weights=uniform)@5,10,20", "nDCG-IA(weights=uniform,gain=rating)@20",
            "RBU(weights=uniform)@10,20", "RBU(grade=binary,weights=uniform)@20"]


def files(recdiv: str) -> Path:
    folder = CACHE / "subtopics-u1"
    if (folder / "subtopics.qrels").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([recdiv, "data", "export", "ml-100k", "--split", "u1", "-o", str(folder), "--data-dir",
                    str(find_data(REPO)), "--force"], check=True, stderr=subprocess.DEVNULL)
    subprocess.run([recdiv, "recommend", "--train", str(folder / "train.tsv"), "--qrels", str(folder / "test.qrels"),
                    "--algo", "wrmf", "-n", "100", "-o", str(folder / "wrmf.run")], check=True,
                   stderr=subprocess.DEVNULL)
    genres: dict[str, list[str]] = {}
    for line in (folder / "aspects.tsv").read_text().splitlines():
        item, genre = line.split("\t")[:2]
        genres.setdefault(item, []).append(genre)
    lines = []
    for line in (folder / "test.qrels").read_text().splitlines():
        user, _, item, grade = line.split()
        lines += [f"{user} {g} {item} {int(int(grade) >= 4)}\n" for g in genres.get(item, [])]
    (folder / "subtopics.qrels.tmp").write_text("".join(lines))
    (folder / "subtopics.qrels.tmp").replace(folder / "subtopics.qrels")
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recdiv", default=RECDIV, help="the recdiv measured (default: this Python's)")
    ap.add_argument("--before", default=None, help="another recdiv to compare with (e.g. an older checkout's)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    f = files(args.recdiv)
    run = str(f / "wrmf.run")
    cases = {"--subtopics": ["eval", "--subtopics", str(f / "subtopics.qrels"), run, "-m", *MEASURES],
             "--aspects (genres)": ["eval", str(f / "test.qrels"), run, "--aspects", str(f / "aspects.tsv"),
                                    "-m", *MEASURES]}
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print(f"{'case':<20} {'recdiv':<8} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
    for name, cmd in cases.items():
        outs = {}
        for label, exe in (("this", args.recdiv), ("before", args.before)):
            if exe is None:
                continue
            wall, cpu, peak = measure([exe, *cmd, "--format", "csv", "--per-user"], args.repeat)
            outs[label] = subprocess.run([exe, *cmd, "--format", "csv", "--per-user"], capture_output=True).stdout
            print(f"{name:<20} {label:<8} {wall:8.2f} {cpu:8.2f} {peak:8.0f}")
        if len(outs) == 2:
            print(f"{name:<20} per-user values: {'identical bytes' if outs['this'] == outs['before'] else 'DIFFER'}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
