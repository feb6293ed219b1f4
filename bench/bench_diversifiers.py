"""Benchmark: every reranker on 6,040 users × 500 candidates → 100, 18 aspects (synthetic, ML-1M-sized).

Peer: the straightforward per-user Python loop of the same objective (recdiv.diversifiers.reference), run in the same
process on a subsample of users and extrapolated linearly to all users. Reference figures (RankSys 0.4.3, 2 cores):
MMR 23.6 s, xQuAD 69.7 s. Usage: .venv/bin/python bench/bench_diversifiers.py [--users 6040] [--peer-users 3]
"""

from __future__ import annotations

import argparse
import time

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
           ("Random", {"seed": 0})]


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
    return Rankings(np.arange(n_users), cand, scores, users, items), RerankContext(train=train, aspects=space)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--peer-users", type=int, default=2)
    ap.add_argument("-k", type=int, default=100)
    args = ap.parse_args()
    cands, ctx = synthetic(args.users)
    ctx.user_distribution("count"), ctx.user_distribution("fractional"), ctx.item_novelty("IUF")  # shared caches
    sub = cands.for_users(np.arange(args.peer_users))
    envs = user_envs(sub, ctx)
    print(f"{args.users} users × {cands.k} candidates → {args.k}, {ctx.aspects.n_aspects} aspects")
    print("| reranker | recdiv wall s | recdiv CPU s | per-user loop, extrapolated (s) | speed-up (wall) "
          "| same lists on subsample |")
    print("|---|---|---|---|---|---|")
    make_reranker("MMR").rerank(sub, args.k, ctx)  # load the compiled kernels before timing
    for name, params in METHODS:
        rr = make_reranker(name, **params)
        t0, c0 = time.perf_counter(), time.process_time()
        out = rr.rerank(cands, args.k, ctx)
        t_vec, c_vec = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        same = True
        for r, env in enumerate(envs):
            pos = reference_rerank(name, params, sub.items[r].tolist(), sub.scores[r].tolist(), args.k, env)
            same &= out.items[r].tolist() == sub.items[r][pos].tolist()
        t_peer = (time.perf_counter() - t0) / args.peer_users * args.users
        label = name + (f"({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")
        print(f"| {label} | {t_vec:.2f} | {c_vec:.2f} | {t_peer:,.0f} | {t_peer / t_vec:,.0f}× | {same} |",
              flush=True)


if __name__ == "__main__":
    main()
