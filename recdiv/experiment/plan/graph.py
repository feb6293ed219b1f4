"""The work of one split as a graph of tasks, each with the store keys of what it reads and writes.

- a *model task* per (dataset, split, model): fits a recommender (or the model of a latent aspect space), writes
  its top-N candidates and the latent aspect spaces derived from it (`ModelPlan`);
- a *system task* per (dataset, split, system): reranks the candidates (diversified systems) and computes the
  per-user values of every measure (`SystemPlan`).

System tasks depend on the model tasks they read from. A key is a hash of everything its artefact derives from
(`recdiv.experiment.storage.cache.hash_config`): settings, the keys of the inputs, the split's fingerprint and the
source of the component that computes it (`component_source`), so `--resume` redoes exactly what changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recdiv.experiment.plan.systems import System, baselines
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.spec.sections import AspectConfig, RecommenderSpec
from recdiv.experiment.storage.cache import Store, hash_config
from recdiv.registry import source_fingerprint


@dataclass(frozen=True)
class ModelPlan:
    """A model to fit on one split, what it produces, and the store keys of its products."""

    name: str
    params: tuple[tuple[str, Any], ...]
    fit_key: str
    candidates_key: str | None  # set when the model is one of the experiment's recommenders
    recommender: str | None
    latent: tuple[tuple[str, str], ...] = ()  # (aspect space name, store key)


@dataclass(frozen=True)
class SystemPlan:
    """A system on one split: the keys of its candidates, final lists, aspect spaces and per-user scores."""

    system: System
    candidates_key: str
    ranking_key: str
    rerank_aspect_key: str | None
    scores_key: str
    eval_aspect_key: str | None
    measures: tuple[str, ...]
    groups_key: str | None = None  # the explicit space of `item_groups` (FAIR, AWRF, GroupExposure)
    #: the lists a pairwise measure (lexirecall, lexiprecision) compares the system's with: its baseline's
    #: (name, candidates key, rerank key — None for a recommender's list); None: no pairwise measure, or the system
    #: is a baseline itself (its preferences over itself are 0)
    baseline: tuple[str, str, str | None] | None = None


@dataclass(frozen=True)
class Task:
    """One task: a model or system plan on split `split` of dataset `dataset` (an index of config.datasets);
    `deps`: the ids (positions in the run's task list) of the tasks it reads from."""

    kind: str  # "model" | "system"
    dataset: int
    split: str
    plan: ModelPlan | SystemPlan
    deps: tuple[int, ...] = ()
    label: str = ""


def recommender_params(name: str, params: dict[str, Any], seed: int) -> dict[str, Any]:
    """The recommender's parameters, with the experiment seed filled in where the model takes one."""
    from recdiv.algorithms.registry import make_recommender  # the registry imports the recommenders

    rec = make_recommender(name, **params)
    fields = getattr(type(getattr(rec, "config", None)), "model_fields", {})
    out = dict(params)
    for k in ("seed", "random_state"):
        if k in fields and k not in out:
            out[k] = seed
    return out


def component_source(kind: str, name: str) -> str:
    """The source fingerprint (`recdiv.registry.source_fingerprint`) of a recommender or reranker, part of its
    cache keys: `--resume` recomputes a component whose code changed (#16.9)."""
    if kind == "recommender":
        from recdiv.algorithms.registry import RECOMMENDERS as registry
    else:
        from recdiv.diversifiers.registry import RERANKERS as registry
    return source_fingerprint(registry.get(name))


def aspect_key(cfg: AspectConfig, dfp: str, fit_key: str | None) -> str:
    """The store key of an aspect space: an explicit one from the dataset, a latent one from its fitted model."""
    if cfg.kind == "explicit":
        return hash_config("aspects", dfp, cfg.model_dump(mode="json"))
    return hash_config("aspects", fit_key, cfg.model_dump(mode="json", exclude={"recommender", "model", "params"}))


def plan_models(config: ExperimentConfig, sfp: str, selected: dict[str, dict[str, Any]] | None = None
                ) -> list[ModelPlan]:
    """The models to fit on a split (recommenders, and models of latent aspect spaces, each fitted once);
    `selected`: the grid point chosen on this split for each recommender with `select`."""
    by_fit: dict[str, dict[str, Any]] = {}
    selected = selected or {}

    def add(r: RecommenderSpec) -> str:
        given = {**r.params, **selected.get(r.key, {})}
        params = recommender_params(r.name, given, config.seed)
        key = hash_config("fit", sfp, r.name, params, config.seed, component_source("recommender", r.name))
        by_fit.setdefault(key, {"name": r.name, "params": params, "recommender": None, "latent": []})
        return key

    for r in config.recommenders:
        key = add(r)
        by_fit[key]["recommender"] = by_fit[key]["recommender"] or r.key
    recs = {r.key: r for r in config.recommenders}
    for a in config.aspects:
        if a.kind == "latent":
            src = recs[a.recommender] if a.recommender else RecommenderSpec(name=a.model, params=a.params)
            key = add(src)
            by_fit[key]["latent"].append((a.name, aspect_key(a, "", key)))
    out = []
    for key, m in by_fit.items():
        users = (config.metrics.threshold, config.metrics.population)  # whose lists are computed
        cand = hash_config("candidates", key, config.candidates.n, users) if m["recommender"] else None
        out.append(ModelPlan(m["name"], tuple(m["params"].items()), key, cand, m["recommender"], tuple(m["latent"])))
    return out


def plan_split(config: ExperimentConfig, systems: list[System], di: int, spec: str, dfp: str, sfp: str, first: int,
               selected: dict[str, dict[str, Any]] | None = None) -> list[Task]:
    """Tasks of split `spec` of dataset `di` (fingerprints `dfp`, `sfp`); task ids start at `first` (dependencies
    refer to those ids)."""
    dname = config.datasets[di].key
    models = plan_models(config, sfp, selected)
    tasks = [Task("model", di, spec, m, (), f"{dname}/{spec}: fit {m.recommender or m.name}") for m in models]
    model_of_rec = {m.recommender: first + i for i, m in enumerate(models) if m.recommender}
    cand_key = {m.recommender: m.candidates_key for m in models if m.recommender}
    latent_key = {name: (first + i, key) for i, m in enumerate(models) for name, key in m.latent}
    spaces = {a.name: a for a in config.aspects}

    def space_ref(name: str | None) -> tuple[str | None, tuple[int, ...]]:
        if name is None:
            return None, ()
        if spaces[name].kind == "explicit":
            return aspect_key(spaces[name], dfp, None), ()
        tid, key = latent_key[name]
        return key, (tid,)

    eval_key, eval_deps = space_ref(config.evaluation_aspects)
    groups_key, _ = space_ref(config.item_groups)  # an explicit space: built before the tasks, no dependency
    with_groups = () if groups_key is None else (groups_key,)  # keys of experiments without groups are unchanged
    ctx_key = hash_config("eval", sfp, eval_key, config.metrics.eval_settings(),
                          *with_groups)
    k = config.candidates.k
    keys = {}
    for s in systems:
        ck = cand_key[s.recommender]
        rkey, rdeps = space_ref(s.aspects)
        if s.diversifier is None:
            ranking_key = hash_config("baseline", ck, k)
        else:
            ranking_key = hash_config("rerank", ck, rkey, s.reranker, dict(s.params), k, config.seed, sfp,
                                      component_source("reranker", s.reranker), *with_groups)
        keys[s.name] = (ck, ranking_key, rkey, rdeps)
    refs = baseline_refs(config, systems, keys, first + len(tasks), model_of_rec)
    for s in systems:
        ck, ranking_key, rkey, rdeps = keys[s.name]
        base, base_deps = refs.get(s.name, (None, ()))
        scores_key = (hash_config("scores", ranking_key, ctx_key) if base is None  # keys without one unchanged
                      else hash_config("scores", ranking_key, ctx_key, "baseline", keys[base[0]][1]))
        deps = tuple(sorted({model_of_rec[s.recommender], *rdeps, *eval_deps, *base_deps}))
        plan = SystemPlan(s, ck, ranking_key, rkey, scores_key, eval_key, tuple(config.metrics.measures), groups_key,
                          base)
        tasks.append(Task("system", di, spec, plan, deps, f"{dname}/{spec}: {s.name}"))
    return tasks


def baseline_refs(config: ExperimentConfig, systems: list[System], keys: dict[str, tuple], first_system: int,
                  model_of_rec: dict[str, int]) -> dict[str, tuple[tuple[str, str, str | None], tuple[int, ...]]]:
    """{system: (`SystemPlan.baseline`, the ids of the tasks that make the baseline's lists)} for the systems
    tested against a baseline (`baselines`), when a measure is pairwise; `keys`: {system: (candidates key, ranking
    key, ...)}; `first_system`: the id of the first system task."""
    from recdiv.eval import parse_measure

    if not any(parse_measure(m, config.metrics.conventions).KIND == "pairwise" for m in config.metrics.measures):
        return {}
    by_name = {s.name: (i, s) for i, s in enumerate(systems)}
    out = {}
    for name, base in baselines(config, [s.to_json() for s in systems]).items():
        if base is None:
            continue
        i, b = by_name[base]
        ck, ranking_key = keys[base][:2]
        if b.diversifier is None:  # a recommender's list: its candidates, from its model task
            out[name] = ((base, ck, None), (model_of_rec[b.recommender],))
        else:  # a reranked list: written by the baseline's own system task
            out[name] = ((base, ck, ranking_key), (first_system + i,))
    return out


def _relative(store: Store, stage: str, key: str, ext: str) -> str:
    return store.path(stage, key, ext).relative_to(store.root).as_posix()


def checked_artefacts(store: Store, tasks: list[Task]) -> list[str]:
    """The artefacts of `tasks` that a resumed run checks before reusing them (their tasks are skipped when they are
    intact): candidates, latent aspect spaces, per-user scores."""
    out = []
    for t in tasks:
        if t.kind == "model":
            if t.plan.candidates_key is not None:
                out.append(_relative(store, "candidates", t.plan.candidates_key, "npz"))
            out += [_relative(store, "aspects", k, "npz") for _, k in t.plan.latent]
        else:
            out.append(_relative(store, "scores", t.plan.scores_key, "parquet"))
    return out


def explicit_space_artefact(store: Store, key: str) -> str:
    """The path (relative to the store) of an explicit aspect space, checked by a resume as the tasks' artefacts."""
    return _relative(store, "aspects", key, "npz")
