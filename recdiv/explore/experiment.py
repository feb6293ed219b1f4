"""A state as an experiment: the TOML `recdiv run` reproduces, and the validation `recdiv run` applies.

The experiment of a state has one dataset and split, the baseline recommender (label = its name), the explorer's
configurations as diversifiers labelled "A" and "B", the candidate depth n and list length k, the aspect spaces
they use (the metrics' explicit space first), the measures with the relevance threshold, and the statistics of
the page. Its systems are named as `recdiv run` names them (`recdiv.experiment.plan.systems.plan_systems`), e.g.
``user-knn`` and ``user-knn+A[genres]``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from recdiv.errors import ConfigError
from recdiv.explore.catalog import Catalog, aspect_choices
from recdiv.explore.state import State

SOURCE = "explorer state"


def experiment_of(state: State, catalog: Catalog, dataset, threshold: float) -> dict[str, Any]:
    """The experiment mapping (TOML tables) of a checked `state` on the loaded `dataset`."""
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.registry import RERANKERS

    choice = catalog.dataset(state.dataset)
    spaces = aspect_choices(dataset)
    metric_space = next((n for n, a in spaces.items() if a["kind"] == "explicit"), None)
    used = [metric_space] if metric_space else []
    divs = []
    for label, d in state.configs().items():
        cls = RERANKERS.get(d.reranker)
        needs = set(cls.NEEDS)
        space = d.aspects or metric_space
        takes_space = bool(needs & {"aspects", "similarity"})
        if takes_space and space is None:
            raise ConfigError(f"configuration {label}: {d.reranker} needs an aspect space, and dataset "
                              f"{state.dataset!r} has no item attributes: choose latent factors")
        if takes_space and space not in used:
            used.append(space)
        divs.append({"name": d.reranker, "label": label, "params": _written(d.params, cls, label),
                     "aspects": [space] if takes_space else [], "recommenders": [state.recommender]})
    dataset_table: dict[str, Any] = {"name": choice.name, "label": choice.key, "splits": [state.split]}
    if choice.data_dir:
        dataset_table["data_dir"] = choice.data_dir
    if choice.options:
        dataset_table["options"] = dict(choice.options)
    metrics: dict[str, Any] = {"measures": list(state.measures), "threshold": float(threshold),
                               "population": state.population}
    if metric_space:
        metrics["aspects"] = metric_space
    from recdiv.eval import parse_measure

    grouped = [d.reranker for d in state.configs().values() if "item_groups" in RERANKERS.get(d.reranker).NEEDS] + \
        [m for m in state.measures if "item_groups" in parse_measure(m).NEEDS]
    if grouped and metric_space is None:
        raise ConfigError(f"{', '.join(grouped)} need item groups, and dataset {state.dataset!r} has no item "
                          "attributes")
    st = {"test": "wilcoxon", "baseline": "recommender", "correction": "holm", "alpha": 0.05, **catalog.statistics}
    return {
        "name": "explore", "description": "exported by recdiv explore", "seed": state.seed,
        "datasets": [dataset_table],
        "recommenders": [{"name": state.recommender, "params": _written(state.recommender_params,
                                                                               RECOMMENDERS.get(state.recommender),
                                                                               "baseline")}],
        "candidates": {"n": state.n, "k": state.k},
        "aspects": [spaces[s] for s in used],
        **({"item_groups": metric_space} if grouped else {}),  # the groups: the dataset's explicit space
        "diversifiers": divs,
        "metrics": metrics,
        "statistics": st,
        "report": {"confidence": catalog.confidence},
    }


def _written(params: dict[str, Any], cls, who: str) -> dict[str, Any]:
    """Parameters as an experiment file holds them: TOML has no null, so a parameter set to None is left out when
    None is its default, and refused otherwise (leaving it out would change the lists)."""
    defaults = {(f.alias or name): f.default for name, f in cls.Config.model_fields.items()}
    for k, v in params.items():
        if v is None and k in defaults and defaults[k] is not None:
            raise ConfigError(f"{who}: {k} = none cannot be written in an experiment file (TOML has no null); "
                              "choose a value to export this state")
    return {k: v for k, v in params.items() if v is not None}


def checked_experiment(state: State, catalog: Catalog, dataset, threshold: float):
    """The validated `ExperimentConfig` of `state`: the checks of `recdiv run` (`validate`, every component and
    parameter against its typed config, measures, statistics); errors name the explorer's controls."""
    from recdiv.experiment.run.checks import check_components
    from recdiv.experiment.spec.experiment import validate

    data = experiment_of(state, catalog, dataset, threshold)
    try:
        config = validate(data, SOURCE)
        check_components(config)
    except ConfigError as e:
        raise ConfigError(controls_message(str(e), state)) from None
    return config


def controls_message(message: str, state: State) -> str:
    """An experiment error in the words of the explorer's controls (`diversifiers[1].params.lambda` → `B: lambda`)."""
    message = message.removeprefix(f"{SOURCE}: ")
    labels = list(state.configs())
    rules = [(r"diversifiers\[(\d+)\]\.(?:params|grid)\.", lambda m: f"{labels[int(m.group(1))]}: "),
             (r"diversifiers\[(\d+)\]\.name: ", lambda m: f"{labels[int(m.group(1))]}: "),
             (r"diversifiers\[(\d+)\]", lambda m: f"{labels[int(m.group(1))]}"),
             (r"recommenders\[0\]\.(?:params|grid)\.", lambda m: "baseline: "),
             (r"recommenders\[0\]\.name: ", lambda m: "baseline: "),
             (r"recommenders\[0\]", lambda m: "baseline"),
             (r"candidates\.", lambda m: ""), (r"metrics\.measures\[\d+\]: ", lambda m: "measure: "),
             (r"metrics\.", lambda m: ""), (r"datasets\[0\]\.splits\[0\]", lambda m: "split"),
             (r"datasets\[0\]", lambda m: "dataset"), (r"aspects\[\d+\]", lambda m: "aspect space")]
    for pattern, repl in rules:
        message = re.sub(pattern, repl, message)
    return message


# TOML ---------------------------------------------------------------------------------------------------------
def to_toml(data: dict[str, Any], header: str = "") -> str:
    """The experiment mapping as TOML (tables and arrays of tables; `tomllib.loads` gives `data` back)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict | list) or _inline_list(v)}
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for k, v in data.items():
        if k in scalars:
            continue
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]", *(f"{_key(a)} = {_value(b)}" for a, b in v.items())]
        else:
            for table in v:
                lines += ["", f"[[{_key(k)}]]", *(f"{_key(a)} = {_value(b)}" for a, b in table.items())]
    return "\n".join(lines) + "\n"


def _inline_list(v: Any) -> bool:
    return isinstance(v, list) and not any(isinstance(x, dict) for x in v)


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k, ensure_ascii=False)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ConfigError(f"{v} has no TOML form")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # JSON escapes are TOML basic-string escapes
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(a)} = {_value(b)}" for a, b in v.items()) + " }" if v else "{}"
    raise ConfigError(f"{v!r} has no TOML form")
