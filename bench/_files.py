"""Synthetic, seeded evaluation files of ML-1M shape for the command-line benchmarks, written outside the
repository (a cache folder) and reused while their parameters are unchanged.

ML-1M shape: 6,040 users, 3,706 items (ids from 1..3952), Zipf-like item popularity; a run of top-N lists
(score descending), qrels with about 202,113 judgments (grades 1-5 in ML-1M's proportions), 18 genres with 1-3
per item, and a training file. `make_files(folder, n_users=100_000, ...)` scales it (the 10 M-line evaluation).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

CACHE = Path(os.environ.get("RECDIV_BENCH_CACHE", Path.home() / ".cache" / "recdiv-bench"))
GRADE_SHARES = [0.056, 0.108, 0.261, 0.349, 0.226]  # ML-1M ratings 1..5


def _write_lines(path: Path, pattern: str, *columns) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as fh:
        step = 1_000_000
        for lo in range(0, len(columns[0]), step):
            fh.write("".join(map(pattern.format, *(c[lo:lo + step] for c in columns))))
    tmp.replace(path)


def _top(rng: np.random.Generator, logp: np.ndarray, n_users: int, k: int) -> np.ndarray:
    """k distinct items per user, drawn by popularity (Gumbel top-k), in random order."""
    out = np.empty((n_users, k), dtype=np.int64)
    for lo in range(0, n_users, 2048):
        hi = min(n_users, lo + 2048)
        keys = logp + rng.gumbel(size=(hi - lo, len(logp)))
        out[lo:hi] = np.argpartition(-keys, k, axis=1)[:, :k]
    return out


def make_files(folder: Path | None = None, *, n_users: int = 6040, n_items: int = 3706, depth: int = 100,
               judged_per_user: float = 33.46, seed: int = 0) -> dict[str, Path]:
    """Write (once) run.txt, qrels.txt, aspects.tsv, train.tsv; returns their paths."""
    folder = Path(folder or CACHE / f"ml1m-shape-u{n_users}-k{depth}-s{seed}")
    paths = {name: folder / name for name in ("run.txt", "qrels.txt", "aspects.tsv", "train.tsv")}
    if all(p.exists() for p in paths.values()):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.choice(np.arange(1, 3953), n_items, replace=False)).astype(str)
    users = np.arange(1, n_users + 1).astype(str)
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.9
    rng.shuffle(pop)
    logp = np.log(pop / pop.sum())
    # run: top-`depth` per user, scores descending
    ranked = _top(rng, logp, n_users, depth)
    scores = -np.sort(-rng.random((n_users, depth)), axis=1)
    ranks = np.tile(np.arange(1, depth + 1).astype(str), n_users)
    _write_lines(paths["run.txt"], "{} Q0 {} {} {!r} sys\n", np.repeat(users, depth), ids[ranked.ravel()], ranks,
                 scores.ravel().tolist())
    # qrels: a popularity-biased judged set per user, half of it overlapping the run
    n_judged = np.clip(rng.poisson(judged_per_user, n_users), 5, None)
    judged = _top(rng, logp, n_users, int(n_judged.max()))
    keep = np.arange(judged.shape[1]) < n_judged[:, None]
    grades = rng.choice(np.arange(1, 6), size=int(keep.sum()), p=GRADE_SHARES).astype(str)
    _write_lines(paths["qrels.txt"], "{} 0 {} {}\n", np.repeat(users, n_judged), ids[judged[keep]], grades)
    # aspects: 18 genres, 1-3 per item
    n_g = rng.integers(1, 4, n_items)
    genres = np.concatenate([rng.choice(18, n, replace=False) for n in n_g])
    _write_lines(paths["aspects.tsv"], "{}\tg{}\n", np.repeat(ids, n_g), genres.astype(str))
    # training interactions: 100 per user, disjoint from nothing in particular (popularity and profiles only)
    train = _top(rng, logp, n_users, 100)
    values = rng.choice(np.arange(1, 6), size=train.size, p=GRADE_SHARES).astype(str)
    _write_lines(paths["train.tsv"], "{}\t{}\t{}\n", np.repeat(users, 100), ids[train.ravel()], values)
    return paths
