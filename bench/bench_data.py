"""Benchmark: dataset loading and synthetic generation.

Loading (best of `--repeat` runs, same process): recdiv's strict loaders (every line checked, DataError with
line numbers) against LensKit 2025.8's `load_movielens` (ML-100K, ML latest-small) and a bare pandas
`read_csv` of the same HetRec files (no checks, no vocabularies): what the checking costs.

Synthetic generation: each preset runs in a fresh subprocess, which reports its wall time and peak RSS
(VmHWM from /proc, including the ~0.5 GB of the interpreter and libraries), then generates it once more
under tracemalloc for the peak of Python + NumPy allocations. The ML-20M case (138,493
users × 26,744 items × 20,000,263 ratings) runs only with `--full`; it must stay under 8 GB.

Usage: .venv/bin/python bench/bench_data.py [--full] [--repeat 3] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time (process_time, robust on a busy machine) over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def peak_rss() -> int:
    """Peak resident set size of this process in bytes: VmHWM (reset by exec, unlike ru_maxrss, which a child
    inherits from its parent), falling back to getrusage."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def synthetic_case(preset: str, trace: bool) -> dict:
    """Run in a child process: generate `preset` untraced (wall time, peak RSS), then, with `trace`, once
    more under tracemalloc (peak of Python + NumPy allocations; tracemalloc slows the run down)."""
    import tracemalloc

    from recdiv.data.synthetic import generate

    t, c = time.perf_counter(), time.process_time()
    ds = generate(preset)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    rss = peak_rss()
    it = ds.interactions
    out = {"preset": preset, "users": it.n_users, "items": it.n_items, "ratings": it.nnz, "seconds": wall,
           "cpu_seconds": cpu, "max_rss_gb": rss / 1e9, "traced_peak_gb": float("nan")}
    if trace:
        del ds, it
        tracemalloc.start()
        generate(preset)
        out["traced_peak_gb"] = tracemalloc.get_traced_memory()[1] / 1e9
        tracemalloc.stop()
    return out


def run_child(preset: str, trace: bool = True) -> dict:
    cmd = [sys.executable, __file__, "--case", preset] + (["--trace"] if trace else [])
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def loading(data_dir: Path, repeat: int) -> list[tuple[str, str, tuple[float, float]]]:
    import pandas as pd

    from recdiv.data.lastfm import load_hetrec_lastfm
    from recdiv.data.movielens import load_ml100k, load_ml_csv

    rows = []
    ml100k, small, hetrec = data_dir / "ml-100k", data_dir / "ml-latest-small", data_dir / "hetrec2011-lastfm-2k"
    rows.append(("ML-100K", "recdiv load_ml100k (+ 7 provided splits)", best_of(lambda: load_ml100k(ml100k), repeat)))
    rows.append(("ML-100K", "recdiv load_ml100k(splits=False)",
                 best_of(lambda: load_ml100k(ml100k, splits=False), repeat)))
    try:
        import lenskit.data as ld

        rows.append(("ML-100K", "lenskit load_movielens", best_of(lambda: ld.load_movielens(ml100k), repeat)))
    except ImportError:  # pragma: no cover
        ld = None
    rows.append(("ML latest-small", "recdiv load_ml_csv (+ tags, links)", best_of(lambda: load_ml_csv(small),
                                                                                    repeat)))
    if ld is not None:
        rows.append(("ML latest-small", "lenskit load_movielens", best_of(lambda: ld.load_movielens(small), repeat)))
    rows.append(("HetRec Last.fm 2K", "recdiv load_hetrec_lastfm (tags, friends)",
                 best_of(lambda: load_hetrec_lastfm(hetrec), repeat)))

    def bare_pandas():
        for name, enc in (("user_artists.dat", "utf-8"), ("artists.dat", "utf-8"), ("tags.dat", "latin-1"),
                          ("user_taggedartists.dat", "utf-8"), ("user_friends.dat", "utf-8")):
            pd.read_csv(hetrec / name, sep="\t", encoding=enc, quoting=csv.QUOTE_NONE)

    rows.append(("HetRec Last.fm 2K", "bare pandas read_csv of the 5 files", best_of(bare_pandas, repeat)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="also generate the ML-20M-scale synthetic dataset")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(synthetic_case(args.case, args.trace)))
        return
    sys.path.insert(0, str(ROOT))
    from recdiv.data.locate import data_dir

    try:
        root = data_dir(args.data_dir)
        rows = loading(root, args.repeat)
    except Exception as e:  # no shared data: still run the synthetic part
        print(f"(loading benchmarks skipped: {e})")
        rows = []
    if rows:
        print(f"{'dataset':<20} {'loader':<45} {'seconds':>8} {'CPU s':>7}")
        for ds, loader, (sec, cpu) in rows:
            print(f"{ds:<20} {loader:<45} {sec:8.3f} {cpu:7.3f}")
    presets = ["small", "ml-100k", "ml-1m"] + (["ml-20m"] if args.full else [])
    print(f"\n{'synthetic preset':<17} {'users':>8} {'items':>7} {'ratings':>11} {'seconds':>8} {'CPU s':>7} "
          f"{'max RSS GB':>11} {'traced peak GB':>15}")
    for p in presets:
        r = run_child(p)
        print(f"{p:<17} {r['users']:>8,} {r['items']:>7,} {r['ratings']:>11,} {r['seconds']:8.2f} "
              f"{r['cpu_seconds']:7.2f} {r['max_rss_gb']:11.3f} {r['traced_peak_gb']:15.3f}")
        if p == "ml-20m":
            assert r["max_rss_gb"] < 8, "ML-20M synthetic generation exceeded 8 GB"
    if not args.full:
        print("(ML-20M scale skipped: pass --full)")


if __name__ == "__main__":
    main()
