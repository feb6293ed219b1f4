"""The size of an experiment, estimated from its raw mapping before any grid is expanded or any work starts."""

from __future__ import annotations

from typing import Any

from recdiv.limits import MAX_GRID_POINTS, MAX_SYSTEMS, at_most, product


def _points(component: Any) -> int:
    """Grid points of a raw recommender or diversifier table (1 without a grid, or with `select`)."""
    grid = component.get("grid") if isinstance(component, dict) else None
    if not isinstance(grid, dict) or not grid or component.get("select") is not None:
        return 1
    return product(len(v) if isinstance(v, list) else 1 for v in grid.values())


def estimate_systems(data: dict[str, Any]) -> int:
    """The number of systems the raw experiment mapping describes, counted before any grid is expanded:
    ConfigError beyond `recdiv.limits.MAX_GRID_POINTS` points of one grid or `MAX_SYSTEMS` systems."""
    recs = [r for r in data.get("recommenders") or [] if isinstance(r, dict)]
    points = {}
    for i, r in enumerate(recs):
        points[r.get("label") or r.get("name")] = n = _points(r)
        at_most(f"recommenders[{i}]: grid points", n, MAX_GRID_POINTS, "the product of the grid's value counts")
    total = sum(points.values())
    for i, d in enumerate(x for x in data.get("diversifiers") or [] if isinstance(x, dict)):
        n = _points(d)
        at_most(f"diversifiers[{i}]: grid points", n, MAX_GRID_POINTS, "the product of the grid's value counts")
        names = d.get("recommenders")
        under = sum(points.get(r, 1) for r in names) if isinstance(names, list) else sum(points.values())
        spaces = d.get("aspects")
        total += n * max(len(spaces) if isinstance(spaces, list) else 1, 1) * max(under, 1)
    at_most("systems of the experiment", total, MAX_SYSTEMS,
            "recommender grid points, plus diversifier grid points × aspect spaces × recommenders")
    return total
