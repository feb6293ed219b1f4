"""`Comparison`: the significance report of `Results.compare` — means with confidence intervals, tested pairs with
p-values, corrected p-values, effect sizes and confidence intervals of the differences, markers, and every export
(text, Markdown, LaTeX, JSON, a pandas frame, the HTML results page). `recdiv compare` prints it and the
experiment report is built from it, so a table or a marker is made here only.

Markers: with baselines (one baseline for all systems, or a baseline per system as in experiments), "▲" marks a
system significantly better than its baseline and "▼" significantly worse; without, a system gets the letters of
the systems it is significantly better than (ranx style). "Better" follows the measure's direction: for a
lower-is-better measure (Gini, ...) a significantly lower value is better. The best value of each column is bold
by the same direction.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from recdiv.errors import ConfigError
from recdiv.eval import tables
from recdiv.eval.tables import DOWN, UP, Cell, MeansTable, fmt_p, fmt_value


@dataclass(frozen=True)
class PairComparison:
    """One tested pair on one measure: effect_size = Cohen's d_z of d = round(a − b, 12); difference = mean(d) with
    its confidence interval (ci_low, ci_high)."""

    measure: str
    a: str
    b: str
    mean_a: float
    mean_b: float
    p_value: float
    p_adjusted: float
    effect_size: float
    significant: bool
    difference: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "mean_a": _num(self.mean_a), "mean_b": _num(self.mean_b),
                "p_value": _num(self.p_value), "p_adjusted": _num(self.p_adjusted),
                "effect_size": _num(self.effect_size), "significant": self.significant,
                "difference": _num(self.difference), "ci": [_num(self.ci_low), _num(self.ci_high)]}


def _num(x: float) -> float | None:
    """JSON-safe float (NaN/±inf become null)."""
    return float(x) if x is not None and math.isfinite(x) else None


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _p_text(p: float, samples: int) -> str:
    """A p-value of the text table: 4 significant digits, "< 1/B" below a Monte Carlo test's resolution."""
    if samples and math.isfinite(p) and p < 1.0 / samples:
        return f"< 1/{samples}"
    return f"{p:.4g}"


@dataclass
class Comparison:
    """Significance report of `Results.compare`.

    baseline: the one baseline of every system (or None); baselines: the baseline of each system (None: not
    tested) when they differ (experiments), else derived from `baseline`; neither: all pairs were tested.
    mean_ci: {measure: {system: (low, high)}} at level `confidence` by `ci_method` ("t" or "bootstrap").
    """

    systems: list[str]
    measures: list[str]
    means: dict[str, dict[str, float]]
    pairs: list[PairComparison]
    test: str
    correction: str
    alpha: float
    alternative: str
    baseline: str | None = None
    baselines: dict[str, str | None] | None = None
    mean_ci: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    ci_method: str = "t"
    confidence: float = 0.95
    higher_is_better: dict[str, bool] = field(default_factory=dict)
    integer: dict[str, bool] = field(default_factory=dict)
    n: dict[str, dict[str, int]] = field(default_factory=dict)
    #: B of a Monte Carlo test (permutation, bootstrap, randomised Tukey), 0 otherwise: p-values below 1/B are
    #: printed as "< 1/B", not 0
    samples: int = 0
    #: the `Results` compared, if known (their per-user values draw the distributions of the results page)
    results: Any = field(default=None, repr=False, compare=False)
    _index: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.baselines is None and self.baseline is not None:
            self.baselines = {s: (None if s == self.baseline else self.baseline) for s in self.systems}
        for pc in self.pairs:
            self._index[(pc.measure, pc.a, pc.b)] = pc
            self._index[(pc.measure, pc.b, pc.a)] = pc

    # access -----------------------------------------------------------------------------------------------------
    def pair(self, a: str, b: str, measure: str | None = None) -> PairComparison:
        measure = measure or self.measures[0]
        try:
            return self._index[(measure, a, b)]
        except KeyError:
            raise ConfigError(f"pair ({a!r}, {b!r}) was not compared on {measure!r}") from None

    def letter(self, system: str) -> str:
        i = self.systems.index(system)
        return _LETTERS[i] if i < len(_LETTERS) else str(i + 1)

    def direction(self, measure: str) -> bool:
        """True when higher values of `measure` are better."""
        return self.higher_is_better.get(measure, True)

    def _better(self, pc: PairComparison, system: str) -> bool | None:
        """Is `system` (a or b of the pair) better than the other one? None when they are equal."""
        d = pc.difference if math.isfinite(pc.difference) else pc.mean_a - pc.mean_b
        if d == 0:
            return None
        a_better = (d > 0) == self.direction(pc.measure)
        return a_better if system == pc.a else not a_better

    def tested_against(self, system: str) -> str | None:
        return None if self.baselines is None else self.baselines.get(system)

    def baseline_pair(self, system: str, measure: str) -> PairComparison | None:
        """The test of `system` against its baseline on `measure` (None: untested)."""
        base = self.tested_against(system)
        return self._index.get((measure, system, base)) if base else None

    def markers(self, system: str, measure: str) -> str:
        """Significance markers of `system` on `measure` (module docstring)."""
        if self.baselines is not None:
            base = self.baselines.get(system)
            pc = None if base is None else self._index.get((measure, system, base))
            if pc is None or not pc.significant:
                return ""
            better = self._better(pc, system)
            return "" if better is None else UP if better else DOWN
        out = []
        for other in self.systems:
            pc = self._index.get((measure, system, other))
            if pc is not None and pc.significant and self._better(pc, system):
                out.append(self.letter(other))
        return "".join(out)

    def best(self, measure: str) -> float:
        vals = [v for v in self.means[measure].values() if v is not None and math.isfinite(v)]
        if not vals:
            return math.nan
        return max(vals) if self.direction(measure) else min(vals)

    # tables -----------------------------------------------------------------------------------------------------------
    def note(self, intervals: bool = False) -> str:
        """What the table shows: test, correction, markers, best; `intervals`: also the confidence intervals (only
        where the output shows them: HTML details, the text table's difference intervals)."""
        what = ("all pairs" if self.baselines is None else f"against baseline {self.baseline}" if self.baseline
                else "each system against its baseline")
        mark = ("letters: significantly better than that system" if self.baselines is None
                else f"{UP}/{DOWN}: significantly better/worse than the baseline")
        corr = (f"{self.correction} correction over the pairs of each measure" if self.correction != "none"
                else "no correction" if self.test not in ("tukey", "tukey-anova")
                else "family-wise p-values over all pairs")
        ci = f"{round(self.confidence * 100)}% {'bootstrap' if self.ci_method == 'bootstrap' else 't'} intervals"
        return (f"{self.test} test ({self.alternative}), {corr}, α = {self.alpha}; {what}; {mark}; bold: best "
                f"(↑ higher / ↓ lower is better)" + (f"; [low, high]: {ci}." if intervals else "."))

    def means_table(self, digits: int = 4, lead: str = "letter", note: str | None = None) -> MeansTable:
        """The systems × measures table. lead="letter": columns #, System; lead="baseline": System, Baseline."""
        if lead == "letter":
            head = ["#" if self.baselines is None else "", "System"]
        else:
            head = ["System", "Baseline"]
        rows, cells = [], []
        for s in self.systems:
            if lead == "letter":
                rows.append([self.letter(s) if self.baselines is None
                             else ("(baseline)" if s == self.baseline else ""), s])
            else:
                rows.append([s, self.tested_against(s) or ""])
            cells.append([self._cell(s, m, digits) for m in self.measures])
        return MeansTable(head, list(self.measures), rows, cells, self.note() if note is None else note,
                          [self.direction(m) for m in self.measures])

    def _cell(self, s: str, m: str, digits: int) -> Cell | None:
        v = self.means[m].get(s)
        if v is None:
            return None
        integer = self.integer.get(m, False)
        c = Cell(fmt_value(v, digits, integer))
        best = self.best(m)
        c.best = v is not None and math.isfinite(v) and v == best
        c.marker = self.markers(s, m)
        lo, hi = self.mean_ci.get(m, {}).get(s, (math.nan, math.nan))
        title = [f"{s} · {m}: mean {fmt_value(v, 6, integer)}"]
        if math.isfinite(lo) and math.isfinite(hi):
            c.ci = f"[{fmt_value(lo, digits)}, {fmt_value(hi, digits)}]"
            title.append(f"{round(self.confidence * 100)}% CI {c.ci}")
        base = self.tested_against(s)
        pc = self.baseline_pair(s, m)
        if pc is not None:
            sign = 1 if pc.a == s else -1
            pa = fmt_p(pc.p_adjusted, self.samples)
            c.p = f"p{pa}" if pa.startswith("<") else f"p={pa}"
            title.append(f"vs {base}: Δ = {sign * pc.difference:+.{digits}f} "
                         f"[{fmt_value(min(sign * pc.ci_low, sign * pc.ci_high), digits)}, "
                         f"{fmt_value(max(sign * pc.ci_low, sign * pc.ci_high), digits)}], "
                         f"p = {fmt_p(pc.p_value, self.samples)}, adjusted p = {fmt_p(pc.p_adjusted, self.samples)}, "
                         f"d_z = {sign * pc.effect_size:+.3f}")
        c.title = "; ".join(title)
        return c

    # exports ----------------------------------------------------------------------------------------------------------
    def to_dict(self, measure: str | None = None) -> dict:
        """Everything as plain data. With `measure`: the one-measure form of `recdiv compare --format json`:
        {"measure", "test", "correction", "alpha", "alternative", "baseline", "means": {system: mean},
        "ci": {"method", "level", "means": {system: [low, high]}}, "pairs": [{a, b, mean_a, mean_b, p_value,
        p_adjusted, effect_size, significant, difference, ci: [low, high]}]}."""
        def ci(m):
            return {"method": self.ci_method, "level": self.confidence,
                    "means": {s: [_num(lo), _num(hi)] for s, (lo, hi) in self.mean_ci.get(m, {}).items()}}

        if measure is not None:
            if measure not in self.measures:
                raise ConfigError(f"measure {measure!r} was not compared")
            return {"measure": measure, "test": self.test, "correction": self.correction, "alpha": self.alpha,
                    "alternative": self.alternative, "baseline": self.baseline,
                    "means": {s: _num(v) for s, v in self.means[measure].items()}, "ci": ci(measure),
                    "pairs": [pc.to_dict() for pc in self.pairs if pc.measure == measure]}
        return {"test": self.test, "correction": self.correction, "alpha": self.alpha,
                "alternative": self.alternative, "baseline": self.baseline, "measures": list(self.measures),
                "means": {m: {s: _num(v) for s, v in ms.items()} for m, ms in self.means.items()},
                "ci": {m: ci(m) for m in self.measures},
                "pairs": [{"measure": pc.measure, **pc.to_dict()} for pc in self.pairs]}

    def to_json(self, measure: str | None = None, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(measure), indent=indent, ensure_ascii=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per (system, measure): mean, CI, n, baseline, p-value, adjusted p-value, effect size, marker,
        difference from the baseline and its CI (the columns of an experiment's summary.csv)."""
        rows = []
        for s in self.systems:
            for m in self.measures:
                if s not in self.means[m]:
                    continue
                lo, hi = self.mean_ci.get(m, {}).get(s, (math.nan, math.nan))
                row = {"system": s, "measure": m, "mean": self.means[m][s], "ci_low": lo, "ci_high": hi,
                       "n": self.n.get(m, {}).get(s, 0), "baseline": None, "p_value": math.nan,
                       "p_adjusted": math.nan, "effect_size": math.nan, "marker": "", "difference": math.nan,
                       "diff_ci_low": math.nan, "diff_ci_high": math.nan}
                base = self.tested_against(s)
                pc = self.baseline_pair(s, m)
                if pc is not None:
                    sign = 1 if pc.a == s else -1
                    lo_d, hi_d = sorted((sign * pc.ci_low, sign * pc.ci_high))
                    row.update(baseline=base, p_value=pc.p_value, p_adjusted=pc.p_adjusted,
                               effect_size=sign * pc.effect_size, marker=self.markers(s, m),
                               difference=sign * pc.difference, diff_ci_low=lo_d, diff_ci_high=hi_d)
                rows.append(row)
        return pd.DataFrame(rows)

    def to_markdown(self, digits: int = 4) -> str:
        return tables.to_markdown(self.means_table(digits))

    def to_latex(self, digits: int = 4, caption: str | None = None, label: str | None = None) -> str:
        """booktabs tables (compile with pdflatex; packages and marker macros in the header comment)."""
        return tables.to_latex(self.means_table(digits), caption, label)

    def to_html(self, title: str = "recdiv comparison", *, description: str = "",
                tradeoffs: Sequence[tuple[str, str]] | None = None) -> str:
        """The self-contained results page of this comparison, the page `recdiv compare --html` writes
        (`recdiv.eval.report.comparison_page`): the means table, every tested pair, the trade-off charts
        (`tradeoffs`: (x, y) measure pairs, default the first accuracy measure against each measure of another
        family), the means with their intervals and, when the comparison came from `Results.compare`, the per-user
        distributions; plotly.js embedded, so the page opens offline. The table alone, to embed in a page of one's
        own: `recdiv.eval.tables.to_html(cmp.means_table())`."""
        from recdiv.eval.report import comparison_page

        return comparison_page(self.results, self, title=title, description=description, tradeoffs=tradeoffs)

    def to_table(self, digits: int = 4, width: int = tables.TEXT_WIDTH) -> str:
        """The terminal table (`tables.to_text`: fits `width` columns, `*` marks the best of a column), then per
        measure one row per tested pair: difference, its interval, p-values ("< 1/B" below a Monte Carlo test's
        resolution), d_z and "yes" in the column `sig` when significant. Systems are named in full, or by their
        letters of the table above when the names would not fit."""
        t = self.means_table(digits)
        t.note = ""
        lines = [tables.to_text(t, width).rstrip("\n")]
        one_base = self.baseline is not None and self.baselines is not None and all(
            b in (None, self.baseline) for b in self.baselines.values())

        def rows(name):
            head = (["system"] if one_base else ["a", "b"]) + ["diff", "diff CI", "p", "p_adj", "d_z", "sig"]
            out = [head]
            for pc in self.pairs:
                if pc.measure != m:
                    continue
                out.append(([name(pc.a)] if one_base else [name(pc.a), name(pc.b)])
                           + [f"{pc.difference:.4f}", f"[{pc.ci_low:.4f}, {pc.ci_high:.4f}]"
                              if math.isfinite(pc.ci_low) else "", _p_text(pc.p_value, self.samples),
                              _p_text(pc.p_adjusted, self.samples), f"{pc.effect_size:.3f}",
                              "yes" if pc.significant else ""])
            return out

        n_names = 1 if one_base else 2
        for m in self.measures:
            table = rows(str)
            widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
            if sum(widths) + 2 * (len(widths) - 1) > width and self.baselines is None:
                table = rows(self.letter)  # the letters of the means table
                widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
            if len(table) == 1:
                continue
            what = f"against {self.baseline}" if one_base else "pairs"
            lines += ["", f"{m} ({what}):"]
            for r in table:
                lines.append("  ".join(c.ljust(w) if i < n_names else c.rjust(w)
                                       for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        lines += ["", textwrap.fill(self.note(intervals=True).replace("bold: best", "*: best"), width,
                                          break_on_hyphens=False)]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_table()
