"""`recdiv explore` as a browser sees it: whole-request latency of control changes, the trade-off curve, the
server's memory, and a lab of 30 concurrent sessions on loopback.

The server runs as its own process (`recdiv explore DATASET --no-browser --port P`); a client sends the requests
the page sends (GET /api/view?STATE after a control change, GET /api/curve?STATE for the chart) over HTTP/1.1
keep-alive connections and times each from the first byte sent to the last byte received. Each control change is
a state the server has not computed before (a new λ of configuration A or B, a new k), except user changes, which
reuse the lists (as in the page). The server's memory is its peak resident set (VmHWM of /proc).

Lab: 30 sessions (threads, one connection each) each make 12 control changes of their own (seeded: λ of A or B,
the user, the reranker of B) with 0.5–2 s of thinking between them, all at once on one 2-core machine; every
answer must hold the state that was asked (sessions do not see each other's choices) and the same numbers as the
same state asked alone afterwards. Bounded: 30 × 12 requests, stops by itself.

Usage: .venv/bin/python bench/bench_explore.py [--datasets ml-100k ml-latest-small] [--changes 40]
       [--sessions 30] [--no-lab]   (RECDIV_DATA or ../shared/data must hold the datasets)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
SPLIT = "holdout:0.2"  # every ML-100K user has test ratings: 943 judged users
MEASURES = ["nDCG@10", "EPC@10", "ILD@10", "alpha-nDCG@10"]


def state(dataset: str, *, n: int = 500, k: int = 10, a_lambda: float = 0.5, b: str = "xQuAD",
          b_lambda: float | None = 0.5, user: str | None = None, a_norm: str | None = None) -> str:
    pairs = [("dataset", dataset), ("split", SPLIT), ("population", "judged"), ("rec", "user-knn"), ("n", n),
             ("k", k), *(("m", m) for m in MEASURES), ("a", "MMR"), ("a.lambda", a_lambda)]
    if a_norm:
        pairs.append(("a.norm", a_norm))
    if b:
        pairs.append(("b", b))
        if b_lambda is not None:
            pairs.append(("b.lambda", b_lambda))
    else:
        pairs.append(("b", "none"))
    if user is not None:
        pairs.append(("user", user))
    return urlencode(pairs)


class Client:
    """One keep-alive connection; `get` returns (seconds, status, JSON body)."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

    def get(self, path: str) -> tuple[float, int, dict]:
        t0 = time.perf_counter()
        self.conn.request("GET", path)
        r = self.conn.getresponse()
        body = r.read()
        return time.perf_counter() - t0, r.status, json.loads(body) if body else {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(dataset: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    exe = Path(sys.executable).with_name("recdiv")
    proc = subprocess.Popen([str(exe), "explore", dataset, "--no-browser", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the explorer did not start: {proc.stderr.read()[-2000:]}")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summary(xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return f"median {statistics.median(xs) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {xs[-1] * 1000:.0f} ms " \
           f"({len(xs)} requests)"


def bench_dataset(dataset: str, changes: int) -> dict:
    proc, port = start(dataset)
    try:
        c = Client(port)
        t, status, body = c.get("/api/view?" + state(dataset))
        assert status == 200, body
        first = t
        users = [u[0] for u in body["users"]]
        rng = random.Random(0)
        lam, user_t, k_t = [], [], []
        for i in range(changes):  # new λ of A: rerank A over every user, its measures, the comparison
            t, status, body = c.get("/api/view?" + state(dataset, a_lambda=round(0.02 + 0.96 * (i + 0.5) / changes, 4)))
            assert status == 200, body
            lam.append(t)
        for _ in range(changes):
            t, status, body = c.get("/api/view?" + state(dataset, user=rng.choice(users)))
            assert status == 200, body
            user_t.append(t)
        for k in (5, 15, 20):
            t, status, body = c.get("/api/view?" + state(dataset, k=k, b_lambda=0.3))
            assert status == 200, body
            k_t.append(t)
        curves = []
        for norm in ("rank", "max", "sum"):  # MMR over λ with a new score normalisation: 11 new reranked runs
            t, status, body = c.get("/api/curve?" + state(dataset, b="", a_norm=norm))
            assert status == 200 and len(body["points"]["A"]) == 11, body
            curves.append(t)
        both = c.get("/api/curve?" + state(dataset, a_norm="rank", b_lambda=0.2))[0]  # + xQuAD's 11 points
        return {"dataset": dataset, "first view (load, fit)": first, "lambda": lam, "user": user_t, "k": k_t,
                "curve": curves, "curve A+B": both, "users": len(users), "peak MB": peak_rss_mb(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def lab(dataset: str, sessions: int, changes: int) -> dict:
    proc, port = start(dataset)
    try:
        c = Client(port)
        _, status, body = c.get("/api/view?" + state(dataset, n=100))
        assert status == 200, body
        users = [u[0] for u in body["users"]]
        latencies: list[float] = []
        problems: list[str] = []
        answers: dict[str, float] = {}
        lock = threading.Lock()

        def session(i: int) -> None:
            rng = random.Random(1000 + i)
            cl = Client(port)
            for _ in range(changes):
                time.sleep(rng.uniform(0.5, 2.0))
                s = state(dataset, n=100, a_lambda=round(rng.uniform(0, 1), 2), b=rng.choice(["xQuAD", "PM2"]),
                          b_lambda=round(rng.uniform(0, 1), 2), user=rng.choice(users))
                try:
                    t, status, body = cl.get("/api/view?" + s)
                except (OSError, http.client.HTTPException) as e:
                    with lock:
                        problems.append(f"session {i}: {e}")
                    cl = Client(port)
                    continue
                with lock:
                    latencies.append(t)
                    if status != 200:
                        problems.append(f"session {i}: {status} {body}")
                        continue
                    asked = dict(p.split("=", 1) for p in s.split("&") if p.startswith(("a.lambda", "b.lambda",
                                                                                         "user")))
                    got = dict(p.split("=", 1) for p in body["state"].split("&") if p.startswith(
                        ("a.lambda", "b.lambda", "user")))
                    if asked != got:
                        problems.append(f"session {i}: asked {asked}, answered {got}")
                    answers[s] = _a_ndcg(body)

        threads = [threading.Thread(target=session, args=(i,)) for i in range(sessions)]
        t0 = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t0
        alone = Client(port)  # the same states asked one at a time: the same numbers
        sample = random.Random(7).sample(sorted(answers), min(40, len(answers)))
        differ = sum(_a_ndcg(alone.get("/api/view?" + s)[2]) != answers[s] for s in sample)
        return {"latencies": latencies, "problems": problems, "wall": wall, "checked": len(sample),
                "differ": differ, "peak MB": peak_rss_mb(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _a_ndcg(body: dict) -> float:
    return next(r["mean"] for r in body["population"]["rows"] if r["system"] == "A" and r["measure"] == "nDCG@10")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["ml-100k", "ml-latest-small"])
    ap.add_argument("--changes", type=int, default=40)
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--lab-changes", type=int, default=12)
    ap.add_argument("--no-lab", action="store_true")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
    for d in args.datasets:
        r = bench_dataset(d, args.changes)
        print(f"\n{d} ({SPLIT}, {r['users']} users × 500 candidates → 10; user-knn; A = MMR, B = xQuAD; "
              f"{', '.join(MEASURES)}):")
        print(f"  first view (load dataset, fit): {r['first view (load, fit)']:.2f} s")
        print(f"  change λ of A:  {summary(r['lambda'])}")
        print(f"  change user:    {summary(r['user'])}")
        print(f"  change k:       {summary(r['k'])}")
        print(f"  11-point curve of A (MMR), all users: {summary(r['curve'])}; A and B (22 points): "
              f"{r['curve A+B']:.2f} s")
        print(f"  server peak memory: {r['peak MB']:.0f} MB; load average now {os.getloadavg()[0]:.1f}")
    if not args.no_lab:
        d = args.datasets[0]
        r = lab(d, args.sessions, args.lab_changes)
        print(f"\nlab: {args.sessions} sessions × {args.lab_changes} control changes at once on {d} (n = 100), "
              f"think time 0.5–2 s: {summary(r['latencies'])}; wall {r['wall']:.0f} s; "
              f"{len(r['problems'])} problems; {r['differ']} of {r['checked']} answers differ when asked alone; "
              f"server peak {r['peak MB']:.0f} MB; load average now {os.getloadavg()[0]:.1f}")
        for p in r["problems"][:10]:
            print("  ", p)


if __name__ == "__main__":
    main()
