"""Benchmark: Fisher randomisation test (B = 100,000 sign flips) for all 210 pairs of 21 systems on 6,040 users
(the size of MovieLens 1M's user set, Valcarce et al.'s setting), against ranx's randomisation test.

recdiv draws the 0/1 sign bits once per chunk (`rng.integers(0, 2, (rows, n))`), shared by all pairs, and gets
Σ s∘d for every pair from one BLAS product bits (rows × n) @ D (n × 210), float64 so that ties of discrete metrics
(|mean(s∘d)| = T) are decided exactly as §F.1 says. ranx (`ranx.statistical_tests.fisher_randomization_test`,
numba, parallel over permutations) tests one pair at a time; it is run on a few pairs and extrapolated to 210.

Usage: .venv/bin/python bench/bench_stats.py [--ranx-pairs 2] [--samples 100000] [--users 6040] [--systems 21]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def make_systems(S: int, n: int, seed: int = 0) -> np.ndarray:
    """S × n per-user values shaped like P@100 / nDCG@100: a shared user effect, system offsets, noise,
    half of the systems discrete (multiples of 0.01, like P@100) so that exact ties occur."""
    rng = np.random.default_rng(seed)
    user = rng.beta(1.2, 6.0, n)
    Y = np.clip(user[None, :] * rng.uniform(0.6, 1.2, (S, 1)) + rng.normal(0, 0.03, (S, n)), 0, 1)
    Y[::2] = np.round(Y[::2], 2)
    return Y


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=21)
    ap.add_argument("--users", type=int, default=6040)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--ranx-pairs", type=int, default=2)
    ap.add_argument("--diff-path", action="store_true",
                    help="also time the generic difference-matrix product (n × 210 columns) and compare p-values")
    args = ap.parse_args()

    from recdiv.eval.meta.discriminative import discriminative_power, pairwise_difference_matrix
    from recdiv.eval.stats.significance import permutation_pvalues

    Y = make_systems(args.systems, args.users)
    D, pairs = pairwise_difference_matrix(Y)
    print(f"{args.systems} systems, {len(pairs)} pairs, {args.users} users, B = {args.samples:,}; "
          f"cores: {os.cpu_count()}")

    t0, c0 = time.perf_counter(), time.process_time()
    dp = discriminative_power(Y, n_samples=args.samples, seed=0)
    t_recdiv, cpu = time.perf_counter() - t0, time.process_time() - c0
    p = dp.p_values
    print(f"recdiv discriminative_power (bits @ values.T, {args.systems} columns), all {len(pairs)} pairs: "
          f"{t_recdiv:8.2f} s wall, {cpu:.2f} s CPU (all threads) ({t_recdiv / len(pairs) * 1000:.1f} ms/pair); "
          f"Valcarce DP = {dp.dp:.4f}; load average {os.getloadavg()[0]:.1f}")
    if args.diff_path:
        t0 = time.perf_counter()
        p2, _ = permutation_pvalues(D, n_samples=args.samples, seed=0)
        t2 = time.perf_counter() - t0
        print(f"recdiv permutation_pvalues (bits @ D, {len(pairs)} columns): {t2:8.2f} s; "
              f"max |p difference| to the above = {np.abs(p2 - p).max():.2g}")

    if args.ranx_pairs < 1:
        return
    from ranx.statistical_tests import fisher_randomization_test

    fisher_randomization_test(Y[0][:50], Y[1][:50], 10, 0.01, 42)  # numba compilation, not timed
    rng = np.random.default_rng(1)
    # pick pairs with p-values away from 0 and 1 so that agreement is informative
    mid = np.flatnonzero((p > 0.01) & (p < 0.9))
    chosen = rng.choice(mid if len(mid) >= args.ranx_pairs else np.arange(len(pairs)), args.ranx_pairs,
                        replace=False)
    t_ranx = 0.0
    print(f"\n{'pair':>10} {'recdiv p':>10} {'ranx p':>10} {'|diff|':>8} {'3·SE':>8}")
    for k in chosen:
        i, j = pairs[k]
        t0 = time.perf_counter()
        pr, _ = fisher_randomization_test(Y[i], Y[j], args.samples, 0.01, 42)
        t_ranx += time.perf_counter() - t0
        se = np.sqrt(2 * p[k] * (1 - p[k]) / args.samples)
        print(f"{f'({i},{j})':>10} {p[k]:10.5f} {pr:10.5f} {abs(p[k] - pr):8.5f} {3 * se:8.5f}")
    per_pair = t_ranx / len(chosen)
    print(f"\nranx fisher_randomization_test: {per_pair:.2f} s/pair on {len(chosen)} pairs "
          f"⇒ {per_pair * len(pairs):.1f} s extrapolated to {len(pairs)} pairs")
    print(f"speed-up: {per_pair * len(pairs) / t_recdiv:.1f}×")


if __name__ == "__main__":
    main()
