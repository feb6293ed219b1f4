"""What a page shows, as plain JSON values built from the engine's results: the population view (every measure of
every system with bootstrap intervals and the paired test against the baseline, `Results.compare`), the user view
(profile, the lists side by side with titles, aspects, test relevance, what entered and left, and the greedy
objective's terms at each step, `GreedyReranker.trace`), and the trade-off curve over the reranker's parameter
(`recdiv.eval.charts`). Texts from data files go out as JSON strings; the page puts them in text nodes only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from recdiv.errors import ConfigError
from recdiv.escape import visible
from recdiv.explore.catalog import tradeoff_parameter
from recdiv.explore.engine import Engine, Prepared

SYSTEMS = ("baseline", "A", "B")
CURVE_POINTS = 11
#: bootstrap resamples of the intervals (the library's default)
CI_SAMPLES = 1000


def _num(x: Any) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _params(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())


def labels(p: Prepared) -> dict[str, str]:
    """What each system is, in words: "user-knn (baseline)", "A: MMR(lambda=0.5) over genres"."""
    r = p.config.recommenders[0]
    out = {"baseline": f"{r.name}" + (f"({_params(r.params)})" if r.params else "") + " (baseline)"}
    for d in p.config.diversifiers:
        over = f" over {d.aspects[0]}" if d.aspects else ""
        out[d.label] = f"{d.label}: {d.name}" + (f"({_params(d.params)})" if d.params else "") + over
    return {k: visible(v) for k, v in out.items()}  # shown as text; control characters visible (recdiv.escape)


def systems(p: Prepared) -> list[str]:
    return ["baseline", *(d.label for d in p.config.diversifiers)]


def _rankings(engine: Engine, p: Prepared) -> dict[str, tuple]:
    return {s: engine.ranking(p, None if s == "baseline" else s) for s in systems(p)}


def measure_info(measures: list[str]) -> list[dict[str, Any]]:
    from recdiv.eval import parse_measure

    out = []
    for text in measures:
        m = parse_measure(text)
        out.append({"name": text, "family": m.FAMILY, "higher": bool(m.HIGHER_IS_BETTER), "kind": m.KIND,
                    "doc": ((type(m).__doc__ or "").strip().splitlines() or [""])[0]})
    return out


# the population -----------------------------------------------------------------------------------------------
def population(engine: Engine, p: Prepared) -> dict[str, Any]:
    """Means, 95 % bootstrap intervals and the paired test of each configuration against the baseline (the
    experiment's test and correction over the tested pairs of each measure), for every measure; kept for the
    next request of the same systems (a user change)."""
    ranks = _rankings(engine, p)
    st = p.config.statistics
    ekey = engine.eval_context(p)[1]
    key = ("population", tuple(k for _, k in ranks.values()), ekey, p.state.measures,
           st.model_dump_json(), p.config.seed, p.config.report.confidence)
    return engine.memo(key, lambda: _population(engine, p, ranks, ekey))


def _population(engine: Engine, p: Prepared, ranks: dict[str, tuple], ekey) -> dict[str, Any]:
    """The table of `Results.compare`, whose intervals and p-values are kept per system (and pair) in the
    engine's statistics memo: a new λ of A computes A's intervals and tests only."""
    from recdiv.eval.results import Results

    measures = list(p.state.measures)
    scores = {s: engine.scores(p, r, key, measures) for s, (r, key) in ranks.items()}
    per_user = {s: {m: v for m, v in sc.items() if isinstance(v, np.ndarray)} for s, sc in scores.items()}
    system = {s: {m: v for m, v in sc.items() if not isinstance(v, np.ndarray)} for s, sc in scores.items()}
    st = p.config.statistics
    correction = "none" if st.test.lower().startswith("tukey") else st.correction
    res = Results(per_user, system_values=system if any(system.values()) else None)
    base = {s: (None if s == "baseline" else "baseline") for s in res.systems}
    cmp = res.compare(baseline=base, test=st.test, correction=correction, alpha=st.alpha, seed=p.config.seed,
                      ci="bootstrap", ci_samples=CI_SAMPLES, confidence=p.config.report.confidence,
                      keys={s: (key, ekey) for s, (_, key) in ranks.items()}, memo=engine.statistics)
    rows = []
    for m in measures:
        for s in res.systems:
            row: dict[str, Any] = {"system": s, "measure": m, "mean": _num(cmp.means[m].get(s)),
                                   "ci": [_num(x) for x in cmp.mean_ci.get(m, {}).get(s, (None, None))]}
            if s != "baseline" and m in res.per_user_measures:
                pc = cmp.pair(s, "baseline", m)
                row.update(diff=_num(pc.difference), diff_ci=[_num(pc.ci_low), _num(pc.ci_high)],
                           p=_num(pc.p_value), p_adjusted=_num(pc.p_adjusted), significant=pc.significant,
                           effect=_num(pc.effect_size), marker=cmp.markers(s, m))
            rows.append(row)
    n_users = len(engine.users(p))
    return {"rows": rows, "test": st.test, "correction": correction, "alpha": st.alpha, "users": n_users,
            "note": cmp.note(intervals=True)}


# one user -------------------------------------------------------------------------------------------------------
def user_index(engine: Engine, p: Prepared) -> tuple[int, str]:
    """(row in the candidates, external id) of the state's user; the first evaluated user when none is given."""
    cands, _ = engine.candidates(p)
    vocab = p.data.split.train.users
    ids = [str(x) for x in vocab.id_of(cands.users)]
    if p.state.user is None:
        return 0, ids[0]
    try:
        return ids.index(p.state.user), p.state.user
    except ValueError:
        raise ConfigError(f"user {p.state.user!r} is not one of the {len(ids)} evaluated users of this split "
                          f"(users with a relevant test item; e.g. {', '.join(ids[:5])})") from None


def users(engine: Engine, p: Prepared) -> list[list]:
    """[[user id, profile size, relevant test items], …] of the evaluated users (the user picker)."""
    cands, ckey = engine.candidates(p)

    def build() -> list[list]:
        train = p.data.split.train
        counts = train.user_counts()[cands.users]
        rel = p.data.qrels.n_relevant(p.threshold)[cands.users]
        return [[str(u), int(c), int(r)] for u, c, r in zip(train.users.id_of(cands.users), counts, rel)]

    return engine.memo(("users", ckey), build)


def user_view(engine: Engine, p: Prepared) -> dict[str, Any]:
    """The state's user: profile (items, aspect shares) and every system's list with what changed."""

    row, uid = user_index(engine, p)
    cands, _ = engine.candidates(p)
    dense = int(cands.users[row])
    name = p.config.evaluation_aspects
    space = engine.space(p, name)[0] if name else None
    items = engine.items(p, space)
    train = p.data.split.train
    prof = train.matrix[dense]
    order = np.lexsort((prof.indices, -prof.data))
    profile = [_item(items, train.items.id_of(prof.indices[j]), value=_num(prof.data[j])) for j in order[:40]]
    shares = []
    if space is not None:
        ctx, _ = engine.eval_context(p)
        dist = ctx.user_distribution("count")[dense]
        names = [str(x) for x in space.names.ids]
        shares = [[names[j], _num(dist[j])] for j in np.argsort(-dist, kind="stable") if dist[j] > 0][:12]
    qrels = p.data.qrels
    measures = list(p.state.measures)
    lists, values = {}, {}
    base_items = None
    for s, (ranking, key) in _rankings(engine, p).items():
        got = ranking.items[row]
        got = got[got >= 0]
        base_items = got if s == "baseline" else base_items
        grades = qrels.lookup(np.array([dense]), got[None, :])[0]
        entries = [_item(items, train.items.id_of(i), grade=_num(g), relevant=bool(g >= p.threshold))
                   for i, g in zip(got, grades)]
        if s != "baseline":
            _mark_changes(entries, got, base_items)
            _add_terms(engine, p, s, cands, row, got, entries)
        lists[s] = entries
        sc = engine.scores(p, ranking, key, measures)
        values[s] = {m: _num(v[row]) for m, v in sc.items() if isinstance(v, np.ndarray)}
    for s, entries in lists.items():
        if s == "baseline":
            continue
        kept = {e["item"] for e in entries}
        for e in lists["baseline"]:
            if e["item"] not in kept:
                e.setdefault("left", []).append(s)
    return {"id": uid, "profile": {"size": int(prof.nnz), "items": profile, "shares": shares},
            "relevant": int(qrels.n_relevant(p.threshold)[dense]), "lists": lists, "values": values}


def _item(items, item_id, **extra) -> dict[str, Any]:
    title, aspects = items.describe(item_id)
    # titles and aspect names from data files: shown as text nodes, their control characters visible
    return {"item": str(item_id), "title": visible(title), "aspects": [visible(a) for a in aspects], **extra}


def _mark_changes(entries: list[dict], got: np.ndarray, base: np.ndarray) -> None:
    where = {int(i): r for r, i in enumerate(base)}
    for e, i in zip(entries, got):
        r = where.get(int(i))
        e["baseline_rank"] = None if r is None else r + 1
        e["entered"] = r is None


def _add_terms(engine: Engine, p: Prepared, label: str, cands, row: int, got: np.ndarray, entries: list) -> None:
    """The greedy objective and its relevance/diversity parts at the step each item was chosen (when the
    reranker is greedy and the traced list is the shown one)."""
    tr = engine.trace(p, label, cands, row)
    if tr is None or tr.steps == 0:
        return
    pos = tr.positions[0]
    traced = cands.items[row][pos[pos >= 0]]
    if len(traced) != len(got) or not np.array_equal(traced, got):
        return
    for t, e in enumerate(entries):
        e["objective"] = _num(tr.objective[0, t])
        if tr.relevance is not None:
            e["relevance"] = _num(tr.relevance[0, t])
            e["diversity"] = _num(tr.diversity[0, t])


# the trade-off curve ----------------------------------------------------------------------------------------------
def curve(engine: Engine, p: Prepared, x: str | None = None, y: str | None = None,
          only: str | None = None) -> dict[str, Any]:
    """The mean of measure y against measure x for the baseline and each configuration (or configuration `only`)
    over the grid 0, 0.1, …, 1 of its trade-off parameter (`tradeoff_parameter`), the current point marked; a
    plotly figure. The page asks for the first configuration's curve, then for both (each point is kept: the
    second asks only for the other configuration's)."""
    from recdiv.diversifiers.registry import RERANKERS
    from recdiv.eval.charts import Chart, Series, to_plotly

    labels = [d.label for d in p.config.diversifiers]
    if only is not None and only not in labels:
        raise ConfigError(f"curve of configuration {only!r}: the configurations shown are "
                          f"{', '.join(labels) or 'none'}")

    info = {i["name"]: i for i in measure_info(list(p.state.measures))}
    per_user = [m for m, i in info.items() if i["kind"] == "per-user"]
    if not per_user:
        raise ConfigError("the trade-off curve needs a per-user measure")
    x = x or next((m for m in per_user if info[m]["family"] == "accuracy"), per_user[0])
    y = y or next((m for m in per_user if m != x and info[m]["family"] in ("diversity", "intent-aware")),
                  next((m for m in per_user if m != x), x))
    for m in (x, y):
        if m not in info:
            raise ConfigError(f"curve measure {m!r} is not one of the chosen measures")

    def mean(label, params=None) -> tuple[float | None, float | None]:
        r, key = engine.ranking(p, label, params)
        sc = engine.scores(p, r, key, [x, y])
        return tuple(_num(np.mean(sc[m])) for m in (x, y))

    chart = Chart("Trade-off over the population", _axis(x, info[x]), _axis(y, info[y]), height=440)
    bx, by = mean(None)
    at_baseline: list[str] = []  # the curves' ends that are the baseline: said in its legend entry, not drawn over it
    points: dict[str, Any] = {"baseline": [[bx, by]]}
    grid = [round(i / (CURVE_POINTS - 1), 10) for i in range(CURVE_POINTS)]
    for d in p.config.diversifiers:
        if only is not None and d.label != only:
            continue
        param = tradeoff_parameter(RERANKERS.get(d.name).Config)
        if param is None:
            cx, cy = mean(d.label)
            chart.series.append(Series(f"{d.label}: {d.name}", [cx], [cy], mode="markers", labels=[d.label],
                                       hover=[f"{d.label}\n{x} = {cx:.4f}\n{y} = {cy:.4f}"]))
            points[d.label] = [[cx, cy]]
            continue
        current = d.params.get(param, RERANKERS.get(d.name).Config().model_dump(by_alias=True).get(param))
        # the grid's points do not depend on the current value: kept for every state that differs only by it
        at0 = engine.ranking(p, d.label, {param: grid[0]})[1]
        sweep = engine.memo(("curve", at0, engine.eval_context(p)[1], param, x, y),
                            lambda: [mean(d.label, {param: v}) for v in grid])  # noqa: B023 (called at once)
        xs, ys, hover, marks = [], [], [], []
        for v, (cx, cy) in zip(grid, sweep):
            xs.append(cx)
            ys.append(cy)
            hover.append(f"{d.label}: {d.name} {param} = {v:g}\n{x} = {cx:.4f}\n{y} = {cy:.4f}")
            end = v in (grid[0], grid[-1])
            if end and (cx, cy) == (bx, by):
                at_baseline.append(f"{d.label} at {param} = {v:g}")
            marks.append(f"{d.label}: {param}={v:g}" if end and (cx, cy) != (bx, by) else "")
        chart.series.append(Series(f"{d.label}: {d.name} over {param}", xs, ys, hover=hover, labels=marks))
        cx, cy = mean(d.label)
        chart.series.append(Series(f"{d.label} now ({param} = {current:g})", [cx], [cy], mode="markers",
                                   labels=[f"{d.label} {param}={current:g}"],
                                   hover=[f"{d.label} now: {param} = {current:g}\n{x} = {cx:.4f}\n{y} = {cy:.4f}"]))
        points[d.label] = [[a, b] for a, b in zip(xs, ys)]
    name = "baseline" + (f" (= {', '.join(at_baseline)})" if at_baseline else "")
    chart.series.insert(0, Series(name, [bx], [by], mode="markers", emphasis=True,
                                  hover=[f"{name}\n{x} = {bx:.4f}\n{y} = {by:.4f}"]))
    return {"x": x, "y": y, "figure": to_plotly(chart), "points": points, "grid": grid,
            "complete": only is None or labels == [only]}


def _axis(measure: str, info: dict[str, Any]) -> str:
    """The axis title of `measure`, saying in words which end is better (`recdiv.eval.charts.axis_title`)."""
    from recdiv.eval.charts import axis_title

    return axis_title(measure, info["family"], info["higher"])
