"""The objects the tasks of one split share, built once per process and split (`Inputs.shared`): the aspect spaces
read from the store, the reranking context of each space and the evaluation context (with its qrels), each with its
cache (user aspect distributions, novelty arrays, metric ideals)."""

from __future__ import annotations

from recdiv.data.qrels import Qrels
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.experiment.tasks.spaces import load_space, similarity_for


def stored_space(env: TaskEnv, di: int, spec: str, key: str, name: str):
    """(AspectSpace, factors or None) of aspect space `name` (store key `key`) on split `spec` of dataset `di`."""
    shared = env.inputs.shared(di, spec)
    if ("space", key) not in shared:
        split, _ = env.inputs.split(di, spec)
        loaded = load_space(env.store, key, split.train.items, name)
        if loaded is None:
            raise RuntimeError(f"aspect space {name!r} is missing from the store")
        shared[("space", key)] = loaded
    return shared[("space", key)]


def item_groups(env: TaskEnv, di: int, spec: str, key: str | None):
    """The item groups (`ExperimentConfig.item_groups`, an explicit aspect space; store key `key`) or None."""
    return None if key is None else stored_space(env, di, spec, key, env.config.item_groups)[0]


def rerank_context(env: TaskEnv, di: int, spec: str, key: str | None, name: str | None,
                   groups_key: str | None = None):
    """The reranking context over aspect space `name` (None: no aspects) on split `spec` of dataset `di`, with the
    item groups of store key `groups_key` (FAIR)."""
    shared = env.inputs.shared(di, spec)
    if ("rerank", key, groups_key) not in shared:
        from recdiv.diversifiers.base import RerankContext

        split, _ = env.inputs.split(di, spec)
        space = factors = similarity = None
        if name is not None:
            cfg = {a.name: a for a in env.config.aspects}[name]
            space, factors = stored_space(env, di, spec, key, name)
            similarity = similarity_for(cfg.similarity, space, factors, split.train, cfg.kind)
        shared[("rerank", key, groups_key)] = RerankContext(
            train=split.train, aspects=space, similarity=similarity, seed=env.config.seed,
            item_groups=item_groups(env, di, spec, groups_key))
    return shared[("rerank", key, groups_key)]


def eval_context(env: TaskEnv, di: int, spec: str, key: str | None, groups_key: str | None = None):
    """(qrels, evaluation context) of split `spec` of dataset `di`, over the metrics' aspect space (store key
    `key`) and the item groups of store key `groups_key` (AWRF, GroupExposure)."""
    shared = env.inputs.shared(di, spec)
    if ("eval", key, groups_key) not in shared:
        from recdiv.eval import EvalContext

        config = env.config
        split, _ = env.inputs.split(di, spec)
        space = similarity = None
        name = config.evaluation_aspects
        if name is not None:
            cfg = {a.name: a for a in config.aspects}[name]
            space, factors = stored_space(env, di, spec, key, name)
            similarity = similarity_for(config.metrics.similarity or cfg.similarity, space, factors, split.train,
                                        cfg.kind)
        qrels = Qrels.from_interactions(split.test)
        ctx = EvalContext(threshold=config.metrics.threshold, population=config.metrics.population,
                          train=split.train, aspects=space, similarity=similarity, scale=split.train.scale,
                          item_groups=item_groups(env, di, spec, groups_key))
        shared[("eval", key, groups_key)] = (qrels, ctx)
    return shared[("eval", key, groups_key)]
