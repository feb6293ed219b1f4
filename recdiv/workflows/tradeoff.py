"""Trade-off fronts of two per-user measures with bootstrap statistics (`recdiv.eval.stats.fronts`), as `recdiv
compare --tradeoff X Y [--front NAME=RUN,RUN ...]` reports them: text, Markdown, LaTeX, JSON."""

from __future__ import annotations

from collections.abc import Sequence

from recdiv.errors import ConfigError

#: accuracy-retention fractions reported with a baseline
FRACTIONS = (0.95, 0.9)


def _fronts(specs: list[str], names: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for spec in specs:
        label, sep, runs = spec.partition("=")
        members = [r.strip() for r in runs.split(",") if r.strip()]
        if not sep or not label.strip() or not members:
            raise ConfigError(f"--front {spec!r}: expected NAME=RUN,RUN,... (run names as in the table)")
        unknown = [r for r in members if r not in names]
        if unknown:
            raise ConfigError(f"--front {label}: {unknown[0]!r} is not one of the runs: {', '.join(names)}")
        out[label.strip()] = members
    if len(out) not in (0, 2):
        raise ConfigError(f"--front compares two fronts: give it twice (got {len(out)})")
    return out


def tradeoff_report(res, names: list[str], baseline: str | None, measures: tuple[str, str],
                    front_specs: Sequence[str] = (), *, samples: int | None = None, seed: int = 0,
                    confidence: float = 0.95) -> dict:
    """{"tradeoff": TradeOff, "fronts": FrontComparison, "labels": (a, b) (two `front_specs` NAME=RUN,RUN,...)} of
    the compared runs `names` of `res` (`Results`) on `measures` (X, Y); bootstrap over users (`samples` resamples,
    default 1000)."""
    x, y = measures
    for m in (x, y):
        if m not in res.per_user_measures:
            raise ConfigError(f"--tradeoff {m}: not one of the compared per-user measures (-m)")
    options = {"n_samples": samples or 1000, "seed": seed, "level": confidence}
    higher_x = res.higher_is_better(x)
    base = baseline if baseline is not None and higher_x else None
    out = {"tradeoff": res.tradeoff(x, y, names, baseline=base, fractions=FRACTIONS if base else (), **options)}
    fronts = _fronts(list(front_specs), names)
    if fronts:
        (la, a), (lb, b) = fronts.items()
        out["fronts"] = res.compare_fronts(x, y, a, b, **options)
        out["labels"] = (la, lb)
    return out


def _num(v: float) -> str:
    return "nan" if v != v else f"{v:.4f}"


def _estimate(e) -> str:
    return f"{_num(e.value)} [{_num(e.low)}, {_num(e.high)}]"


def format_tradeoff(report: dict, fmt: str) -> str:
    """The trade-off (and the comparison of two fronts) as text, Markdown or LaTeX."""
    from recdiv.eval.tables import tex

    t = report["tradeoff"]
    x, y = t.measures
    pct = f"{round(t.level * 100):g} %"
    rows = [[s, _num(mx), _num(my), f"{'yes' if s in t.front else 'no'} ({t.front_frequency[s]:.2f})"]
            for s, (mx, my) in zip(t.systems, t.means)]
    head = ["run", x, y, "on the front (share of resamples)"]
    lines = [f"hypervolume against the nadir ({_num(t.reference[0])}, {_num(t.reference[1])}): "
             f"{_estimate(t.hypervolume)}", f"area under the front: {_estimate(t.area)}"]
    for f, e in t.retention.items():
        lines.append(f"best {y} at {f:.0%} of {t.baseline}'s {x}: {_estimate(e)}")
    if "fronts" in report:
        c, (la, lb) = report["fronts"], report["labels"]
        lines.append(f"front {la} ({', '.join(c.a.systems)}) against front {lb} ({', '.join(c.b.systems)}): "
                     f"hypervolume against their common nadir ({_num(c.a.reference[0])}, {_num(c.a.reference[1])}) "
                     f"{_estimate(c.a.hypervolume)} vs {_estimate(c.b.hypervolume)}, difference "
                     f"{_estimate(c.difference)}, p = {c.p_value:.4g}; {la} dominates {lb} in {c.a_dominates:.0%} "
                     f"of the resamples, {lb} dominates {la} in {c.b_dominates:.0%}")
    title = (f"trade-off {x} (x) × {y} (y): {t.resamples} bootstrap resamples of the users, {pct} percentile "
             "intervals")
    if fmt == "latex":
        body = " \\\\\n".join(" & ".join(tex(c) for c in r) for r in rows)
        notes = "".join(f"\\par {tex(line)}\n" for line in lines)
        return (f"% {title}\n\\begin{{tabular}}{{lrrl}}\n\\hline\n{' & '.join(tex(h) for h in head)} \\\\\n\\hline\n"
                f"{body} \\\\\n\\hline\n\\end{{tabular}}\n{notes}")
    if fmt == "markdown":
        from recdiv.escape import markdown  # run names and labels come from files and options: text, one cell

        table = (["| " + " | ".join(map(markdown, head)) + " |", "|---|---|---|---|"]
                 + ["| " + " | ".join([markdown(r[0]), *r[1:]]) + " |" for r in rows])
        return (f"### {markdown(title)}\n\n" + "\n".join(table) + "\n\n"
                + "\n".join(f"- {markdown(line)}" for line in lines) + "\n")
    widths = [max(len(r[j]) for r in [head, *rows]) for j in range(4)]
    table = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]
    return f"== {title}\n" + "\n".join(table) + "\n" + "\n".join(lines) + "\n"


def tradeoff_json(report: dict) -> dict:
    out = {"tradeoff": report["tradeoff"].to_dict()}
    if "fronts" in report:
        la, lb = report["labels"]
        out["fronts"] = {"labels": [la, lb], **report["fronts"].to_dict()}
    return out
