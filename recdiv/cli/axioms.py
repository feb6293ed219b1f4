"""`recdiv axioms`: which of Parapar & Radlinski's eight axioms (RecSys 2021, §4, Table 1) a metric satisfies.

    recdiv axioms [-m MEASURE ...] [--cases N] [--seed S] [--max-size N] [--rel-threshold 1]
        [--format markdown|json] [-o FILE]

Each measure is adapted with `recdiv.eval.meta.axioms.measure_metric` and checked with `check_axioms`: universal
axioms on N random premise-satisfying instances (a counterexample makes the axiom fail), existential axioms
(NonPriSatAsp, TopHeav, TopHeavComp) by a search over sizes 1..max-size. Without -m the metrics of P&R's
Table 1 are checked (αβ-nDCG@10, graded α-nDCG@10, NRBP, S-recall@10, S-RR@10, EU@10, RBU@10), as
`recdiv.eval.meta.axioms.table1` does. Markdown: ● holds / ○ fails as measured, with P&R's mark in brackets where
it differs (metrics not in Table 1 get no bracket). JSON: {"cases", "seed", "max_size", "threshold", "axioms",
"metrics": [{"metric", "paper": [axioms P&R mark as satisfied] | null, "axioms": {AXIOM: {"holds", "checked",
"paper"}}}]}. docs/intent-aware.md
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from recdiv.cli.options import Paths, at_most, finite_float, seed
from recdiv.errors import ConfigError
from recdiv.limits import MAX_AXIOM_CASES, MAX_AXIOM_SIZE

if TYPE_CHECKING:
    from recdiv.eval.meta.axioms import AxiomResult

#: P&R Table 1's metrics with recdiv's default parameters (as in `recdiv.eval.meta.axioms.table1`)
DEFAULT_MEASURES = ("ab-nDCG@10", "alpha-nDCG(gain=graded)@10", "NRBP", "S-recall@10", "S-RR@10", "EU@10", "RBU@10")


def configure_axioms(p: argparse.ArgumentParser) -> None:
    p.description = ("Check which of Parapar & Radlinski's eight axioms (RecSys 2021, Table 1) each metric "
                     "satisfies on generated instances, next to the paper's marks (docs/intent-aware.md).")
    p.add_argument("-m", "--measure", action="append", dest="measures", default=None,
                   help="measure, e.g. ab-nDCG@10 (repeatable; default: the metrics of P&R Table 1)")
    p.add_argument("--cases", type=at_most(MAX_AXIOM_CASES), default=30,
                   help="random instances per universal axiom (default 30)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the instance generator (default 0)")
    p.add_argument("--max-size", type=at_most(MAX_AXIOM_SIZE, "the search grows with its square"), default=20,
                   help="largest instance size searched for the existential axioms (default 20)")
    p.add_argument("--rel-threshold", type=finite_float, default=1.0,
                   help="relevance threshold τ (default 1: every rated item is relevant, 0 = known non-relevant)")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("-o", "--output", default=None, help="write the table to this file (atomically)")
    p.set_defaults(func=handler, paths=Paths(files={"output": "-o"}))


# The functions below import recdiv.eval.meta.axioms when called: it loads every metric family (numpy, scipy,
# numba), which `recdiv axioms --help` does not need.


def check(measures, cases: int, seed: int, max_size: int, threshold: float) -> dict[str, dict[str, AxiomResult]]:
    """{measure: {axiom: AxiomResult}} for every measure (ConfigError for unknown measures)."""
    from recdiv.eval.meta.axioms import check_axioms, measure_metric

    if cases < 1:
        raise ConfigError("--cases must be at least 1")
    if max_size < 1:
        raise ConfigError("--max-size must be at least 1")
    from recdiv.progress import Progress

    metrics = {m: measure_metric(m, threshold=threshold) for m in measures}  # parse all before checking any
    out = {}
    with Progress("axioms", len(metrics)) as bar:  # about the same work per metric
        for m, q in metrics.items():
            out[m] = check_axioms(q, n_cases=cases, seed=seed, max_size=max_size)
            bar.advance(1, f"axioms: {m}")
    return out


def to_markdown(results: dict[str, dict[str, AxiomResult]], short_names: bool = False) -> str:
    """Table 1 layout; `short_names` drops the cutoffs from the row names (as `table1` does)."""
    from recdiv.eval.meta.axioms import table_markdown

    return table_markdown(results, short_names)


def to_json(results: dict[str, dict[str, AxiomResult]], **meta) -> str:
    from recdiv.eval.meta.axioms import AXIOMS, paper_marks

    rows = []
    for m, res in results.items():
        paper = paper_marks(m)
        rows.append({"metric": m, "paper": None if paper is None else [a for a in AXIOMS if a in paper],
                     "axioms": {ax: {"holds": bool(r.holds), "checked": int(r.checked),
                                     "paper": None if paper is None else ax in paper} for ax, r in res.items()}})
    return json.dumps({**meta, "axioms": list(AXIOMS), "metrics": rows}, indent=1, ensure_ascii=False)


def handler(args: argparse.Namespace) -> int:
    measures = list(dict.fromkeys(args.measures or DEFAULT_MEASURES))
    results = check(measures, args.cases, args.seed, args.max_size, args.rel_threshold)
    from recdiv import provenance

    made_by = provenance.of_command(args)
    if args.format == "json":
        text = to_json(results, cases=args.cases, seed=args.seed, max_size=args.max_size,
                       threshold=args.rel_threshold, provenance=made_by)
    else:
        text = to_markdown(results, short_names=not args.measures)
        text += "\n" + provenance.markdown_comment(made_by).rstrip()
    from recdiv.cli.output import emit

    emit(text + "\n", args.output)
    return 0
