"""Benchmark: fit + top-500 for every user, per baseline, on ML-100K and a synthetic ML-1M-sized dataset, and
recdiv's overhead over calling LensKit / implicit directly on the same data in the same process.

    .venv/bin/python bench/bench_algorithms.py [--scale ml-100k|ml-1m|both] [--algos pop,wrmf,...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from recdiv.algorithms import make_recommender
from recdiv.algorithms._lenskit import to_lenskit
from recdiv.data import Interactions

N = 500


def load(scale: str) -> Interactions:
    if scale == "ml-100k":
        from recdiv.data.locate import dataset_path
        from recdiv.data.movielens import load_ml100k

        return load_ml100k(dataset_path("ml-100k"), splits=False).interactions
    from recdiv.data.synthetic import generate

    return generate("ml-1m", seed=0).interactions


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def bench_recdiv(name: str, train: Interactions, users: np.ndarray) -> tuple[float, float]:
    m = make_recommender(name)
    _, fit_s = timed(lambda: m.fit(train))
    _, rec_s = timed(lambda: m.recommend(users, N))
    return fit_s, rec_s


def direct_wrmf(train: Interactions, users: np.ndarray) -> tuple[float, float]:
    """implicit's own API: fit + batched recommend(N=500, filter liked) with the same settings as recdiv."""
    from implicit.cpu.als import AlternatingLeastSquares
    from threadpoolctl import threadpool_limits

    from recdiv.algorithms.base import default_threads
    from recdiv.algorithms.implicit_mf import confidence_values

    with threadpool_limits(limits=1, user_api="blas"):
        model = AlternatingLeastSquares(factors=50, regularization=0.01, iterations=15, random_state=0,
                                        num_threads=default_threads())
        ui = confidence_values(train.matrix, "log1p")
        _, fit_s = timed(lambda: model.fit(ui, show_progress=False))
        _, rec_s = timed(lambda: model.recommend(users, ui[users], N=N, filter_already_liked_items=True))
    return fit_s, rec_s


def direct_lenskit(kind: str, train: Interactions, users: np.ndarray, sample: int = 300) -> tuple[float, float]:
    """LensKit's own API: train + one query per user (its scorers are per query) + top-500 of unseen items.
    Scoring time is measured on `sample` users and extrapolated to all users."""
    from lenskit.als import BiasedMFScorer
    from lenskit.data import ItemList, RecQuery
    from lenskit.knn import ItemKNNScorer, UserKNNScorer
    from lenskit.training import TrainingOptions

    scorer = {"user-knn": lambda: UserKNNScorer(max_nbrs=100), "item-knn": lambda: ItemKNNScorer(max_nbrs=20),
              "mf-als": lambda: BiasedMFScorer(embedding_size=50)}[kind]()
    data = to_lenskit(train, explicit=True)
    _, fit_s = timed(lambda: scorer.train(data, TrainingOptions(rng=0)))
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

    _, rec_s = timed(score_all)
    return fit_s, rec_s * len(users) / len(some)


DIRECT = {"wrmf": direct_wrmf, **{k: (lambda t, u, k=k: direct_lenskit(k, t, u)) for k in ("user-knn", "item-knn",
                                                                                          "mf-als")}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="both", choices=["ml-100k", "ml-1m", "both"])
    ap.add_argument("--algos", default="pop,random,avg-rating,user-knn,item-knn,mf-als,wrmf,bpr,pure-svd,plsa")
    ap.add_argument("--direct", default="wrmf,user-knn,item-knn,mf-als", help="also time the library directly")
    args = ap.parse_args()
    scales = ["ml-100k", "ml-1m"] if args.scale == "both" else [args.scale]
    print(f"{'data':8s} {'algo':10s} {'fit s':>7s} {'top-500 s':>9s} {'direct fit':>10s} {'direct top':>10s} "
          f"{'overhead':>8s}")
    for scale in scales:
        train = load(scale)
        users = np.arange(train.n_users)
        for name in args.algos.split(","):
            fit_s, rec_s = bench_recdiv(name, train, users)
            line = f"{scale:8s} {name:10s} {fit_s:7.2f} {rec_s:9.2f}"
            if name in args.direct.split(","):
                dfit, drec = DIRECT[name](train, users)
                ovh = (fit_s + rec_s) / (dfit + drec) - 1
                line += f" {dfit:10.2f} {drec:10.2f} {ovh:+8.0%}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
