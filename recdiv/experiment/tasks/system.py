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
    """Per-user values (system-level measures: one row, user = SYSTEM_LEVEL_USER) of `measures` for a ranking.
    The reference-run measures (RBO, LIP, ESSD) compare it with the system's candidate list (`reference_lists`),
    the pairwise ones (lexirecall, lexiprecision) with its baseline's lists (`SystemPlan.baseline`; a baseline
    compared with itself: 0 for every user)."""
    from dataclasses import replace

    from recdiv.eval import evaluate, parse_measure

    qrels, ctx = eval_context(env, task.dataset, task.split, task.plan.eval_aspect_key, task.plan.groups_key)
    parsed = [parse_measure(text, env.config.metrics.conventions) for text in measures]
    if any("previous" in m.NEEDS for m in parsed):
        # the same cache: this task's lists are new objects, so their views are made under this context (and
        # forgotten below); the ideals and tables of the split stay shared
        ctx = replace(ctx, previous=reference_lists(env, task))
    single = [m for m in parsed if m.KIND != "pairwise"]
    pairwise = [m for m in parsed if m.KIND == "pairwise"]
    base = baseline_lists(env, task, ranking) if pairwise else None
    try:
        result = evaluate({"system": ranking}, qrels, single, ctx)  # the one evaluation entry point
        if pairwise:
            prefs = evaluate({"system": ranking, "baseline": base}, qrels, pairwise, ctx, baseline="baseline")
    finally:
        ctx.cache.forget(ranking)  # what derives from this ranking; ideals and tables stay for the next system
        if base is not None and base is not ranking:
            ctx.cache.forget(base)
    users = np.asarray(result.users).astype(str)
    parts = []
    for text, m in zip(measures, parsed, strict=True):
        if m.KIND == "system":
            value = result.value("system", m)
            parts.append(pd.DataFrame({"measure": [text], "user": [SYSTEM_LEVEL_USER], "value": [value]}))
        else:
            values = np.asarray((prefs if m.KIND == "pairwise" else result).user_values("system", m),
                                dtype=np.float64)
            parts.append(pd.DataFrame({"measure": text, "user": users, "value": values}))
    return pd.concat(parts, ignore_index=True)


def reference_lists(env: TaskEnv, task: Task):
    """The lists RBO, LIP and ESSD compare a system's with: the candidate list of its recommender (the whole
    top N the diversifier reranked; for a recommender, its own list before the cut at k)."""
    split, _ = env.inputs.split(task.dataset, task.split)
    cands = env.store.load_rankings("candidates", task.plan.candidates_key, split.train.users, split.train.items)
    if cands is None:
        raise RuntimeError(f"candidates of {task.plan.system.recommender} are missing from the store")
    return cands


def baseline_lists(env: TaskEnv, task: Task, ranking):
    """The final lists of the system's baseline (`SystemPlan.baseline`; `ranking` itself for a baseline)."""
    if task.plan.baseline is None:
        return ranking
    name, cands_key, rerank_key = task.plan.baseline
    split, _ = env.inputs.split(task.dataset, task.split)
    users, items = split.train.users, split.train.items
    if rerank_key is None:
        lists = env.store.load_rankings("candidates", cands_key, users, items)
        lists = None if lists is None else lists.truncate(env.config.candidates.k)
    else:
        lists = env.store.load_rankings("rerank", rerank_key, users, items)
    if lists is None:
        raise RuntimeError(f"the lists of {name}, the baseline of {task.plan.system.name}, are missing from the store")
    return lists
