"""Whole process against whole process: `recdiv eval` against trec_eval and ndeval (C, built by
../shared/tools/build.sh outside the repository), ir_measures' command line and ranx from the same files;
`recdiv rerank` of a 500-deep run; `recdiv --help`; the 10 M-line evaluation; with --resume-out, the `--resume` of
the fully cached `examples/hetrec-table6-lastfm.toml`. Wall time and peak memory (maximum
resident set size, from GNU time) of each command, median of --repeat runs, and the ratios recdiv / peer.

Files (bench/_files.py, seeded, written once to $RECDIV_BENCH_CACHE or ~/.cache/recdiv-bench): ML-1M shape,
6,040 users x top-100 = 604,000 run lines, ~202,000 qrels lines (grades 1-5), 18 genres; a 500-deep run of the
same users for rerank; 100,000 users x 100 = 10 M run lines and 2 M qrels lines. ndeval reads subtopic qrels
(user genre item 0/1: the item's genres, relevant when the grade is >= 4), derived from the same files.

    python bench/bench_cli.py [--repeat 5] [--skip-10m] [--trec-eval-10m] [--resume-out DIR]

trec_eval on the 10 M-line files takes minutes (477 s on the development machine): it runs only with
--trec-eval-10m. The load average is printed before and after: on a shared machine the figures are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _files import CACHE, make_files

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
PY = sys.executable
LASTFM = REPO / "examples" / "hetrec-table6-lastfm.toml"
ACCURACY = ["P@100", "Recall@100", "AP@100", "nDCG@100", "RR"]
TREC_ACCURACY = ["-m", "P.100", "-m", "recall.100", "-m", "map_cut.100", "-m", "ndcg_cut.100", "-m", "recip_rank",
                 "-l", "4"]
IRM_ACCURACY = "P(rel=4)@100 R(rel=4)@100 AP(rel=4)@100 nDCG@100 RR(rel=4)"
RANX_SCRIPT = """import sys
from ranx import Qrels, Run, evaluate
q = Qrels.from_file(sys.argv[1], kind="trec")
r = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(q, r, ["precision@100", "recall@100", "map@100", "ndcg@100", "mrr"]))
"""


def measure(cmd: list[str], repeat: int, env: dict | None = None) -> tuple[float, float, float]:
    """(median wall seconds, median CPU seconds (user + system), median peak RSS in MB) of `cmd` run `repeat`
    times, each a fresh process. On a loaded machine CPU time is the steadier figure."""
    walls, cpus, peaks = [], [], []
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
            subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name, *cmd], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            wall, user, system, kb = out.read().split()[-4:]
        walls.append(float(wall))
        cpus.append(float(user) + float(system))
        peaks.append(int(kb) / 1024)
    return statistics.median(walls), statistics.median(cpus), statistics.median(peaks)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def subtopic_qrels(files: dict[str, Path]) -> Path:
    """ndeval's qrels (user subtopic item judgment) from the qrels and the item genres: one line per judged item
    and genre, judgment 1 when the grade is >= 4. Genre g<j> is subtopic j+1 (ndeval wants numbers)."""
    out = files["qrels.txt"].with_name("subtopics.qrels")
    if not out.exists():
        genres: dict[str, list[str]] = {}
        for line in files["aspects.tsv"].read_text().splitlines():
            item, g = line.split()
            genres.setdefault(item, []).append(str(int(g[1:]) + 1))
        lines = []
        for line in files["qrels.txt"].read_text().splitlines():
            user, _, item, grade = line.split()
            lines.extend(f"{user} {g} {item} {int(int(grade) >= 4)}\n" for g in genres.get(item, ()))
        tmp = out.with_suffix(".tmp")
        tmp.write_text("".join(lines))
        tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-10m", action="store_true", help="leave out the 10 M-line evaluation")
    ap.add_argument("--trec-eval-10m", action="store_true", help="also time trec_eval on the 10 M-line files")
    ap.add_argument("--resume-out", type=Path, metavar="DIR",
                    help=f"also time `recdiv run {LASTFM.relative_to(REPO)} --resume --out DIR`; a first untimed run "
                         "computes what DIR does not hold yet (2-9 minutes for an empty folder)")
    args = ap.parse_args(argv)
    tools = Path(subprocess.run(["bash", str(TOOLS / "build.sh")], check=True, capture_output=True,
                                text=True).stdout.strip())
    files = make_files()
    deep = make_files(depth=500)
    sub = subtopic_qrels(files)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    recdiv = [PY, "-m", "recdiv"]
    built = subprocess.run([PY, "-c", "from recdiv import aot; print(aot.load() is not None)"], env=env,
                           capture_output=True, text=True).stdout.strip()
    if built != "True":  # the intent-aware eval would time numba's start-up instead (docs/architecture.md, Kernels)
        print("note: no fresh ahead-of-time kernel build: run `python -m recdiv.cli.warmup` first", flush=True)
    q, r, a = (str(files[n]) for n in ("qrels.txt", "run.txt", "aspects.tsv"))
    print(f"files: {files['run.txt'].parent} ({CACHE}); tools: {tools}; repeat {args.repeat}; before: {load()}")
    rows: list[tuple[str, str, float, float, float]] = []

    def row(task: str, who: str, cmd: list[str]) -> None:
        wall, cpu, peak = measure(cmd, args.repeat, env)
        rows.append((task, who, wall, cpu, peak))
        print(f"  {task:<34} {who:<12} {wall:8.2f} s {cpu:8.2f} s CPU {peak:8.0f} MB", flush=True)

    acc = "eval P/Recall/AP/nDCG@100, RR"
    row(acc, "trec_eval", [str(tools / "trec_eval"), *TREC_ACCURACY, q, r])
    row(acc, "recdiv", [*recdiv, "eval", q, r, "-m", *ACCURACY])
    row(acc, "ir_measures", [PY, "-m", "ir_measures", q, r, IRM_ACCURACY])
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(RANX_SCRIPT)
    row(acc, "ranx", [PY, fh.name, q, r])
    ia = "eval alpha-nDCG@20, ERR-IA@20"
    row(ia, "ndeval", [str(tools / "ndeval"), str(sub), r])
    row(ia, "recdiv", [*recdiv, "eval", q, r, "--aspects", a, "-m", "alpha-nDCG@20", "ERR-IA(variant=ndeval)@20"])
    with tempfile.TemporaryDirectory() as tmp:
        row("rerank 6,040 x 500 -> 100, MMR", "recdiv", [*recdiv, "rerank", str(deep["run.txt"]), "--method", "MMR",
                                                         "--aspects", a, "-k", "100", "-o", f"{tmp}/mmr.run"])
    row("recdiv --help", "recdiv", [*recdiv, "--help"])
    if not args.skip_10m:
        big = make_files(n_users=100_000, judged_per_user=20)
        task = "eval 10 M lines, 5 measures"
        if args.trec_eval_10m:
            row(task, "trec_eval", [str(tools / "trec_eval"), *TREC_ACCURACY, str(big["qrels.txt"]),
                                    str(big["run.txt"])])
        row(task, "recdiv", [*recdiv, "eval", str(big["qrels.txt"]), str(big["run.txt"]), "-m", *ACCURACY])
    if args.resume_out is not None:
        cmd = [*recdiv, "run", str(LASTFM), "--resume", "--out", str(args.resume_out), "--quiet"]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)  # complete and stamp it, untimed
        row("run --resume, Last.fm example cached", "recdiv", cmd)
    print(f"after: {load()}\n")
    print("| task | tool | wall s | CPU s | peak MB | recdiv / peer: wall (CPU) |\n|---|---|---:|---:|---:|---|")
    for task, who, wall, cpu, peak in rows:
        ratio = ""
        if who == "recdiv":
            peers = [x for x in rows if x[0] == task and x[1] != "recdiv"]
            ratio = ", ".join(f"{wall / p[2]:.2f} ({cpu / p[3]:.2f}) vs {p[1]}" for p in peers)
        print(f"| {task} | {who} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
