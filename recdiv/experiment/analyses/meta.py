"""The ``[meta]`` section of an experiment: meta-evaluation of its measures over its systems.

- dp and asl (`meta_from_results`) come from the per-user scores of a dataset, pooled over its splits as the
  significance tests are: built by the report from its `Results`.
- sparsity, popularity and perturbation (`split_analyses`) are computed per split after the scores (the runner
  calls it) and cached in the artefact store (stage ``meta``; `recdiv run --resume` reuses them):
  sparsity and popularity re-evaluate every system's final lists on degraded test sets, and the splits' mean τ_b
  curves are averaged; perturbation evaluates Parapar & Radlinski's simulated systems built from the split's test
  ratings over the metrics' aspect space (`recdiv.eval.meta.perturbation`, as `recdiv meta --analysis
  perturbation`), and the per-user values of each level are pooled over the splits (as dp and the tests pool
  them) before `PerturbationResult.from_values`. Everything goes to ``meta.json`` (read by the report).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from recdiv.experiment.plan.graph import SystemPlan
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.cache import hash_config, write_json
from recdiv.experiment.tasks.contexts import eval_context
from recdiv.experiment.tasks.environment import TaskEnv

ROBUSTNESS = ("sparsity", "popularity")
SPLIT_ANALYSES = (*ROBUSTNESS, "perturbation")


def meta_measures(config: ExperimentConfig, available: list[str]) -> list[str]:
    """The measures of [meta]: meta.measures, else every per-user measure of the experiment of a list alone (not
    those against another list: RBO, LIP, ESSD, lexirecall; `against_other_lists`)."""
    if config.meta and config.meta.measures:
        return [m for m in config.meta.measures if m in available]
    return [m for m in config.metrics.measures if m in available and not against_other_lists(m, config)]


def against_other_lists(measure: str, config: ExperimentConfig) -> bool:
    """Does `measure` compare a system's lists with other lists (its candidates' or its baseline's)?"""
    from recdiv.eval import parse_measure

    m = parse_measure(measure, config.metrics.conventions)
    return m.KIND == "pairwise" or "previous" in m.NEEDS


def options(config: ExperimentConfig):
    from recdiv.eval.meta.study import MetaOptions

    m = config.meta
    opts = MetaOptions(dp_samples=m.samples, asl_samples=m.asl_samples, alpha=m.alpha,
                       robustness_samples=m.robustness_samples, perturbation_k=m.perturbation_k,
                       perturbation_families=tuple(m.perturbation_families), seed=config.seed)
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


def split_analyses(env: TaskEnv, index, out: Path) -> None:
    """Robustness curves (mean over the splits) and perturbation experiments (pooled over the splits) of every
    dataset into out/meta.json (`index`: (dataset, split, plan) of every system task); each split's part is cached
    in the store."""
    config = env.config
    analyses = [a for a in config.meta.analyses if a in SPLIT_ANALYSES] if config.meta else []
    path = out / "meta.json"
    if not analyses:
        if path.exists():
            path.unlink()
        return
    per_split: dict[tuple[str, str], list] = {}
    for dataset, split, plan in index:
        per_split.setdefault((dataset, split), []).append(plan)
    datasets = {d.key: i for i, d in enumerate(config.datasets)}
    measures = meta_measures(config, [m for m in config.metrics.measures if not _system_level(m)])
    robust = [a for a in analyses if a in ROBUSTNESS]
    curves: dict[str, dict[str, dict]] = {}
    pooled: dict[str, dict[str, list]] = {}
    for (dataset, spec), plans in per_split.items():
        di = datasets[dataset]
        if robust:
            for name, part in _split_robustness(env, di, spec, plans, robust, measures).items():
                slot = curves.setdefault(dataset, {}).setdefault(name, {"levels": part["levels"], "splits": 0,
                                                                        "mean_tau": {}})
                slot["splits"] += 1
                for m, v in part["mean_tau"].items():
                    slot["mean_tau"].setdefault(m, []).append(v)
        if "perturbation" in analyses:
            for fam, part in _split_perturbation(env, di, spec, plans[0], measures).items():
                pooled.setdefault(dataset, {}).setdefault(fam, []).append(part)
    for sets in curves.values():
        for slot in sets.values():
            slot["mean_tau"] = {m: [None if np.isnan(x) else float(x) for x in _nanmean(v)]
                                for m, v in slot["mean_tau"].items()}
    for dataset, families in pooled.items():
        curves.setdefault(dataset, {})["perturbation"] = {
            "k": config.meta.perturbation_k, "splits": len(next(iter(families.values()))),
            "families": {fam: _pooled_results(parts, measures) for fam, parts in families.items()}}
    write_json(path, curves)


def _split_robustness(env: TaskEnv, di: int, spec: str, plans: list[SystemPlan], analyses: list[str],
                      measures: list[str]) -> dict:
    """{analysis: {levels, mean_tau: {measure: τ_b per level}}} of split `spec` of dataset `di` (cached: the systems'
    scores keys cover their lists and the evaluation settings)."""
    from recdiv.eval.meta.study import meta_study

    config = env.config
    opts = options(config)
    store = env.store
    key = hash_config("meta-robustness", sorted((p.system.name, p.scores_key) for p in plans), measures, analyses,
                      list(opts.sparsity_levels), opts.robustness_samples, list(opts.popularity_levels), opts.seed)
    cached = store.load_json("meta", key)
    if cached is not None:
        return cached
    split, _ = env.inputs.split(di, spec)
    runs = {}
    for plan in plans:
        s = plan.system
        if s.diversifier is None:
            cands = store.load_rankings("candidates", plan.candidates_key, split.train.users, split.train.items)
            runs[s.name] = cands.truncate(config.candidates.k)
        else:
            runs[s.name] = store.load_rankings("rerank", plan.ranking_key, split.train.users, split.train.items)
    qrels, ctx = eval_context(env, di, spec, plans[0].eval_aspect_key, plans[0].groups_key)
    study = meta_study(runs, qrels, measures, ctx, analyses, opts)
    part = {name: {"levels": getattr(study, name).levels.tolist(),
                   "mean_tau": {m: [None if np.isnan(x) else float(x) for x in v]
                                for m, v in getattr(study, name).mean.items()}} for name in analyses}
    store.save_json("meta", key, part)
    return part


def _split_perturbation(env: TaskEnv, di: int, spec: str, plan: SystemPlan, measures: list[str]
                        ) -> dict[str, tuple[np.ndarray, list[np.ndarray]]]:
    """{family: (levels, [levels × users values of each measure])} of split `spec` of dataset `di`: the distinct
    levels of `family_systems` and their per-user values (cached per family)."""
    from recdiv.eval.meta.perturbation import family_systems, ideal_trace, perturbation_values

    config, store = env.config, env.store
    _, sfp = env.inputs.split(di, spec)
    settings = config.metrics.eval_settings()
    out, trace = {}, None
    for fam in config.meta.perturbation_families:
        key = hash_config("meta-perturbation", sfp, plan.eval_aspect_key, settings, measures,
                          config.meta.perturbation_k, fam)
        a = store.load_arrays("meta", key)
        if a is None:
            qrels, ctx = eval_context(env, di, spec, plan.eval_aspect_key, plan.groups_key)
            if trace is None:
                trace = ideal_trace(qrels, ctx.aspects, config.meta.perturbation_k)
            systems = family_systems(trace, fam)
            values = perturbation_values(systems, qrels, measures, ctx)
            for run in systems.values():
                ctx.cache.forget(run)
            levels = sorted(systems)
            a = {"levels": np.array(levels, dtype=np.int64),
                 **{f"m{i}": np.vstack([values[m][s] for s in levels]) for i, m in enumerate(measures)}}
            store.save_arrays("meta", key, a)
        out[fam] = (a["levels"], [a[f"m{i}"] for i in range(len(measures))])
    return out


def _pooled_results(parts: list[tuple[np.ndarray, list[np.ndarray]]], measures: list[str]) -> dict[str, dict]:
    """`PerturbationResult` of every measure on the per-user values of each level pooled over the splits (users
    of split 1, then split 2, … at every level, so that the Wilcoxon test stays paired). Levels: those of any
    split; a split whose lists did not change at level s (dropped by `distinct_levels`) has the values of its
    last kept level ≤ s."""
    from recdiv.eval.meta.perturbation import PerturbationResult

    levels = sorted({int(s) for lv, _ in parts for s in lv})
    rows = [[int(np.searchsorted(lv, s, side="right")) - 1 for s in levels] for lv, _ in parts]
    return {m: PerturbationResult.from_values(m, {s: np.concatenate([v[i][r[j]] for (_, v), r in zip(parts, rows)])
                                                  for j, s in enumerate(levels)}).to_dict()
            for i, m in enumerate(measures)}


def _nanmean(rows: list) -> np.ndarray:
    """Mean over splits per level, ignoring NaN (τ_b of a constant ranking); NaN where every split is NaN."""
    a = np.array(rows, dtype=np.float64)
    ok = ~np.isnan(a)
    return np.where(ok.any(axis=0), np.nansum(a, axis=0) / np.maximum(ok.sum(axis=0), 1), np.nan)


def _system_level(measure: str) -> bool:
    from recdiv.eval import parse_measure

    m = parse_measure(measure)
    return m.KIND != "per-user"


def read_split_meta(out: Path) -> dict:
    path = Path(out) / "meta.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
