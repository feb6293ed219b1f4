"""Parapar & Radlinski (RecSys 2021 §5) Experiments 1–3 on MovieLens 100K with recdiv's API.

P&R use MovieLens 20M; the shared data has ML-100K, so this runs on ML-100K (943 users, 19 genres) with a seeded
per-user 20 % random holdout as the ground truth (`holdout_split(…, 0.2, seed=0)`). Everything is computed on the
test ratings only: the systems are the P&R ideal ordering (docs/intent-aware.md) of each user's test items and its
perturbations; profile intent weights (EU, RBU) come from the test ratings too (the context's ``train`` is the test
set) and αβ-nDCG uses ``gamma_source=test`` — the w(u,a) of eq. 9 on the ground truth, as in the ideal ordering.

- Exp. 1 (rank correlation): for each perturbation family (bottom-to-top swaps, redundant aspect, aspect swap), the
  ideal ordering of all of each user's test items and its s-perturbations (s = 1..50, 1..10 for aspect swap; levels
  that change no user's list are dropped), evaluated at K ∈ {10, 100}: Kendall τ_b between the true order and each
  measure's means (``--ideal-length cutoff``: an ideal of length K per cutoff instead);
- Exp. 2 (discriminative power): one-sided Wilcoxon p-value of ideal > s-perturbed for every level;
- Exp. 3 (robustness): 50 seeded random shuffles of the full-length ideal ordering; test ratings removed
  proportionally to the aspects' presence in the ideal ranking (`recdiv.eval.meta.robustness.pr_experiment3`);
  mean τ_b per fraction kept for αβ-nDCG with β ∈ {0.1, 0.5, 0.9} at @10 and @100.

Measures (P&R settings, §F.7): αβ-nDCG α = .005, β = .5; α-nDCG (α = .5); NRBP α = .25, β = .9; EU e = .05,
α = .25; RBU p = .99, e = .05; S-recall and S-RR (binary relevance, and rel=judged: any judged item
covers its aspects). Writes a Markdown summary to stdout, PNG curves to --out and,
with --json, every number. Exp. 1–2 take ≈ 75 s on 2 busy cores; the default Exp. 3 (5 fractions × 3 removals ×
4 measures) adds a few seconds; --full (20 fractions × 50 removals) takes ≈ 6 min on 2 idle cores::

    .venv/bin/python examples/parapar_radlinski_experiments.py [--data ../shared/data/ml-100k] [--json r.json]
    .venv/bin/python examples/parapar_radlinski_experiments.py --full    # Exp. 3 at 20 fractions × 50 removals
    .venv/bin/python examples/parapar_radlinski_experiments.py --quick   # Exp. 1–2 @10 only, tiny Exp. 3
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent

MEASURES = {
    "ab-nDCG": "ab-nDCG(alpha=0.005,beta=0.5,gamma_source=test)",
    "alpha-nDCG": "alpha-nDCG(alpha=0.5)",
    "NRBP": "NRBP(alpha=0.25,beta=0.9)",
    "EU": "EU(alpha=0.25,e=0.05)",
    "RBU": "RBU(p=0.99,e=0.05)",
    "S-recall": "S-recall",
    "S-RR": "S-RR",
    "S-recall (judged)": "S-recall(rel=judged)",  # P&R's relevance-agnostic reading: any judged item covers
    "S-RR (judged)": "S-RR(rel=judged)",
}
CUTOFFS = (10, 100)
FAMILIES = {"bottom_to_top": "bottom-to-top swaps", "redundant_aspect": "redundant aspect",
            "aspect_swap": "aspect swap"}
EXP3_BETAS = (0.1, 0.5, 0.9)
EXP3_DEFAULT_FRACTIONS = (0.8, 0.6, 0.4, 0.2, 0.05)


def load(path, test_fraction: float = 0.2, seed: int = 0, max_users: int | None = None):
    """(qrels, aspects, EvalContext) for ML-100K: per-user random holdout test ratings, 19 genres."""
    from recdiv.aspects.build import genre_space
    from recdiv.data.movielens import load_ml100k
    from recdiv.data.qrels import Qrels
    from recdiv.data.splits import holdout_split
    from recdiv.eval.context import EvalContext

    ds = load_ml100k(path, splits=False)
    inter = ds.interactions
    if max_users is not None:  # small runs (tests): the first users only, same vocabularies
        inter = inter.select(inter.user_index < max_users)
    test = holdout_split(inter, test_fraction, seed=seed).test
    aspects = genre_space(ds)
    return Qrels.from_interactions(test), aspects, EvalContext(train=test, aspects=aspects)


def experiments_1_2(qrels, aspects, ctx, cutoffs=CUTOFFS, measures=MEASURES, levels=None, ideal_length="full",
                    log=None):
    """{(family, K): {label: PerturbationResult}} for every family and cutoff.

    ideal_length="full": one ideal ordering of all of each user's test items, perturbed, and evaluated at every
    cutoff [CHOICE, see docs/statistics.md]; "cutoff": an ideal of length K per cutoff K.
    """
    from recdiv.eval.meta.perturbation import (
        DEFAULT_LEVELS,
        distinct_levels,
        ideal_trace,
        perturbation_experiment,
        perturbed_systems,
    )

    out = {}
    full = int(qrels.n_judged().max())
    traces = {}
    for k in cutoffs:
        length = full if ideal_length == "full" else k
        if length not in traces:
            traces[length] = ideal_trace(qrels, aspects, length)
        for fam in FAMILIES:
            systems = distinct_levels(perturbed_systems(traces[length], fam, levels or DEFAULT_LEVELS[fam]))
            res = perturbation_experiment(systems, qrels, [f"{m}@{k}" for m in measures.values()], ctx)
            out[fam, k] = {label: res[f"{m}@{k}"] for label, m in measures.items()}
            if log:
                log(f"exp 1-2 {fam} @{k}: {len(systems) - 1} levels")
    return out


def experiment_3(qrels, aspects, ctx, cutoffs=CUTOFFS, betas=EXP3_BETAS, fractions=EXP3_DEFAULT_FRACTIONS,
                 n_samples: int = 3, n_systems: int = 50, seed: int = 0):
    """P&R Exp. 3 (`pr_experiment3`) for αβ-nDCG with the given β at every cutoff (β = .5 only at the smallest
    cutoff when several cutoffs are given, to save time)."""
    from recdiv.eval.meta.perturbation import pr_experiment3

    measures = []
    for k in cutoffs:
        bs = betas if k == max(cutoffs) else (0.5,)
        measures += [f"ab-nDCG(alpha=0.005,beta={b},gamma_source=test)@{k}" for b in bs]
    return pr_experiment3(qrels, aspects, measures, ctx, n_systems=n_systems, fractions=fractions,
                          n_samples=n_samples, seed=seed)


def _f(x: float, d: int = 3) -> str:
    return "n/a" if not np.isfinite(x) else f"{x:.{d}f}"


def summary(exp12, exp3, n_users: int) -> str:
    lines = [f"## Experiment 1: Kendall τ_b with the true order of the perturbed systems ({n_users} users)\n"]
    keys = list(exp12)
    lines.append("| measure | " + " | ".join(f"{FAMILIES[f]} @{k}" for f, k in keys) + " |")
    lines.append("|---|" + "---|" * len(keys))
    labels = list(next(iter(exp12.values())))
    for lab in labels:
        lines.append(f"| {lab} | " + " | ".join(_f(exp12[key][lab].tau) for key in keys) + " |")
    lines.append("\nlevels: " + ", ".join(f"{FAMILIES[f]} @{k}: {len(exp12[f, k][labels[0]].levels) - 1}"
                                          for f, k in keys))
    lines.append("\n## Experiment 2: one-sided Wilcoxon p-value (ideal > s-perturbed); first level with p < 0.05 "
                 "and the share of levels with p < 0.05\n")
    lines.append("| measure | " + " | ".join(f"{FAMILIES[f]} @{k}" for f, k in keys) + " |")
    lines.append("|---|" + "---|" * len(keys))
    for lab in labels:
        cells = []
        for key in keys:
            r = exp12[key][lab]
            sig = np.flatnonzero(r.pvalues < 0.05)
            first = str(int(r.levels[1:][sig[0]])) if len(sig) else "–"
            cells.append(f"{first} ({np.mean(r.pvalues < 0.05):.2f})")
        lines.append(f"| {lab} | " + " | ".join(cells) + " |")
    if exp3 is not None:
        mean = exp3.mean
        n_samples = next(iter(exp3.taus.values())).shape[1]
        lines.append(f"\n## Experiment 3: mean τ_b per fraction of test ratings kept ({len(exp3.systems)} shuffled "
                     f"systems, {n_samples} aspect-proportional removals per level)\n")
        lines.append("| measure | " + " | ".join(f"{f:.2f}" for f in exp3.levels) + " |")
        lines.append("|---|" + "---|" * len(exp3.levels))
        for m, v in mean.items():
            lines.append(f"| {m} | " + " | ".join(_f(x) for x in v) + " |")
    return "\n".join(lines)


def plot_all(exp12, exp3, out: Path) -> None:
    from recdiv.eval import plots

    for (fam, k), res in exp12.items():
        levels = next(iter(res.values())).levels
        fig = plots.plot_perturbation(levels, {lab: r.means for lab, r in res.items()}, ylabel="mean value",
                                      title=f"{FAMILIES[fam]} @{k}: mean metric value",
                                      path=out / f"pr-exp1-{fam}-{k}.png")
        plots.close(fig)
        fig = plots.plot_perturbation(levels[1:], {lab: np.maximum(r.pvalues, 1e-300) for lab, r in res.items()},
                                      ylabel="p-value (ideal > perturbed)", log_y=True,
                                      title=f"{FAMILIES[fam]} @{k}: Wilcoxon p", path=out / f"pr-exp2-{fam}-{k}.png")
        plots.close(fig)
    if exp3 is not None:
        plots.close(exp3.plot(out / "pr-exp3-robustness.png"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "ml-100k"))
    ap.add_argument("--out", default=str(REPO / "docs" / "img"), help="folder for the PNG files")
    ap.add_argument("--json", default=None, help="also write every number to this JSON file")
    ap.add_argument("--samples", type=int, default=3, help="Exp. 3 removals per level (paper: 50)")
    ap.add_argument("--systems", type=int, default=50, help="Exp. 3 shuffled systems (paper: 50)")
    ap.add_argument("--full", action="store_true", help="Exp. 3 at the paper's size: 20 fractions × 50 removals")
    ap.add_argument("--all-fractions", action="store_true", help="Exp. 3 at all 20 fractions 1.00 … 0.05")
    ap.add_argument("--quick", action="store_true", help="cutoff 10 only, Exp. 3 with 2 fractions × 2 removals")
    ap.add_argument("--no-exp3", action="store_true", help="skip Experiment 3")
    ap.add_argument("--ideal-length", choices=("full", "cutoff"), default="full",
                    help="Exp. 1-2 ideal: all test items (default) or K items per cutoff K")
    args = ap.parse_args(argv)
    from recdiv.eval.meta.robustness import SPARSITY_LEVELS

    cutoffs, fractions = CUTOFFS, EXP3_DEFAULT_FRACTIONS
    if args.full or args.all_fractions:
        fractions = tuple(SPARSITY_LEVELS)
    if args.full:
        args.samples = 50
    if args.quick:
        cutoffs, fractions, args.samples = (10,), (0.6, 0.2), 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    def log(msg):
        print(f"{msg} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    qrels, aspects, ctx = load(args.data)
    n_users = len(qrels.population(ctx.threshold))
    log(f"{qrels.matrix.nnz} test ratings, {n_users} evaluated users")
    exp12 = experiments_1_2(qrels, aspects, ctx, cutoffs, ideal_length=args.ideal_length, log=log)
    text = summary(exp12, None, n_users)
    print(text, flush=True)
    exp3 = None
    if not args.no_exp3:
        exp3 = experiment_3(qrels, aspects, ctx, cutoffs, fractions=fractions, n_samples=args.samples,
                            n_systems=args.systems)
        log("exp 3")
        print(summary(exp12, exp3, n_users)[len(text):])
    plot_all(exp12, exp3, out)
    if args.json:
        data = {"users": n_users, "exp12": {f"{f}@{k}": {lab: {"levels": r.levels.tolist(), "means": r.means.tolist(),
                                                               "tau": r.tau, "pvalues": r.pvalues.tolist()}
                                                         for lab, r in res.items()}
                                            for (f, k), res in exp12.items()},
                "exp3": None if exp3 is None else exp3.to_dict()}
        Path(args.json).write_text(json.dumps(data, indent=1, default=float))
    log(f"wrote PNGs to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
