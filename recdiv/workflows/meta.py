"""`recdiv meta` as a library function: read the qrels and the runs (the systems), check the options, and run the
meta-evaluation of the measures over them (`meta_files`: `recdiv.eval.meta.study`); `MetaReport` writes what the
command writes (text, JSON, one SVG per curve, the interactive page).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from recdiv.errors import ConfigError


@dataclass
class MetaReport:
    """The `MetaStudy` of `meta_files` and the qrels file it was run on."""

    study: object  # recdiv.eval.meta.study.MetaStudy
    qrels: str | Path

    def text(self) -> str:
        """The summary `recdiv meta` prints."""
        return self.study.to_text()

    def json(self, provenance: dict | None = None) -> str:
        """`MetaStudy.to_dict()` as `recdiv meta --format json` writes it, with the command's `provenance`."""
        return json.dumps({**self.study.to_dict(), "provenance": provenance}, indent=2, ensure_ascii=False) + "\n"

    def write_plots(self, folder: str | Path) -> None:
        """One SVG per curve into `folder` (`recdiv meta --plots`)."""
        from recdiv.eval.charts import save, to_matplotlib

        for stem, chart in self.study.charts():
            save(to_matplotlib(chart), Path(folder) / f"{stem}.svg")

    def page(self, provenance: dict | None = None) -> str:
        """The self-contained interactive page of `recdiv meta --html`."""
        from recdiv.eval.html import Page

        study = self.study
        page = Page("recdiv meta-evaluation", provenance).heading("Meta-evaluation", 1)
        page.note(f"qrels {self.qrels}; {len(study.systems)} systems: {', '.join(study.systems)}; measures: "
                  f"{', '.join(study.measures)}; seed {study.options.seed}.")
        page.add(study.to_html())
        page.charts([c for _, c in study.charts()])
        return page.render()


def meta_files(qrels: str | Path, runs: Sequence[str | Path], measures: Sequence[str],
               analyses: Sequence[str] | None = None, *, train: str | Path | None = None,
               aspects: str | Path | None = None, threshold: float | None = None, population: str = "relevant",
               **options) -> MetaReport:
    """Meta-evaluate `measures` over the runs (TREC run files, the systems) against `qrels`: the `analyses` (dp,
    asl, sparsity, popularity, perturbation; default the first four) of `recdiv.eval.meta.study`. `train`: training
    interactions (popularity, novelty measures); `aspects`: item aspects (perturbation, diversity measures);
    `threshold`: the relevance threshold (default 4, or the one a `recdiv data export` folder records);
    `population`: the users averaged over (relevant or judged). `options`: the fields of `MetaOptions` (dp_samples,
    asl_samples, alpha, robustness_samples, sparsity_levels, popularity_levels, perturbation_k, seed; None: the
    default). The options' errors name the `recdiv meta` options."""
    from recdiv.eval.catalog import parse_measures
    from recdiv.eval.io import check_needs, coverage, load_inputs
    from recdiv.eval.meta.study import DEFAULT_ANALYSES, meta_study
    from recdiv.progress import Progress

    measures = [str(m) for m in parse_measures(list(measures))]  # unknown names fail before any file is read
    sizes = _options(options)
    analyses = list(analyses or DEFAULT_ANALYSES)
    if "perturbation" in analyses and aspects is None:
        raise ConfigError("--analysis perturbation needs --aspects FILE (the aspects of the ideal orderings)")
    inputs = load_inputs(qrels, list(runs), train=train, aspects=aspects, threshold=threshold, population=population)
    check_needs(parse_measures(measures), inputs, {"aspects": aspects, "train": train})
    for c in coverage(inputs):  # meta-evaluation ranks the runs: a run that meets no evaluated user has no rank
        if c.matched == 0:
            raise ConfigError(f"run {c.run}: none of its users is evaluated (of {c.evaluated:,} users with a "
                              "relevant test item): its values would all be those of an empty list")
    with Progress("meta") as bar:  # one stage per analysis and measure, each with its own ETA
        study = meta_study(inputs.runs, inputs.qrels, measures, inputs.context, analyses, sizes,
                           progress=lambda what, total=None: bar.stage(f"meta: {what}", total))
    return MetaReport(study, qrels)


def _options(options: dict):
    """The checked `MetaOptions` of `meta_files`' keyword arguments."""
    from recdiv.eval.meta.study import MetaOptions

    known = {f.name for f in fields(MetaOptions)}
    if unknown := sorted(set(options) - known):
        raise TypeError(f"meta_files() got unexpected options {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    sizes = MetaOptions(**{key: value for key, value in options.items() if value is not None})
    if not 0 < sizes.alpha < 1:
        raise ConfigError("--alpha must be in (0, 1)")
    if options.get("sparsity_levels") is not None:
        if not sizes.sparsity_levels or any(not 0 < f <= 1 for f in sizes.sparsity_levels):
            raise ConfigError("--sparsity-levels must be fractions in (0, 1]")
    if options.get("popularity_levels") is not None:
        if not sizes.popularity_levels or any(not 0 <= x < 100 for x in sizes.popularity_levels):
            raise ConfigError("--popularity-levels must be percentages in [0, 100)")
    return sizes
