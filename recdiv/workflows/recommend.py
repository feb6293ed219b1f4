"""`recdiv recommend` as a library function: read the training data — a dataset's split, or the files of `recdiv data
export` (training interactions, test judgments, item aspects) —, fit a recommender and rank the unseen items of every
test user, or predict the ratings of the test pairs (`recommend_files`); `Recommended.write` writes the lists (or the
predictions), `Recommended.write_factors` the model's item factors.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from recdiv.errors import ConfigError


@dataclass
class Recommended:
    """What `recommend_files` made: the fitted model, the training interactions, the test users (dense indices) and
    their top-n lists (`Rankings`), or the predictions of the test pairs (a frame: user, item, value)."""

    name: str  # the registry's name of the recommender
    given: str  # the name as given (the predictions line says it)
    model: object
    train: object  # Interactions
    users: object  # the test users' dense indices
    rankings: object = None  # Rankings (None with predict=True)
    predictions: object = None  # pandas DataFrame user, item, value (predict=True)
    n_pairs: int = 0  # the test pairs asked for (predict=True)
    started: float = 0.0  # time.perf_counter() when fitting began

    def write(self, path: str | Path, tag: str | None = None) -> None:
        """Write the lists to `path` (TREC text, .tsv, .parquet, .arrow, .csv; `tag`: the run tag, default the
        recommender's name), or the predictions as `user item prediction` lines."""
        if self.predictions is not None:
            from recdiv.data.textio import write_interactions_tsv

            write_interactions_tsv(self.predictions, path)
            return
        from recdiv.data.formats import write_rankings

        write_rankings(self.rankings, path, tag=tag or self.name)

    def write_factors(self, path: str | Path) -> None:
        """Write the model's item factors (item<TAB>f1<TAB>...) for `recdiv rerank --factors`."""
        from recdiv.data.factors import write_item_factors_tsv

        write_item_factors_tsv(self.train.items, self.model.item_factors, path)

    def summary(self, seconds: float, output: str | Path, factors_out: str | Path | None = None) -> str:
        """The line `recdiv recommend` prints (`factors_out`: where the item factors went; not with predictions)."""
        if self.predictions is not None:
            return (f"{self.given}: {len(self.predictions)} of {self.n_pairs} test ratings predicted "
                    f"in {seconds:.1f}s -> {output}")
        return (f"{self.name}: {len(self.users)} test users, {int(self.rankings.lengths.sum())} recommendations "
                f"in {seconds:.1f}s -> {output}" + (f", item factors -> {factors_out}" if factors_out else ""))


def recommend_files(recommender: str, n: int = 500, *, params: Mapping[str, object] | None = None,
                    dataset: str | Path | None = None, split: str | None = None, data_dir: str | Path | None = None,
                    train: str | Path | None = None, qrels: str | Path | None = None,
                    aspects: str | Path | None = None, seed: int | None = None, predict: bool = False,
                    item_factors: bool = False, output: str | Path | None = None) -> Recommended:
    """Fit `recommender` (a registered name or ``module:Class``, with hyperparameters `params`) on the training part
    of `split` of `dataset` (a name or folder; `data_dir` the folder holding datasets by name), or on the `train`
    file (user item value [timestamp]) with optional test judgments `qrels` (whose users are recommended for; default
    every training user) and item `aspects` (the attribute of a content model), and recommend the top `n` unseen
    items of every test user; `predict`: predict the ratings of the test pairs instead. `seed` seeds the split and
    the recommender (unless `params` sets one); `item_factors`: the model must have item factors
    (`Recommended.write_factors`); `output`: the file the lists will be written to, checked before fitting (a TREC
    run cannot hold every id). The options' errors name the `recdiv recommend` options."""
    from recdiv.algorithms.registry import RECOMMENDERS, make_recommender
    from recdiv.progress import Progress

    params = dict(params or {})
    entry = RECOMMENDERS.entry(recommender)
    cls, name = entry.obj, entry.name
    if seed is not None and "seed" in cls.Config.model_fields and "seed" not in params:
        params["seed"] = seed
    model = make_recommender(recommender, **params)
    if item_factors and not RECOMMENDERS.has(name, "item-factors"):
        have = ", ".join(RECOMMENDERS.with_capability("item-factors"))
        raise ConfigError(f"--factors-out: {name} has no item factors (models with item factors: {have})")
    if train:
        if dataset or split:
            raise ConfigError("give the training data once: --dataset/--split or --train")
        inter, users, attributes, test_pairs = _from_files(train, qrels, aspects)
    else:
        inter, users, attributes, test_pairs = _split(dataset, split, data_dir, qrels, aspects, seed)
    if output is not None:
        _check_ids(inter, output)
    side = _side(cls, model, name, attributes)
    done = Recommended(name, recommender, model, inter, users, started=time.perf_counter())
    if predict:
        if test_pairs is None:
            raise ConfigError("--predict writes predictions of the test pairs: pass --qrels TEST.qrels with --train")
        with Progress(f"fit {name}"):
            model.fit(inter, **side)
        done.predictions, done.n_pairs = _predictions(model, test_pairs, inter)
        return done
    with Progress(f"fit {name}") as bar:  # fitting: elapsed time only; scoring: an ETA per user
        model.fit(inter, **side)
        bar.stage(f"recommend {name}", len(users))
        done.rankings = model.recommend(users, n)
    return done


def _check_ids(train, output: str | Path) -> None:
    """DataError before fitting when a TREC run cannot hold the ids (whitespace, control characters)."""
    from recdiv.data.formats import rankings_format
    from recdiv.data.textio import id_strings

    if rankings_format(output) == "trec":
        id_strings(train.users.ids, output, "user id")
        id_strings(train.items.ids, output, "item id")


def _side(cls, model, name: str, attributes) -> dict:
    """The keyword arguments of `fit` besides the interactions: the item attribute a content model asks for."""
    side = {}
    if getattr(cls, "needs_attributes", False):
        attr = model.config.attribute
        if not isinstance(attributes, dict):
            if attributes is None:
                raise ConfigError(f"recommender {name!r} needs item attributes: pass --aspects ASPECTS.tsv")
            side["attributes"] = attributes
        elif attr not in attributes:
            known = ", ".join(attributes) or "none"
            raise ConfigError(f"recommender {name!r} needs item attribute {attr!r}; dataset has: {known}")
        else:
            side["attributes"] = attributes[attr]
    return side


def _split(dataset, split, data_dir, qrels, aspects, seed):
    """(training Interactions, the test users' dense indices, the dataset's item attributes, the test pairs as a
    users × items sparse matrix) of a dataset's split."""
    import numpy as np

    if qrels or aspects:
        raise ConfigError("--qrels and --aspects go with --train (a dataset brings its own)")
    if not (dataset and split):
        raise ConfigError("recdiv recommend needs --dataset and --split, or --train (files of `recdiv data export`)")
    try:
        from recdiv.data.load import load_dataset
        from recdiv.data.splits import make_split
    except ImportError as e:  # the data loaders ship separately
        raise ConfigError(f"dataset loading is not available in this installation ({e})") from None
    data = load_dataset(dataset, data_dir=data_dir)
    parts = data.splits[split] if split in data.splits else make_split(data, split, seed=seed or 0)
    return parts.train, np.flatnonzero(parts.test.user_counts() > 0), data.attributes, parts.test.matrix


def _from_files(train_file, qrels_file, aspects_file):
    """`_split` of the files of `recdiv data export`: the --aspects file serves as the item attribute; without
    --qrels every training user is a test user and there are no test pairs."""
    import numpy as np

    from recdiv.data.formats import read_qrels
    from recdiv.data.interactions import Attribute
    from recdiv.data.tables import aspect_matrix, dense, interactions_of, qrels_of, shared_vocab
    from recdiv.data.textio import parse_interactions_tsv, parse_item_aspects_tsv

    tt = parse_interactions_tsv(train_file)
    qt = read_qrels(qrels_file) if qrels_file else None
    at = parse_item_aspects_tsv(aspects_file) if aspects_file else None
    users = shared_vocab(tt["user"], *([qt["user"]] if qt is not None else []))
    items = shared_vocab(tt["item"], *[t["item"] for t in (qt, at) if t is not None])
    train = interactions_of(tt, users, items)
    test_users = np.unique(dense(qt["user"], users)) if qt is not None else np.flatnonzero(train.user_counts() > 0)
    attributes = None
    if at is not None:
        names, membership = aspect_matrix(at, items)
        attributes = Attribute(membership.to_scipy(), names)
    test_pairs = qrels_of(qt, users, items).matrix if qt is not None else None
    return train, test_users.astype(np.int64), attributes, test_pairs


def _predictions(model, test_pairs, train):
    """(the predictions s(u, i) of every test pair the model can score as a frame user, item, value; the number of
    test pairs)."""
    import numpy as np
    import pandas as pd

    test = test_pairs.tocoo()
    pred = model.score(test.row, test.col)
    ok = ~np.isnan(pred)
    frame = pd.DataFrame({"user": train.users.id_of(test.row[ok]), "item": train.items.id_of(test.col[ok]),
                          "value": pred[ok]})
    return frame, len(pred)
