"""Evaluation at any size (issue #28): whole process against whole process, the same files side by side.

Files (written once to $RECDIV_BENCH_CACHE or ~/.cache/recdiv-bench, seeded): N users × 100 run lines in TREC text
and Parquet (`recdiv convert`'s layout), 20 judgments per user, 3,706 items with 1-3 of 18 genres. Rows:

- recdiv eval from TREC text and from Parquet (P, Recall, AP, nDCG@100, RR): in memory (--memory 64G), with the
  default budget (1G: streamed from about 6·10⁶ lines), streamed with --memory 256M, and with --ray on a two-node
  Ray cluster started on loopback for the run (tests/ray_cluster.py; peak memory is then the driver's);
- recdiv eval alpha-nDCG@20, ERR-IA(weights=uniform)@20 with the genres as aspects, default budget;
- ranx: TREC files -> Qrels/Run -> evaluate (whole process), and the in-memory `evaluate` call alone (printed by
  the script, measured inside the process);
- trec_eval (built by ../shared/tools/build.sh) with --trec-eval: its per-query lookup grows with the square of the
  users (477 s at 10^7 lines on the development machine).

    python bench/bench_scale.py --users 100000 [--repeat 3] [--trec-eval] [--skip-ranx] [--ray] [--per-shard]
    python bench/bench_scale.py --users 1000000 --skip-ranx          # 10^8 lines (~4 GB of text, 1 GB Parquet)

Wall time, CPU time (user + system), peak resident memory of the largest process (GNU time) and peak memory of the
whole process tree (the sum of its processes' PSS, sampled every 0.2 s: the forked evaluation processes included)
of each command, medians of --repeat runs,
and the 1-minute load average before and after each row: the machine is shared, so the ratios (paired in one run)
are the figures to quote. The in-memory rows are left out above 3·10⁷ lines (they would need ~140 bytes a line).
--per-shard also prints the measured cost of the streaming stages (first pass per line, evaluation per line), from
which bench/README.md builds the scaling model of docs/scale.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _files import CACHE, GRADE_SHARES

REPO = Path(__file__).resolve().parents[1]
TOOLS = Path(os.environ.get("RECDIV_TOOLS", REPO.parent / "shared" / "tools"))
PY = sys.executable
ACCURACY = ["P@100", "Recall@100", "AP@100", "nDCG@100", "RR"]
IN_MEMORY = "64G"  # a budget every run here fits: the in-memory path
STREAM_MEMORY = "256M"  # a budget that streams even the smallest run here
TREC_ACCURACY = ["-m", "P.100", "-m", "recall.100", "-m", "map_cut.100", "-m", "ndcg_cut.100", "-m", "recip_rank",
                 "-l", "4"]
RANX_SCRIPT = """import sys, time
from ranx import Qrels, Run, evaluate
q = Qrels.from_file(sys.argv[1], kind="trec")
r = Run.from_file(sys.argv[2], kind="trec")
t = time.perf_counter()
print(evaluate(q, r, ["precision@100", "recall@100", "map@100", "ndcg@100", "mrr"]))
print(f"evaluate {time.perf_counter() - t:.2f} s", file=sys.stderr)
"""


def make_files(n_users: int, depth: int = 100, judged: int = 20, n_items: int = 3706, seed: int = 0) -> dict:
    """run.txt, run.parquet, qrels.txt, qrels.parquet, aspects.tsv for `n_users` users (written once, in blocks of
    users: a few hundred MB of memory whatever the size)."""
    from recdiv.data._read import Codes, Table
    from recdiv.data.formats_write import write_blocks

    folder = CACHE / f"scale-u{n_users}-k{depth}-j{judged}-s{seed}"
    names = ("run.txt", "run.parquet", "qrels.txt", "qrels.parquet", "aspects.tsv")
    paths = {n: folder / n for n in names}
    if all(p.exists() for p in paths.values()):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    items = np.sort(rng.choice(np.arange(1, 3953), n_items, replace=False)).astype(str).astype(object)
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.9
    rng.shuffle(pop)
    cum = np.cumsum(pop / pop.sum())
    block = max(1, 200_000 // depth * 10)

    def distinct(n: int, k: int) -> np.ndarray:
        """k distinct popularity-biased items per user: a start drawn by popularity, then a stride coprime with
        the number of items."""
        start = np.searchsorted(cum, rng.random(n))
        stride = rng.choice([1, 7, 11, 13, 17, 19, 23], n)
        return (start[:, None] + stride[:, None] * np.arange(k)) % n_items

    def blocks(kind: str):
        r = np.random.default_rng(seed + (kind == "qrels"))
        for lo in range(0, n_users, block):
            n = min(block, n_users - lo)
            users = np.arange(lo + 1, lo + n + 1).astype(str).astype(object)
            k = depth if kind == "run" else judged
            it = distinct(n, k)
            cols = {"user": Codes(np.repeat(np.arange(n, dtype=np.int32), k), users),
                    "item": Codes(it.ravel().astype(np.int32), items)}
            if kind == "run":
                cols["rank"] = np.tile(np.arange(1, k + 1), n)
                cols["score"] = (-np.sort(-r.random((n, k)), axis=1)).ravel()
            else:
                cols["grade"] = r.choice(np.arange(1.0, 6.0), n * k, p=GRADE_SHARES)
            yield Table("", cols, np.zeros(n * k, np.int64))

    for kind in ("run", "qrels"):
        for ext, fmt in (("txt", "trec"), ("parquet", "parquet")):
            write_blocks(blocks(kind), paths[f"{kind}.{ext}"], kind, fmt, "sys")
    genres = [rng.choice(18, rng.integers(1, 4), replace=False) for _ in range(n_items)]
    paths["aspects.tsv"].write_text("".join(f"{i}\tg{g}\n" for i, gs in zip(items, genres) for g in gs))
    return paths


def tree_pss(pid: int) -> float:
    """Proportional set size (MB) of process `pid` and all its descendants: the memory of the whole process tree
    (forked evaluation processes included; pages they share with their parent counted once)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0
    for proc in procs:
        try:
            total += proc.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total / 2**20


def measure(cmd: list[str], repeat: int, env: dict) -> tuple[float, float, float, float, str]:
    """(median wall s, median CPU s, median peak RSS MB of the largest process (GNU time), median peak of the
    whole process tree's PSS in MB (sampled every 0.2 s), last stderr) of `cmd` run `repeat` times."""
    walls, cpus, peaks, trees, err = [], [], [], [], ""
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as out, tempfile.TemporaryFile("w+") as errors:
            proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name, *cmd],
                                    stdout=subprocess.DEVNULL, stderr=errors, text=True, env=env)
            tree = 0.0
            while proc.poll() is None:
                tree = max(tree, tree_pss(proc.pid))
                time.sleep(0.2)
            errors.seek(0)
            stderr = errors.read()
            if proc.returncode != 0:
                raise SystemExit(f"failed: {' '.join(cmd)}\n{stderr[-2000:]}")
            wall, user, system, kb = out.read().split()[-4:]
        walls.append(float(wall))
        cpus.append(float(user) + float(system))
        peaks.append(int(kb) / 1024)
        trees.append(tree)
        err = stderr
    median = statistics.median
    return median(walls), median(cpus), median(peaks), median(trees), err


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def per_shard(paths: dict, env: dict, lines: int) -> None:
    """The streaming stages' costs per line: the first pass (read, encode, partition) and the evaluation of the
    groups, each as CPU time of the whole process tree (this process, its threads and the forked evaluation
    processes: getrusage of self and children) and wall time. (Session 3 timed the evaluation as the process CPU
    seen by each of two threads, which counted it twice and left the first pass looking 6x cheaper than it is.)"""
    code = f"""
import resource, time
from recdiv.eval import stream
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
spent = {{}}
def timed(name, real):
    def run(*args, **kw):
        c, w = cpu(), time.perf_counter()
        out = real(*args, **kw)
        spent[name] = (cpu() - c, time.perf_counter() - w)
        return out
    return run
stream.ingest_all = timed("first pass", stream.ingest_all)
stream._evaluate_here = timed("evaluation", stream._evaluate_here)
c, w = cpu(), time.perf_counter()
s = stream.evaluate_stream({str(paths['qrels.parquet'])!r}, [{str(paths['run.parquet'])!r}], {ACCURACY!r})
spent["total"] = (cpu() - c, time.perf_counter() - w)
print(f"parts {{s.n_parts}} groups {{s.n_groups}}; " + "; ".join(
    f"{{k}} CPU {{v[0]:.2f}} s ({{v[0] / {lines} * 1e6:.3f}} us a line) wall {{v[1]:.2f}} s" for k, v in spent.items()))
"""
    out = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True)
    print(out.stdout.strip() or out.stderr[-2000:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trec-eval", action="store_true")
    ap.add_argument("--skip-ranx", action="store_true")
    ap.add_argument("--skip-ia", action="store_true")
    ap.add_argument("--ray", action="store_true", help="also on a two-node Ray cluster started on loopback")
    ap.add_argument("--per-shard", action="store_true")
    ap.add_argument("--memory", default=STREAM_MEMORY, help=f"--memory of the streamed rows (default {STREAM_MEMORY})")
    args = ap.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    paths = make_files(args.users)
    lines = args.users * 100
    print(f"{lines:,} run lines; files {paths['run.txt'].parent}; repeat {args.repeat}; {os.cpu_count()} cores; "
          f"before: {load()}", flush=True)
    rows = []

    def row(task, who, cmd, repeat=args.repeat, run_env=env):
        before = os.getloadavg()[0]
        wall, cpu, peak, tree, err = measure(cmd, repeat, run_env)
        rows.append((task, who, wall, cpu, peak, tree, f"{before:.1f}-{os.getloadavg()[0]:.1f}"))
        extra = next((x for x in err.splitlines() if x.startswith("evaluate ")), "")
        print(f"  {task:<30} {who:<28} {wall:8.2f} s {cpu:8.2f} s CPU {peak:8.0f} MB  tree {tree:6.0f} MB  "
              f"{load()} {extra}", flush=True)

    recdiv = [PY, "-m", "recdiv", "eval"]
    text, parquet = [str(paths["qrels.txt"]), str(paths["run.txt"])], [str(paths["qrels.parquet"]),
                                                                         str(paths["run.parquet"])]
    acc = f"eval {lines:.0e} lines, 5 measures"
    whole = lines <= 30_000_000
    if whole:
        row(acc, "recdiv TREC, in memory", [*recdiv, *text, "-m", *ACCURACY, "--memory", IN_MEMORY])
    row(acc, "recdiv TREC, default budget", [*recdiv, *text, "-m", *ACCURACY])
    row(acc, f"recdiv TREC, --memory {args.memory}", [*recdiv, *text, "-m", *ACCURACY, "--memory", args.memory])
    if whole:
        row(acc, "recdiv Parquet, in memory", [*recdiv, *parquet, "-m", *ACCURACY, "--memory", IN_MEMORY])
    row(acc, "recdiv Parquet, default budget", [*recdiv, *parquet, "-m", *ACCURACY])
    row(acc, f"recdiv Parquet, --memory {args.memory}", [*recdiv, *parquet, "-m", *ACCURACY, "--memory", args.memory])
    if args.ray:
        sys.path.insert(0, str(REPO))
        from tests.ray_cluster import RayCluster

        with tempfile.TemporaryDirectory(prefix="bench-ray-") as folder, RayCluster(Path(folder)) as cluster:
            work = Path(folder) / "work"
            ray_env = {**env, **cluster.client_env()}
            row(acc, "recdiv Parquet, Ray 2 nodes", [*recdiv, *parquet, "-m", *ACCURACY, "--backend", "ray",
                                                     "--workdir", str(work)], run_env=ray_env)
    if not args.skip_ranx:
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
            fh.write(RANX_SCRIPT)
        row(acc, "ranx (TREC files)", [PY, fh.name, *text], repeat=1)
    if args.trec_eval:
        tools = Path(subprocess.run(["bash", str(TOOLS / "build.sh")], check=True, capture_output=True,
                                    text=True).stdout.strip())
        row(acc, "trec_eval", [str(tools / "trec_eval"), *TREC_ACCURACY, *text], repeat=1)
    if not args.skip_ia:
        ia = f"eval {lines:.0e} lines, alpha-nDCG, ERR-IA"
        row(ia, "recdiv TREC, default budget", [*recdiv, *text, "--aspects", str(paths["aspects.tsv"]), "-m",
                                                "alpha-nDCG@20", "ERR-IA(weights=uniform)@20"])
    if args.per_shard:
        per_shard(paths, env, lines)
    print(f"after: {load()}\n")
    print("| task | tool | wall s | CPU s | peak MB | tree MB | load (1 min) |\n|---|---|---:|---:|---:|---:|---|")
    for task, who, wall, cpu, peak, tree, during in rows:
        print(f"| {task} | {who} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {tree:.0f} | {during} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
