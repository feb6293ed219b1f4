"""What an explorer offers: the datasets it may read, the components of the registries (and the plugins named at
start), the controls of their typed parameters, and the check that a request names nothing else.

A request can only *name* things the catalog holds: a dataset by its key (never a path), a recommender or reranker
by a registered name or a plugin (``module:Class``) given on the command line or in the experiment, a measure by
a registered name. So no request reads a file outside the chosen data folders or imports a module.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recdiv.errors import ConfigError, DataError
from recdiv.explore.state import Diversifier, State

SYNTHETIC = ("synthetic:small", "synthetic:tiny")
#: the dominant factors per item of a latent factor space (as in the demo experiment)
DOMINANT_FACTORS = 3
#: split specs offered besides a dataset's own splits
SPLITS = ("holdout:0.2", "kfold:5:1", "temporal:0.8", "leave-last:1")
_MEASURE = re.compile(r"^[A-Za-z][A-Za-z0-9_.\- ]*(\([^():]*\))?(@\d{1,4})?$")


@dataclass(frozen=True)
class DatasetChoice:
    """A dataset the explorer may load: `key` is what requests name, `name` and `data_dir` what `load_dataset`
    (and the exported experiment) read."""

    key: str
    name: str
    data_dir: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Catalog:
    """The datasets, plugins, defaults and presets of one explorer (see the module docstring)."""

    datasets: dict[str, DatasetChoice]
    plugins: tuple[str, ...] = ()  # module:Class recommenders and rerankers named at start
    defaults: dict[str, Any] = field(default_factory=dict)  # State fields of the first page
    statistics: dict[str, Any] = field(default_factory=dict)  # the experiment's [statistics] (test, ...)
    confidence: float = 0.95
    _groups: dict = field(default_factory=dict, repr=False)  # item_groups of each dataset, by identity

    def item_groups(self, dataset) -> tuple[str | None, list[str], str | None]:
        """`item_groups(dataset)`, computed once per dataset."""
        hit = self._groups.get(id(dataset))
        if hit is None or hit[0] is not dataset:
            hit = self._groups[id(dataset)] = (dataset, item_groups(dataset))
            while len(self._groups) > 4:  # the explorer keeps two datasets loaded
                self._groups.pop(next(iter(self._groups)))
        return hit[1]

    # components -----------------------------------------------------------------------------------------------
    def recommenders(self) -> list[str]:
        from recdiv.algorithms.registry import RECOMMENDERS

        return [*RECOMMENDERS.names(), *self._plugins_of("recommender")]

    def rerankers(self) -> list[str]:
        from recdiv.diversifiers.registry import RERANKERS

        return [*RERANKERS.names(), *self._plugins_of("reranker")]

    def _plugins_of(self, kind: str) -> list[str]:
        from recdiv.algorithms.registry import RECOMMENDERS
        from recdiv.diversifiers.registry import RERANKERS

        registry = RECOMMENDERS if kind == "recommender" else RERANKERS
        out = []
        for spec in self.plugins:
            try:
                registry.entry(spec)
            except ConfigError:
                continue
            out.append(spec)
        return out

    def component(self, kind: str, name: str) -> str:
        """The canonical name of a recommender or reranker a request names; ConfigError for anything else (a
        `module:Class` not given at start is refused before anything is imported)."""
        from recdiv.algorithms.registry import RECOMMENDERS
        from recdiv.diversifiers.registry import RERANKERS

        if ":" in name:
            if name not in self.plugins:
                raise ConfigError(f"{kind} {name!r}: plugins (module:Class) are named when the explorer starts "
                                  "(recdiv explore --plugin module:Class), not in a request")
            return name
        registry = RECOMMENDERS if kind == "recommender" else RERANKERS
        return registry.entry(name).name

    def dataset(self, key: str) -> DatasetChoice:
        if key not in self.datasets:
            raise ConfigError(f"dataset {key!r} is not offered by this explorer (datasets: "
                              f"{', '.join(self.datasets)})")
        return self.datasets[key]

    # the state ------------------------------------------------------------------------------------------------
    def check(self, state: State, dataset) -> State:
        """`state` with canonical component names, after checking that it names only what the catalog holds and
        what `dataset` (loaded) provides: its split, its aspect spaces; measures by registered names."""
        self.dataset(state.dataset)
        from recdiv.data.splits import check_split

        check_split(dataset, state.split)
        rec = self.component("recommender", state.recommender)
        sides = {}
        spaces = aspect_choices(dataset)
        for name, d in (("a", state.a), ("b", state.b)):
            if d is None:
                sides[name] = None
                continue
            reranker = self.component("reranker", d.reranker)
            from recdiv.diversifiers.registry import RERANKERS

            params = d.params
            if "item_groups" in RERANKERS.get(reranker).NEEDS:
                params = _protected_group(params, self.item_groups(dataset),
                                          f"configuration {name.upper()}: {reranker}")
            if d.aspects is not None and d.aspects not in spaces:
                raise ConfigError(f"configuration {name.upper()}: aspect space {d.aspects!r} is not one of "
                                  f"{', '.join(spaces) or 'none (this dataset has no item attributes)'}")
            sides[name] = Diversifier(reranker=reranker, params=params, aspects=d.aspects)
        for m in state.measures:
            if not _MEASURE.match(m):
                raise ConfigError(f"measure {m!r}: expected Name(param=value,...)@K with a registered name")
        return state.replace(recommender=rec, a=sides["a"], b=sides["b"])


def aspect_choices(dataset) -> dict[str, dict[str, Any]]:
    """The aspect spaces a dataset offers, by name: each explicit attribute (genres, tags), then the latent
    spaces of the models that provide item factors or topics (fitted on the split when first used), as
    `AspectConfig` fields."""
    from recdiv.algorithms.registry import RECOMMENDERS

    out: dict[str, dict[str, Any]] = {a: {"name": a, "kind": "explicit", "attribute": a} for a in dataset.attributes}
    for name in RECOMMENDERS.with_capability("item-factors"):
        out[f"{name}-factors"] = {"name": f"{name}-factors", "kind": "latent", "model": name,
                                  "l": DOMINANT_FACTORS}
    for name in RECOMMENDERS.with_capability("topics"):
        out[f"{name}-topics"] = {"name": f"{name}-topics", "kind": "latent", "model": name}
    return out


#: a group offered as FA*IR's protected group holds at least this share of the items
MIN_GROUP_SHARE = 0.02


def item_groups(dataset) -> tuple[str | None, list[str], str | None]:
    """(space, groups, default) of the groups a reranker that needs item groups (FA*IR) may protect: the aspects of
    the dataset's first explicit space — the experiment's `item_groups` (`recdiv.explore.experiment.experiment_of`)
    — that hold at least `MIN_GROUP_SHARE` of the items, by name; the default is the least exposed of them, the one
    whose items have the fewest interactions per item in the dataset (ML-100K: Documentary). (None, [], None) for a
    dataset without item attributes."""
    import numpy as np

    from recdiv.experiment.spec.sections import AspectConfig
    from recdiv.experiment.tasks.spaces import build_explicit_space

    spaces = aspect_choices(dataset)
    name = next((n for n, a in spaces.items() if a["kind"] == "explicit"), None)
    if name is None:
        return None, [], None
    space = build_explicit_space(AspectConfig(**spaces[name]), dataset)
    indicator = space.indicator.tocsc()
    size = np.asarray(indicator.sum(axis=0)).ravel()
    inter = dataset.interactions
    if space.items == inter.items:
        counts = inter.item_counts().astype(np.float64)
    else:
        at = inter.items.lookup(space.items.ids, missing="-1")
        counts = np.where(at >= 0, inter.item_counts()[np.maximum(at, 0)], 0).astype(np.float64)
    per_item = (indicator.T @ counts) / np.maximum(size, 1)
    names = np.array([str(x) for x in space.names.ids], dtype=object)
    kept = np.flatnonzero(size >= MIN_GROUP_SHARE * len(space.items))
    if len(kept) == 0:
        return name, [], None
    default = str(names[kept[np.argmin(per_item[kept])]])
    return name, sorted(str(x) for x in names[kept]), default


def _protected_group(params: dict[str, Any], offered: tuple, who: str) -> dict[str, Any]:
    """`params` with FA*IR's protected `group` (the default of `item_groups` when not given), checked against the
    groups `offered` (`item_groups`)."""
    space, groups, default = offered
    if space is None:
        return params  # the experiment's check names the missing attributes
    group = params.get("group")
    if group is None:
        if default is None:
            raise ConfigError(f"{who}: no item group holds {MIN_GROUP_SHARE:.0%} of the items of {space}")
        return {**params, "group": default}
    if str(group) not in groups:
        shown = ", ".join(groups[:12]) + (", …" if len(groups) > 12 else "")
        raise ConfigError(f"{who}: group {group!r} is not one of the {space} offered as item groups ({shown})")
    return params


def split_choices(dataset) -> list[str]:
    """The dataset's own splits, then the generic ones (temporal ones only with timestamps)."""
    timed = dataset.interactions.timestamps is not None
    return [*dataset.splits, *(s for s in SPLITS if timed or not s.startswith(("temporal", "leave-last")))]


def find_datasets(data_dir: str | None = None) -> dict[str, DatasetChoice]:
    """Every dataset folder of a known format in the data folders (`recdiv.data.locate.search_dirs`), then the
    synthetic presets."""
    from recdiv.data.load import detect_format
    from recdiv.data.locate import search_dirs

    out: dict[str, DatasetChoice] = {}
    try:
        roots = search_dirs(data_dir)
    except DataError:
        roots = []
    for root in roots:
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
            try:
                detect_format(folder)
            except DataError:
                continue
            if folder.name not in out:
                out[folder.name] = DatasetChoice(folder.name, folder.name, str(root) if data_dir else None)
    for name in SYNTHETIC:
        out[name] = DatasetChoice(name, name)
    return out


def dataset_choice(target: str, data_dir: str | None = None) -> DatasetChoice:
    """The choice of a dataset named on the command line: a name in the data folders, a folder, or synthetic."""
    from recdiv.data.load import dataset_loader

    dataset_loader(target, data_dir)  # DataError if it does not exist or has no known format
    if target.startswith("synthetic") or not Path(target).is_dir():
        return DatasetChoice(target, target, data_dir)
    folder = Path(target).resolve()
    return DatasetChoice(folder.name, str(folder))


def controls(config_cls) -> list[dict[str, Any]]:
    """The controls of a component's typed config, from its JSON schema: name, kind (slider for a number bounded
    to [0, 1], number, choice, boolean, text), default, bounds, choices, description."""
    schema = config_cls.model_json_schema(by_alias=True)
    out = []
    for name, prop in schema.get("properties", {}).items():
        options = prop.get("anyOf", [prop])
        main = next((o for o in options if o.get("type") != "null"), prop)
        nullable = any(o.get("type") == "null" for o in options)
        c: dict[str, Any] = {"name": name, "default": prop.get("default"), "nullable": nullable,
                             "description": prop.get("description", "")}
        t = main.get("type")
        if "enum" in main:
            c.update(kind="choice", choices=main["enum"])
        elif t == "boolean":
            c["kind"] = "boolean"
        elif t in ("number", "integer"):
            lo = main.get("minimum", main.get("exclusiveMinimum"))
            hi = main.get("maximum", main.get("exclusiveMaximum"))
            c.update(kind="slider" if t == "number" and lo is not None and hi is not None and 0 <= lo and hi <= 1
                     else "number", integer=t == "integer", min=lo, max=hi,
                     exclusive_min="exclusiveMinimum" in main)
        else:
            c["kind"] = "text"
        out.append(c)
    return out


def with_groups(controls_: list[dict[str, Any]], offered: tuple) -> list[dict[str, Any]]:
    """The controls of a reranker that needs item groups, its `group` a choice among the groups offered
    (`item_groups`)."""
    space, groups, default = offered
    if not groups:
        return controls_
    return [{**c, "kind": "choice", "choices": groups, "default": default, "nullable": False,
             "description": f"the protected group: items of this {space} value (default: the least exposed, "
                            "fewest interactions per item)"} if c["name"] == "group" else c for c in controls_]


@functools.cache
def tradeoff_parameter(config_cls) -> str | None:
    """The parameter a trade-off curve sweeps: `lambda` if the config has it as a [0, 1] slider, else its first
    [0, 1] slider whose lower bound is included (θ of DPP and Ziegler); None without one (IA-Select)."""
    sliders = [c for c in controls(config_cls) if c["kind"] == "slider" and c["min"] == 0 and not c["exclusive_min"]]
    named = [c["name"] for c in sliders if c["name"] == "lambda"]
    return (named or [c["name"] for c in sliders] or [None])[0]
