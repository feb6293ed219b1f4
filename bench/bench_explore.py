"""`recdiv explore` as a browser sees it: whole-request latency of control changes, the trade-off curve, the
server's memory and CPU time, and a lab of 30 concurrent sessions on loopback.

The server runs as its own process (`recdiv explore DATASET --no-browser --port P`); a client sends the requests
the page sends (GET /api/view?STATE after a control change, GET /api/curve?STATE for the chart, each with the
page's session id) over HTTP/1.1 keep-alive connections and times each from the first byte sent to the last byte
received. Each control change is a state the server has not computed before (a new λ of A, a new k or n, another
reranker for B, another measure), except user changes, which reuse the lists (as in the page). For each kind of
change the server's CPU time (user + system of its process, /proc/PID/stat) per request is printed next to the
wall times, and the load average around it: on a busy machine the CPU time is the steadier figure. The server's
memory is its peak resident set (VmHWM of /proc).

Lab: 30 sessions (threads, one connection each) each make 12 control changes of their own (seeded: λ of A and B,
B's reranker, the user) with 0.5–2 s of thinking between them, all at once on one 2-core machine; after each view
a session asks for the curve as the page does. Every answer must hold the state that was asked (sessions do not see
each other's choices) and the same numbers as the same state asked alone afterwards. The explorer's
`Server-Timing` header splits each answer's time on the server into waiting for a compute thread (queue) and
computing (compute); the rest of the wall time is the HTTP exchange and the client's own threads. Bounded: 30 × 12 × 2
requests, stops by itself.

Usage (one command; RECDIV_DATA or ../shared/data must hold the datasets):
    .venv/bin/python bench/bench_explore.py [--datasets ml-100k ml-latest-small] [--changes 20]
                                            [--sessions 30] [--lab-changes 12] [--no-lab]
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
          b_lambda: float | None = 0.5, user: str | None = None, a_norm: str | None = None,
          extra: str | None = None) -> str:
    measures = [m.replace("@10", f"@{k}") for m in MEASURES] + ([extra] if extra else [])
    pairs = [("dataset", dataset), ("split", SPLIT), ("population", "judged"), ("rec", "user-knn"), ("n", n),
             ("k", k), *(("m", m) for m in measures), ("a", "MMR"), ("a.lambda", a_lambda)]
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
    """One keep-alive connection of one page (its session id); `get` returns (seconds, status, JSON body)."""

    def __init__(self, port: int, session: str | None = None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        self.session = session or os.urandom(6).hex()
        self.retries = 0
        self.timing: dict[str, float] = {}

    def get(self, path: str) -> tuple[float, int, dict]:
        if path.startswith("/api/"):
            path += f"&session={self.session}"
        t0 = time.perf_counter()
        try:
            self.conn.request("GET", path)
            r = self.conn.getresponse()
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            # the server closed the idle connection as the request went out: a browser sends it again on a new one
            self.retries += 1
            self.conn.close()
            self.conn.request("GET", path)
            r = self.conn.getresponse()
        body = r.read()
        self.timing = server_timing(r.getheader("Server-Timing") or "")
        return time.perf_counter() - t0, r.status, json.loads(body) if body else {}


def server_timing(header: str) -> dict[str, float]:
    """{"queue": s, "compute": s} of the explorer's Server-Timing header (seconds)."""
    out = {}
    for part in header.split(","):
        name, _, dur = part.strip().partition(";dur=")
        if dur:
            out[name] = float(dur) / 1000
    return out


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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Phase:
    """Wall times of a kind of request, the server's CPU time over them, the load average around them."""

    def __init__(self, pid: int):
        self.pid = pid
        self.times: list[float] = []
        self.cpu0, self.load0 = cpu_seconds(pid), os.getloadavg()[0]

    def add(self, t: float) -> None:
        self.times.append(t)

    def done(self) -> Phase:
        self.cpu = cpu_seconds(self.pid) - self.cpu0
        self.load1 = os.getloadavg()[0]
        return self

    def __str__(self) -> str:
        return f"{summary(self.times)}; server CPU {1000 * self.cpu / len(self.times):.0f} ms a request; " \
               f"load {self.load0:.1f}→{self.load1:.1f}"


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
        out: dict = {"dataset": dataset, "first view (load, fit)": first, "users": len(users)}

        def phase(name: str, paths: list[str], check=None) -> None:
            ph = Phase(proc.pid)
            for path in paths:
                t, status, body = c.get(path)
                assert status == 200 and (check is None or check(body)), body
                ph.add(t)
            out[name] = ph.done()

        # new λ of A: rerank A over every user, its measures, its intervals and tests
        phase("lambda", ["/api/view?" + state(dataset, a_lambda=round(0.02 + 0.96 * (i + 0.5) / changes, 4))
                         for i in range(changes)])
        phase("user", ["/api/view?" + state(dataset, user=rng.choice(users)) for _ in range(changes)])
        phase("k", ["/api/view?" + state(dataset, k=k, b_lambda=0.3) for k in (5, 15, 20)])
        phase("n", ["/api/view?" + state(dataset, n=n) for n in (200, 300, 400)])
        phase("reranker", ["/api/view?" + state(dataset, b=b, b_lambda=None) for b in ("PM2", "DPP", "Calibrated")])
        phase("measure", ["/api/view?" + state(dataset, extra=m) for m in ("P@10", "S-recall@10", "EILD@10")])
        # MMR over λ with a new score normalisation: 11 new reranked runs
        phase("curve", ["/api/curve?" + state(dataset, b="", a_norm=norm) for norm in ("rank", "max", "sum")],
              lambda body: len(body["points"]["A"]) == 11)
        # B = xQuAD's 11 points over a new candidate depth: first A's curve, then both (as the page asks)
        phase("curve A first", ["/api/curve?" + state(dataset, n=450) + "&only=A"])
        phase("curve A+B", ["/api/curve?" + state(dataset, n=450)])
        out["peak MB"] = peak_rss_mb(proc.pid)
        return out
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
        views: list[float] = []
        curves: list[float] = []
        problems: list[str] = []
        answers: dict[str, dict] = {}
        retried: list[int] = []
        spent: dict[str, list[float]] = {k: [] for k in ("view queue", "view compute", "curve queue",
                                                           "curve compute")}
        lock = threading.Lock()

        def ask(i: int, cl: Client, path: str) -> tuple[float, int, dict] | None:
            try:
                return cl.get(path)
            except (OSError, http.client.HTTPException) as e:
                with lock:
                    problems.append(f"session {i}: {e}")
                return None

        def session(i: int) -> None:
            rng = random.Random(1000 + i)
            cl = Client(port)
            for _ in range(changes):
                time.sleep(rng.uniform(0.5, 2.0))
                s = state(dataset, n=100, a_lambda=round(rng.uniform(0, 1), 2), b=rng.choice(["xQuAD", "PM2"]),
                          b_lambda=round(rng.uniform(0, 1), 2), user=rng.choice(users))
                got = ask(i, cl, "/api/view?" + s)
                if got is None:
                    cl = Client(port)
                    continue
                t, status, body = got
                with lock:
                    views.append(t)
                    spent["view queue"].append(cl.timing.get("queue", 0.0))
                    spent["view compute"].append(cl.timing.get("compute", 0.0))
                    if status != 200:
                        problems.append(f"session {i}: {status} {body}")
                        continue
                    if _keys(s) != _keys(body["state"]):
                        problems.append(f"session {i}: asked {_keys(s)}, answered {_keys(body['state'])}")
                    answers[s] = _shown(body)
                ask(i, cl, "/api/curve?" + s + "&only=A")  # the page asks for A's curve, then both
                got = ask(i, cl, "/api/curve?" + s)
                if got is None:
                    cl = Client(port)
                    continue
                with lock:
                    curves.append(got[0])
                    spent["curve queue"].append(cl.timing.get("queue", 0.0))
                    spent["curve compute"].append(cl.timing.get("compute", 0.0))
                    if got[1] != 200:
                        problems.append(f"session {i}: curve {got[1]} {got[2]}")
            with lock:
                retried.append(cl.retries)

        threads = [threading.Thread(target=session, args=(i,)) for i in range(sessions)]
        cpu0, load0 = cpu_seconds(proc.pid), os.getloadavg()[0]
        t0 = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t0
        cpu, load1 = cpu_seconds(proc.pid) - cpu0, os.getloadavg()[0]
        alone = Client(port)  # the same states asked one at a time: the same lists and numbers
        sample = random.Random(7).sample(sorted(answers), min(40, len(answers)))
        differ = sum(_shown(alone.get("/api/view?" + s)[2]) != answers[s] for s in sample)
        dropped = alone.get("/api/jobs?x=1")[2].get("dropped", 0)
        return {"views": views, "curves": curves, "problems": problems, "wall": wall, "checked": len(sample),
                "differ": differ, "peak MB": peak_rss_mb(proc.pid), "cpu": cpu, "load": (load0, load1),
                "dropped": dropped, "retried": sum(retried), "spent": spent}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _keys(query: str) -> dict[str, str]:
    return dict(p.split("=", 1) for p in query.split("&") if p.startswith(("a.lambda", "b.lambda", "b=", "user")))


def _shown(body: dict) -> tuple:
    """What a view shows of the population and the user (its lists and values)."""
    return json.dumps(body["population"], sort_keys=True), json.dumps(body["user"], sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["ml-100k", "ml-latest-small"])
    ap.add_argument("--changes", type=int, default=20)
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
        print(f"  change λ of A:      {r['lambda']}")
        print(f"  change user:        {r['user']}")
        print(f"  change k:           {r['k']}")
        print(f"  change n:           {r['n']}")
        print(f"  change B's reranker: {r['reranker']}")
        print(f"  add a measure:      {r['measure']}")
        print(f"  11-point curve of A (MMR), all users: {r['curve']}")
        print(f"  new candidates (n = 450): A's curve {r['curve A first']}")
        print(f"    then the curve of A and B (xQuAD's 11 points new): {r['curve A+B']}")
        print(f"  server peak memory: {r['peak MB']:.0f} MB")
    if not args.no_lab:
        d = args.datasets[0]
        r = lab(d, args.sessions, args.lab_changes)
        print(f"\nlab: {args.sessions} sessions × {args.lab_changes} control changes at once on {d} (n = 100), "
              f"think time 0.5–2 s, load {r['load'][0]:.1f}→{r['load'][1]:.1f}:")
        print(f"  views:  {summary(r['views'])}")
        print(f"  curves: {summary(r['curves'])}")
        for name, xs in r["spent"].items():
            if xs:
                print(f"  server side, {name}: {summary(xs)}")
        print(f"  wall {r['wall']:.0f} s; server CPU {r['cpu']:.1f} s ({r['cpu'] / r['wall']:.2f} cores); "
              f"{len(r['problems'])} problems; {r['differ']} of {r['checked']} answers differ when asked alone; "
              f"{r['dropped']} requests dropped (superseded); {r['retried']} sent again on a new connection; "
              f"server peak {r['peak MB']:.0f} MB")
        for p in r["problems"][:10]:
            print("  ", p)


if __name__ == "__main__":
    main()
