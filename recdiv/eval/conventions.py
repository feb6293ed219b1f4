"""Other tools' conventions in one switch: `--conventions NAME` (eval, compare), ``conventions = "NAME"`` in an
experiment's ``[metrics]`` and ``conventions=`` in Python (`recdiv.eval.io.evaluate_files`, `load_inputs`).

A convention set is what a tool assumes without being told: the relevance threshold, the users averaged over, and
the parameters of the measures whose definition differs between tools. Choosing one gives that tool's numbers on
the same files (tests/eval/test_conventions.py checks each against the tool itself), and every output says which
set was used. A parameter written in a measure (``nDCG(gain=exp)@10``) or an explicit ``--rel-threshold`` /
``--population`` still wins over the chosen set.

====================  =========  ===========  ==========================================================
conventions           relevant   averaged     measure definitions
====================  =========  ===========  ==========================================================
recdiv (default)      grade ≥ 4  relevant     docs/metrics.md
trec_eval             grade ≥ 1  judged       trec_eval 10.0 with -c: every topic of the qrels, 0 without a ranking
ndeval                grade ≥ 1  judged       alpha-DCG(norm=ndeval), ERR-IA(variant=ndeval), NRBP/nNRBP(alpha=0.5,
                                              beta=0.5), uniform intent weights
ir_measures           grade ≥ 1  judged       trec_eval's; Judged counts every qrels line (negative labels too)
ranx                  grade ≥ 1  judged       trec_eval's (ranx with make_comparable=True)
lenskit               every      judged       LensKit 2025: P divides by the list length when shorter than K,
                      test item               Recall and AP by min(|Rel|, K) / min(|Rel|, list length), nDCG binary
                                              with LensKit's discount 1/log2(max(k, 2))
====================  =========  ===========  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from recdiv.errors import ConfigError

__all__ = ["CONVENTIONS", "Conventions", "get"]

#: every measure that declares intent weights weighs the aspects uniformly ("*": any measure with that parameter)
_IA_UNIFORM = {"*": {"weights": "uniform"}}


@dataclass(frozen=True)
class Conventions:
    """A tool's defaults: relevant ⇔ grade ≥ `threshold`, the `population` averaged over, and per measure
    (its registered NAME, or "*" for any measure declaring the parameter) the parameters that give that tool's
    definition; `equals` says what it reproduces."""

    name: str
    threshold: float
    population: str
    equals: str
    defaults: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def measure_defaults(self, name: str, declared: Mapping) -> dict[str, str]:
        """The parameters this set gives measure `name` (whose declared parameters are `declared`)."""
        wild = {k: v for k, v in self.defaults.get("*", {}).items() if k in declared}
        return {**wild, **self.defaults.get(name, {})}

    def describe(self) -> str:
        """One line for the statement of `eval` / `compare` and the reports."""
        return f"conventions {self.name}: {self.equals}"


CONVENTIONS: dict[str, Conventions] = {c.name: c for c in (
    Conventions("recdiv", 4.0, "relevant", "relevant ⇔ grade ≥ 4, mean over users with a relevant test item "
                "(docs/metrics.md)"),
    Conventions("trec_eval", 1.0, "judged", "trec_eval -c -l 1: relevant ⇔ grade ≥ 1, mean over every user of "
                "the qrels (0 without a list)"),
    Conventions("ndeval", 1.0, "judged", "ndeval (TREC Web track): relevant ⇔ grade ≥ 1, mean over every topic of "
                "the qrels (0 without a list), alpha = 0.5, NRBP beta = 0.5, ndeval's alpha-DCG and ERR-IA, "
                "uniform intent weights",
                {"alpha-DCG": {"norm": "ndeval"}, "ERR-IA": {"variant": "ndeval"},
                 "NRBP": {"alpha": "0.5", "beta": "0.5"}, "nNRBP": {"alpha": "0.5", "beta": "0.5"}, **_IA_UNIFORM}),
    Conventions("ir_measures", 1.0, "judged", "ir_measures: relevant ⇔ grade ≥ 1 (rel=1), mean over every query "
                "of the qrels (0 without a list), Judged counts every qrels line",
                {"Judged": {"labels": "any"}}),
    Conventions("ranx", 1.0, "judged", "ranx (make_comparable=True): relevant ⇔ grade ≥ 1, mean over every query "
                "of the qrels (0 without a list)"),
    Conventions("lenskit", 0.0, "judged", "LensKit 2025: every test item relevant, mean over every test user "
                "(0 without a list), P over the list length, Recall and AP over min(relevant, K), binary nDCG "
                "with discount 1/log2(max(k, 2))",
                {"P": {"den": "list"}, "Recall": {"den": "min"}, "AP": {"den": "min"},
                 "nDCG": {"gain": "binary", "disc": "jk"}, "DCG": {"gain": "binary", "disc": "jk"}}),
)}

_ALIASES = {"trec-eval": "trec_eval", "treceval": "trec_eval", "ir-measures": "ir_measures",
            "irmeasures": "ir_measures", "lenskit": "lenskit"}


def get(name: str | Conventions | None) -> Conventions | None:
    """The convention set called `name` (case and - / _ ignored), None for None; ConfigError naming the choices."""
    if name is None or isinstance(name, Conventions):
        return name
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in CONVENTIONS:
        raise ConfigError(f"unknown conventions {name!r}: choose one of {', '.join(CONVENTIONS)}")
    return CONVENTIONS[key]


def for_subtopics(conventions: Conventions | None) -> Conventions:
    """Subtopic qrels carry no user profile: the intent-aware measures weigh the subtopics uniformly (ndeval's
    weights) unless the chosen conventions or the measure say otherwise; relevance from grade 1 (TREC judgments)."""
    base = conventions or Conventions("subtopics", 1.0, "relevant", "subtopic qrels: relevant ⇔ grade ≥ 1, "
                                      "uniform intent weights")
    return Conventions(base.name, base.threshold, base.population, base.equals, {**_IA_UNIFORM, **base.defaults})
