"""`recdiv eval`: evaluate TREC run files against a qrels file (trec_eval semantics for accuracy measures).

    recdiv eval QRELS RUN [RUN ...] -m MEASURE [MEASURE ...] [--rel-threshold 4] [--population relevant|judged]
                [--per-user | -q] [--format table|json|csv] [--train TRAIN.tsv] [--aspects ASPECTS.tsv]
                [--previous PREV.run] [--rating-scale MIN:MAX]
    recdiv eval --subtopics SUBTOPIC_QRELS RUN [RUN ...] -m alpha-nDCG@20 ...
    recdiv eval QRELS --predictions PREDICTIONS.tsv -m RMSE MAE
    recdiv eval QRELS RUN [RUN ...] BASE.run -m lexirecall@20 --baseline BASE
    recdiv eval --list
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

from recdiv.cli.options import Paths, finite_float
from recdiv.errors import ConfigError

DEFAULT_MEASURES = ["P@10", "Recall@10", "AP", "nDCG@10", "RR"]
#: the arguments of eval and compare that name files they read
INPUTS = ("qrels", "runs", "subtopics", "predictions", "train", "aspects", "previous", "groups", "baseline",
          "item_groups", "stochastic")


def configure_eval(p: argparse.ArgumentParser) -> None:
    p.description = ("Evaluate TREC run files (user Q0 item rank score tag) against TREC qrels (user 0 item grade). "
                     "Rankings follow the scores (ties: item id in descending string order, like trec_eval); users "
                     "of the evaluated population missing from a run score 0.")
    from recdiv.cli.evaluation import InOrder, add_conventions_option, add_input_options, add_measure_option

    p.add_argument("qrels", nargs="?", action=InOrder,
                   help="TREC qrels file: user 0 item grade (none with --subtopics)")
    p.add_argument("runs", nargs="*", action=InOrder, metavar="run", help="TREC run files: user Q0 item rank score tag")
    p.add_argument("--subtopics", metavar="FILE", default=None,
                   help="TREC subtopic qrels (topic subtopic doc judgment, ndeval's format) instead of QRELS: "
                        "every positional argument is then a run; per-topic subtopics are the aspects of the "
                        "intent-aware and unified measures (default --rel-threshold 1)")
    add_measure_option(p, f" (default: {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("--rel-threshold", type=finite_float, default=None, metavar="TAU",
                   help="relevant <=> grade >= TAU (default 4; 1 with --subtopics)")
    p.add_argument("--population", choices=["relevant", "judged"], default=None,
                   help="users averaged over: with >= 1 relevant test item (default) or >= 1 judged item (trec_eval; "
                        "the default when only --predictions are evaluated)")
    p.add_argument("--predictions", metavar="FILE", action="append", default=[],
                   help="rating predictions (user item prediction), evaluated like a run whose scores are the "
                        "predictions: RMSE, MAE, Spearman, ... (repeatable)")
    p.add_argument("--baseline", metavar="RUN", default=None,
                   help="the run (name or file) that pairwise measures (lexirecall, lexiprecision) compare every run "
                        "with: per-user preferences +1/0/-1, run value their mean")
    p.add_argument("--per-user", action="store_true", help="also print per-user values")
    p.add_argument("-q", dest="by_user", action="store_true",
                   help="trec_eval -q style text: per run `runid all NAME`, then `measure user value` lines for "
                        "every evaluated user and `measure all value` last")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table")
    p.add_argument("--train", metavar="TSV", help="training interactions (user item value [timestamp])")
    p.add_argument("--aspects", metavar="TSV", help="item aspects (item aspect [weight])")
    p.add_argument("--previous", metavar="RUN", help="previous recommendations (TREC run), for ESSD-style measures")
    p.add_argument("--item-groups", metavar="TSV", help="item groups (item group [weight]: provider groups, a "
                                                        "protected attribute), for AWRF and GroupExposure")
    p.add_argument("--stochastic", metavar="DIR", action="append", default=[],
                   help="a stochastic run: a directory of sampled run files, one per sample (e.g. rerank --method "
                        "PlackettLuce --param samples=100 -o DIR); EE-L/EE-D/EE-R and the group measures read every "
                        "sample, other measures give their mean over the samples (repeatable)")
    p.add_argument("--rating-scale", metavar="MIN:MAX", default=None,
                   help="rating scale of the qrels grades, e.g. 1:5: MAX is r_max of ERR, ERR-IA, ab-nDCG and graded "
                        "gains (default: the largest test grade); a grade outside it is an error")
    p.add_argument("--groups", metavar="SPEC", default=None,
                   help="also break the means down by user group: profile-size[:q] or popularity[:q] (quantiles; "
                        "need --train) or a user<TAB>group file")
    add_conventions_option(p)
    add_input_options(p)
    p.add_argument("--list", action="store_true", help="list every measure with formula and citation, then exit")
    p.set_defaults(func=main, paths=Paths(INPUTS, {"per_user_out": "--per-user-out"}))


def main(args: argparse.Namespace) -> int:
    # deferred: the metrics bring numpy, scipy and numba, which `recdiv eval --help` does not need
    from recdiv.cli.evaluation import check_per_user_out, sort_measure_args, write_per_user
    from recdiv.eval.catalog import parse_measures
    from recdiv.eval.io import measure_conventions
    from recdiv.workflows.evaluation import EvalOptions, evaluate_inputs

    if args.list:
        sys.stdout.write(list_text())
        return 0
    measure_names = sort_measure_args(args, ("qrels", "runs"))  # unknown names fail before any file is read
    if args.by_user and args.format != "table":
        raise ConfigError(f"-q prints trec_eval-style text; it does not combine with --format {args.format}")
    if args.by_user and args.groups:
        raise ConfigError("-q prints per-user lines; it does not combine with --groups")
    qrels, runs = (None, [args.qrels, *args.runs] if args.qrels else []) if args.subtopics else (args.qrels, args.runs)
    if not runs and not args.predictions and not args.stochastic:
        raise ConfigError("recdiv eval needs a qrels file (or --subtopics FILE) and at least one run file, "
                          "--stochastic DIR or --predictions FILE (or --list)")
    if qrels is None and not args.subtopics:
        raise ConfigError("recdiv eval needs a qrels file (or --subtopics FILE)")
    measures = parse_measures(measure_names or DEFAULT_MEASURES,
                              measure_conventions(args.conventions, args.subtopics is not None))
    check_per_user_out(args)
    args.population = args.population or ("judged" if args.predictions and not runs else None)
    done = evaluate_inputs("eval", qrels, runs, measures, EvalOptions.of(args))
    evaluation = done.evaluation
    write_per_user(args, evaluation)
    if args.by_user:
        text = format_by_user(evaluation)
    else:
        result = evaluation.to_dict(per_user=args.per_user)
        if args.groups:
            result["groups"] = group_means(done.labels(args.groups), evaluation)
        if args.format == "json":
            from recdiv import provenance

            if done.conventions is not None:
                result["conventions"] = done.conventions.describe()
            result["provenance"] = provenance.of_command(args)
        writer = {"table": format_table, "json": format_json, "csv": format_csv}[args.format]
        text = writer(result, [str(m) for m in measures])
    done.state()  # once the numbers exist: a failed command prints only its one-line error
    sys.stdout.write(text)
    return 0


def group_means(labels, evaluation) -> dict:
    """{group: {"n": users, "runs": {run: {measure: mean over the group's users}}}} of the per-user measures."""
    from recdiv.eval.results import Results

    res = Results.from_evaluation(evaluation)
    if not res.per_user_measures:
        raise ConfigError("--groups needs at least one per-user measure")
    out = {}
    for g, sub in res.by_group(labels).items():
        n = len(sub.per_user(sub.systems[0], sub.per_user_measures[0]))
        out[g] = {"n": n, "runs": {s: {m: sub.mean(s, m) for m in sub.per_user_measures} for s in sub.systems}}
    return out


# output ------------------------------------------------------------------------------------------------
def _num(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.6f}"


def format_table(result: dict, measures: list[str]) -> str:
    """Runs × measures (6 decimals), then per-user rows `run measure user value` if present."""
    names = list(result["runs"])
    w0 = max([3, *map(len, names)])
    widths = [max(9, len(m)) for m in measures]
    lines = ["  ".join([f"{'run':<{w0}}", *(f"{m:>{w}}" for m, w in zip(measures, widths))])]
    for name in names:
        row = result["runs"][name]
        lines.append("  ".join([f"{name:<{w0}}", *(f"{_num(row[m]):>{w}}" for m, w in zip(measures, widths))]))
    for g, part in result.get("groups", {}).items():
        lines += ["", f"group {g} ({part['n']} users)"]
        ms = [m for m in measures if m in next(iter(part["runs"].values()))]
        for name in names:
            row = part["runs"][name]
            lines.append("  ".join([f"{name:<{w0}}", *(f"{_num(row[m]):>{max(9, len(m))}}" for m in ms)]))
    for name, table in result.get("per_user", {}).items():
        lines.append("")
        for m, values in table.items():
            for u, v in values.items():
                lines.append(f"{name}\t{m}\t{u}\t{_num(v)}")
    return "\n".join(lines) + "\n"


def format_by_user(evaluation) -> str:
    """trec_eval -q style: per run, `runid all NAME`, then for every evaluated user its `measure user value`
    lines (per-user measures), then `measure all value` for every measure (6 decimals; measure names padded to 22
    characters as trec_eval pads them)."""
    lines = []
    for run in evaluation.runs:
        lines.append(f"{'runid':<22}\tall\t{run}")
        per_user = evaluation.per_user[run]
        keys = [str(m) for m in evaluation.measures if str(m) in per_user]
        for j, user in enumerate(evaluation.users):
            lines += [f"{k:<22}\t{user}\t{_num(float(per_user[k][j]))}" for k in keys]
        lines += [f"{m!s:<22}\tall\t{_num(evaluation.values[run][str(m)])}" for m in evaluation.measures]
    return "\n".join(lines) + "\n"


def _clean(obj):
    """NaN → None (JSON null); everything else as is (floats keep full precision)."""
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def format_json(result: dict, measures: list[str]) -> str:
    return json.dumps(_clean(result), indent=2, allow_nan=False) + "\n"


def format_csv(result: dict, measures: list[str]) -> str:
    """Long format: run,measure,user,value; the run value has an empty user field. Full precision. Text cells are
    safe in a spreadsheet (`recdiv.escape.csv_cell`)."""
    from recdiv.escape import csv_cell

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")

    def row(*cells) -> None:
        w.writerow([csv_cell(c) for c in cells])

    row("run", "measure", "user", "value")
    for name, values in result["runs"].items():
        for m in measures:
            row(name, m, "", repr(values[m]))
    for name, table in result.get("per_user", {}).items():
        for m, values in table.items():
            for u, v in values.items():
                row(name, m, u, repr(v))
    for g, part in result.get("groups", {}).items():  # group means: the user field names the group
        for name, values in part["runs"].items():
            for m, v in values.items():
                row(name, m, f"group:{g}", repr(v))
    return buf.getvalue()


def list_text() -> str:
    """Every registered measure, grouped by family, with its parameters, formula, citation and notes."""
    from recdiv.eval.reference import grouped, guide, notes, parameter_lines, signature

    lines = []
    for family, classes in grouped().items():
        lines.append(f"{family} (docs/{guide(family) or 'metrics.md'}):")
        for cls in classes:
            extra = "; ".join(notes(cls)).replace("`", "")
            lines.append(f"  {signature(cls)}" + (f"  [{extra}]" if extra else ""))
            if cls.FORMULA:
                lines.append(f"      {cls.FORMULA}")
            if cls.CITATION:
                lines.append(f"      {cls.CITATION}")
            lines.extend(f"      {line}".replace("`", "") for line in parameter_lines(cls))
        lines.append("")
    return "\n".join(lines)
