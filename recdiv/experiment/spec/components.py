"""Typed validation of the components an experiment names: recommenders, rerankers and aspect spaces against their
own configs (`recdiv.config.Config` subclasses), with errors that name the experiment's key paths."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from recdiv.errors import ConfigError
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.spec.sections import AspectConfig


def _component_errors(cls, params: dict[str, Any], where: str, grid_keys=()) -> ConfigError | None:
    """The problems of `params` against the component config `cls` as one ConfigError naming each key path
    (`where.params.k`, or `where.grid.k` for a grid key); None when they validate."""
    try:
        cls.model_validate(params)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            key = str(err["loc"][0]) if err["loc"] else ""
            path = f"{where}.{'grid' if key in grid_keys else 'params'}.{key}" if key else where
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"].removeprefix("Value error, ")
            lines.append(f"{path}: {msg}")
        return ConfigError("; ".join(lines))
    return None


def check_component_params(config: ExperimentConfig) -> None:
    """Every recommender and reranker the experiment names exists (any spelling, ``module:Class``, entry points)
    and every parameter setting (each grid point) validates against the component's typed config; latent aspect
    spaces come from models that declare the capability (`item-factors` or `topics`) and their options validate
    against the aspect-space kind's config (`recdiv.aspects.kinds`). Errors name the key path, e.g.
    ``diversifiers[0].params.lambda: Input should be less than or equal to 1``."""
    # deferred: the registries import the recommenders (LensKit, torch) and rerankers (numba)
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.registry import RERANKERS

    def entry(registry, name: str, where: str):
        try:
            return registry.entry(name)
        except ConfigError as e:
            raise ConfigError(f"{where}.name: {e}") from None

    for i, r in enumerate(config.recommenders):
        cls = entry(RECOMMENDERS, r.name, f"recommenders[{i}]").obj
        for point in r.grid_points():
            err = _component_errors(cls.Config, {**r.params, **point}, f"recommenders[{i}]", r.grid)
            if err:
                raise err
    recs = {r.key: r for r in config.recommenders}
    for i, a in enumerate(config.aspects):
        if a.kind == "latent":
            source = a.model or recs[a.recommender].name
            e = entry(RECOMMENDERS, source, f"aspects[{i}]" + (".model" if a.model else ".recommender"))
            if a.model is not None:
                err = _component_errors(e.obj.Config, dict(a.params), f"aspects[{i}]")
                if err:
                    raise err
            kind = latent_kind(e.capabilities)
            if kind is None:
                providers = RECOMMENDERS.with_capability("item-factors") + RECOMMENDERS.with_capability("topics")
                raise ConfigError(f"aspects[{i}]: {source!r} has no latent factors or topics (latent aspects come "
                                  f"from recommenders with item-factors or topics: {', '.join(providers)})")
            if kind == "factors" and a.l is None:
                raise ConfigError(f"aspects[{i}].l: MF factor aspects need `l` (dominant factors per item)")
            space_config(a, kind, f"aspects[{i}]")
        else:
            space_config(a, "explicit", f"aspects[{i}]")
    for i, d in enumerate(config.diversifiers):
        cls = entry(RERANKERS, d.name, f"diversifiers[{i}]").obj
        if "item_groups" in cls.NEEDS and config.item_groups is None:
            raise ConfigError(f"diversifiers[{i}].name: {cls.NAME} needs item groups: name an explicit aspect space "
                              "in `item_groups` (top level), e.g. item_groups = \"genres\"")
        for point in d.grid_points():
            err = _component_errors(cls.Config, {**d.params, **point}, f"diversifiers[{i}]", d.grid)
            if err:
                raise err


def latent_kind(capabilities) -> str | None:
    """The kind of latent aspect space a model's capabilities give: "topics", "factors" or None."""
    return "topics" if "topics" in capabilities else "factors" if "item-factors" in capabilities else None


def space_config(a: AspectConfig, kind: str, where: str = "aspects"):
    """The typed config of aspect space `a` as kind `kind` (`recdiv.aspects.kinds.ASPECT_SPACES`): explicit →
    attribute + options; factors → l + options; topics → l (topics kept per item) + options."""
    from recdiv.aspects.kinds import ASPECT_SPACES  # deferred with the other components

    cls = ASPECT_SPACES.get(kind)
    base = {"explicit": {"attribute": a.attribute}, "factors": {"l": a.l}, "topics": {"top": a.l}}[kind]
    data = {**{k: v for k, v in base.items() if v is not None}, **a.options}
    try:
        return cls.model_validate(data)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            key = str(err["loc"][0]) if err["loc"] else ""
            path = f"{where}.options.{key}" if key in a.options else f"{where}.{'l' if key in ('l', 'top') else key}"
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"].removeprefix("Value error, ")
            lines.append(f"{path}: {msg}")
        raise ConfigError("; ".join(lines)) from None
