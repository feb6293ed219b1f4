"""Benchmark: fit + top-500 unseen items for every user, per baseline, on ML-100K and a synthetic ML-1M-sized dataset,
and recdiv's overhead over calling LensKit / implicit / scikit-learn directly on the same data in the same process.

    .venv/bin/python bench/bench_algorithms.py [--scale ml-100k|ml-1m|both] [--algos pop,wrmf,...] [--full]

Wall time and CPU time (`time.process_time`, all threads of the process) are reported for both sides; CPU time is
steadier on a shared machine. "Direct" does the same work through the library's own API:

- LensKit (user-knn, item-knn, mf-als): train + one query per user (LensKit's scorers are per query) + top-500 of the
  unseen items by `argpartition`; scoring is timed on `--sample` users and extrapolated to all users;
- implicit (wrmf, bpr): `fit` + batched `recommend(N=500, filter_already_liked_items=True)` (float32, C++ top-k);
- scikit-learn (pure-svd: `TruncatedSVD`; plsa: `NMF(beta_loss="kullback-leibler", solver="mu")`): `fit` +
  numpy block scoring + masking of seen items + `argpartition` top-500 sorted by score (no tie rule).

recdiv additionally validates configs, builds the `Rankings` with the METRICS.md §0.5 tie rule (score, then external
id string rank) and scores in float64. Without `--full`, the ML-1M runs of bpr and plsa (minutes each, on both sides)
are skipped.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from recdiv.algorithms import make_recommender
from recdiv.algorithms._lenskit import to_lenskit
from recdiv.algorithms.base import BLOCK_CELLS, default_threads, mask_excluded
from recdiv.data import Interactions

N = 500
SLOW_AT_ML1M = {"bpr", "plsa"}


def load(scale: str) -> Interactions:
    if scale == "ml-100k":
        from recdiv.data.locate import dataset_path
        from recdiv.data.movielens import load_ml100k

        return load_ml100k(dataset_path("ml-100k"), splits=False).interactions
    from recdiv.data.synthetic import generate

    return generate("ml-1m", seed=0).interactions


def timed(fn) -> tuple[object, float, float]:
    """(result, wall seconds, CPU seconds of the whole process)."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def bench_recdiv(name: str, train: Interactions, users: np.ndarray) -> tuple[float, float, float, float]:
    m = make_recommender(name)
    _, fit_w, fit_c = timed(lambda: m.fit(train))
    _, rec_w, rec_c = timed(lambda: m.recommend(users, N))
    return fit_w, fit_c, rec_w, rec_c


def _blocks(train: Interactions, users: np.ndarray):
    size = max(1, BLOCK_CELLS // train.n_items)
    for lo in range(0, len(users), size):
        yield users[lo : lo + size]


def numpy_top(train: Interactions, users: np.ndarray, score_block) -> None:
    """The plain-numpy ranking a user of a library would write: score a block, mask seen items, argpartition."""
    for block in _blocks(train, users):
        s = np.asarray(score_block(block))
        mask_excluded(s, train.matrix, block)
        top = np.argpartition(-s, N - 1, axis=1)[:, :N]
        vals = np.take_along_axis(s, top, axis=1)
        np.take_along_axis(top, np.argsort(-vals, axis=1), axis=1)


def direct_implicit(kind: str, train: Interactions, users: np.ndarray) -> tuple[float, float, float, float]:
    """implicit's own API: fit + batched recommend(N=500, filter liked) with the same settings as recdiv."""
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.cpu.bpr import BayesianPersonalizedRanking
    from threadpoolctl import threadpool_limits

    from recdiv.algorithms.implicit_mf import confidence_values

    with threadpool_limits(limits=1, user_api="blas"):
        if kind == "wrmf":
            model = AlternatingLeastSquares(factors=50, regularization=0.01, iterations=15, random_state=0,
                                            num_threads=default_threads())
            ui = confidence_values(train.matrix, "log1p")
        else:
            model = BayesianPersonalizedRanking(factors=100, learning_rate=0.01, regularization=0.01,
                                                iterations=100, random_state=0, num_threads=1)
            ui = confidence_values(train.matrix, "binary")
        _, fit_w, fit_c = timed(lambda: model.fit(ui, show_progress=False))
        _, rec_w, rec_c = timed(lambda: model.recommend(users, ui[users], N=N, filter_already_liked_items=True))
    return fit_w, fit_c, rec_w, rec_c


def direct_svd(train: Interactions, users: np.ndarray) -> tuple[float, float, float, float]:
    """scikit-learn TruncatedSVD (50 factors, randomized, 7 power iterations) + r_u Q Qᵀ scoring + argpartition."""
    from sklearn.decomposition import TruncatedSVD

    m = train.matrix.astype(np.float64).tocsr()
    svd = TruncatedSVD(n_components=50, algorithm="randomized", n_iter=7, random_state=0)
    _, fit_w, fit_c = timed(lambda: svd.fit(m))
    q = np.ascontiguousarray(svd.components_.T)
    _, rec_w, rec_c = timed(lambda: numpy_top(train, users, lambda b: (m[b] @ q) @ q.T))
    return fit_w, fit_c, rec_w, rec_c


def direct_plsa(train: Interactions, users: np.ndarray) -> tuple[float, float, float, float]:
    """scikit-learn KL-NMF (20 components, multiplicative updates, 200 iterations) on the binary matrix; scores W H
    (the same ranking as p(i|u), which is W H divided by a per-user constant)."""
    from sklearn.decomposition import NMF
    from sklearn.exceptions import ConvergenceWarning

    from recdiv.algorithms.implicit_mf import confidence_values

    n = confidence_values(train.matrix, "binary").astype(np.float64)
    nmf = NMF(n_components=20, beta_loss="kullback-leibler", solver="mu", init="random", max_iter=200, tol=1e-4,
              random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        w, fit_w, fit_c = timed(lambda: nmf.fit_transform(n))
    h = nmf.components_
    _, rec_w, rec_c = timed(lambda: numpy_top(train, users, lambda b: w[b] @ h))
    return fit_w, fit_c, rec_w, rec_c


def direct_lenskit(kind: str, train: Interactions, users: np.ndarray, sample: int) -> tuple[float, float, float, float]:
    """LensKit's own API: train + one query per user (its scorers are per query) + top-500 of unseen items.
    Scoring time is measured on `sample` users and extrapolated to all users."""
    from lenskit.als import BiasedMFScorer
    from lenskit.data import ItemList, RecQuery
    from lenskit.knn import ItemKNNScorer, UserKNNScorer
    from lenskit.training import TrainingOptions

    scorer = {"user-knn": lambda: UserKNNScorer(max_nbrs=100), "item-knn": lambda: ItemKNNScorer(max_nbrs=20),
              "mf-als": lambda: BiasedMFScorer(embedding_size=50)}[kind]()
    data = to_lenskit(train, explicit=True)
    _, fit_w, fit_c = timed(lambda: scorer.train(data, TrainingOptions(rng=0)))
    items = ItemList(item_ids=np.arange(train.n_items))
    some = users[:sample]

    def score_all():
        for u in some:
            hist = data.user_row(int(u)) if kind == "item-knn" else None
            s = scorer(RecQuery(user_id=int(u), history_items=hist), items).scores()
            s[train.matrix[u].indices] = -np.inf
            s = np.nan_to_num(s, nan=-np.inf)
            top = np.argpartition(-s, N)[:N]
            top[np.argsort(-s[top])]

    _, rec_w, rec_c = timed(score_all)
    f = len(users) / len(some)
    return fit_w, fit_c, rec_w * f, rec_c * f


def direct(name: str, train: Interactions, users: np.ndarray, sample: int) -> tuple[float, float, float, float]:
    if name in ("wrmf", "bpr"):
        return direct_implicit(name, train, users)
    if name == "pure-svd":
        return direct_svd(train, users)
    if name == "plsa":
        return direct_plsa(train, users)
    return direct_lenskit(name, train, users, sample)


def best(repeat: int, fn, *args) -> tuple[float, ...]:
    """Element-wise minimum of the timings of `repeat` runs of fn(*args)."""
    runs = [fn(*args) for _ in range(max(1, repeat))]
    return tuple(min(r[i] for r in runs) for i in range(len(runs[0])))


def warm_up(names: list[str], direct_names: list[str], sample: int) -> None:
    """Import the libraries and load the compiled numba kernels on a tiny dataset, so neither side's first timed
    call pays one-off import/compile costs (scikit-learn alone costs ~1.5 s to import)."""
    global N
    from recdiv.data.synthetic import generate

    train = generate("small", seed=1).interactions
    users = np.arange(50)
    saved, N = N, 20
    try:
        for name in names:
            make_recommender(name, **WARM_PARAMS.get(name, {})).fit(train).recommend(users, N)
            if name in direct_names and name not in WARM_PARAMS:
                direct(name, train, users, min(sample, 10))
    finally:
        N = saved


WARM_PARAMS = {"bpr": {"iterations": 2}, "plsa": {"max_iter": 2}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="both", choices=["ml-100k", "ml-1m", "both"])
    ap.add_argument("--algos", default="pop,random,avg-rating,user-knn,item-knn,mf-als,wrmf,bpr,pure-svd,plsa")
    ap.add_argument("--direct", default="wrmf,user-knn,item-knn,mf-als,bpr,pure-svd,plsa",
                    help="also time the library directly")
    ap.add_argument("--sample", type=int, default=300, help="users scored through LensKit (then extrapolated)")
    ap.add_argument("--repeat", type=int, default=1, help="repeat each measurement, keep the minimum (per figure)")
    ap.add_argument("--full", action="store_true", help="also run bpr and plsa at ML-1M scale (minutes each)")
    args = ap.parse_args()
    scales = ["ml-100k", "ml-1m"] if args.scale == "both" else [args.scale]
    import implicit.cpu.als
    import implicit.cpu.bpr  # noqa: F401
    import lenskit.als
    import lenskit.knn  # noqa: F401
    import sklearn.decomposition  # noqa: F401

    warm_up(args.algos.split(","), args.direct.split(","), args.sample)
    print("times in seconds, wall / CPU; overhead = recdiv (fit + top) / direct (fit + top) - 1, wall / CPU")
    print(f"{'data':8s} {'algo':10s} {'fit':>13s} {'top-500':>13s} {'direct fit':>13s} {'direct top':>13s} "
          f"{'overhead':>13s}")
    for scale in scales:
        train = load(scale)
        users = np.arange(train.n_users)
        for name in args.algos.split(","):
            if scale == "ml-1m" and name in SLOW_AT_ML1M and not args.full:
                print(f"{scale:8s} {name:10s} (skipped: --full)", flush=True)
                continue
            fw, fc, rw, rc = best(args.repeat, bench_recdiv, name, train, users)
            line = f"{scale:8s} {name:10s} {fw:6.2f}/{fc:6.2f} {rw:6.2f}/{rc:6.2f}"
            if name in args.direct.split(","):
                dfw, dfc, drw, drc = best(args.repeat, direct, name, train, users, args.sample)
                ow, oc = (fw + rw) / (dfw + drw) - 1, (fc + rc) / (dfc + drc) - 1
                line += f" {dfw:6.2f}/{dfc:6.2f} {drw:6.2f}/{drc:6.2f} {ow:+6.0%}/{oc:+6.0%}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
