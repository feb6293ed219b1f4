"""The sections of an experiment file: pydantic models (``extra="forbid"``), one per TOML table.

An experiment is datasets × splits × recommenders (top-N candidates) × diversifiers (grids of parameters,
over aspect spaces) → top-k lists → per-user metric values → statistics; `recdiv.experiment.spec.experiment`
nests these tables into the whole file. docs/experiments.md documents every key.
"""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from recdiv.config import Config
from recdiv.limits import MAX_LEVELS, MAX_ROBUSTNESS_SAMPLES, MAX_SAMPLES

Scalar = bool | int | float | str


class Section(Config):
    """The experiment's tables are `recdiv.config.Config`s like every component config: unknown keys are errors,
    values are not coerced (`n = "30"` is not a number), numbers are finite (`allow_inf_nan=False`), instances are
    immutable."""


class DatasetConfig(Section):
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


class SelectConfig(Section):
    """Choose one point of a recommender's grid on a validation split carved from each training set.

    The validation split holds out `validation` of every user's training interactions (random, seeded;
    `recdiv.data.splits.holdout_split`); every grid point is fitted on the rest and evaluated with `measure` on the
    held-out part (its users with a relevant item, lists of candidates.k items, the experiment's relevance
    threshold; `measure` defined under `[metrics] conventions` like the experiment's measures); the best value
    wins — the highest, or the lowest for a lower-is-better measure — ties to the first point in grid order. The
    chosen point is then fitted on the whole training set, per split.
    """

    measure: str = Field("nDCG@10", min_length=1)
    validation: float = Field(0.2, gt=0, lt=1, description="fraction of each user's training interactions held out")


class _GridComponent(Section):
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



class AspectConfig(Section):
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


class CandidatesConfig(Section):
    """Candidate depth N (top-N of each recommender) and final list length k (after reranking)."""

    n: int = Field(500, ge=1)
    k: int = Field(50, ge=1)

    @model_validator(mode="after")
    def _k_le_n(self) -> CandidatesConfig:
        if self.k > self.n:
            raise ValueError(f"k = {self.k} is larger than the candidate depth n = {self.n}")
        return self


_TOOLS = ("recdiv", "trec_eval", "ndeval", "ir_measures", "ranx", "lenskit")


class MetricsConfig(Section):
    """Measures (``Name(param=value)@K`` strings) and the evaluation settings they share."""

    measures: list[str] = Field(min_length=1)
    threshold: float = Field(4.0, description="relevance threshold τ (relevant ⇔ grade ≥ τ)")
    population: Literal["relevant", "judged"] = "relevant"
    aspects: str | None = Field(None, description="aspect space of the metrics (default: first explicit one)")
    similarity: str | None = Field(None, description="item similarity of distance metrics (default by kind)")
    conventions: Literal["recdiv", "trec_eval", "ndeval", "ir_measures", "ranx", "lenskit"] | None = Field(
        None, description="another tool's conventions (threshold, population, measure definitions; "
        "docs/metrics.md): explicit threshold / population still win")

    @model_validator(mode="before")
    @classmethod
    def _tool_defaults(cls, data: Any) -> Any:
        """The chosen conventions' threshold and population where the table does not set them."""
        if isinstance(data, dict) and data.get("conventions") in _TOOLS:
            from recdiv.eval.conventions import get

            chosen = get(data["conventions"])
            data = {"threshold": chosen.threshold, "population": chosen.population, **data}
        return data

    def eval_settings(self) -> dict[str, Any]:
        """What the per-user values depend on besides the measure strings (the cache key of an evaluation)."""
        return self.model_dump(mode="json", exclude={"measures"} | ({"conventions"} if self.conventions is None
                                                                    else set()))

    @field_validator("measures")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("a measure is listed twice")
        return v


class StatisticsConfig(Section):
    """Paired significance tests of every system against a baseline, with a multiple-comparison correction.

    baseline: a system name, or "recommender" (default): each diversified system is compared with the
    undiversified list of its own recommender, and recommenders with the first one.
    """

    test: str = "t"  # the default of `recdiv compare` too (docs/statistics.md, "The default test")
    baseline: str = "recommender"
    correction: str = "holm"
    alpha: float = Field(0.05, gt=0, lt=1)


class ReportConfig(Section):
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


class MetaConfig(Section):
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
