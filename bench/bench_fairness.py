"""Expected exposure with Plackett–Luce samples on an ML-1M-shaped workload, and AWRF / GroupExposure.

Workload: `bench_accuracy.workload` (6,040 users × top-100 lists over 3,706 items, ~165 judged items per user);
item groups: every item in one of 5 groups (skewed sizes). recdiv computes EE-L, EE-D and EE-R with 100
Plackett–Luce samples per user (softmax of the run's scores) at the cutoffs 100 and 20 — the three share one draw
per cutoff (the view's cache) — and AWRF, GroupExposure from the runs' rankings. Peer: a per-user loop with LensKit's
`StochasticTopNRanker` (the same Plackett–Luce sampling) drawing the 100 rankings and NumPy accumulating the
exposure, run on `--peer-users` users and extrapolated linearly.

    .venv/bin/python bench/bench_fairness.py [--users 6040] [--samples 100] [--peer-users 60]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp
from bench_accuracy import workload  # bench/ is the script's folder, first on sys.path

from recdiv.aspects.space import AspectSpace
from recdiv.data.vocab import Vocab
from recdiv.eval import EvalContext, parse_measures


def lenskit_peer(run, samples: int, n_users: int, k: int) -> float:
    """Seconds for `n_users` users: 100 LensKit Plackett–Luce rankings each, exposure γ^(rank−1) accumulated."""
    from lenskit.data import ItemList
    from lenskit.stochastic import StochasticTopNRanker

    ranker = StochasticTopNRanker(n=k, rng=0)
    w = 0.5 ** np.arange(k)
    t0 = time.perf_counter()
    for u in range(n_users):
        items = ItemList(item_ids=run.items[u], scores=run.scores[u])
        eps = {}
        for _ in range(samples):
            for r, i in enumerate(ranker(items).ids()):
                eps[i] = eps.get(i, 0.0) + w[r]
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--peer-users", type=int, default=60)
    args = ap.parse_args()
    run, qrels = workload(args.users)
    rng = np.random.default_rng(1)
    groups = rng.choice(5, size=len(run.item_vocab), p=[0.5, 0.25, 0.15, 0.07, 0.03])
    space = AspectSpace(run.item_vocab, Vocab([f"g{j}" for j in range(5)]),
                        sp.csr_matrix((np.ones(len(groups)), (np.arange(len(groups)), groups)), shape=(len(groups), 5)))
    S = args.samples
    print(f"{args.users} users × {run.k} items, {S} Plackett–Luce samples per user; load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print("| measures | recdiv wall s | recdiv CPU s | peer (LensKit per user, extrapolated) s |")
    print("|---|---|---|---|")
    for K in (100, 20):
        ms = parse_measures([f"EE-{t}(samples={S})@{K}" for t in "LDR"])
        ctx = EvalContext(threshold=4.0)
        for m in ms:  # warm the per-view caches and imports outside the timing
            m.per_user(run.for_users(np.arange(5)), qrels, EvalContext(threshold=4.0))
        t0, c0 = time.perf_counter(), time.process_time()
        for m in ms:
            m.value(run, qrels, ctx)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        peer = lenskit_peer(run, S, args.peer_users, K) / args.peer_users * args.users  # one draw gives all three
        print(f"| EE-L, EE-D, EE-R (samples={S})@{K} | {wall:.2f} | {cpu:.2f} | {peer:,.0f} |", flush=True)
    ms = parse_measures(["AWRF@100", "GroupExposure(group=g4)@100"])
    ctx = EvalContext(threshold=4.0, item_groups=space)
    t0, c0 = time.perf_counter(), time.process_time()
    for m in ms:
        m.value(run, qrels, ctx)
    print(f"| AWRF@100, GroupExposure@100 | {time.perf_counter() - t0:.2f} | {time.process_time() - c0:.2f} | — |")
    print("after: load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
