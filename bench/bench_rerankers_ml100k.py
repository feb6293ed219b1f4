"""Does every reranker's default move the list, and how do nDCG and α-nDCG trade off against λ? (ML-100K u1)

Candidates: the top-500 of a baseline at its defaults (user-knn, wrmf, pop) for every test user of split u1; aspects:
genres; lists reranked to k = 20. For each reranker at its defaults: the share of users whose top-20 differs from the
baseline's top-20 (order or content), the mean share of the baseline's top-20 items kept, ILD@20 (genre cosine) of
the baseline and of the reranked lists, nDCG@20 and α-nDCG@20 (relevance: test rating ≥ 4, users with a relevant
test item). Then a λ sweep (θ_F for Ziegler, θ for DPP) of each reranker with a trade-off parameter.
Results: docs/diversifiers.md ("Does the default move the list?", "λ sweep on ML-100K").

Usage: .venv/bin/python bench/bench_rerankers_ml100k.py [--data ../shared/data/ml-100k] [--baseline user-knn]
       [--no-sweep]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from recdiv.algorithms.registry import make_recommender
from recdiv.aspects.build import genre_space
from recdiv.data.movielens import load_ml100k
from recdiv.data.qrels import Qrels
from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.diversifiers.registry import RERANKERS
from recdiv.eval.context import EvalContext
from recdiv.eval.evaluate import evaluate

K = 20
N = 500
MEASURES = [f"nDCG@{K}", f"alpha-nDCG@{K}", f"ILD@{K}"]
#: the trade-off parameter of each reranker that has one, and its baseline value (the list is the baseline's)
TRADE_OFF = {"MMR": ("lambda", 1.0), "Ziegler": ("theta_F", 0.0), "xQuAD": ("lambda", 0.0), "NGD": ("lambda", 0.0),
             "PM2": ("lambda", None), "DPP": ("theta", 1.0), "Calibrated": ("lambda", 0.0)}
GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


def moved(base, out) -> tuple[float, float, float]:
    """Shares of users whose top-k list differs from the baseline's (order or items) and whose top-k items differ;
    mean share of the baseline's top-k items kept."""
    b, o = base.items[:, :K], out.items[:, :K]
    changed = float(np.mean((b != o).any(axis=1)))
    kept = np.array([len(np.intersect1d(x[x >= 0], y[y >= 0])) / max((x >= 0).sum(), 1) for x, y in zip(b, o)])
    return changed, float(np.mean(kept < 1)), float(np.mean(kept))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(os.environ.get("RECDIV_DATA", "../shared/data"), "ml-100k"))
    ap.add_argument("--baseline", action="append", help="baseline recommender(s) (default user-knn, wrmf, pop)")
    ap.add_argument("--no-sweep", action="store_true")
    args = ap.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f}")
    ds = load_ml100k(args.data)
    split = ds.splits["u1"]
    space = genre_space(ds)
    qrels = Qrels.from_interactions(split.test)
    users = np.unique(split.test.user_index)
    ectx = EvalContext(train=split.train, aspects=space)
    for name in args.baseline or ["user-knn", "wrmf", "pop"]:
        cands = make_recommender(name).fit(split.train).recommend(users, N)
        ctx = RerankContext(train=split.train, aspects=space)
        base = cands.truncate(K)
        bval = {m: float(np.mean(v)) for m, v in evaluate(base, qrels, MEASURES, ectx)["run"].items()}
        print(f"\n### {name} top-{N} → {K}: defaults\n")
        print(f"baseline: nDCG@{K} {bval[MEASURES[0]]:.4f}, α-nDCG@{K} {bval[MEASURES[1]]:.4f}, "
              f"ILD@{K} {bval[MEASURES[2]]:.4f}\n")
        print(f"| reranker (defaults) | users whose top-{K} changes | … whose top-{K} items change "
              f"| baseline items kept | ILD@{K} (Δ) | nDCG@{K} | α-nDCG@{K} | time (s) |")
        print("|---|---|---|---|---|---|---|---|")
        for method in RERANKERS:
            t0 = time.perf_counter()
            out = make_reranker(method).rerank(cands, K, ctx)
            dt = time.perf_counter() - t0
            val = {m: float(np.mean(v)) for m, v in evaluate(out, qrels, MEASURES, ectx)["run"].items()}
            changed, replaced, kept = moved(base, out)
            ild = val[MEASURES[2]]
            print(f"| {method} | {100 * changed:.1f} % | {100 * replaced:.1f} % | {100 * kept:.1f} % "
                  f"| {ild:.4f} ({ild - bval[MEASURES[2]]:+.4f}) | {val[MEASURES[0]]:.4f} | {val[MEASURES[1]]:.4f} "
                  f"| {dt:.1f} |", flush=True)
        if args.no_sweep:
            continue
        print(f"\n### {name} top-{N} → {K}: nDCG@{K} / α-nDCG@{K} against the trade-off parameter\n")
        print("| reranker | parameter | " + " | ".join(f"{g:g}" for g in GRID) + " |")
        print("|---|---|" + "---|" * len(GRID))
        for method, (param, _) in TRADE_OFF.items():
            cells = []
            for g in GRID:
                out = make_reranker(method, **{param: g}).rerank(cands, K, ctx)
                val = evaluate(out, qrels, MEASURES[:2], ectx)["run"]
                cells.append(f"{np.mean(val[MEASURES[0]]):.3f} / {np.mean(val[MEASURES[1]]):.3f}")
            print(f"| {method} | {param} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nload: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
