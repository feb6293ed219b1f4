"""Whole process against whole process: `recdiv rerank` with MSD, SSD, COVER, DPP against Pyversity 0.2
(`pyversity.diversify`, one call per user) and recdiv's DPP against a per-user NumPy implementation of the fast
greedy MAP inference of Chen, Zhang & Zhou (NeurIPS 2018, Algorithm 1, written from the paper), on the same files;
also `recdiv rerank` with the other new rerankers (Swap, FAIR, PlackettLuce). Wall time, CPU time and peak memory
(maximum resident set size, from GNU time) of each command, median of --repeat runs, and the share of users whose
100 items are the same as recdiv's (same order).

Files (bench/_files.py, seeded, written once to $RECDIV_BENCH_CACHE or ~/.cache/recdiv-bench): ML-1M shape, a
500-deep run of 6,040 users (3.02 M lines) and 18 genres with 1-3 per item; every command reranks 500 -> 100 and
writes a TREC run. Item vectors: the 0/1 genre rows (their cosine is recdiv's default `--similarity cosine` over the
aspects). FAIR's protected group: the items of genre g0.

Parameters chosen so that both sides optimise the same objective (tests/diversifiers/test_pyversity.py states each
convention): Pyversity's `diversity` d = 0.5 weighs the diversity term, recdiv's λ = 1 − d weighs relevance; MSD:
raw scores on both sides (`norm=none`; for SSD Pyversity's `normalize_scores=False`); COVER: Pyversity sums the
coverage, recdiv averages it, so λ = (1 − d)/(N·d + 1 − d) with N = 500, γ = 0.5, raw scores; DPP: Pyversity
weighs items by exp(β·z) with β = 1 − d, z the z-scores with the population sd, recdiv `theta` = 2β/(1 + 2β)
with `norm=zscore` (the sample sd: z is √((N−1)/N) smaller, a weight exp(0.999·β·z)). Pyversity computes in
float32 and the genre vectors make many exact similarity ties, so lists can part after a near-tie: the "same lists"
column says how often. The Chen et al. peer uses recdiv's default DPP kernel (θ = 0.5: q = exp(ŝ/2), ŝ min-max;
S = cosine) and its stopping rule (max d² < 1e−10, then the rest in score order), so its lists are recdiv's.

    python bench/bench_rerank_peers.py [--repeat 3] [--only MSD,DPP,...] [--users 6040]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _files import CACHE, make_files
from bench_cli import load, measure

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
D = 0.5  # Pyversity's diversity
N = 500

#: name -> (recdiv parameters, Pyversity strategy and keywords or None)
RERANKERS = {
    "MSD": ({"lambda": 1 - D, "norm": "none"}, ("msd", {})),
    "SSD": ({"lambda": 1 - D, "norm": "none"}, ("ssd", {"normalize_scores": False})),
    "COVER": ({"lambda": (1 - D) / (N * D + 1 - D), "gamma": 0.5, "norm": "none"}, ("cover", {"gamma": 0.5})),
    "DPP": ({"theta": 2 * (1 - D) / (1 + 2 * (1 - D)), "norm": "zscore"}, ("dpp", {})),
    "DPP(default)": ({}, None),
    "Swap": ({}, None),
    "FAIR": ({}, None),
    "PlackettLuce": ({}, None),
}

#: the peers' common part: read the run and the genres, write a run (pyarrow for the 3 M lines, as recdiv)
READ = """
import sys
import numpy as np
import pyarrow.csv as pc

def read(run, aspects):
    t = pc.read_csv(run, read_options=pc.ReadOptions(column_names=["u", "q", "i", "r", "s", "t"]),
                    parse_options=pc.ParseOptions(delimiter=" "),
                    convert_options=pc.ConvertOptions(column_types={"u": "string", "i": "string"}))
    users, items, scores = (t.column(c).to_numpy(zero_copy_only=False) for c in ("u", "i", "s"))
    a = pc.read_csv(aspects, read_options=pc.ReadOptions(column_names=["i", "a"]),
                    parse_options=pc.ParseOptions(delimiter="\\t"),
                    convert_options=pc.ConvertOptions(column_types={"i": "string", "a": "string"}))
    vocab, idx = np.unique(np.concatenate([items, a.column("i").to_numpy(zero_copy_only=False)]),
                           return_inverse=True)
    genres, g = np.unique(a.column("a").to_numpy(zero_copy_only=False), return_inverse=True)
    vectors = np.zeros((len(vocab), len(genres)))
    vectors[idx[len(items):], g] = 1.0
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    return users, idx[:len(items)], scores.astype(np.float64), vocab, vectors, np.r_[starts, len(users)]

def write(path, lists, k):
    with open(path, "w") as fh:
        for user, items in lists:
            fh.write("".join(f"{user} Q0 {it} {r} {k - r + 1} peer\\n" for r, it in enumerate(items, 1)))
"""

PYVERSITY = READ + """
import warnings
import pyversity

run, aspects, out, strategy, d, k, kw = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), \\
    int(sys.argv[6]), eval(sys.argv[7])
users, items, scores, vocab, vectors, bounds = read(run, aspects)
lists = []
with warnings.catch_warnings():  # its DPP divides by ~0 once the 18-dimensional span is exhausted
    warnings.simplefilter("ignore", RuntimeWarning)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sel = pyversity.diversify(vectors[items[lo:hi]], scores[lo:hi], k, strategy=strategy, diversity=d, **kw)
        lists.append((users[lo], vocab[items[lo:hi][sel.indices]]))
write(out, lists, k)
"""

CHEN = READ + """
def fast_greedy_map(L, k, eps=1e-10):
    # Chen, Zhang & Zhou 2018, Algorithm 1: c_i, d_i^2 updated by one inner product per pick (incremental Cholesky)
    n = L.shape[0]
    c = np.zeros((k, n))
    d2 = np.diag(L).copy()
    picked = []
    j = int(np.argmax(d2))
    while len(picked) < k:
        if d2[j] < eps:
            break
        picked.append(j)
        t = len(picked) - 1
        e = (L[j] - c[:t, j] @ c[:t]) / np.sqrt(d2[j])
        c[t] = e
        d2 -= e * e
        d2[picked] = -np.inf
        j = int(np.argmax(d2))
    rest = [i for i in range(n) if i not in set(picked)]  # candidates in score order after the stop
    return (picked + rest)[:k]

run, aspects, out, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
users, items, scores, vocab, vectors, bounds = read(run, aspects)
norms = np.linalg.norm(vectors, axis=1)
unit = vectors / np.where(norms > 0, norms, 1.0)[:, None]
lists = []
for lo, hi in zip(bounds[:-1], bounds[1:]):
    s = scores[lo:hi]
    order = np.argsort(-s, kind="stable")  # the run is score-ordered already; ties as given
    f = unit[items[lo:hi][order]]
    span = s.max() - s.min()
    q = np.exp(0.5 * ((s[order] - s.min()) / span if span > 0 else np.ones(len(s))))  # theta 0.5: alpha = 1/2
    L = q[:, None] * (f @ f.T) * q[None, :]
    lists.append((users[lo], vocab[items[lo:hi][order][fast_greedy_map(L, k)]]))
write(out, lists, k)
"""


def same_lists(a: Path, b: Path) -> float:
    """Share of users whose list (items in rank order) is the same in the two TREC runs."""
    def lists(path: Path) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for line in path.read_text().splitlines():
            u, _, item, *_ = line.split()
            out.setdefault(u, []).append(item)
        return out

    x, y = lists(a), lists(b)
    return sum(x[u] == y.get(u) for u in x) / len(x)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="comma-separated names of RERANKERS (default all)")
    ap.add_argument("-k", type=int, default=100)
    ap.add_argument("--users", type=int, default=6040, help="users of the run (a smaller seeded file: a trial)")
    args = ap.parse_args(argv)
    files = make_files(n_users=args.users, depth=N)
    run, aspects = files["run.txt"], files["aspects.tsv"]
    groups = run.with_name("groups-g0.tsv")
    if not groups.exists():
        groups.write_text("".join(f"{line.split()[0]}\tprotected\n" for line in aspects.read_text().splitlines()
                                  if line.split()[1] == "g0"))
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    only = None if args.only is None else set(args.only.split(","))
    print(f"files: {run} ({CACHE}); repeat {args.repeat}; before: {load()}", flush=True)
    print("| reranker | tool | wall s | CPU s | peak MB | same lists as recdiv | recdiv / peer: wall (CPU) |\n"
          "|---|---|---:|---:|---:|---:|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        scripts = {}
        for name, text in (("pyversity", PYVERSITY), ("chen", CHEN)):
            scripts[name] = Path(tmp) / f"peer_{name}.py"  # not pyversity.py: it would import itself
            scripts[name].write_text(text)
        for name, (params, pyv) in RERANKERS.items():
            if only is not None and name not in only:
                continue
            method = name.split("(")[0]
            ours = Path(tmp) / f"{name}.run"
            out = ours if method != "PlackettLuce" else Path(tmp) / "pl"  # a folder only when samples > 1
            cmd = [PY, "-m", "recdiv", "rerank", str(run), "--method", method, "--aspects", str(aspects),
                   "-k", str(args.k), "-o", str(out), *(a for k, v in params.items() for a in ("--param", f"{k}={v}"))]
            if method == "FAIR":
                cmd += ["--item-groups", str(groups)]
            wall, cpu, peak = measure(cmd, args.repeat, env)
            print(f"| {name} | recdiv | {wall:.2f} | {cpu:.2f} | {peak:.0f} | | |", flush=True)
            peers = []
            if pyv is not None:
                peers.append(("Pyversity 0.2", [PY, str(scripts["pyversity"]), str(run), str(aspects), "{out}",
                                                pyv[0], str(D), str(args.k), repr(pyv[1])]))
            if name == "DPP(default)":
                peers.append(("Chen et al. 2018 (NumPy)", [PY, str(scripts["chen"]), str(run), str(aspects),
                                                           "{out}", str(args.k)]))
            for who, peer in peers:
                theirs = Path(tmp) / f"{name}-{who.split()[0]}.run"
                pwall, pcpu, ppeak = measure([a.replace("{out}", str(theirs)) for a in peer], args.repeat, env)
                print(f"| {name} | {who} | {pwall:.2f} | {pcpu:.2f} | {ppeak:.0f} | {same_lists(theirs, ours):.3f} "
                      f"| {wall / pwall:.3f} ({cpu / pcpu:.3f}) |", flush=True)
    print(f"\nafter: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
