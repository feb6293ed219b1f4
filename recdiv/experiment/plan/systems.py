"""The systems of an experiment and the baseline each is tested against.

A system is a recommender's list, possibly reranked by a diversifier setting (one point of its grid) over an
aspect space; `plan_systems` lists them in the order of the results (each recommender, then each diversifier grid
point × aspects × recommender), `baselines` pairs each with the system it is compared with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recdiv.errors import ConfigError
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.spec.grids import fmt_param


@dataclass(frozen=True)
class System:
    """One evaluated system: a recommender's list, possibly reranked by a diversifier setting over aspects."""

    name: str
    recommender: str
    diversifier: str | None = None
    reranker: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, Any], ...] = ()
    aspects: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "recommender": self.recommender, "diversifier": self.diversifier,
                "reranker": self.reranker, "params": dict(self.params), "grid": dict(self.grid),
                "aspects": self.aspects}


def plan_systems(config: ExperimentConfig) -> list[System]:
    """Every system of the experiment: each recommender, then each diversifier grid point × aspects × recommender."""
    systems = [System(r.key, r.key) for r in config.recommenders]
    for d in config.diversifiers:
        recs = d.recommenders or [r.key for r in config.recommenders]
        for rec in recs:
            for point in d.grid_points():
                for asp in d.aspects or [None]:
                    grid = ",".join(f"{k}={fmt_param(v)}" for k, v in point.items())
                    name = f"{rec}+{d.key}" + (f"({grid})" if grid else "") + (f"[{asp}]" if asp else "")
                    params = {**d.params, **point}
                    systems.append(System(name, rec, d.key, d.name, tuple(params.items()), tuple(point.items()), asp))
    seen = set()
    for s in systems:
        if s.name in seen:
            raise ConfigError(f"two systems are both named {s.name!r}: give one diversifier a distinct `label`")
        seen.add(s.name)
    return systems


def baselines(config: ExperimentConfig, systems: list[dict[str, Any]]) -> dict[str, str | None]:
    """The baseline each system is tested against (statistics.baseline; see `StatisticsConfig`); `systems` as
    `System.to_json` gives them (systems.json)."""
    names = [s["name"] for s in systems]
    b = config.statistics.baseline
    if b != "recommender":
        if b not in names:
            raise ConfigError(f"statistics.baseline: no system named {b!r} (systems: {', '.join(names[:8])}"
                              f"{', ...' if len(names) > 8 else ''})")
        return {n: (None if n == b else b) for n in names}
    first = systems[0]["recommender"]
    out: dict[str, str | None] = {}
    for s in systems:
        if s["diversifier"] is not None:
            out[s["name"]] = s["recommender"]
        else:
            out[s["name"]] = None if s["name"] == first else first
    return out
