"""Trade-off fronts of an experiment (`recdiv.eval.stats.fronts`, docs/statistics.md "Trade-off fronts"): for each
trade-off pair of the report and each recommender, the Pareto front of its undiversified list and every
diversified system built on it, and for each diversifier curve (its parameter grid, with the undiversified list) the
hypervolume and area against the recommender's common nadir and the best diversity at 95 % of the undiversified
accuracy — each with a bootstrap interval over the (split, user) pairs. Written to `fronts.json` and shown under the
trade-off charts of report.html."""

from __future__ import annotations

import html
import math
from typing import Any

RETAIN = 0.95


def _num(v: float) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4f}"


def _est(e) -> str:
    return f"{_num(e.value)} [{_num(e.low)}, {_num(e.high)}]"


def recommender_fronts(res, systems: list[dict[str, Any]], x: str, y: str, curves: dict[str, list[tuple[str, str]]],
                       seed: int, level: float) -> list[dict[str, Any]]:
    """One entry per recommender with diversified systems: {"recommender", "users", "all": TradeOff of every system
    of it, "curves": {curve name: TradeOff of the curve and the undiversified list, on the common reference}}, over
    the users with a value of both measures for every system of the recommender (a measure undefined for a user,
    e.g. ILD of a one-item list, leaves that user out)."""
    import numpy as np

    from recdiv.eval.stats.fronts import resample_counts, tradeoff

    higher = (res.higher_is_better(x), res.higher_is_better(y))
    out = []
    for rec in dict.fromkeys(s["recommender"] for s in systems):
        base = next((s["name"] for s in systems if s["recommender"] == rec and s["diversifier"] is None), None)
        members = [s["name"] for s in systems if s["recommender"] == rec and s["diversifier"] is not None]
        names = [n for n in ([base] if base else []) + members if res.has(n, x) and res.has(n, y)]
        if base not in names or len(names) < 2:
            continue
        X, Y = res.matrix(x, names), res.matrix(y, names)
        keep = np.isfinite(X).all(axis=0) & np.isfinite(Y).all(axis=0)
        if keep.sum() < 2:
            continue
        X, Y = X[:, keep], Y[:, keep]
        row = dict(zip(names, range(len(names))))
        counts = resample_counts(1000, X.shape[1], seed)  # one set of resamples for the front and every curve
        retain = {"baseline": base, "fractions": (RETAIN,)} if higher[0] and X[0].mean() > 0 else {"fractions": ()}
        opts = {"counts": counts, "level": level, **retain}
        every = tradeoff(X, Y, names, (x, y), higher, **opts)
        per_curve = {}
        for curve, points in curves.items():
            cn = [s for s, _ in points if s in row and s != base]
            if cn and curve.startswith(f"{rec} + "):
                idx = [0, *(row[s] for s in cn)]
                per_curve[curve] = tradeoff(X[idx], Y[idx], [base, *cn], (x, y), higher, reference=every.reference,
                                            **opts)
        out.append({"recommender": rec, "users": int(keep.sum()), "all": every, "curves": per_curve})
    return out


def fronts_html(entries: list[dict[str, Any]], x: str, y: str) -> str:
    """The fronts of one trade-off pair as HTML (names escaped)."""
    e = html.escape
    parts = []
    for entry in entries:
        t = entry["all"]
        pct = f"{round(t.level * 100):g}%"
        front = ", ".join(f"{e(s)} ({t.front_frequency[s]:.2f})" for s in t.front)
        parts.append(f"<p><b>{e(entry['recommender'])}</b>: {e(y)} against {e(x)}; Pareto front of its "
                     f"{len(t.systems)} systems (share of the {t.resamples} bootstrap resamples in which each is on "
                     f"the front, over its {entry['users']} (split, user) pairs with both values): {front}. "
                     f"Reference point (the nadir): ({_num(t.reference[0])}, "
                     f"{_num(t.reference[1])}); hypervolume of all its systems {_est(t.hypervolume)}.</p>")
        retained = f"best {e(y)} at {RETAIN:.0%} of {e(t.baseline)}'s {e(x)}" if t.baseline else None
        head = ["curve (with the undiversified list)", "hypervolume", "area under the front"] + \
            ([retained] if retained else [])
        rows = []
        for curve, c in entry["curves"].items():
            cells = [e(curve), _est(c.hypervolume), _est(c.area)] + \
                ([_est(c.retention[RETAIN]) if RETAIN in c.retention else "—"] if retained else [])
            rows.append("<tr>" + "".join(f"<td>{v}</td>" for v in cells) + "</tr>")
        parts.append(f'<table class="fronts"><caption>{pct} bootstrap percentile intervals over the (split, user) '
                     "pairs; the same resamples for every curve</caption><thead><tr>"
                     + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows)
                     + "</tbody></table>")
    return "\n".join(parts)


def fronts_json(entries: list[dict[str, Any]], x: str, y: str) -> dict[str, Any]:
    return {"x": x, "y": y, "recommenders": [
        {"recommender": en["recommender"], "users": en["users"], "all": en["all"].to_dict(),
         "curves": {name: t.to_dict() for name, t in en["curves"].items()}} for en in entries]}


def fronts_part(res, cmp, systems: list[dict[str, Any]], pairs, curves: dict[str, list[tuple[str, str]]],
                seed: int, level: float) -> tuple[str, list[dict[str, Any]]]:
    """(HTML, JSON-ready list) of the fronts of every trade-off pair of one dataset whose measures are per-user."""
    html_parts, data = [], []
    for x, y in pairs:
        if x not in cmp.measures or y not in cmp.measures or x in res.system_measures or y in res.system_measures:
            continue
        entries = recommender_fronts(res, systems, x, y, curves, seed, level)
        if entries:
            title = f"<h4>Fronts: {html.escape(y)} against {html.escape(x)}</h4>"
            html_parts.append(title + fronts_html(entries, x, y))
            data.append(fronts_json(entries, x, y))
    return "\n".join(html_parts), data
