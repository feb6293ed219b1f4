"""Benchmark: every reranker on 6,040 users × 500 candidates → 100, 18 aspects (synthetic, ML-1M-sized).

Peer: the straightforward per-user Python loop of the same objective (recdiv.diversifiers.reference), run in the same
process on a subsample of users and extrapolated linearly to all users; for MSD, SSD, COVER and DPP also Pyversity
0.2's per-user functions on the same candidates (item vectors: the 0/1 aspect rows, whose cosine is the set cosine;
raw scores), extrapolated the same way. Reference figures (RankSys 0.4.3, 2 cores): MMR 23.6 s, xQuAD 69.7 s.
Usage: .venv/bin/python bench/bench_diversifiers.py [--users 6040] [--peer-users 3] [--only NAME,NAME]
recdiv CPU s is the process time of both threads (user blocks run in 2 threads); the load average is printed
before and after (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.diversifiers.reference import reference_rerank
from recdiv.diversifiers.reference import user_environments as user_envs

METHODS = [("MMR", {}), ("MMR", {"variant": "ranksys"}), ("Ziegler", {}), ("IASelect", {}), ("xQuAD", {}),
           ("xQuAD", {"norm": "zscore"}), ("NGD", {}), ("PM2", {}), ("DPP", {}), ("Calibrated", {}),
           ("Random", {"seed": 0}), ("PlackettLuce", {}), ("FAIR", {}), ("MSD", {}), ("SSD", {}), ("COVER", {}),
           ("Swap", {})]
PYVERSITY = {"MSD": "msd", "SSD": "ssd", "COVER": "cover", "DPP": "dpp"}


def synthetic(n_users: int, n_items: int = 3700, n_aspects: int = 18, N: int = 500, seed: int = 0):
    rng = np.random.default_rng(seed)
    users, items = Vocab(np.arange(n_users)), Vocab(np.arange(n_items))
    # 1–3 aspects per item (ML-1M genres: 1.65 on average), aspect popularity skewed
    m = rng.choice([1, 1, 2, 2, 3], size=n_items)
    pa = 1.0 / np.arange(1, n_aspects + 1)
    rows, cols = [], []
    for i in range(n_items):
        a = rng.choice(n_aspects, size=m[i], replace=False, p=pa / pa.sum())
        rows += [i] * len(a)
        cols += a.tolist()
    memb = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_items, n_aspects))
    space = AspectSpace(items, Vocab([f"g{j}" for j in range(n_aspects)]), memb)
    per_user = 60
    u = np.repeat(np.arange(n_users), per_user)
    i = np.concatenate([rng.choice(n_items, per_user, replace=False) for _ in range(n_users)])
    train = Interactions.from_arrays(u, i, rng.integers(1, 6, len(u)).astype(float), users, items)
    cand = np.argsort(rng.random((n_users, n_items)), axis=1)[:, :N]
    scores = -np.sort(-rng.gamma(2.0, 1.0, size=(n_users, N)), axis=1)
    protected = rng.random(n_items) < 0.3  # FA*IR's group
    groups = AspectSpace(items, Vocab(["protected"]), sp.csr_matrix(protected[:, None].astype(np.float64)))
    return Rankings(np.arange(n_users), cand, scores, users, items), RerankContext(train=train, aspects=space,
                                                                                   item_groups=groups)


def pyversity_seconds(strategy: str, cands: Rankings, space: AspectSpace, k: int) -> float:
    """Seconds of Pyversity's per-user function over the users of `cands` (0/1 aspect rows as item vectors)."""
    import pyversity

    vectors = space.dense()
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # Pyversity's DPP divides by ~0 once the 18-dimensional span is exhausted
        warnings.simplefilter("ignore", RuntimeWarning)
        for r in range(len(cands)):
            items = cands.items[r][cands.items[r] >= 0]
            pyversity.diversify(vectors[items], cands.scores[r][: len(items)], k, strategy=strategy, diversity=0.5)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--peer-users", type=int, default=2)
    ap.add_argument("-k", type=int, default=100)
    ap.add_argument("--only", default=None, help="comma-separated reranker names to run (default all)")
    args = ap.parse_args()
    cands, ctx = synthetic(args.users)
    ctx.user_distribution("count"), ctx.user_distribution("fractional"), ctx.item_novelty("IUF")  # shared caches
    sub = cands.for_users(np.arange(args.peer_users))
    envs = user_envs(sub, ctx)
    print(f"{args.users} users × {cands.k} candidates → {args.k}, {ctx.aspects.n_aspects} aspects; {load()}")
    print("| reranker | recdiv wall s | recdiv CPU s | per-user loop, extrapolated (s) | speed-up (wall) "
          "| same lists on subsample | Pyversity per user, extrapolated (s) |")
    print("|---|---|---|---|---|---|---|")
    only = None if args.only is None else set(args.only.split(","))
    for name, params in METHODS:
        if only is not None and name not in only:
            continue
        rr = make_reranker(name, **params)
        rr.rerank(sub, args.k, ctx)  # load this reranker's compiled kernels before timing
        t0, c0 = time.perf_counter(), time.process_time()
        out = rr.rerank(cands, args.k, ctx)
        t_vec, c_vec = time.perf_counter() - t0, time.process_time() - c0
        peer, same = "—", "—"
        try:
            t0 = time.perf_counter()
            same = True
            for r, env in enumerate(envs):
                pos = reference_rerank(name, params, sub.items[r].tolist(), sub.scores[r].tolist(), args.k, env)
                same &= out.items[r].tolist() == sub.items[r][pos].tolist()
            t_peer = (time.perf_counter() - t0) / args.peer_users * args.users
            peer = f"{t_peer:,.0f} | {t_peer / t_vec:,.0f}×"
        except NotImplementedError:  # no per-user reference loop for this reranker (its oracle is another library)
            peer, same = "— | —", "—"
        pyv = "—"
        if name in PYVERSITY:
            pyv = f"{pyversity_seconds(PYVERSITY[name], sub, ctx.aspects, args.k) / args.peer_users * args.users:,.0f}"
        label = name + (f"({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")
        print(f"| {label} | {t_vec:.2f} | {c_vec:.2f} | {peer} | {same} | {pyv} |", flush=True)
    print(f"after: {load()}")


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
