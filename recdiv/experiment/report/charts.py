"""The charts of an experiment's report: accuracy–diversity trade-off curves over each diversifier's grid, and the
means of every measure with confidence intervals (`recdiv.eval.plots`: plotly.js in report.html, matplotlib SVGs)."""

from __future__ import annotations

import re
from typing import Any

from recdiv.experiment.spec.experiment import ExperimentConfig


def _measure_family(m: str) -> str:
    try:
        from recdiv.eval import parse_measure

        return parse_measure(m).FAMILY
    except Exception:  # a measure that no longer parses still gets a table row, just no default plot
        return "unknown"


def tradeoff_pairs(config: ExperimentConfig) -> list[tuple[str, str]]:
    """report.tradeoff, else (first accuracy measure, each non-accuracy measure), at most four plots."""
    if config.report.tradeoff:
        return [tuple(p) for p in config.report.tradeoff]
    kinds = {m: _measure_family(m) for m in config.metrics.measures}
    acc = [m for m, k in kinds.items() if k == "accuracy"]
    other = [m for m, k in kinds.items() if k not in ("accuracy", "system", "unknown", "preference")]
    return [(acc[0], m) for m in other[:4]] if acc else []


def curves(systems: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Trade-off curves: {"recommender + diversifier [aspects] other-grid-values": [(system, "λ=0.25"), ...]} over
    the first grid key, in grid order."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for s in systems:
        if s["diversifier"] is None:
            continue
        keys = list(s["grid"])
        rest = tuple((k, s["grid"][k]) for k in keys[1:])
        groups.setdefault((s["recommender"], s["diversifier"], s["aspects"], rest), []).append(s)
    out = {}
    for (rec, div, asp, rest), members in groups.items():
        gk = next(iter(members[0]["grid"]), None)
        if gk is not None:
            members = sorted(members, key=lambda s: s["grid"][gk])
        name = f"{rec} + {div}" + (f" [{asp}]" if asp else "") + "".join(f" {k}={v}" for k, v in rest)
        out[name] = [(s["name"], f"{_greek(gk)}={s['grid'][gk]}" if gk is not None else "") for s in members]
    return out


def _greek(key: str) -> str:
    return {"lambda": "λ", "alpha": "α", "beta": "β", "theta": "θ"}.get(key, key)


def bar_systems(systems: list[dict[str, Any]]) -> list[str]:
    """Systems in the means charts: all of them if ≤ 20, else the recommenders and each diversifier at the middle
    value of every grid parameter (e.g. λ = 0.5 of λ ∈ {0, 0.25, …, 1})."""
    if len(systems) <= 20:
        return [s["name"] for s in systems]
    values: dict[tuple[str, str], list] = {}
    for s in systems:
        for k, v in s["grid"].items():
            values.setdefault((s["diversifier"], k), [])
            if v not in values[(s["diversifier"], k)]:
                values[(s["diversifier"], k)].append(v)
    middle = {key: vs[(len(vs) - 1) // 2] for key, vs in values.items()}
    return [s["name"] for s in systems
            if all(v == middle[(s["diversifier"], k)] for k, v in s["grid"].items())]


def dataset_charts(config: ExperimentConfig, systems: list[dict[str, Any]], cmp, dataset: str):
    """(trade-off charts, means charts) of one dataset."""
    from recdiv.eval.plots import means_chart, tradeoff_chart

    trade = []
    undiversified = [s["name"] for s in systems if s["diversifier"] is None]
    for x, y in tradeoff_pairs(config):
        if x in cmp.measures and y in cmp.measures:
            trade.append(tradeoff_chart(cmp, x, y, curves(systems), undiversified,
                                        title=f"{dataset}: {y} vs {x}"))
    names = bar_systems(systems)
    means = [means_chart(cmp, m, names) for m in cmp.measures]
    return trade, means


def slug(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", "_".join(parts)).strip("-")[:100]
