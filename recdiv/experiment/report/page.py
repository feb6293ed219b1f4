"""The parts of report.html beyond the tables and charts: the [meta] section, user groups,
selected hyperparameters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from recdiv.escape import html
from recdiv.eval import tables
from recdiv.experiment.analyses.groups import group_sections
from recdiv.experiment.analyses.meta import meta_from_results, meta_measures, options
from recdiv.experiment.report.summary import dataset_comparison
from recdiv.experiment.spec.experiment import ExperimentConfig


def finite(x):
    """JSON-safe copy: NaN and infinities become null."""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [finite(v) for v in x]
    if isinstance(x, float | np.floating):
        return float(x) if np.isfinite(x) else None
    return x



def meta_section(page, config: ExperimentConfig, res, split_meta: dict, dataset: str) -> tuple[list, dict]:
    """The [meta] part of a dataset's section: dp/asl from the scores; robustness curves and perturbation
    experiments from meta.json (`recdiv.experiment.analyses.meta.split_analyses`)."""
    from recdiv.eval.meta.perturbation import PerturbationResult
    from recdiv.eval.meta.study import MetaStudy
    from recdiv.eval.plots import robustness_chart

    study = meta_from_results(config, res)
    pert = split_meta.get("perturbation")
    if pert is not None:
        measures = meta_measures(config, res.per_user_measures)
        if study is None:
            study = MetaStudy(list(res.systems), measures, options(config))
        got = pert["families"]  # meta.json has sorted keys: back to the order of the [meta] section
        study.perturbation = {fam: {m: PerturbationResult.from_dict(m, got[fam][m]) for m in measures
                                    if m in got[fam]} for fam in config.meta.perturbation_families if fam in got}
    charts = [c for _, c in study.charts(f"{dataset}: ")] if study is not None else []
    summary = study.to_dict() if study is not None else {}
    if pert is not None:
        summary["perturbation_splits"] = pert["splits"]
    for name in ("sparsity", "popularity"):
        slot = split_meta.get(name)
        if slot is None:
            continue
        label = "% most popular items removed" if name == "popularity" else "fraction of test ratings kept"
        charts.append(robustness_chart(slot["levels"], {m: np.asarray(v, dtype=np.float64)
                                                        for m, v in slot["mean_tau"].items()},
                                       xlabel=label, invert_x=name != "popularity",
                                       title=f"{dataset}: robustness to {name} (mean of {slot['splits']} splits)"))
        summary[name] = slot
    if charts:
        page.heading("Meta-evaluation", 3)
        if study is not None:
            page.add(f"<pre class='note'>{html(study.to_text())}</pre>")
        page.note("Discriminative power: pairwise p-values sorted decreasingly (Valcarce: randomisation test, "
                  "DP = Σ p, lower = more discriminative; Sakai: bootstrap ASL). Robustness: Kendall τ_b between "
                  "the system ranking on degraded test sets and on the full one."
                  + ("" if pert is None else
                     f" Perturbation (Parapar & Radlinski): simulated systems that degrade every user's ideal "
                     f"ordering of their test items (k = {pert['k']}) level by level; a good measure's means fall "
                     f"with the level (τ_b = 1) and the ideal beats each level (one-sided Wilcoxon p, log scale); "
                     f"per-user values pooled over {pert['splits']} split(s)."))
        page.charts(charts, "meta")
    return charts, summary


def group_part(page, config: ExperimentConfig, out: Path, dataset: str, res, systems) -> list[pd.DataFrame]:
    """Per user group: the systems compared inside the group (HTML, one collapsible table per group); rows of
    groups.csv."""
    if not config.report.groups or res.users is None:
        return []
    rows = pd.MultiIndex.from_tuples(list(res.users), names=["split", "user"])
    frames = []
    for spec, parts in group_sections(config, out, dataset, res, rows,
                                      lambda sub: dataset_comparison(config, systems, sub)):
        page.heading(f"User groups: {spec}", 3)
        page.note("The systems compared inside each group of users (tests and corrections per group and measure). "
                  + ("Quantiles of the number of training interactions." if spec.startswith("profile-size") else
                     "Quantiles of the mean popularity of the items in the training profile (niche → mainstream)."
                     if spec.startswith("popularity") else "Groups from the file."))
        for g, cmp in parts.items():
            n = next(iter(cmp.n[cmp.measures[0]].values()))
            page.add(f"<details><summary>{html(g)} — {n} (split, user) pairs</summary>"
                     + tables.to_html(cmp.means_table(4, lead="baseline", note="")) + "</details>")
            frames.append(cmp.to_frame().assign(dataset=dataset, groups=spec, group=g))
    return frames


def selection_html(selections: dict) -> str:
    """The grid point each recommender with `select` chose on each split, and the validation value of every point."""
    e = html
    rows = []
    for d, splits in selections.items():
        for spec, recs in splits.items():
            for rec, r in recs.items():
                values = "; ".join(f"{','.join(f'{k}={v}' for k, v in x['params'].items())}: {x['value']:.4f}"
                                   for x in r["values"])
                chosen = ",".join(f"{k}={v}" for k, v in r["chosen"].items())
                rows.append(f"<tr><td>{e(d)}</td><td>{e(spec)}</td><td>{e(rec)}</td><td><b>{e(chosen)}</b></td>"
                            f"<td>{e(r['measure'])} on {r['validation']:g} of each user's training data: "
                            f"{e(values)}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("dataset", "split", "recommender", "chosen", "validation values"))
    return ("<h2>Selected hyperparameters</h2><div class='table-wrap'><table class='pairs'><thead><tr>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
