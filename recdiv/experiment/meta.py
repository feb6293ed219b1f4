"""The ``[meta]`` section of an experiment: meta-evaluation of its measures over its systems.

- dp and asl (`meta_from_results`) come from the per-user scores of a dataset, pooled over its splits as the
  significance tests are: built by the report from its `Results`.
- sparsity and popularity (`robustness`) re-evaluate every system's final lists on degraded test sets: run after
  the scores (the runner calls it), per split, from the lists in the artefact store; the mean τ_b curves of the
  splits are averaged and written to ``meta.json`` (read by the report).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from recdiv.experiment.cache import write_json
from recdiv.experiment.config import ExperimentConfig

ROBUSTNESS = ("sparsity", "popularity")


def meta_measures(config: ExperimentConfig, available: list[str]) -> list[str]:
    """The measures of [meta]: meta.measures, else every per-user measure of the experiment."""
    wanted = config.meta.measures if config.meta and config.meta.measures else config.metrics.measures
    return [m for m in wanted if m in available]


def options(config: ExperimentConfig):
    from recdiv.eval.meta.study import MetaOptions

    m = config.meta
    opts = MetaOptions(dp_samples=m.samples, asl_samples=m.asl_samples, alpha=m.alpha,
                       robustness_samples=m.robustness_samples, seed=config.seed)
    if m.sparsity_levels is not None:
        opts.sparsity_levels = tuple(m.sparsity_levels)
    if m.popularity_levels is not None:
        opts.popularity_levels = tuple(m.popularity_levels)
    return opts


def meta_from_results(config: ExperimentConfig, res):
    """dp / asl of the [meta] measures from a dataset's `Results` (None without such analyses)."""
    from recdiv.eval.meta.study import meta_study

    if config.meta is None:
        return None
    analyses = [a for a in config.meta.analyses if a in ("dp", "asl")]
    measures = meta_measures(config, res.per_user_measures)
    if not analyses or not measures or len(res.systems) < 2:
        return None
    return meta_study({s: None for s in res.systems}, None, measures, None, analyses, options(config),
                      per_user={m: res.matrix(m) for m in measures})


def robustness(config: ExperimentConfig, env_base: dict[str, Any], index, out: Path) -> None:
    """Sparsity / popularity curves of every dataset (mean over its splits) into out/meta.json."""
    from recdiv.eval.meta.study import meta_study
    from recdiv.experiment.stages import Env, _eval_context, load_split

    analyses = [a for a in config.meta.analyses if a in ROBUSTNESS] if config.meta else []
    path = out / "meta.json"
    if not analyses:
        if path.exists():
            path.unlink()
        return
    per_split: dict[tuple[str, str], list] = {}
    for dataset, split, plan in index:
        per_split.setdefault((dataset, split), []).append(plan)
    datasets = {d.key: i for i, d in enumerate(config.datasets)}
    curves: dict[str, dict[str, dict]] = {}
    for (dataset, spec), plans in per_split.items():
        env = Env(dataset=datasets[dataset], split=spec, **env_base)
        split, _ = load_split(config, env.dataset, spec)
        store = env.store
        runs = {}
        for plan in plans:
            s = plan.system
            if s.diversifier is None:
                cands = store.load_rankings("candidates", plan.candidates_key, split.train.users, split.train.items)
                runs[s.name] = cands.truncate(config.candidates.k)
            else:
                runs[s.name] = store.load_rankings("rerank", plan.ranking_key, split.train.users, split.train.items)
        qrels, ctx = _eval_context(env, split, plans[0].eval_aspect_key)
        per_user = [m for m in config.metrics.measures if not _system_level(m)]
        study = meta_study(runs, qrels, meta_measures(config, per_user), ctx, analyses, options(config))
        for name in analyses:
            curve = getattr(study, name)
            slot = curves.setdefault(dataset, {}).setdefault(name, {"levels": curve.levels.tolist(), "splits": 0,
                                                                     "mean_tau": {}})
            slot["splits"] += 1
            for m, v in curve.mean.items():
                slot["mean_tau"].setdefault(m, []).append(v.tolist())
    for sets in curves.values():
        for slot in sets.values():
            slot["mean_tau"] = {m: [None if np.isnan(x) else float(x) for x in _nanmean(v)]
                                for m, v in slot["mean_tau"].items()}
    write_json(path, curves)


def _nanmean(rows: list) -> np.ndarray:
    """Mean over splits per level, ignoring NaN (τ_b of a constant ranking); NaN where every split is NaN."""
    a = np.array(rows, dtype=np.float64)
    ok = ~np.isnan(a)
    return np.where(ok.any(axis=0), np.nansum(a, axis=0) / np.maximum(ok.sum(axis=0), 1), np.nan)


def _system_level(measure: str) -> bool:
    from recdiv.eval import parse_measure

    m = parse_measure(measure)
    return m.KIND != "per-user"


def read_robustness(out: Path) -> dict:
    path = Path(out) / "meta.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
