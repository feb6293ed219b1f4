"""Valcarce et al. (RecSys 2018) meta-evaluation on MovieLens 100K (split u1) with recdiv's API.

Runs the study of docs/meta-evaluation.md: 11 systems (8 baselines, 3 genre diversifiers over the top-500
candidates of implicit user-kNN, k = 100), then

- discriminative power (Valcarce DP = Σ pairwise two-sided Fisher randomisation p-values, B = 100,000; lower =
  more discriminative) of P and nDCG at cutoffs 5..100 and of seven accuracy metrics at 100;
- robustness to the sparsity bias (20 levels 1.00 → 0.05 of the test ratings kept × 50 samples, mean Kendall τ_b)
  and to the popularity bias (0..20 % most popular items removed) for the same measures;

and writes the p-value and robustness curves as PNG into docs/img/ (or --out). Takes about 75 s on 2 cores::

    .venv/bin/python examples/valcarce_meta_evaluation.py [--data ../shared/data/ml-100k] [--json results.json]
    .venv/bin/python examples/valcarce_meta_evaluation.py --quick     # 10,000 samples, 6 levels × 10 samples

`build_systems(path)` is shared with tests/eval/test_meta_realdata.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent

#: baselines (registry name, label, parameters); top-100 lists over all unseen items (AllItems protocol)
BASELINES = [
    ("pop", "Pop", {}),
    ("random", "Random", {}),
    ("avg-rating", "Avg", {}),
    ("mf-als", "MF-ALS", {}),
    ("user-knn", "UB", {"feedback": "implicit"}),
    ("pure-svd", "PureSVD", {}),
    ("wrmf", "WRMF", {}),
    ("plsa", "PLSA", {}),
]
#: diversifiers over the top-500 candidates of `CANDIDATES` (genre aspects, k = 100); xQuAD with min–max relevance
#: (its default before issue #16), the setting of the figures recorded in docs/meta-evaluation.md
DIVERSIFIERS = [("MMR", "MMR", {"lambda": 0.5}), ("IASelect", "IA-Select", {}),
                ("xQuAD", "xQuAD", {"lambda": 0.5, "norm": "minmax"})]
CANDIDATES = "UB"
CUTOFFS = (5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
METRICS_AT_100 = ("P", "Recall", "AP", "nDCG", "RR", "bpref", "infAP(variant=valcarce)")  # the paper's eq. 7–8
PLOT_CUTOFFS = (5, 10, 20, 50, 100)


def build_systems(path, k: int = 100, n_candidates: int = 500):
    """(runs {label: Rankings}, qrels, EvalContext) for ML-100K split u1; every run is a top-k list per test user."""
    from recdiv.algorithms import make_recommender
    from recdiv.aspects.build import genre_space
    from recdiv.data.movielens import load_ml100k
    from recdiv.data.qrels import Qrels
    from recdiv.diversifiers.base import RerankContext
    from recdiv.diversifiers.registry import make_reranker
    from recdiv.eval.context import EvalContext

    ds = load_ml100k(path)
    split = ds.splits["u1"]
    users = np.flatnonzero(split.test.user_counts() > 0)
    runs, candidates = {}, None
    for name, label, params in BASELINES:
        model = make_recommender(name, **params).fit(split.train)
        if label == CANDIDATES:
            candidates = model.recommend(users, n_candidates)
            runs[label] = candidates.truncate(k)
        else:
            runs[label] = model.recommend(users, k)
    rctx = RerankContext(train=split.train, aspects=genre_space(ds))
    for name, label, params in DIVERSIFIERS:
        runs[label] = make_reranker(name, **params).rerank(candidates, k, rctx)
    return runs, Qrels.from_interactions(split.test), EvalContext(train=split.train)


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def main(argv=None) -> int:
    from recdiv.eval import plots
    from recdiv.eval.meta.discriminative import measure_report
    from recdiv.eval.meta.robustness import SPARSITY_LEVELS, popularity_robustness, sparsity_robustness
    from recdiv.eval.results import Results

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "ml-100k"))
    ap.add_argument("--out", default=str(REPO / "docs" / "img"), help="folder for the PNG files")
    ap.add_argument("--samples", type=int, default=100_000, help="randomisation samples B")
    ap.add_argument("--robust-samples", type=int, default=50, help="samples per sparsity level")
    ap.add_argument("--quick", action="store_true", help="B = 10,000; 6 sparsity levels × 10 samples")
    ap.add_argument("--json", default=None, help="also write every number to this JSON file")
    args = ap.parse_args(argv)
    levels = SPARSITY_LEVELS
    if args.quick:
        args.samples, args.robust_samples = 10_000, 10
        levels = np.array([0.8, 0.6, 0.4, 0.2, 0.1, 0.05])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    runs, qrels, ctx = build_systems(args.data)
    print(f"{len(runs)} systems, {len(qrels.population(ctx.threshold))} evaluated users "
          f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    cut_measures = [f"{m}@{k}" for m in ("P", "nDCG") for k in CUTOFFS]
    metric_measures = [f"{m}@100" for m in METRICS_AT_100]
    measures = list(dict.fromkeys(cut_measures + metric_measures))
    res = Results.evaluate(runs, qrels, measures, ctx)
    dp = measure_report(res, measures, n_samples=args.samples, seed=0)
    print(f"discriminative power done ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    sparsity = sparsity_robustness(runs, qrels, measures, ctx, fractions=levels, n_samples=args.robust_samples,
                                   seed=0)
    print(f"sparsity robustness done ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    popularity = popularity_robustness(runs, qrels, measures, ctx)

    # numbers ---------------------------------------------------------------------------------------------------
    means = res.means()
    print(f"## System means (ML-100K u1, {len(runs)} systems, {len(res.users)} users)\n")
    cols = [f"{m}@100" for m in METRICS_AT_100] + ["P@10", "nDCG@10"]
    print("| system | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols))
    for s in res.systems:
        print(f"| {s} | " + " | ".join(_fmt(means.loc[s, c]) for c in cols) + " |")
    print(f"\n## Discriminative power (Σ p-values over {len(dp[measures[0]].pairs)} pairs, B = {args.samples:,}; "
          "lower = more discriminative) and share of pairs with p < 0.05\n")
    print("| cutoff | DP P | DP nDCG | share p < .05 P | share p < .05 nDCG |\n|---|---|---|---|---|")
    for k in CUTOFFS:
        p, n = dp[f"P@{k}"], dp[f"nDCG@{k}"]
        print(f"| {k} | {p.dp:.3f} | {n.dp:.3f} | {p.fraction:.3f} | {n.fraction:.3f} |")
    print("\n| metric@100 | DP | share p < .05 | mean τ_b sparsity (all levels) | mean τ_b popularity (1–20 %) |")
    print("|---|---|---|---|---|")
    sp_mean, pop_mean = sparsity.mean, popularity.mean
    for m in metric_measures:
        print(f"| {m} | {dp[m].dp:.3f} | {dp[m].fraction:.3f} | {np.nanmean(sp_mean[m]):.3f} | "
              f"{np.nanmean(pop_mean[m][1:]):.3f} |")
    print(f"\n## Sparsity robustness: mean τ_b per fraction kept ({args.robust_samples} samples per level)\n")
    shown = [f for f in (0.8, 0.5, 0.2, 0.1, 0.05) if np.any(np.isclose(levels, f))]
    print("| measure | " + " | ".join(f"{f:.2f}" for f in shown) + " | mean over levels | popularity mean |")
    print("|---|" + "---|" * (len(shown) + 2))
    for m in cut_measures:
        row = [sp_mean[m][np.flatnonzero(np.isclose(levels, f))[0]] for f in shown]
        print(f"| {m} | " + " | ".join(_fmt(x) for x in row) + f" | {np.nanmean(sp_mean[m]):.3f} | "
              f"{np.nanmean(pop_mean[m][1:]):.3f} |")

    # plots -----------------------------------------------------------------------------------------------------
    for metric in ("nDCG", "P"):
        sel = [f"{metric}@{k}" for k in PLOT_CUTOFFS]
        plots.plot_pvalue_curves({m: dp[m].curve for m in sel}, title=f"{metric}: p-value curves by cutoff (ML-100K)",
                                 path=out / f"valcarce-pvalues-{metric.lower()}-cutoffs.png")
        plots.plot_robustness(levels, {m: sp_mean[m] for m in sel}, title=f"{metric}: sparsity bias (ML-100K)",
                              path=out / f"valcarce-sparsity-{metric.lower()}-cutoffs.png")
        plots.plot_robustness(popularity.levels, {m: pop_mean[m] for m in sel},
                              xlabel="% most popular items removed", invert_x=False,
                              title=f"{metric}: popularity bias (ML-100K)",
                              path=out / f"valcarce-popularity-{metric.lower()}-cutoffs.png")
    plots.plot_pvalue_curves({m: dp[m].curve for m in metric_measures}, title="metrics @100: p-value curves",
                             path=out / "valcarce-pvalues-metrics.png")
    plots.plot_robustness(levels, {m: sp_mean[m] for m in metric_measures}, title="metrics @100: sparsity bias",
                          path=out / "valcarce-sparsity-metrics.png")
    plots.plot_robustness(popularity.levels, {m: pop_mean[m] for m in metric_measures},
                          xlabel="% most popular items removed", invert_x=False, title="metrics @100: popularity bias",
                          path=out / "valcarce-popularity-metrics.png")
    if args.json:
        data = {"systems": res.systems, "users": len(res.users), "samples": args.samples,
                "robust_samples": args.robust_samples, "means": means.to_dict(),
                "dp": {m: r.to_dict() for m, r in dp.items()}, "sparsity": sparsity.to_dict(),
                "popularity": popularity.to_dict()}
        Path(args.json).write_text(json.dumps(data, indent=1))
    print(f"\nwrote PNGs to {out} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
