"""Accuracy metrics speed: recdiv vs pytrec_eval, ranx and ir_measures on an ML-1M-shaped workload, and
recdiv's scaling in the number of users.

Workload (synthetic, seeded): 6,040 users × top-100 lists over 3,706 items, ~165 judged test items per user
with grades 1–5 (ML-1M-like distribution), about a third of each list drawn from the user's judged items.
Measures computed together: P@100, Recall@100, AP@100 (map_cut_100), nDCG@100 (ndcg_cut_100), RR (recip_rank).
Each library starts from its own in-memory input form (recdiv: Rankings + Qrels; pytrec_eval, ranx,
ir_measures: dicts of dicts) and the timing includes everything after that (evaluator construction, shared
lookups, all five measures). Best of `--repeat` runs; libraries warmed up once (numba compilation excluded).

    .venv/bin/python bench/bench_accuracy.py [--repeat 5] [--scaling 10000,100000,1000000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import scipy.sparse as sp

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.eval import EvalContext, parse_measures

MEASURES = ["P@100", "Recall@100", "AP@100", "nDCG@100", "RR"]
TREC = {"P@100": "P_100", "Recall@100": "recall_100", "AP@100": "map_cut_100", "nDCG@100": "ndcg_cut_100",
        "RR": "recip_rank"}
GRADE_P = [0.06, 0.11, 0.26, 0.35, 0.22]  # ML-1M rating distribution (1..5)


def workload(n_users: int, n_items: int = 3706, k: int = 100, judged: int = 165, seed: int = 0):
    """Rankings and Qrels (dense ids) of the synthetic workload; vectorised, no loop over users."""
    rng = np.random.default_rng(seed)
    # judged + k distinct items per user: an arithmetic progression mod n_items with a step coprime to n_items
    steps = np.array([s for s in range(1, 2000) if math.gcd(s, n_items) == 1])
    start = rng.integers(0, n_items, n_users)[:, None]
    step = rng.choice(steps, n_users)[:, None]
    cols = (start + step * np.arange(judged + k)) % n_items
    jcols = np.sort(cols[:, :judged], axis=1)
    grades = rng.choice(np.arange(1.0, 6.0), size=(n_users, judged), p=GRADE_P)
    indptr = np.arange(0, n_users * judged + 1, judged, dtype=np.int64)
    m = sp.csr_matrix((grades.ravel(), jcols.ravel().astype(np.int32), indptr), shape=(n_users, n_items))
    # ranked lists: ~1/3 judged items, 2/3 other items, shuffled
    n_hit = k // 3
    items = np.concatenate([cols[:, :n_hit], cols[:, judged : judged + k - n_hit]], axis=1)
    items = np.take_along_axis(items, np.argsort(rng.random(items.shape), axis=1), axis=1).astype(np.int64)
    scores = np.sort(rng.random(items.shape))[:, ::-1].copy()
    users, item_vocab = Vocab(np.arange(n_users)), Vocab(np.arange(n_items))
    return Rankings(np.arange(n_users), items, scores, users, item_vocab), Qrels(users, item_vocab, m)


def as_dicts(run: Rankings, qrels: Qrels):
    q = {}
    m = qrels.matrix
    for u in range(m.shape[0]):
        lo, hi = m.indptr[u], m.indptr[u + 1]
        q[str(u)] = {str(i): int(g) for i, g in zip(m.indices[lo:hi], m.data[lo:hi])}
    r = {str(u): {str(i): float(s) for i, s in zip(it, sc)} for u, it, sc in zip(run.users, run.items, run.scores)}
    return q, r


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def recdiv_means(run, qrels, measures=tuple(MEASURES)):
    ctx = EvalContext()  # fresh: no cached lookups
    return {str(m): m.value(run, qrels, ctx) for m in parse_measures(measures)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scaling", default="10000,100000,1000000", help="user counts for the scaling table ('' = skip)")
    args = ap.parse_args()

    run, qrels = workload(6040)
    qd, rd = as_dicts(run, qrels)
    recdiv_means(run, qrels)  # warm-up (numba kernels load from cache)
    rows = []
    t, ours = best(lambda: recdiv_means(run, qrels), args.repeat)
    rows.append(("recdiv", t, ours))

    import pytrec_eval

    def trec():
        ev = pytrec_eval.RelevanceEvaluator(qd, {"P.100", "recall.100", "map_cut.100", "ndcg_cut.100", "recip_rank"},
                                            relevance_level=4)
        res = ev.evaluate(rd)
        return {m: float(np.mean([res[u][tm] for u in res if any(g >= 4 for g in qd[u].values())]))
                for m, tm in TREC.items()}

    t, vals = best(trec, args.repeat)
    rows.append(("pytrec_eval", t, vals))

    try:
        import ranx

        rq = {u: {i: g for i, g in d.items() if g >= 4} for u, d in qd.items()}  # ranx: positive grades = relevant
        rq = {u: d for u, d in rq.items() if d}
        ranx_qrels, ranx_run = ranx.Qrels(rq), ranx.Run({u: rd[u] for u in rq})
        names = ["precision@100", "recall@100", "map@100", "ndcg@100", "mrr"]
        ranx.evaluate(ranx_qrels, ranx_run, names)  # numba warm-up

        def ranx_eval():  # ranx's in-memory form is Qrels + Run (built above, outside the timing)
            out = ranx.evaluate(ranx_qrels, ranx_run, names)
            return dict(zip(MEASURES, (float(out[n]) for n in names)))

        t, vals = best(ranx_eval, args.repeat)
        rows.append(("ranx (binary qrels)", t, vals))
    except ImportError:
        pass

    try:
        import ir_measures
        from ir_measures import AP, RR, P, R, nDCG

        irm = [P(rel=4) @ 100, R(rel=4) @ 100, AP(rel=4) @ 100, nDCG @ 100, RR(rel=4)]
        rel_users = {u for u, d in qd.items() if any(g >= 4 for g in d.values())}

        def irm_eval():
            acc = {str(m): [] for m in irm}
            for m in ir_measures.iter_calc(irm, {u: qd[u] for u in rel_users}, rd):
                acc[str(m.measure)].append(m.value)
            return dict(zip(MEASURES, (float(np.mean(v)) for v in acc.values())))

        t, vals = best(irm_eval, max(1, args.repeat // 2))
        rows.append(("ir_measures", t, vals))
    except ImportError:
        pass

    print(f"ML-1M-shaped workload: {len(run)} users x top-{run.k}, {qrels.matrix.nnz / len(run):.0f} judged/user")
    print(f"{'library':<22}{'seconds':>9}{'vs recdiv':>11}   " + "  ".join(f"{m:>10}" for m in MEASURES))
    for name, t, vals in rows:
        print(f"{name:<22}{t:9.4f}{t / rows[0][1]:10.1f}x   " + "  ".join(f"{vals[m]:10.6f}" for m in MEASURES))
    diff = max(abs(rows[0][2][m] - rows[1][2][m]) for m in MEASURES)
    print(f"max |recdiv - pytrec_eval| over the five means: {diff:.2e}")

    if args.scaling:
        print("\nscaling (top-20 lists, 40 judged items per user, 20,000 items; same five measures at @20):")
        print(f"{'users':>10}{'seconds':>10}{'us/user':>10}")
        at20 = ("P@20", "Recall@20", "AP@20", "nDCG@20", "RR")
        for n in (int(x) for x in args.scaling.split(",")):
            run, qrels = workload(n, n_items=20000, k=20, judged=40, seed=1) if n <= 100_000 else \
                _chunked_workload(n)
            t, _ = best(lambda: recdiv_means(run, qrels, at20), 1 if n > 100_000 else 3)  # noqa: B023
            print(f"{n:>10,}{t:10.3f}{1e6 * t / n:10.2f}")
            del run, qrels


def _chunked_workload(n: int):
    """The scaling workload for many users, built in blocks of 100,000 users to bound memory."""
    parts = [workload(min(100_000, n - lo), n_items=20000, k=20, judged=40, seed=lo) for lo in range(0, n, 100_000)]
    users, items = Vocab(np.arange(n)), parts[0][0].item_vocab
    run = Rankings(np.arange(n), np.concatenate([p[0].items for p in parts]),
                   np.concatenate([p[0].scores for p in parts]), users, items)
    qrels = Qrels(users, items, sp.vstack([p[1].matrix for p in parts], format="csr"))
    return run, qrels


if __name__ == "__main__":
    main()
