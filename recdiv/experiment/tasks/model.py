"""A model task: fit one model on a split, write its top-N candidates and the latent aspect spaces built from it."""

from __future__ import annotations

from collections import Counter
from typing import Any

from recdiv.data.qrels import Qrels
from recdiv.errors import ConfigError
from recdiv.experiment.plan.graph import ModelPlan, Task
from recdiv.experiment.tasks.environment import TaskEnv
from recdiv.experiment.tasks.spaces import build_latent_space, save_space


def run_model_task(env: TaskEnv, task: Task) -> Counter:
    """Fit the model of `task.plan` (a `ModelPlan`) unless everything it produces is in the store; write its
    candidates and latent aspect spaces. Returns the work done and reused per stage."""
    plan: ModelPlan = task.plan
    store, config = env.store, env.config
    stats: Counter = Counter()
    need_cand = plan.candidates_key is not None and not store.has("candidates", plan.candidates_key, "npz")
    need_latent = [(n, k) for n, k in plan.latent if not store.has("aspects", k, "npz")]
    stats["candidates:cached"] += plan.candidates_key is not None and not need_cand
    stats["aspects:cached"] += len(plan.latent) - len(need_latent)
    if not need_cand and not need_latent:
        return stats
    from recdiv.algorithms.registry import make_recommender  # the registry imports the recommenders
    split, _ = env.inputs.split(task.dataset, task.split)
    dataset, _ = env.inputs.dataset(task.dataset)
    model = make_recommender(plan.name, **dict(plan.params))
    model.fit(split.train, **side_information(model, dataset))
    stats["fit"] += 1
    if need_cand:
        qrels = Qrels.from_interactions(split.test)
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
