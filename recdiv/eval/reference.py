"""The metric reference (docs/metrics.md), generated from the measure classes' declarations (NAME, PARAMS with
their descriptions, CUTOFF, FORMULA, CITATION, SECTION, FAMILY, KIND, HIGHER_IS_BETTER, NEEDS), so that the
documentation cannot drift from the code.

Regenerate after adding or changing a measure:

    .venv/bin/python -m recdiv.eval.reference > docs/metrics.md
"""

from __future__ import annotations

import sys

from recdiv.eval.catalog import MEASURES
from recdiv.eval.measure import Measure, _fmt

#: order and titles of the sections (families not listed here follow in alphabetical order)
FAMILIES = {
    "accuracy": "Accuracy",
    "rating": "Rating prediction",
    "novelty": "Novelty",
    "diversity": "Diversity",
    "calibration": "Calibration (Steck 2018)",
    "popularity": "Popularity bias (Abdollahpouri et al.; Zhu et al.)",
    "system": "System-level diversity and exposure",
    "fairness": "Exposure and fairness (Diaz et al. 2020; Sapiezynski et al. 2019)",
    "intent-aware": "Intent-aware and aspect-based",
    "unified": "Unified accuracy–diversity",
    "preference": "Preference-based",
    "reranking": "Reranking: a list against its base list",
}
#: the page of docs/ that explains each family with examples (this reference lists formulas and citations)
GUIDES = {"novelty": "novelty-diversity.md", "diversity": "novelty-diversity.md", "calibration": "novelty-diversity.md",
          "popularity": "novelty-diversity.md", "system": "novelty-diversity.md", "intent-aware": "intent-aware.md",
          "unified": "intent-aware.md", "preference": "intent-aware.md"}


def guide(family: str) -> str | None:
    """The docs/ page that explains a family, or None when this reference is its page."""
    return GUIDES.get(family)

INTRO = """\
# Metric reference

Every measure that `recdiv eval` and `recdiv.eval` know, generated from the measure registry
(`python -m recdiv.eval.reference > docs/metrics.md`; a test checks that this file is up to date).
Names follow the `ir_measures` syntax `Name(param=value,...)@K`: parameters in brackets (defaults
shown below; defaults are omitted when a measure is printed), `@K` the cutoff. Names ignore case and
punctuation (`alpha-nDCG` = `Alpha-NDCG` = `alphandcg`); an unknown name gets a suggestion. `recdiv eval
--list` prints the same list in the terminal. Each section names the page that explains its measures with
examples.

Conventions shared by all accuracy measures:

- relevant ⇔ test grade ≥ τ (`--rel-threshold`, `Context.threshold`, default 4); unjudged items are
  non-relevant (bpref and infAP skip them by definition);
- a negative grade is trec_eval's "pooled but unjudged" label (sampled pools, ClueWeb's −2): never judged,
  never relevant; bpref skips it, infAP counts it in its pool factor, Judged does not count it (`Judged(labels=any)`,
  ir_measures' definition, does);
- denominators with |Rel_u| count all relevant test items, retrieved or not; a zero denominator gives 0;
- the evaluated users are those with ≥ 1 relevant test item (`--population judged`: ≥ 1 qrels line, as
  trec_eval `-c` averages); a user without a list scores 0 (trec_eval `-c`); lists shorter than K are padded
  with non-relevant items (P@K divides by K);
- ties in run scores: item id in descending string order (trec_eval);
- r_max, the maximum grade (ERR, ERR-IA, αβ-nDCG, graded gains and relevance models) is the maximum of the
  declared rating scale (`--rating-scale MIN:MAX`, `EvalContext(scale=(MIN, MAX))`, a dataset's own scale);
  without one it is the largest test grade, and `recdiv eval` says so on stderr (gdeval fixes 4: use
  `--rating-scale 0:4` to match it); a judged grade outside a declared scale is an error naming file and line;
- the system value is the mean of the per-user values, except for *system-level* measures (one value for
  the whole run, no per-user values), the counts NumRet, NumRel, NumRelRet and NumQ (summed over users, as
  trec_eval and ir_measures), RMSE and MAE (over all rated, predicted pairs), *pairwise* measures (a preference
  per user between a run and the `--baseline` run; their mean) and rank-effectiveness measures, whose undefined
  users (NaN) are skipped;
- higher values are better unless the notes say *lower is better*.

What `recdiv eval` (and `recdiv compare`) can read besides QRELS and TREC runs:

- `--subtopics FILE` (instead of QRELS; Python `load_inputs(None, runs, subtopics=FILE)`): TREC subtopic qrels
  `topic subtopic doc judgment` (ndeval's format); per-topic subtopics are the aspects of the intent-aware and
  unified measures ([intent-aware.md](intent-aware.md));
- `--predictions FILE`, repeatable (`load_inputs(QRELS, [], predictions=[FILE])`): rating predictions
  `user item prediction`, evaluated like runs whose scores are the predictions (RMSE, MAE, Spearman, Kendall,
  FCP); `recdiv recommend … --predict -o FILE` writes them for a split's test pairs;
- `--baseline RUN` (`evaluate(…, baseline=NAME)`): the run that pairwise measures (`lexirecall`,
  `lexiprecision`) compare every run with: per-user preferences +1/0/−1, system value their mean;
- `--rating-scale MIN:MAX` (`EvalContext(scale=(MIN, MAX))`): r_max, see above;
- `--item-groups FILE` (`EvalContext(item_groups=AspectSpace(...))`): item groups `item group [weight]` (provider
  groups, a protected attribute; the aspect-file format) of `AWRF` and `GroupExposure`;
- `--stochastic DIR`, repeatable (`evaluate({name: RankingSamples([...])}, ...)`): a stochastic run, one TREC run
  file per sampled ranking (`recdiv rerank --method PlackettLuce --param samples=100 -o DIR` writes one); the
  expected-exposure and group measures read every sample, every other measure is its expected value over the
  samples (per user the mean over the samples where it is defined; system-level measures the mean of the samples'
  values); pairwise measures need single rankings.

Cutoff column: `@K` required, `[@K]` optional (no cutoff = the whole list), `—` none.

Other tools' names read as the same measures (`recdiv.eval.spellings`; tests compare the numbers with
pytrec_eval, ir_measures and ranx on the same files): trec_eval `P.10` / `P_10`, `recall.10`, `ndcg_cut.10`,
`ndcg`, `map`, `map_cut.10`, `recip_rank`, `Rprec`, `bpref`, `success.10`, `infAP`; ir_measures `P(rel=4)@10`,
`R@10`, `nDCG@10`, `AP`, `RR@10`, `Bpref`, `Success@10`, `alpha_nDCG@20`, `ERR_IA@20`; ranx `precision@10`,
`recall@10`, `ndcg@10`, `ndcg_burges@10` (= `nDCG(gain=exp)@10`), `map@10`, `mrr`, `hit_rate@10`, `f1@10`,
`r-precision`, `bpref`, and ranx's level suffix `precision@10-l4` (= `P(rel=4)@10`). Where a tool's definition
differs no alias is made: ranx `ndcg@10-lN` for N > 1 zeroes the gain of grades below N (recdiv's nDCG, as
trec_eval's, does not: refused with a hint), ranx `hits@K` is a count and `rbp.P` weighs raw grades; ir_measures'
`ERR@K` is gdeval's (maximum grade 4), recdiv's ERR normalises by the maximum test grade and zeroes grades
below τ (RankSys). `rel=` sets one measure's relevance level (relevant ⇔ grade ≥ rel) over the same evaluated
users: `recdiv eval -m P@10 'P(rel=5)@10'`. A cutoff sweep `P@5,10,20` (trec_eval: `P.5,10,20`) is three
measures.
"""


def grouped() -> dict[str, list[type[Measure]]]:
    """Registered measure classes by FAMILY (section order of `FAMILIES`), each group in registration order."""
    groups: dict[str, list[type[Measure]]] = {}
    for entry in MEASURES.entries():
        groups.setdefault(entry.obj.FAMILY, []).append(entry.obj)
    order = [k for k in FAMILIES if k in groups] + sorted(k for k in groups if k not in FAMILIES)
    return {k: groups[k] for k in order}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip() or "—"


def signature(cls: type[Measure]) -> str:
    """`Name(param=default,...)@K` with `[@K]` for an optional cutoff; parameters without a default value (the
    relevance level `rel` of the accuracy measures: the evaluation's threshold) are listed below it, not here."""
    params = ", ".join(f"{p.name}={_fmt(p.default)}" for p in cls.PARAMS if p.default is not None)
    cut = {"required": "@K", "optional": "[@K]", "none": ""}.get(cls.CUTOFF, "")
    return f"{cls.NAME}{f'({params})' if params else ''}{cut}"


def notes(cls: type[Measure]) -> list[str]:
    """The kind (when not per-user), the direction (when lower is better), the context parts needed."""
    out = []
    if cls.KIND == "system":
        out.append("system-level (no per-user values)")
    elif cls.KIND == "pairwise":
        out.append("pairwise: compares two runs")
    if not cls.HIGHER_IS_BETTER:
        out.append("lower is better")
    if cls.NEEDS:
        out.append("needs " + ", ".join(f"`{n}`" for n in cls.NEEDS))
    return out


def parameter_lines(cls: type[Measure]) -> list[str]:
    """`name` (default): description; allowed values — one per declared parameter."""
    return [f"`{p.name}` ({'τ' if p.default is None else _fmt(p.default)}): {p.describe()}" for p in cls.PARAMS]


def conventions_text() -> str:
    """The section on `--conventions` (from `recdiv.eval.conventions.CONVENTIONS`)."""
    from recdiv.eval.conventions import CONVENTIONS

    lines = ["## Other tools' conventions (`--conventions TOOL`)\n",
             "One switch computes as another tool does: `recdiv eval|compare --conventions TOOL`, `conventions = "
             "\"TOOL\"` in an experiment's `[metrics]`, `evaluate_files(..., conventions=\"TOOL\")` in Python. It sets "
             "the relevance threshold, the users averaged over and the parameters of the measures whose definition "
             "differs (a measure name from that tool then means that tool's measure); `--rel-threshold`, "
             "`--population` and parameters written in a measure still win, and every output says which "
             "conventions were used. tests/eval/test_conventions.py checks each set against the tool itself on the "
             "same files. With `--subtopics` (which carry no user profile) the intent-weighted measures weigh the "
             "subtopics uniformly in every set.\n",
             "| TOOL | what it gives | measure parameters set |", "|---|---|---|"]
    for c in CONVENTIONS.values():
        params = "; ".join(f"{name}: " + ", ".join(f"{k}={v}" for k, v in ps.items())
                           for name, ps in c.defaults.items()).replace("*: ", "every measure with it: ")
        lines.append(f"| `{c.name}` | {c.equals} | {params or '—'} |")
    return "\n".join(lines) + "\n"


def markdown() -> str:
    """The full text of docs/metrics.md."""
    out = [INTRO, conventions_text()]
    for family, classes in grouped().items():
        out.append(f"## {FAMILIES.get(family, family.capitalize())}\n")
        if guide(family):
            out.append(f"Explained with examples in [{guide(family)}]({guide(family)}).\n")
        out.append("| measure | formula | citation | notes |")
        out.append("|---|---|---|---|")
        for cls in classes:
            out.append(f"| `{signature(cls)}` | {_cell(cls.FORMULA)} | {_cell(cls.CITATION)} | "
                       f"{_cell('; '.join(notes(cls)))} |")
        out.append("")
        with_params = [cls for cls in classes if cls.PARAMS]
        if with_params:
            out.append("Parameters:\n")
            for cls in with_params:
                out.append(f"- `{cls.NAME}`")
                out.extend(f"  - {line}" for line in parameter_lines(cls))
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(markdown())
