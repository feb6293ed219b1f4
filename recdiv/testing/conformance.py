"""Conformance suites generated from the registries (scikit-learn's `check_estimator`): every registered measure,
reranker, recommender and dataset format checked against the contract of its kind. recdiv's own components are
checked by tests/test_conformance.py, which parametrizes over the registries, so a new built-in is checked without a
line of test; a plugin gets the same suites:

    from recdiv.testing.conformance import check_measure, check_reranker_class, check_recommender
    check_measure(mypkg.DHits)              # or check_reranker_class(MyReranker), check_recommender(MyModel)

- a measure (`check_measure`), at its default parameters and each allowed cutoff, on random instances
  (`measure_instance`: ragged lists, a user with an empty list, a user with one item, users without a training
  profile, items without aspects): finite values (NaN only where the measure is undefined for every user), inside
  the interval the class declares (`RANGE`), also when every list is empty or one item long (`degenerate_runs`); the
  same values on a second call (determinism); ``parse_measure(str(m)) == m`` (the print/parse round trip); and,
  where the class declares `MONOTONE_IN_CUTOFF`, values that never fall when the cutoff grows;
- a reranker (`check_reranker_class`): the properties of `recdiv.testing.properties.check_reranker` (an ordered
  subset of each user's own candidates, no new items, −1 padding, deterministic, inputs unchanged) at its defaults
  and, when it has a λ, at λ = 0 and λ = 1; the baseline's top k in each pure-relevance setting the class declares
  (`PURE_RELEVANCE`: MMR λ = 1, xQuAD λ = 0, ...); and, when its class brings its own readable per-user loop
  (`reference` defined in the class itself, as every built-in does; a subclass that inherits its parent's loop may
  have changed the objective), the same lists as that loop at its defaults, user by user (the loop draws from one
  generator seeded as the context, in ascending user order, as the stochastic rerankers do);
- a recommender (`check_recommender`): on a small training set, lists of at most n items per user, without a training
  item of the user (unless the class says `recommends_seen = True`), scores not increasing along the list, the same
  lists when fitted twice with the same seed;
- a dataset format (`check_dataset_format`): its loader takes the folder and typed keyword options; a folder without
  its marker file is not taken for it; a loaded dataset (`check_dataset`) has unique (user, item) pairs, a matrix the
  size of its vocabularies, and its rating scale around its values.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from recdiv.testing.instances import random_instance
from recdiv.testing.properties import check_keeps_order, check_reranker

__all__ = ["check_dataset", "check_dataset_format", "check_measure", "check_recommender", "check_reranker_class",
           "degenerate_runs", "measure_instance", "measures_to_check"]


# measures --------------------------------------------------------------------------------------------------------
def measure_instance(seed: int = 0):
    """(run, baseline run, qrels, context) for measures: the candidates of `random_instance` as a run (one user's
    list emptied, one cut to a single item), a baseline run (the same lists reversed), graded judgments 1–5 of about
    half of each user's candidates and of items outside the lists, and a context with the training ratings, the
    aspects, the item groups, τ = 3, the rating scale 1–5 and the baseline as the previous lists."""
    import pandas as pd

    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings
    from recdiv.models.context import Context

    cands, rerank_ctx = random_instance(seed)
    rng = np.random.default_rng(seed + 1000)
    items, scores = cands.items.copy(), cands.scores.copy()
    items[0], scores[0] = -1, np.nan  # a user with an empty list
    items[1, 1:], scores[1, 1:] = -1, np.nan  # a user with one item
    run = Rankings(cands.users, items, scores, cands.user_vocab, cands.item_vocab)
    rev = np.where(cands.items >= 0, cands.items, np.iinfo(np.int64).max)
    order = np.argsort(-np.where(cands.items >= 0, cands.scores, -np.inf), axis=1, kind="stable")[:, ::-1]
    base_items = np.take_along_axis(rev, order, axis=1)
    n = (cands.items >= 0).sum(axis=1)
    base_items = np.array([np.r_[row[row != np.iinfo(np.int64).max], [-1] * (cands.k - m)] for row, m
                           in zip(base_items, n, strict=True)], dtype=np.int64)
    base_scores = np.where(base_items >= 0, np.arange(cands.k, 0, -1, dtype=float)[None, :], np.nan)
    baseline = Rankings(cands.users, base_items, base_scores, cands.user_vocab, cands.item_vocab)
    rows = []
    for u, row in zip(cands.users, cands.items, strict=True):
        pool = np.r_[row[row >= 0], rng.choice(len(cands.item_vocab), size=3, replace=False)]
        for i in np.unique(pool[rng.random(len(pool)) < 0.5]):
            rows.append((cands.user_vocab.ids[u], cands.item_vocab.ids[i], float(rng.integers(1, 6))))
    rows.append((cands.user_vocab.ids[cands.users[0]], cands.item_vocab.ids[0], 5.0))  # the empty list's user
    frame = pd.DataFrame(rows, columns=["user", "item", "grade"]).drop_duplicates(["user", "item"])
    qrels = Qrels.from_frame(frame, cands.user_vocab, cands.item_vocab)
    context = Context(threshold=3.0, scale=(1.0, 5.0), train=rerank_ctx.train, aspects=rerank_ctx.aspects,
                      previous=baseline, item_groups=rerank_ctx.item_groups, seed=seed)
    return run, baseline, qrels, context


def measures_to_check(cls) -> list:
    """The instances of measure class `cls` a suite checks: its defaults with each kind of cutoff it allows."""
    cutoffs = {"required": (5, 10), "optional": (None, 5), "none": (None,)}.get(cls.CUTOFF, (None,))
    # a parameter without a default that names an item group gets the instance's group ("protected")
    given = {p.name: "protected" for p in cls.PARAMS if p.name == "group" and not p.default}
    return [cls(c, **given) for c in cutoffs]


def _values(measure, run, baseline, qrels, context) -> tuple[np.ndarray, float]:
    """(per-user values or [system value], system value) of `measure` for `run`."""
    from recdiv.eval.evaluate import evaluate

    runs = {"run": run, "base": baseline}
    ev = evaluate(runs, qrels, [measure], context, baseline="base" if measure.KIND == "pairwise" else None)
    system = float(ev.value("run", measure))
    per_user = ev.per_user.get("run", {}).get(str(measure))
    return (np.asarray(per_user, dtype=float) if per_user is not None else np.array([system])), system


def check_measure(cls, *, seeds=(0, 1)) -> None:
    """Assert the measure contract (module docstring) for measure class `cls`."""
    from recdiv.eval.catalog import parse_measure

    for measure in measures_to_check(cls):
        text = str(measure)
        if parse_measure(text) != measure or str(parse_measure(text)) != text:
            raise AssertionError(f"{text}: parse_measure(str(m)) does not give the measure back")
        for seed in seeds:
            inst = measure_instance(seed)
            values, system = _values(measure, *inst)
            again, system2 = _values(measure, *inst)
            where = f"{text}, seed {seed}"
            if not np.array_equal(values, again, equal_nan=True) or not (system == system2 or
                                                                         (np.isnan(system) and np.isnan(system2))):
                raise AssertionError(f"{where}: two evaluations give different values")
            _check_values(cls, where, values, system)
            if np.isnan(values).all() and values.size > 1:
                raise AssertionError(f"{where}: every per-user value is NaN")
            for what, run in degenerate_runs(inst[0]).items():
                _check_values(cls, f"{where}, {what}", *_values(measure, run, *inst[1:]))
    if cls.MONOTONE_IN_CUTOFF:
        _check_monotone(cls, seeds)


def _check_values(cls, where: str, values: np.ndarray, system: float) -> None:
    """No infinite value; every value inside the declared `RANGE` (NaN: undefined, allowed)."""
    both = np.append(values, system)
    if np.isinf(both).any() and not (cls.RANGE and np.isinf(cls.RANGE[1])):
        raise AssertionError(f"{where}: an infinite value {values.tolist()}")
    if cls.RANGE is not None:
        lo, hi = cls.RANGE
        tol = 1e-12 * max(1.0, np.nanmax(np.abs(both), initial=0.0))  # a ratio that is 1 may be 1 + 1 ulp
        outside = both[(both < lo - tol) | (both > hi + tol)]
        if len(outside):
            raise AssertionError(f"{where}: the value {outside[0]!r} is outside the declared RANGE {cls.RANGE}")


def degenerate_runs(run) -> dict:
    """The degenerate versions of `run` every measure must take: every list empty, every list one item long."""
    from recdiv.data.rankings import Rankings

    empty = np.full_like(run.items, -1)
    one = np.where(np.arange(run.k)[None, :] < 1, run.items, -1)
    return {what: Rankings(run.users, items, np.where(items >= 0, run.scores, np.nan), run.user_vocab,
                           run.item_vocab) for what, items in (("every list empty", empty), ("one item each", one))}


def _check_monotone(cls, seeds) -> None:
    """A user's value (a system measure's value) at K is at most its value at every larger K."""
    given = {p.name: "protected" for p in cls.PARAMS if p.name == "group" and not p.default}
    for seed in seeds:
        inst = measure_instance(seed)
        previous = None
        for k in (1, 2, 3, 5, 8, 20):
            values, _ = _values(cls(k, **given), *inst)
            if previous is not None:
                worse = np.flatnonzero(values < previous - 1e-12)
                if len(worse):
                    r = worse[0]
                    raise AssertionError(f"{cls.NAME}, seed {seed}: declared MONOTONE_IN_CUTOFF, but a value falls "
                                         f"from {previous[r]!r} to {values[r]!r} when the cutoff grows to {k}")
            previous = values


# rerankers -------------------------------------------------------------------------------------------------------
def _lambda_field(cls) -> str | None:
    fields = cls.Config.model_fields
    return next((f.alias or n for n, f in fields.items() if (f.alias or n) == "lambda"), None)


def check_reranker_class(cls, *, oracle_seeds=(0, 1), k: int = 8) -> None:
    """Assert the reranker contract (module docstring) for reranker class `cls`."""
    check_reranker(cls(), ks=(1, 3, 50))
    if _lambda_field(cls):
        for lam in (0.0, 1.0):
            check_reranker(cls(**{"lambda": lam}), seeds=range(2), ks=(3, 8))
    for params in cls.PURE_RELEVANCE:
        check_keeps_order(cls(**params), seeds=range(2), ks=(1, 5, 12))
    if "reference" in vars(cls):  # the class brings its own oracle
        _check_against_reference(cls, oracle_seeds, k)


def _check_against_reference(cls, seeds, k: int) -> None:
    from recdiv.diversifiers.reference import user_environments

    for seed in seeds:
        cands, ctx = random_instance(seed, ragged=False)
        out = cls().rerank(cands, k, ctx)
        envs = user_environments(cands, ctx, seed=seed)  # seeded as the context: a random stream in user order
        for r in np.argsort(cands.users):
            env = envs[r]
            row = cands.items[r][cands.items[r] >= 0].tolist()
            pos = cls.reference({}, row, cands.scores[r][: len(row)].tolist(), k, env)
            expected = [row[p] for p in pos]
            got = out.items[r][out.items[r] >= 0].tolist()
            if got != expected:
                raise AssertionError(f"{cls.NAME}, seed {seed}, user row {r}: the reranker picks {got}, its "
                                     f"readable loop {expected}")


# recommenders ----------------------------------------------------------------------------------------------------
def check_recommender(cls, *, n: int = 10, params: dict[str, Any] | None = None, seed: int = 0) -> None:
    """Assert the recommender contract (module docstring) for recommender class `cls` (`params`: its
    hyperparameters for a quick fit)."""
    from recdiv.config import validate_config

    _, ctx = random_instance(seed, n_users=12, n_items=30)
    train = ctx.train
    users = np.arange(len(train.users))

    given = {**({"seed": seed} if "seed" in cls.Config.model_fields else {}), **(params or {})}
    config = validate_config(cls.Config, given, what=f"parameters of {cls.name}")
    side = {}
    if "attributes" in inspect.signature(cls._fit).parameters:  # content-based: the items' aspects
        from recdiv.data.interactions import Attribute

        side["attributes"] = Attribute(ctx.aspects.membership, ctx.aspects.names)

    def fit_and_recommend():
        return cls(config).fit(train, **side).recommend(users, n)

    out = fit_and_recommend()
    if out.k > n:
        raise AssertionError(f"{cls.name}: lists of {out.k} items, asked for {n}")
    seen_ok = getattr(cls, "recommends_seen", False)
    for r, u in enumerate(out.users):
        row = out.items[r][out.items[r] >= 0]
        seen = set(train.matrix[u].indices.tolist())
        if not seen_ok and seen & set(row.tolist()):
            raise AssertionError(f"{cls.name}: user {u} is recommended training items {sorted(seen & set(row))}")
        sc = out.scores[r][: len(row)]
        if len(sc) > 1 and np.any(np.diff(sc) > 0):
            raise AssertionError(f"{cls.name}: user {u}'s scores increase along the list: {sc.tolist()}")
    again = fit_and_recommend()
    if not np.array_equal(out.items, again.items):
        raise AssertionError(f"{cls.name}: two fits with seed {seed} give different lists")


# datasets --------------------------------------------------------------------------------------------------------
def check_dataset_format(fmt, folder: str | Path | None = None) -> None:
    """Assert the contract of a `recdiv.data.datasets.DatasetFormat`; with `folder` (a folder of that format), also
    that it loads and the dataset passes `check_dataset`."""
    import tempfile

    from recdiv.data.load import detect_format
    from recdiv.errors import DataError

    loader = fmt.load_function()
    params = list(inspect.signature(loader).parameters.values())
    if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        raise AssertionError(f"{fmt.name}: the loader's first parameter must be the folder")
    if any(p.kind not in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is p.empty for p in params[1:]):
        raise AssertionError(f"{fmt.name}: the loader's options must be keywords with defaults")
    with tempfile.TemporaryDirectory() as empty:
        try:
            found = detect_format(empty)
        except DataError:
            found = None
        if found == fmt.name:
            raise AssertionError(f"{fmt.name}: an empty folder is taken for this format")
    if folder is not None:
        if detect_format(folder) != fmt.name:
            raise AssertionError(f"{folder}: not detected as {fmt.name}")
        check_dataset(loader(folder))


def check_dataset(dataset) -> None:
    """Assert what every loaded dataset holds: unique (user, item) pairs (a CSR matrix with sorted, unique columns
    per row), a matrix of |users| × |items|, values inside the rating scale, attributes over the same items."""
    inter = dataset.interactions
    m = inter.matrix
    if m.shape != (len(inter.users), len(inter.items)):
        raise AssertionError(f"{dataset.name}: a {m.shape} matrix for {len(inter.users)} users × {len(inter.items)} "
                             "items")
    if inter.nnz == 0:
        raise AssertionError(f"{dataset.name}: no interactions")
    for r in range(m.shape[0]):
        cols = m.indices[m.indptr[r]:m.indptr[r + 1]]
        if np.any(np.diff(cols) <= 0):
            raise AssertionError(f"{dataset.name}: user row {r} holds an item twice or out of order")
    if getattr(inter, "scale", None) is not None and m.nnz:
        lo, hi = inter.scale
        if m.data.min() < lo or m.data.max() > hi:
            raise AssertionError(f"{dataset.name}: values {m.data.min()}–{m.data.max()} outside the scale {lo}–{hi}")
    for name, attr in getattr(dataset, "attributes", {}).items():
        rows = getattr(attr, "shape", (len(inter.items),))[0]
        if rows != len(inter.items):
            raise AssertionError(f"{dataset.name}: attribute {name} has {rows} items, the interactions "
                                 f"{len(inter.items)}")


def registered(kind: str) -> Iterator[tuple[str, Any]]:
    """(name, component) of every registered component of `kind` ("measure", "reranker", "recommender",
    "dataset format"), for parametrized tests."""
    if kind == "measure":
        from recdiv.eval.catalog import MEASURES as reg
    elif kind == "reranker":
        from recdiv.diversifiers.registry import RERANKERS as reg
    elif kind == "recommender":
        from recdiv.algorithms.registry import RECOMMENDERS as reg
    else:
        from recdiv.data.datasets import FORMATS as reg
    for entry in reg.entries():
        yield entry.name, entry.obj
