"""Declarative experiment files: pydantic models (``extra="forbid"``) loaded from TOML.

An experiment is datasets × splits × recommenders (top-N candidates) × diversifiers (grids of parameters,
over aspect spaces) → top-k lists → per-user metric values → statistics. The TOML file is these models
nested; docs/experiments.md documents every key. Errors name the file and the key path, e.g.
``demo.toml: diversifiers[0].grid.lambda: Input should be a valid list``.
"""

from __future__ import annotations

import itertools
import json
import math
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from recdiv.config import Config, key_path
from recdiv.errors import ConfigError
from recdiv.experiment.estimate import estimate_systems
from recdiv.limits import MAX_LEVELS, MAX_NESTING, MAX_ROBUSTNESS_SAMPLES, MAX_SAMPLES, at_most, nesting_depth

Scalar = bool | int | float | str


class _Config(Config):
    """The experiment's tables are `recdiv.config.Config`s like every component config: unknown keys are errors,
    values are not coerced (`n = "30"` is not a number), numbers are finite (`allow_inf_nan=False`), instances are
    immutable."""


class DatasetConfig(_Config):
    """A dataset (`recdiv.data.load.load_dataset` name or folder) and the splits evaluated on it."""

    name: str = Field(min_length=1, description="dataset name or folder: ml-100k, synthetic:small, ...")
    label: str | None = Field(None, description="name used in results (default: `name`)")
    splits: list[str] = Field(default=["holdout:0.2"], min_length=1, description="split specs: u1, kfold:5:1, ...")
    options: dict[str, Any] = Field(default_factory=dict, description="keyword options of load_dataset")
    data_dir: str | None = Field(None, description="folder holding datasets (default: RECDIV_DATA / ../shared/data)")

    @property
    def key(self) -> str:
        return self.label or self.name

    @field_validator("splits")
    @classmethod
    def _unique_splits(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("split specs must be distinct")
        return v


class SelectConfig(_Config):
    """Choose one point of a recommender's grid on a validation split carved from each training set.

    The validation split holds out `validation` of every user's training interactions (random, seeded;
    `recdiv.data.splits.holdout_split`); every grid point is fitted on the rest and evaluated with `measure` on the
    held-out part (its users with a relevant item, lists of candidates.k items, the experiment's relevance
    threshold); the best value wins — the highest, or the lowest for a lower-is-better measure — ties to the first
    point in grid order. The chosen point is then fitted on the whole training set, per split.
    """

    measure: str = Field("nDCG@10", min_length=1)
    validation: float = Field(0.2, gt=0, lt=1, description="fraction of each user's training interactions held out")


class _GridComponent(_Config):
    """A named component (recommender or reranker) with fixed `params` and a parameter `grid` (every combination
    of the grid values, cartesian product, is one setting); `label` names it in tables."""

    name: str = Field(min_length=1)
    label: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    grid: dict[str, list[Scalar]] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.label or self.name

    @field_validator("grid")
    @classmethod
    def _nonempty_grid(cls, v: dict[str, list]) -> dict[str, list]:
        for k, vals in v.items():
            if not vals:
                raise ValueError(f"grid `{k}` is empty")
            if len(set(map(repr, vals))) != len(vals):
                raise ValueError(f"grid `{k}` repeats a value")
        return v

    @model_validator(mode="after")
    def _disjoint(self) -> _GridComponent:
        both = set(self.params) & set(self.grid)
        if both:
            raise ValueError(f"`{sorted(both)[0]}` is both in params and in grid")
        return self

    def grid_points(self) -> list[dict[str, Any]]:
        """The parameter settings of the grid (a single empty setting without a grid)."""
        keys = list(self.grid)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(self.grid[k] for k in keys))]


class RecommenderSpec(_GridComponent):
    """Which recommender an experiment fits: a name of `recdiv.algorithms.registry.RECOMMENDERS` (or
    ``module:Class``) and its parameters, validated against that recommender's own typed config
    (`recdiv.algorithms.base.RecommenderConfig`; `check_component_params`), optionally with a
    hyperparameter grid: without `select` every grid point is a system of its own (label "KNN(k=20)"); with
    `select` one point is chosen per split on a validation split (`SelectConfig`)."""

    select: SelectConfig | None = None

    @model_validator(mode="after")
    def _select_needs_grid(self) -> RecommenderSpec:
        if self.select is not None and not self.grid:
            raise ValueError("`select` chooses a point of `grid`: give a grid")
        return self


def fmt_param(v: Any) -> str:
    """A parameter value in a system name: true/false, whole floats without ".0"."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def grid_label(key: str, point: dict[str, Any]) -> str:
    """"KNN(k=20,shrink=0)": the system name of one grid point."""
    return f"{key}(" + ",".join(f"{k}={fmt_param(v)}" for k, v in point.items()) + ")"


def expand_recommender_grids(data: Any) -> Any:
    """The raw experiment mapping with every recommender grid without `select` replaced by one recommender per
    point (label "KEY(k=v,...)"); references to it in diversifiers[].recommenders name all its points."""
    if not isinstance(data, dict) or not isinstance(data.get("recommenders"), list):
        return data
    estimate_systems(data)
    out, points_of = [], {}
    for r in data["recommenders"]:
        if not isinstance(r, dict) or not r.get("grid") or r.get("select") is not None:
            out.append(r)
            continue
        checked = RecommenderSpec.model_validate(r)  # errors name the recommender's own keys
        labels = []
        for point in checked.grid_points():
            label = grid_label(checked.key, point)
            out.append({**{k: v for k, v in r.items() if k != "grid"}, "label": label,
                        "params": {**checked.params, **point}})
            labels.append(label)
        points_of[checked.key] = labels
    if not points_of:
        return data
    data = {**data, "recommenders": out}
    divs = []
    for d in data.get("diversifiers") or []:
        if isinstance(d, dict) and isinstance(d.get("recommenders"), list):
            d = {**d, "recommenders": [x for r in d["recommenders"] for x in points_of.get(r, [r])]}
        divs.append(d)
    if "diversifiers" in data:
        data["diversifiers"] = divs
    for i, a in enumerate(data.get("aspects") or []):
        if isinstance(a, dict) and a.get("recommender") in points_of:
            raise ValueError(f"aspects[{i}].recommender: {a['recommender']!r} has a grid; name one of its points "
                             f"({', '.join(points_of[a['recommender']][:3])}, ...) or give it `select`")
    return data


class AspectConfig(_Config):
    """An aspect space: explicit (an item attribute of the dataset) or latent (from a fitted model).

    explicit: ``attribute`` names a dataset attribute (genres, tags).
    latent: ``recommender`` names a recommender of this experiment (its fitted model is reused), or ``model``
    (+ ``params``) names a model fitted only for the aspects; ``l`` = number of dominant factors (MF).
    ``similarity`` is the item similarity that distance-based rerankers (MMR, DPP, ...) use with this space.
    """

    name: str = Field(min_length=1)
    kind: Literal["explicit", "latent"]
    attribute: str | None = None
    recommender: str | None = None
    model: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    l: int | None = Field(None, ge=1, description="dominant factors per item (latent MF aspects)")
    options: dict[str, Any] = Field(default_factory=dict, description="other options of the space builder")
    similarity: str | None = Field(None, description="cosine | jaccard | latent-cosine (default by kind)")

    @model_validator(mode="after")
    def _check_kind(self) -> AspectConfig:
        if self.kind == "explicit":
            if not self.attribute:
                raise ValueError("an explicit aspect space needs `attribute` (e.g. attribute = \"genres\")")
            for k in ("recommender", "model", "l"):
                if getattr(self, k) is not None:
                    raise ValueError(f"`{k}` is for latent aspect spaces only")
            if self.params:
                raise ValueError("`params` is for latent aspect spaces only")
        else:
            if self.attribute is not None:
                raise ValueError("`attribute` is for explicit aspect spaces only")
            if (self.recommender is None) == (self.model is None):
                raise ValueError("a latent aspect space needs exactly one of `recommender` (a recommender label) "
                                 "or `model` (a model name)")
            if self.recommender is not None and self.params:
                raise ValueError("`params` goes with `model`; a `recommender` brings its own parameters")
        return self


class DiversifierConfig(_GridComponent):
    """A reranker (`recdiv.diversifiers.registry.make_reranker(name, **params)`) with a parameter grid.

    Every combination of the ``grid`` values (cartesian product) × every aspect space in ``aspects`` ×
    every recommender in ``recommenders`` (default: all) is one system.
    """

    aspects: list[str] = Field(default_factory=list)
    recommenders: list[str] | None = None


class CandidatesConfig(_Config):
    """Candidate depth N (top-N of each recommender) and final list length k (after reranking)."""

    n: int = Field(500, ge=1)
    k: int = Field(50, ge=1)

    @model_validator(mode="after")
    def _k_le_n(self) -> CandidatesConfig:
        if self.k > self.n:
            raise ValueError(f"k = {self.k} is larger than the candidate depth n = {self.n}")
        return self


class MetricsConfig(_Config):
    """Measures (``Name(param=value)@K`` strings) and the evaluation settings they share."""

    measures: list[str] = Field(min_length=1)
    threshold: float = Field(4.0, description="relevance threshold τ (relevant ⇔ grade ≥ τ)")
    population: Literal["relevant", "judged"] = "relevant"
    aspects: str | None = Field(None, description="aspect space of the metrics (default: first explicit one)")
    similarity: str | None = Field(None, description="item similarity of distance metrics (default by kind)")

    @field_validator("measures")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("a measure is listed twice")
        return v


class StatisticsConfig(_Config):
    """Paired significance tests of every system against a baseline, with a multiple-comparison correction.

    baseline: a system name, or "recommender" (default): each diversified system is compared with the
    undiversified list of its own recommender, and recommenders with the first one.
    """

    test: str = "wilcoxon"
    baseline: str = "recommender"
    correction: str = "holm"
    alpha: float = Field(0.05, gt=0, lt=1)


class ReportConfig(_Config):
    """Report contents: trade-off plots (accuracy measure, diversity measure) and the bar-chart intervals."""

    tradeoff: list[Annotated[tuple[str, str], Field(strict=False)]] = Field(default_factory=list)  # TOML: arrays
    groups: list[str] = Field(default_factory=list, description="user groups: profile-size[:q], popularity[:q], or "
                                                                "a user<TAB>group file (recdiv.eval.groups)")
    confidence: float = Field(0.95, gt=0, lt=1)

    @field_validator("groups")
    @classmethod
    def _group_specs(cls, v: list[str]) -> list[str]:
        from recdiv.errors import RecdivError
        from recdiv.eval.groups import parse_spec

        for g in v:
            try:
                parse_spec(g)
            except RecdivError as e:
                raise ValueError(str(e)) from None
        return v


class MetaConfig(_Config):
    """Meta-evaluation of the experiment's measures over its systems (as `recdiv meta`; docs/meta-evaluation.md).

    dp and asl use the per-user scores (pooled over splits, like the tests); sparsity and popularity re-evaluate
    every system's lists on degraded test sets of each split (τ_b curves averaged over the splits); perturbation
    evaluates P&R's simulated systems built from each split's test ratings over the metrics' aspect space (per-user
    values pooled over the splits).
    """

    analyses: list[Literal["dp", "asl", "sparsity", "popularity", "perturbation"]] = Field(
        default_factory=lambda: ["dp", "asl"], min_length=1)
    measures: list[str] | None = Field(None, description="default: the per-user measures of metrics.measures")
    samples: int = Field(100_000, ge=1, le=MAX_SAMPLES, description="randomisation samples of dp")
    asl_samples: int = Field(1000, ge=1, le=MAX_SAMPLES, description="bootstrap samples of asl")
    alpha: float = Field(0.05, gt=0, lt=1)
    robustness_samples: int = Field(50, ge=1, le=MAX_ROBUSTNESS_SAMPLES, description="samples per sparsity level")
    sparsity_levels: list[float] | None = Field(None, max_length=MAX_LEVELS,
                                                description="fractions kept (default 1.00, 0.95, …, 0.05)")
    popularity_levels: list[float] | None = Field(None, max_length=MAX_LEVELS,
                                                  description="% of top items removed (default 0..20)")
    perturbation_k: int = Field(10, ge=1, description="list length of the perturbed ideal orderings")
    perturbation_families: list[Literal["bottom_to_top", "redundant_aspect", "aspect_swap"]] = Field(
        default_factory=lambda: ["bottom_to_top", "redundant_aspect", "aspect_swap"], min_length=1)

    @field_validator("sparsity_levels")
    @classmethod
    def _fractions(cls, v):
        if v is not None and (not v or any(not 0 < f <= 1 for f in v)):
            raise ValueError("fractions kept must be in (0, 1]")
        return v

    @field_validator("popularity_levels")
    @classmethod
    def _percents(cls, v):
        if v is not None and (not v or any(not 0 <= x < 100 for x in v)):
            raise ValueError("percentages must be in [0, 100)")
        return v


class ExperimentConfig(_Config):
    """A whole experiment (see docs/experiments.md for the TOML layout)."""

    name: str = Field(min_length=1, description="experiment name; a single folder name (default output results/<name>)")
    description: str = ""
    seed: int = Field(0, ge=0)
    output: str | None = Field(None, description="output folder (default: results/<name>)")
    datasets: list[DatasetConfig] = Field(min_length=1)
    recommenders: list[RecommenderSpec] = Field(min_length=1)
    candidates: CandidatesConfig = CandidatesConfig()
    aspects: list[AspectConfig] = Field(default_factory=list)
    diversifiers: list[DiversifierConfig] = Field(default_factory=list)
    metrics: MetricsConfig
    statistics: StatisticsConfig = StatisticsConfig()
    report: ReportConfig = ReportConfig()
    meta: MetaConfig | None = None
    _source: str = PrivateAttr("<experiment>")

    @model_validator(mode="before")
    @classmethod
    def _plain_values(cls, data: Any) -> Any:
        """Reject, anywhere in the file (component parameters included), non-finite numbers and strings with NUL
        or control characters: TOML allows `nan`, `inf` and escapes such as "\\u0000", and none of them is a
        meaningful parameter, name or label."""
        def control(s: str) -> bool:
            return any(ord(c) < 32 and c not in "\t\n\r" for c in s)

        def scan(v: Any, where: str) -> None:
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"{where}: must be a finite number, got {v}")
            if isinstance(v, str) and where != "description" and control(v):
                raise ValueError(f"{where}: contains a NUL or control character ({v!r})")
            if isinstance(v, dict):
                for k, x in v.items():
                    if control(str(k)):
                        raise ValueError(f"{where or 'top level'}: key {k!r} contains a NUL or control character")
                    scan(x, f"{where}.{k}" if where else str(k))
            elif isinstance(v, list | tuple):
                for i, x in enumerate(v):
                    scan(x, f"{where}[{i}]")

        scan(data, "")
        return data

    @field_validator("name")
    @classmethod
    def _folder_name(cls, v: str) -> str:
        if "/" in v or "\\" in v or v in (".", ".."):
            raise ValueError(f"must be a plain name (it names the output folder results/<name>), got {v!r}")
        return v

    @property
    def source(self) -> str:
        """The file (or other source) this configuration was read from; experiment errors start with it."""
        return self._source

    def error(self, where: str, problem: str | Exception) -> ConfigError:
        """A ConfigError naming the file and the key path: `exp.toml: datasets[1].splits[0]: ...`."""
        return ConfigError(f"{self.source}: {where}: {problem}" if where else f"{self.source}: {problem}")

    @model_validator(mode="before")
    @classmethod
    def _expand_grids(cls, data: Any) -> Any:
        return expand_recommender_grids(data)

    @model_validator(mode="after")
    def _references(self) -> ExperimentConfig:
        _unique([d.key for d in self.datasets], "datasets", "label")
        _unique([r.key for r in self.recommenders], "recommenders", "label")
        _unique([a.name for a in self.aspects], "aspects", "name")
        _unique([d.key for d in self.diversifiers], "diversifiers", "label")
        recs = {r.key for r in self.recommenders}
        spaces = {a.name for a in self.aspects}
        for i, a in enumerate(self.aspects):
            if a.recommender is not None and a.recommender not in recs:
                raise _ref_error(f"aspects[{i}].recommender", a.recommender, "recommender", recs)
        for i, d in enumerate(self.diversifiers):
            for j, s in enumerate(d.aspects):
                if s not in spaces:
                    raise _ref_error(f"diversifiers[{i}].aspects[{j}]", s, "aspect space", spaces)
            for j, r in enumerate(d.recommenders or []):
                if r not in recs:
                    raise _ref_error(f"diversifiers[{i}].recommenders[{j}]", r, "recommender", recs)
        if self.metrics.aspects is not None and self.metrics.aspects not in spaces:
            raise _ref_error("metrics.aspects", self.metrics.aspects, "aspect space", spaces)
        if self.meta and "perturbation" in self.meta.analyses and self.evaluation_aspects is None:
            raise ValueError("meta.analyses: `perturbation` builds its systems over the metrics' aspect space; "
                             "define one in [[aspects]]")
        if self.meta and len(set(self.meta.perturbation_families)) < len(self.meta.perturbation_families):
            raise ValueError("meta.perturbation_families: a family is listed twice")
        for i, m in enumerate((self.meta.measures or []) if self.meta else []):
            if m not in self.metrics.measures:
                raise _ref_error(f"meta.measures[{i}]", m, "measure of metrics.measures", set(self.metrics.measures))
        for i, pair in enumerate(self.report.tradeoff):
            for j, m in enumerate(pair):
                if m not in self.metrics.measures:
                    raise _ref_error(f"report.tradeoff[{i}][{j}]", m, "measure of metrics.measures",
                                     set(self.metrics.measures))
        return self

    @property
    def evaluation_aspects(self) -> str | None:
        """Name of the aspect space the metrics use: metrics.aspects, else the first explicit space."""
        if self.metrics.aspects is not None:
            return self.metrics.aspects
        explicit = [a.name for a in self.aspects if a.kind == "explicit"]
        return explicit[0] if explicit else (self.aspects[0].name if self.aspects else None)

    def output_dir(self, override: str | Path | None = None) -> Path:
        """--out, else the file's `output`, else results/<name> (`name` is a plain folder name)."""
        return Path(override or self.output or Path("results") / self.name)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True)


class _RefError(ValueError):
    pass


def _unique(names: list[str], section: str, what: str) -> None:
    seen = set()
    for i, n in enumerate(names):
        if n in seen:
            raise ValueError(f"{section}[{i}]: {what} {n!r} is used twice (set a distinct `label`)")
        seen.add(n)


def _ref_error(where: str, value: str, what: str, known: set[str]) -> ValueError:
    names = ", ".join(sorted(known)) or "none defined"
    return _RefError(f"{where}: no {what} named {value!r} (known: {names})")


def validate(data: dict[str, Any], source: str = "<experiment>") -> ExperimentConfig:
    """An `ExperimentConfig` from a parsed TOML/JSON mapping; errors name `source` and the key path."""
    try:
        config = ExperimentConfig.model_validate(data)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            msg = err["msg"].removeprefix("Value error, ")
            where = key_path(err["loc"])
            if err["type"] == "extra_forbidden":
                msg = "unknown key"
            elif err["type"] == "missing":
                msg = "required key is missing"
            lines.append(f"{where}: {msg}" if where and not msg.startswith(where) else msg)
        raise ConfigError(f"{source}: " + "; ".join(lines)) from None
    config._source = source
    return config


def load_experiment(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment TOML file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: experiment file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, expected an experiment TOML file") from None
    except OSError as e:  # permission, a symlink loop, an I/O error: the user's file, not a bug
        raise ConfigError(f"{path}: cannot read the experiment file: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
        at_most("nesting depth", nesting_depth(text), MAX_NESTING, "tables and arrays inside each other")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8 text") from None
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    return validate(data, str(path))


# typed validation of the components an experiment names -----------------------------------------------------
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
