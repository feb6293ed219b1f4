"""The stages of an experiment, as the work of one task: fit a model and write its top-N candidates and latent
aspect spaces (`run_model_task`); rerank a recommender's candidates and compute per-user metric values
(`run_system_task`). Tasks rebuild their inputs (dataset, split) from the experiment config, memoised per
process, and exchange everything else through the artefact store (`recdiv.experiment.cache`).
"""

from __future__ import annotations

import importlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from recdiv.errors import ConfigError
from recdiv.experiment.cache import ArrayHasher, Store, fingerprint_interactions, hash_config
from recdiv.experiment.config import AspectConfig, ExperimentConfig, latent_kind, space_config

if TYPE_CHECKING:
    from recdiv.experiment.runner import System

SYSTEM_LEVEL_USER = "__system__"  # `user` of system-level measure rows inside score artefacts


# components ---------------------------------------------------------------------------------------------------
def component(module: str, needed_for: str):
    """Import a recdiv module the experiment needs; a missing one is a clear ConfigError, not a traceback."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and (module == e.name or module.startswith(e.name + ".")):
            raise ConfigError(f"{needed_for}: {module} is not available in this installation") from None
        if e.name and e.name.startswith("recdiv."):  # a part that the component itself imports
            raise ConfigError(f"{needed_for}: {module} needs {e.name}, which is not available") from None
        raise


# the work of one task ------------------------------------------------------------------------------------------
@dataclass
class Env:
    """What a task needs to rebuild its inputs: the store, the run's settings and the dataset/split it works on."""

    store_root: str
    resume: bool
    since_ns: int
    config: dict[str, Any]
    dataset: int
    split: str

    @property
    def store(self) -> Store:
        return Store(Path(self.store_root), resume=self.resume, since_ns=self.since_ns)

    @property
    def experiment(self) -> ExperimentConfig:
        return _experiment(json.dumps(self.config, sort_keys=True))


_MEMO: dict[str, Any] = {}


def remember(config: ExperimentConfig) -> None:
    """Memoise the validated config in this process (tasks run inline then skip re-validation)."""
    _MEMO["config:" + json.dumps(config.model_dump(mode="json"), sort_keys=True)] = config


def forget() -> None:
    """Drop everything this process memoised (the end of an inline run keeps no dataset, split or context)."""
    _MEMO.clear()


def _experiment(text: str) -> ExperimentConfig:
    key = "config:" + text
    if key not in _MEMO:
        _MEMO[key] = ExperimentConfig.model_validate(json.loads(text))
    return _MEMO[key]


def load_data(config: ExperimentConfig, index: int):
    """The dataset `index` of the experiment and its content fingerprint (memoised per process)."""
    d = config.datasets[index]
    key = "dataset:" + d.model_dump_json()
    if key not in _MEMO:
        for k in [k for k in _MEMO if k.startswith(("dataset:", "split:"))]:
            del _MEMO[k]  # one dataset at a time in memory
        load = component("recdiv.data.load", "loading datasets")
        dataset = load.load_dataset(d.name, data_dir=d.data_dir, **d.options)
        h = fingerprint_interactions(ArrayHasher(d.name), dataset.interactions)
        for name in sorted(dataset.attributes):
            h.update(name).update(dataset.attributes[name].matrix).update(dataset.attributes[name].names)
        _MEMO[key] = (dataset, h.hexdigest())
    return _MEMO[key]


def load_split(config: ExperimentConfig, index: int, spec: str):
    """The split `spec` of dataset `index` (seeded by the experiment seed) and its content fingerprint."""
    dataset, dfp = load_data(config, index)
    key = f"split:{dfp}:{spec}:{config.seed}"
    if key not in _MEMO:
        for k in [k for k in _MEMO if k.startswith("split:")]:
            del _MEMO[k]
        splits = component("recdiv.data.splits", "splitting datasets")
        split = splits.make_split(dataset, spec, seed=config.seed)
        h = ArrayHasher(dfp, spec)
        for part in (split.train, split.test, split.validation):
            if part is None:
                h.update(None)
            else:
                fingerprint_interactions(h, part)
        _MEMO[key] = (split, h.hexdigest())
    return _MEMO[key]


def recommender_params(name: str, params: dict[str, Any], seed: int) -> dict[str, Any]:
    """The recommender's parameters, with the experiment seed filled in where the model takes one."""
    algos = component("recdiv.algorithms.registry", "the recommenders")
    rec = algos.make_recommender(name, **params)
    fields = getattr(type(getattr(rec, "config", None)), "model_fields", {})
    out = dict(params)
    for k in ("seed", "random_state"):
        if k in fields and k not in out:
            out[k] = seed
    return out


@dataclass(frozen=True)
class ModelPlan:
    """A model to fit on one split, what it produces, and the store keys of its products."""

    name: str
    params: tuple[tuple[str, Any], ...]
    fit_key: str
    candidates_key: str | None  # set when the model is one of the experiment's recommenders
    recommender: str | None
    latent: tuple[tuple[str, str], ...] = ()  # (aspect space name, store key)


def aspect_key(cfg: AspectConfig, dfp: str, fit_key: str | None) -> str:
    if cfg.kind == "explicit":
        return hash_config("aspects", dfp, cfg.model_dump(mode="json"))
    return hash_config("aspects", fit_key, cfg.model_dump(mode="json", exclude={"recommender", "model", "params"}))


def run_model_task(env: Env, plan: ModelPlan) -> Counter:
    """Fit one model on the split; write its candidates and the latent aspect spaces built from it."""
    store, config = env.store, env.experiment
    stats: Counter = Counter()
    try:
        return _model_task(env, plan, store, config, stats)
    finally:
        stats.update(f"damaged:{p}" for p in store.damaged)


def _model_task(env: Env, plan: ModelPlan, store: Store, config: ExperimentConfig, stats: Counter) -> Counter:
    need_cand = plan.candidates_key is not None and not store.has("candidates", plan.candidates_key, "npz")
    need_latent = [(n, k) for n, k in plan.latent if not store.has("aspects", k, "npz")]
    stats["candidates:cached"] += plan.candidates_key is not None and not need_cand
    stats["aspects:cached"] += len(plan.latent) - len(need_latent)
    if not need_cand and not need_latent:
        return stats
    split, _ = load_split(config, env.dataset, env.split)
    dataset, _ = load_data(config, env.dataset)
    algos = component("recdiv.algorithms.registry", "the recommenders")
    model = algos.make_recommender(plan.name, **dict(plan.params))
    model.fit(split.train, **side_information(model, dataset))
    stats["fit"] += 1
    if need_cand:
        qrels = _qrels(split)
        users = qrels.population(config.metrics.threshold, config.metrics.population)
        cands = model.recommend(users, config.candidates.n, exclude=split.train)
        store.save_rankings("candidates", plan.candidates_key, cands)
        stats["candidates"] += 1
    spaces = {a.name: a for a in config.aspects}
    for name, key in need_latent:
        space, factors = build_latent_space(spaces[name], model, split, dict(plan.params), config.seed)
        save_space(store, key, space, factors)
        stats["aspects"] += 1
    return stats


def side_information(model, dataset) -> dict[str, Any]:
    """Keyword side information for `fit`: the item attribute named by the model's config (content-based)."""
    if not getattr(model, "needs_attributes", False):
        return {}
    name = getattr(model.config, "attribute", "genres")
    if name not in dataset.attributes:
        raise ConfigError(f"recommender {model.name!r} needs item attribute {name!r}, which dataset "
                          f"{dataset.name!r} lacks (attributes: {', '.join(dataset.attributes) or 'none'})")
    return {"attributes": dataset.attributes[name]}


def _qrels(split):
    from recdiv.data.qrels import Qrels

    return Qrels.from_interactions(split.test)


# aspect spaces ------------------------------------------------------------------------------------------------
def build_explicit_space(cfg: AspectConfig, dataset):
    """An explicit aspect space from a dataset attribute (`recdiv.aspects.build.space_from_attribute`)."""
    return space_config(cfg, "explicit", f"aspect space {cfg.name!r}").build(dataset, name=cfg.name)


def build_latent_space(cfg: AspectConfig, model, split, params: dict[str, Any], seed: int):
    """(space, item features) from a fitted model (thesis §3.6.2; `recdiv.aspects.kinds`), by what the model
    declares it provides (`CAPABILITIES`): topics (pLSA, LDA) — aspects are topics with weights p(z|i) (`l` =
    topics kept per item, default all), features = p(z|i); item-factors (MF) — A(i) = the `l` dominant factors of
    q_i, features = Q (for latent cosine)."""
    kind = latent_kind(getattr(type(model), "CAPABILITIES", ()))
    where = f"aspect space {cfg.name!r}"
    items = split.train.items
    if kind == "topics":
        space = space_config(cfg, kind, where).build(model.user_topics, model.item_topics, items, name=cfg.name)
        return space, np.asarray(space.membership.todense(), dtype=np.float64)
    if kind == "factors":
        if cfg.l is None:
            raise ConfigError(f"{where}: MF factor aspects need `l` (dominant factors per item)")
        q = np.asarray(model.item_factors, dtype=np.float64)
        return space_config(cfg, kind, where).build(q, items, name=cfg.name), q
    raise ConfigError(f"{where}: recommender {model.name!r} declares no item factors or topics")


def component_source(kind: str, name: str) -> str:
    """The source fingerprint (`recdiv.registry.source_fingerprint`) of a recommender or reranker, part of its
    cache keys: `--resume` recomputes a component whose code changed (#16.9)."""
    registry = (component("recdiv.algorithms.registry", "the recommenders").RECOMMENDERS if kind == "recommender"
                else component("recdiv.diversifiers.registry", "the diversifiers").RERANKERS)
    fingerprint = component("recdiv.registry", "the registry").source_fingerprint
    return fingerprint(registry.get(name))


def save_space(store: Store, key: str, space, factors: np.ndarray | None) -> None:
    m = sp.csr_matrix(space.membership)
    m.sort_indices()
    arrays = {"indptr": m.indptr, "indices": m.indices, "data": m.data, "shape": np.asarray(m.shape),
              "names": np.asarray(space.names.index.astype(str), dtype=str)}
    if factors is not None:
        arrays["factors"] = np.asarray(factors, dtype=np.float64)
    store.save_arrays("aspects", key, arrays)


def load_space(store: Store, key: str, items, name: str):
    """(AspectSpace, factors or None) from the store; None if absent."""
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.vocab import Vocab

    a = store.load_arrays("aspects", key)
    if a is None:
        return None
    m = sp.csr_matrix((a["data"], a["indices"], a["indptr"]), shape=tuple(a["shape"]))
    return AspectSpace(items, Vocab(a["names"].tolist()), m, name), a.get("factors")


def similarity_for(kind: str | None, space, factors, train, default_kind: str):
    from recdiv.aspects.similarity import similarity_from_name

    name = kind or ("latent-cosine" if default_kind == "latent" and factors is not None else "cosine")
    try:
        return similarity_from_name(name, space, factors=factors, train=train)
    except (ValueError, KeyError) as e:
        raise ConfigError(f"similarity {name!r}: {e}") from None


# system tasks -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SystemPlan:
    system: System
    candidates_key: str
    ranking_key: str
    rerank_aspect_key: str | None
    scores_key: str
    eval_aspect_key: str | None
    measures: tuple[str, ...]


def _resources(config: ExperimentConfig, env: Env) -> dict[str, Any]:
    """Per-split objects shared by the system tasks of this process (qrels, contexts with their caches:
    user aspect distributions, novelty arrays, metric ideals); dropped with the split."""
    _, sfp = load_split(config, env.dataset, env.split)
    return _MEMO.setdefault(f"split:{sfp}:resources", {})


def _space(env: Env, split, key: str, name: str):
    res = _resources(env.experiment, env)
    if ("space", key) not in res:
        loaded = load_space(env.store, key, split.train.items, name)
        if loaded is None:
            raise RuntimeError(f"aspect space {name!r} is missing from the store")
        res[("space", key)] = loaded
    return res[("space", key)]


def _rerank_context(env: Env, split, key: str | None, name: str | None):
    res = _resources(env.experiment, env)
    if ("rerank", key) not in res:
        base = component("recdiv.diversifiers.base", "the diversifiers")
        space = factors = similarity = None
        if name is not None:
            cfg = {a.name: a for a in env.experiment.aspects}[name]
            space, factors = _space(env, split, key, name)
            similarity = similarity_for(cfg.similarity, space, factors, split.train, cfg.kind)
        res[("rerank", key)] = base.RerankContext(train=split.train, aspects=space, similarity=similarity,
                                                  seed=env.experiment.seed)
    return res[("rerank", key)]


def _eval_context(env: Env, split, key: str | None):
    res = _resources(env.experiment, env)
    if ("eval", key) not in res:
        config = env.experiment
        ev = component("recdiv.eval", "the metrics")
        space = similarity = None
        name = config.evaluation_aspects
        if name is not None:
            cfg = {a.name: a for a in config.aspects}[name]
            space, factors = _space(env, split, key, name)
            similarity = similarity_for(config.metrics.similarity or cfg.similarity, space, factors, split.train,
                                        cfg.kind)
        from recdiv.data.qrels import Qrels

        qrels = Qrels.from_interactions(split.test)
        ctx = ev.EvalContext(threshold=config.metrics.threshold, population=config.metrics.population,
                             train=split.train, aspects=space, similarity=similarity, scale=split.train.scale)
        res[("eval", key)] = (qrels, ctx)
    return res[("eval", key)]


def run_system_task(env: Env, plan: SystemPlan) -> Counter:
    """Rerank (diversified systems) and compute the per-user values of every measure for one system."""
    store, config = env.store, env.experiment
    stats: Counter = Counter()
    try:
        return _system_task(env, plan, store, config, stats)
    finally:
        stats.update(f"damaged:{p}" for p in store.damaged)


def _system_task(env: Env, plan: SystemPlan, store: Store, config: ExperimentConfig, stats: Counter) -> Counter:
    done = store.load_frame("scores", plan.scores_key)
    have = set() if done is None else set(done["measure"].unique())
    missing = [m for m in plan.measures if m not in have]
    if not missing:
        stats["scores:cached"] += 1
        return stats
    split, _ = load_split(config, env.dataset, env.split)
    s = plan.system
    users, items = split.train.users, split.train.items
    cands = store.load_rankings("candidates", plan.candidates_key, users, items)
    if cands is None:
        raise RuntimeError(f"candidates of {s.recommender} are missing from the store")
    k = config.candidates.k
    if s.diversifier is None:
        ranking = cands.truncate(k)
    else:
        ranking = store.load_rankings("rerank", plan.ranking_key, users, items)
        if ranking is None:
            div = component("recdiv.diversifiers.registry", "the diversifiers")
            ctx = _rerank_context(env, split, plan.rerank_aspect_key, s.aspects)
            reranked = div.make_reranker(s.reranker, **dict(s.params)).rerank(cands, k, ctx)
            store.save_rankings("rerank", plan.ranking_key, reranked)
            ranking = store.load_rankings("rerank", plan.ranking_key, users, items)
            stats["rerank"] += 1
        else:
            stats["rerank:cached"] += 1
    frame = evaluate_ranking(env, plan, ranking, split, missing)
    if done is not None:
        frame = pd.concat([done, frame], ignore_index=True)
    store.save_frame("scores", plan.scores_key, frame)
    stats["scores"] += 1
    return stats


def evaluate_ranking(env: Env, plan: SystemPlan, ranking, split, measures: list[str]) -> pd.DataFrame:
    """Per-user values (system-level measures: one row, user = SYSTEM_LEVEL_USER) of `measures` for a ranking."""
    ev = component("recdiv.eval", "the metrics")
    qrels, ctx = _eval_context(env, split, plan.eval_aspect_key)
    parsed = [ev.parse_measure(text, env.experiment.metrics.conventions) for text in measures]
    try:
        result = ev.evaluate({"system": ranking}, qrels, parsed, ctx)  # the one evaluation entry point
    finally:
        ctx.cache.forget(ranking)  # what derives from this ranking; ideals and tables stay for the next system
    users = np.asarray(result.users).astype(str)
    parts = []
    for text, m in zip(measures, parsed, strict=True):
        if m.KIND == "system":
            value = result.value("system", m)
            parts.append(pd.DataFrame({"measure": [text], "user": [SYSTEM_LEVEL_USER], "value": [value]}))
        else:
            values = np.asarray(result.user_values("system", m), dtype=np.float64)
            parts.append(pd.DataFrame({"measure": text, "user": users, "value": values}))
    return pd.concat(parts, ignore_index=True)
