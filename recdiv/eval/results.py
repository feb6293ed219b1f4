"""`Results`: systems × measures with the per-user values inside, and `Comparison`, its significance report.

A `Results` table is what statistics attach to (STYLE.md, after ranx's `Report`)::

    res = Results.evaluate({"pop": pop_run, "mmr": mmr_run}, qrels, ["nDCG@10", "P@10"])
    cmp = res.compare(test="t", correction="holm")          # all pairs; or baseline="pop"
    print(cmp.to_markdown()); cmp.to_latex(); cmp.to_json()

Per-user values are **paired**: every system has a value for the same users (the evaluated population of
METRICS.md §0.2); unpaired inputs are refused with a ConfigError. Corrections are applied per measure over
the family of pairs compared for it (m = number of pairs).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measures
from recdiv.eval.evaluate import Evaluation, evaluate
from recdiv.eval.meta.discriminative import discriminative_power
from recdiv.eval.plots import plot_tradeoff
from recdiv.eval.stats.corrections import adjust, canonical_correction
from recdiv.eval.stats.significance import Alternative, canonical_test, cohens_dz, system_pair_pvalues
from recdiv.eval.stats.tukey import tukey_hsd


class Results:
    """Per-user values of several systems on several measures, paired on the same users.

    values: {system: {measure: per-user array}}; every array of a measure has the same length (one entry per
    evaluated user, in the same user order). users: optional user ids — one array shared by all systems, or
    {system: array}; when given per system they must be identical (same users in the same order).
    """

    def __init__(self, values: Mapping[str, Mapping[str, np.ndarray]],
                 users: np.ndarray | Mapping[str, np.ndarray] | None = None):
        if not values:
            raise ConfigError("Results needs at least one system")
        self._values = {str(s): {str(m): np.asarray(v, dtype=np.float64) for m, v in ms.items()}
                        for s, ms in values.items()}
        self.systems: list[str] = list(self._values)
        self.measures: list[str] = list(dict.fromkeys(m for ms in self._values.values() for m in ms))
        for s, ms in self._values.items():
            missing = [m for m in self.measures if m not in ms]
            if missing:
                raise ConfigError(f"system {s!r} has no values for measure {missing[0]!r}")
        self.users = self._check_users(users)
        self._check_paired()

    # construction -----------------------------------------------------------------------------------------------
    @classmethod
    def evaluate(cls, runs, qrels, measures, context=None) -> Results:
        """Evaluate every run on every measure (`recdiv.eval.evaluate`) and keep the per-user values."""
        ms = parse_measures([measures] if isinstance(measures, str) else measures)
        for m in ms:
            if m.KIND != "per-user":
                raise ConfigError(f"{m} is a {m.KIND} measure without per-user values of one run; statistics need "
                                  "per-user measures")
        return cls.from_evaluation(evaluate(runs, qrels, ms, context))

    @classmethod
    def from_evaluation(cls, evaluation: Evaluation) -> Results:
        """The per-user values of an `Evaluation` (its per-user measures)."""
        return cls(evaluation.per_user, users=evaluation.users)

    def _check_users(self, users) -> np.ndarray | None:
        if users is None:
            return None
        if not isinstance(users, Mapping):
            return np.asarray(users)
        ref_name = next(iter(users))
        ref = np.asarray(users[ref_name])
        for s, u in users.items():
            u = np.asarray(u)
            if len(u) != len(ref) or not np.array_equal(u, ref):
                common = len(np.intersect1d(u, ref))
                differ = len(u) + len(ref) - 2 * common
                raise ConfigError(
                    f"systems {ref_name!r} and {s!r} are not paired: {differ} users differ ({len(ref)} vs {len(u)} "
                    "users); paired tests need per-user values over the same users in the same order")
        return ref

    def _check_paired(self) -> None:
        n_users = None if self.users is None else len(self.users)
        for m in self.measures:
            lengths = {s: len(self._values[s][m]) for s in self.systems}
            ref_sys = self.systems[0]
            ref = n_users if n_users is not None else lengths[ref_sys]
            for s, n in lengths.items():
                if n != ref:
                    what = "the user list" if n_users is not None else f"system {ref_sys!r}"
                    raise ConfigError(
                        f"measure {m!r} is not paired: system {s!r} has {n} users but {what} has {ref} "
                        f"({abs(n - ref)} users differ); paired tests need values for the same users")
            for s in self.systems:
                if self._values[s][m].ndim != 1:
                    raise ConfigError(f"{s!r} / {m!r}: per-user values must be a 1-d array")

    # access ---------------------------------------------------------------------------------------------------------
    def per_user(self, system: str, measure: str) -> np.ndarray:
        try:
            return self._values[system][measure]
        except KeyError:
            raise ConfigError(f"no values for system {system!r} and measure {measure!r}") from None

    def matrix(self, measure: str, systems: Sequence[str] | None = None) -> np.ndarray:
        """S × n matrix of per-user values of `measure` (rows in `systems` order)."""
        return np.vstack([self.per_user(s, measure) for s in (systems or self.systems)])

    def mean(self, system: str, measure: str) -> float:
        v = self.per_user(system, measure)
        return float(v.mean()) if len(v) else 0.0

    def means(self) -> pd.DataFrame:
        """systems × measures table of mean values."""
        return pd.DataFrame({m: [self.mean(s, m) for s in self.systems] for m in self.measures}, index=self.systems)

    def to_frame(self) -> pd.DataFrame:
        """Long table: system, measure, user (position or id), value."""
        rows = []
        for s in self.systems:
            for m in self.measures:
                v = self._values[s][m]
                u = self.users if self.users is not None else np.arange(len(v))
                rows.append(pd.DataFrame({"system": s, "measure": m, "user": u, "value": v}))
        return pd.concat(rows, ignore_index=True)

    def __repr__(self) -> str:
        return f"Results({len(self.systems)} systems × {len(self.measures)} measures)"

    # statistics -----------------------------------------------------------------------------------------------------
    def compare(
        self,
        baseline: str | None = None,
        test: str = "t",
        correction: str | None = "holm",
        measures: Sequence[str] | str | None = None,
        alpha: float = 0.05,
        alternative: Alternative = "two-sided",
        seed: int | None = 0,
        n_samples: int | None = None,
    ) -> Comparison:
        """Paired tests between systems, per measure.

        baseline=None: every unordered pair (a, b) of systems, a before b in `systems` order; baseline=name:
        each other system a against the baseline b. p-values are adjusted per measure over its pairs.
        effect_size = Cohen's d_z of (a − b).
        """
        test = canonical_test(test)
        correction = canonical_correction(correction)
        measures = [measures] if isinstance(measures, str) else list(measures or self.measures)
        for m in measures:
            if m not in self.measures:
                raise ConfigError(f"unknown measure {m!r}; measures in these results: {', '.join(self.measures)}")
        if baseline is not None and baseline not in self.systems:
            raise ConfigError(f"baseline {baseline!r} is not one of the systems: {', '.join(self.systems)}")
        if baseline is None:
            pairs = [(a, b) for i, a in enumerate(self.systems) for b in self.systems[i + 1:]]
        else:
            pairs = [(a, baseline) for a in self.systems if a != baseline]
        out: list[PairComparison] = []
        for m in measures:
            if not pairs:
                break
            Y = self.matrix(m)
            idx = [(self.systems.index(a), self.systems.index(b)) for a, b in pairs]
            D = np.column_stack([Y[i] - Y[j] for i, j in idx])
            p = system_pair_pvalues(Y, idx, test, alternative, seed=seed, n_samples=n_samples)
            p_adj = adjust(p, correction)
            for (a, b), pv, pa, col in zip(pairs, p, p_adj, D.T):
                out.append(PairComparison(m, a, b, self.mean(a, m), self.mean(b, m), float(pv), float(pa),
                                          cohens_dz(np.round(col, 12)), bool(pa < alpha)))
        means = {m: {s: self.mean(s, m) for s in self.systems} for m in measures}
        return Comparison(list(self.systems), measures, means, out, test, correction, alpha, alternative, baseline)

    def tukey(self, measure: str):
        """Tukey HSD with user blocking over all systems (`recdiv.eval.stats.tukey.tukey_hsd`)."""

        return tukey_hsd(self.matrix(measure), self.systems)

    def discriminative_power(self, measure: str, **options):
        """Discriminative power of `measure` over all system pairs (`recdiv.eval.meta.discriminative`)."""

        return discriminative_power(self.matrix(measure), names=self.systems, **options)

    def plot_tradeoff(self, x_measure: str, y_measure: str, path=None, ax=None):
        """Scatter of the system means on two measures (e.g. nDCG@10 vs ILD@10); returns the Figure."""

        xs = [self.mean(s, x_measure) for s in self.systems]
        ys = [self.mean(s, y_measure) for s in self.systems]
        return plot_tradeoff(dict(zip(self.systems, zip(xs, ys))), x_measure, y_measure, path=path, ax=ax)


@dataclass(frozen=True)
class PairComparison:
    """One tested pair on one measure; effect_size = Cohen's d_z of (a − b)."""

    measure: str
    a: str
    b: str
    mean_a: float
    mean_b: float
    p_value: float
    p_adjusted: float
    effect_size: float
    significant: bool

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "mean_a": _num(self.mean_a), "mean_b": _num(self.mean_b),
                "p_value": _num(self.p_value), "p_adjusted": _num(self.p_adjusted),
                "effect_size": _num(self.effect_size), "significant": self.significant}


def _num(x: float) -> float | None:
    """JSON-safe float (NaN/±inf become null)."""
    return float(x) if math.isfinite(x) else None


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class Comparison:
    """Significance report of `Results.compare`: means, tested pairs, markers, exports."""

    systems: list[str]
    measures: list[str]
    means: dict[str, dict[str, float]]
    pairs: list[PairComparison]
    test: str
    correction: str
    alpha: float
    alternative: str
    baseline: str | None = None
    _index: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        for pc in self.pairs:
            self._index[(pc.measure, pc.a, pc.b)] = pc
            self._index[(pc.measure, pc.b, pc.a)] = pc

    def pair(self, a: str, b: str, measure: str | None = None) -> PairComparison:
        measure = measure or self.measures[0]
        try:
            return self._index[(measure, a, b)]
        except KeyError:
            raise ConfigError(f"pair ({a!r}, {b!r}) was not compared on {measure!r}") from None

    def letter(self, system: str) -> str:
        i = self.systems.index(system)
        return _LETTERS[i] if i < len(_LETTERS) else str(i + 1)

    def markers(self, system: str, measure: str) -> str:
        """Significance markers of `system` on `measure`.

        All pairs: the letters of the systems it is significantly better than (ranx style). With a baseline:
        "▲" significantly better than the baseline, "▼" significantly worse.
        """
        if self.baseline is not None:
            if system == self.baseline:
                return ""
            pc = self._index.get((measure, system, self.baseline))
            if pc is None or not pc.significant:
                return ""
            return "▲" if pc.mean_a > pc.mean_b else "▼" if pc.mean_a < pc.mean_b else ""
        out = []
        for other in self.systems:
            pc = self._index.get((measure, system, other))
            if pc is not None and pc.significant and self.means[measure][system] > self.means[measure][other]:
                out.append(self.letter(other))
        return "".join(out)

    # exports --------------------------------------------------------------------------------------------------------
    def to_dict(self, measure: str | None = None) -> dict:
        """Everything as plain data. With `measure`: the one-measure form of `recdiv compare --format json`:
        {"measure", "test", "correction", "means": {system: mean}, "pairs": [{a, b, mean_a, mean_b, p_value,
        p_adjusted, effect_size, significant}]}."""
        if measure is not None:
            if measure not in self.measures:
                raise ConfigError(f"measure {measure!r} was not compared")
            return {"measure": measure, "test": self.test, "correction": self.correction, "alpha": self.alpha,
                    "alternative": self.alternative, "baseline": self.baseline,
                    "means": {s: _num(v) for s, v in self.means[measure].items()},
                    "pairs": [pc.to_dict() for pc in self.pairs if pc.measure == measure]}
        return {"test": self.test, "correction": self.correction, "alpha": self.alpha,
                "alternative": self.alternative, "baseline": self.baseline, "measures": list(self.measures),
                "means": {m: {s: _num(v) for s, v in ms.items()} for m, ms in self.means.items()},
                "pairs": [{"measure": pc.measure, **pc.to_dict()} for pc in self.pairs]}

    def to_json(self, measure: str | None = None, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(measure), indent=indent, ensure_ascii=False)

    def _cells(self, digits: int, bold, sup) -> list[list[str]]:
        rows = []
        for s in self.systems:
            row = [self.letter(s) if self.baseline is None else ("(baseline)" if s == self.baseline else ""), s]
            for m in self.measures:
                v = self.means[m][s]
                best = max(self.means[m].values())
                txt = f"{v:.{digits}f}"
                txt = bold(txt) if v == best else txt
                mk = self.markers(s, m)
                row.append(txt + (sup(mk) if mk else ""))
            rows.append(row)
        return rows

    def _note(self) -> str:
        what = "all pairs" if self.baseline is None else f"against baseline {self.baseline}"
        mark = ("letters: significantly better than that system" if self.baseline is None
                else "▲/▼: significantly better/worse than the baseline")
        return (f"{self.test} test ({self.alternative}), {self.correction} correction over the pairs of each measure, "
                f"α = {self.alpha}; {what}; {mark}.")

    def to_markdown(self, digits: int = 4) -> str:
        head = ["#" if self.baseline is None else "", "System", *self.measures]
        rows = self._cells(digits, lambda t: f"**{t}**", lambda m: f"<sup>{m}</sup>")
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n\n" + self._note() + "\n"

    def to_latex(self, digits: int = 4, caption: str | None = None, label: str | None = None) -> str:
        """A `table` environment (booktabs); markers as superscripts (▲/▼ need amssymb)."""

        def esc(t: str) -> str:
            return (t.replace("\\", r"\textbackslash{}").replace("&", r"\&").replace("%", r"\%")
                    .replace("_", r"\_").replace("#", r"\#").replace("@", "@"))

        def sup(m: str) -> str:
            m = m.replace("▲", r"\blacktriangle").replace("▼", r"\blacktriangledown")
            return f"$^{{{m}}}$"

        rows = self._cells(digits, lambda t: rf"\textbf{{{t}}}", sup)
        cols = "ll" + "r" * len(self.measures)
        out = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
               " & ".join(["", "System", *map(esc, self.measures)]) + r" \\", r"\midrule"]
        out += [" & ".join([esc(r[0]), esc(r[1]), *r[2:]]) + r" \\" for r in rows]
        out += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{esc(caption or self._note())}}}"]
        if label:
            out.append(rf"\label{{{label}}}")
        out.append(r"\end{table}")
        return "\n".join(out) + "\n"

    def to_table(self, digits: int = 4) -> str:
        """Plain-text table (fixed-width columns) followed by the pair rows."""
        head = ["#", "System", *self.measures]
        rows = [head, *self._cells(digits, lambda t: t, lambda m: " " + m)]
        widths = [max(len(r[c]) for r in rows) for c in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.append("")
        lines.append(f"{'measure':<12} {'a':<14} {'b':<14} {'mean_a':>9} {'mean_b':>9} {'p':>10} {'p_adj':>10} "
                     f"{'d_z':>8}")
        for pc in self.pairs:
            star = " *" if pc.significant else ""
            lines.append(f"{pc.measure:<12} {pc.a:<14} {pc.b:<14} {pc.mean_a:9.4f} {pc.mean_b:9.4f} "
                         f"{pc.p_value:10.4g} {pc.p_adjusted:10.4g} {pc.effect_size:8.3f}{star}")
        lines.append(self._note())
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_table()
