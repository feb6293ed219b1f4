"""A system task: rerank a recommender's candidates (diversified systems) and compute the per-user values of every
measure, reading the candidates and aspect spaces from the store and writing the final lists and scores to it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from recdiv.experiment.plan.graph import SystemPlan, Task
from recdiv.experiment.tasks.contexts import eval_context, rerank_context
from recdiv.experiment.tasks.environment import TaskEnv

SYSTEM_LEVEL_USER = "__system__"  # `user` of system-level measure rows inside score artefacts


def run_system_task(env: TaskEnv, task: Task) -> Counter:
    """Rerank (diversified systems) and compute the per-user values of every measure of `task.plan` (a
    `SystemPlan`) not yet in its score artefact. Returns the work done and reused per stage."""
    plan: SystemPlan = task.plan
    store = env.store
    stats: Counter = Counter()
    done = store.load_frame("scores", plan.scores_key)
    have = set() if done is None else set(done["measure"].unique())
    missing = [m for m in plan.measures if m not in have]
    if not missing:
        stats["scores:cached"] += 1
        return stats
    split, _ = env.inputs.split(task.dataset, task.split)
    ranking = final_lists(env, task, split, stats)
    frame = evaluate_ranking(env, task, ranking, missing)
    if done is not None:
        frame = pd.concat([done, frame], ignore_index=True)
    store.save_frame("scores", plan.scores_key, frame)
    stats["scores"] += 1
    return stats


def final_lists(env: TaskEnv, task: Task, split, stats: Counter):
    """The system's top-k lists: its recommender's candidates cut at k, or reranked (from the store when there)."""
    plan: SystemPlan = task.plan
    store, s, k = env.store, plan.system, env.config.candidates.k
    users, items = split.train.users, split.train.items
    cands = store.load_rankings("candidates", plan.candidates_key, users, items)
    if cands is None:
        raise RuntimeError(f"candidates of {s.recommender} are missing from the store")
    if s.diversifier is None:
        return cands.truncate(k)
    ranking = store.load_rankings("rerank", plan.ranking_key, users, items)
    if ranking is not None:
        stats["rerank:cached"] += 1
        return ranking
    from recdiv.diversifiers.registry import make_reranker

    ctx = rerank_context(env, task.dataset, task.split, plan.rerank_aspect_key, s.aspects, plan.groups_key)
    reranked = make_reranker(s.reranker, **dict(s.params)).rerank(cands, k, ctx)
    store.save_rankings("rerank", plan.ranking_key, reranked)
    stats["rerank"] += 1
    return store.load_rankings("rerank", plan.ranking_key, users, items)


def evaluate_ranking(env: TaskEnv, task: Task, ranking, measures: list[str]) -> pd.DataFrame:
    """Per-user values (system-level measures: one row, user = SYSTEM_LEVEL_USER) of `measures` for a ranking."""
    from recdiv.eval import evaluate, parse_measure

    qrels, ctx = eval_context(env, task.dataset, task.split, task.plan.eval_aspect_key, task.plan.groups_key)
    parsed = [parse_measure(text, env.config.metrics.conventions) for text in measures]
    try:
        result = evaluate({"system": ranking}, qrels, parsed, ctx)  # the one evaluation entry point
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
