"""Declarative experiment files: the whole experiment (`ExperimentConfig`, its sections in
`recdiv.experiment.spec.sections`) loaded from TOML and validated.

The TOML file is these models nested; docs/experiments.md documents every key. Errors name the file and the key
path, e.g. ``demo.toml: diversifiers[0].grid.lambda: Input should be a valid list``.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from recdiv.config import key_path
from recdiv.errors import ConfigError
from recdiv.experiment.spec.grids import expand_recommender_grids
from recdiv.experiment.spec.sections import (
    AspectConfig,
    CandidatesConfig,
    DatasetConfig,
    DiversifierConfig,
    MetaConfig,
    MetricsConfig,
    RecommenderSpec,
    ReportConfig,
    Section,
    StatisticsConfig,
)
from recdiv.limits import MAX_NESTING, at_most, nesting_depth


class ExperimentConfig(Section):
    """A whole experiment (see docs/experiments.md for the TOML layout)."""

    name: str = Field(min_length=1, description="experiment name; a single folder name (default output results/<name>)")
    description: str = ""
    seed: int = Field(0, ge=0)
    output: str | None = Field(None, description="output folder (default: results/<name>)")
    datasets: list[DatasetConfig] = Field(min_length=1)
    recommenders: list[RecommenderSpec] = Field(min_length=1)
    candidates: CandidatesConfig = CandidatesConfig()
    aspects: list[AspectConfig] = Field(default_factory=list)
    item_groups: str | None = Field(None, description="an explicit aspect space whose aspects are the item groups "
                                                      "(provider groups, a protected attribute) of FAIR, AWRF and "
                                                      "GroupExposure")
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
        if self.item_groups is not None:
            explicit = {a.name for a in self.aspects if a.kind == "explicit"}
            if self.item_groups not in explicit:
                raise _ref_error("item_groups", self.item_groups, "explicit aspect space", explicit)
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
