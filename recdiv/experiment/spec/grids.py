"""Recommender grids without `select`: one recommender per grid point, expanded before validation; the names of
grid points and parameter values in system names."""

from __future__ import annotations

from typing import Any

from recdiv.experiment.spec.estimate import estimate_systems
from recdiv.experiment.spec.sections import RecommenderSpec


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
