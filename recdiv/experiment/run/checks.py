"""Everything an experiment needs, checked before any work starts and before anything is written.

`check_run` validates, in this order: the run options (jobs, backend); the output folder (a folder we may write,
holding no other experiment's results); every component and parameter setting (recommenders, aspect spaces and
their similarities, diversifier grids, measures, statistics, the baseline); every dataset without reading it (it
exists, its format is known, its options are the loader's, with the declared types) and every split spec's
syntax; then every dataset with its data (it loads; named splits exist; temporal splits have timestamps; the
attributes that aspect spaces and content-based recommenders use exist). So a bad split in the second dataset is
reported before the first dataset is computed. Every error names the experiment file and the key path:
``exp.toml: datasets[1].splits[0]: kfold needs k ≥ 2 and 1 ≤ fold ≤ k, got k=2, fold=9``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from recdiv.errors import RecdivError
from recdiv.experiment.analyses.meta import against_other_lists
from recdiv.experiment.execution.executors import check_executor
from recdiv.experiment.plan.inputs import Inputs
from recdiv.experiment.plan.systems import System, baselines
from recdiv.experiment.spec.components import check_component_params, latent_kind
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.folder import check_output
from recdiv.experiment.tasks.model import side_information

#: item similarities of aspect spaces (`recdiv.aspects.similarity.similarity_from_name`)
SIMILARITIES = ("cosine", "jaccard", "latent-cosine", "pearson")


def check_run(config: ExperimentConfig, out: Path, *, inputs: Inputs | None = None, resume: bool = False,
              force: bool = False, jobs: int = 1, backend: str = "local", systems: list[System] | None = None,
              option: str = "--out") -> None:
    """Validate the whole run (see the module docstring); ConfigError / DataError naming the file and key
    (`option`: where the output folder came from, for its errors). `inputs`: where the datasets are loaded (the
    run's own, so that the first dataset stays loaded for the run)."""
    check_executor(jobs, backend)
    check_output(config, out, resume=resume, force=force, option=option)
    check_components(config)
    if systems is not None:
        _checked(config, "statistics.baseline", baselines, config, [s.to_json() for s in systems])
    check_datasets(config, inputs or Inputs(config))


def _checked(config: ExperimentConfig, where: str, make, *args, **kw):
    """make(*args, **kw), with its errors as ConfigErrors naming the experiment file and `where`."""
    try:
        return make(*args, **kw)
    except RecdivError as e:
        raise config.error(where, _strip(str(e), where)) from None
    except (TypeError, ValueError, KeyError) as e:  # a component's own argument checks (pydantic, ...)
        msg = e.errors()[0]["msg"] if hasattr(e, "errors") else str(e)
        raise config.error(where, msg) from None


def _strip(msg: str, where: str) -> str:
    return msg.removeprefix(f"{where}: ")


@contextlib.contextmanager
def _needed(config: ExperimentConfig, what: str):
    """A recdiv module that the experiment needs and this installation lacks: a ConfigError naming it."""
    try:
        yield
    except ModuleNotFoundError as e:
        if e.name and (e.name == "recdiv" or e.name.startswith("recdiv.")):
            raise config.error("", f"{what}: {e.name} is not available in this installation") from None
        raise


def check_components(config: ExperimentConfig) -> None:
    """Import every component the experiment names and validate every parameter setting before any work: names
    (any spelling, ``module:Class``, entry points), typed parameters of every grid point, capabilities and
    aspect-space options (`check_component_params`), similarities, selection measures, metrics and statistics."""
    with _needed(config, "loading datasets"):
        import recdiv.data.load
    with _needed(config, "splitting datasets"):
        import recdiv.data.splits
    with _needed(config, "the recommenders"):
        import recdiv.algorithms.registry
    with _needed(config, "the aspect spaces"):
        import recdiv.aspects.kinds
    if config.diversifiers:
        with _needed(config, "the diversifiers"):
            import recdiv.diversifiers.registry  # noqa: F401
    _checked(config, "", check_component_params, config)
    with _needed(config, "the metrics"):
        from recdiv.eval import parse_measure
    for i, r in enumerate(config.recommenders):
        if r.select is not None:
            _checked(config, f"recommenders[{i}].select.measure", parse_measure, r.select.measure,
                     config.metrics.conventions)
    for i, a in enumerate(config.aspects):
        if a.similarity is not None:
            _check_similarity(config, f"aspects[{i}].similarity", a.similarity, a)
    if config.metrics.similarity is not None:
        space = next((a for a in config.aspects if a.name == config.evaluation_aspects), None)
        _check_similarity(config, "metrics.similarity", config.metrics.similarity, space)
    for i, m in enumerate(config.metrics.measures):
        measure = _checked(config, f"metrics.measures[{i}]", parse_measure, m, config.metrics.conventions)
        if "item_groups" in measure.NEEDS and config.item_groups is None:
            raise config.error(f"metrics.measures[{i}]", f"{m} needs item groups: name an explicit aspect space in "
                                                         "`item_groups` (top level), e.g. item_groups = \"genres\"")
    for i, m in enumerate((config.meta.measures or []) if config.meta else []):
        if against_other_lists(m, config):
            raise config.error(f"meta.measures[{i}]", f"{m} compares a system's lists with other lists (its "
                               "candidates' or its baseline's): the meta-evaluation measures lists alone")
    with _needed(config, "the statistics"):
        from recdiv.eval.stats.corrections import canonical_correction
        from recdiv.eval.stats.significance import canonical_test
    _checked(config, "statistics.test", canonical_test, config.statistics.test)
    _checked(config, "statistics.correction", canonical_correction, config.statistics.correction)


def _check_similarity(config: ExperimentConfig, where: str, name: str, space) -> None:
    if name not in SIMILARITIES:
        raise config.error(where, f"unknown item similarity {name!r} ({', '.join(SIMILARITIES)})")
    if name == "latent-cosine" and not (space is not None and _latent_kind(config, space) == "factors"):
        raise config.error(where, "latent-cosine needs the item factors of a latent MF aspect space")


def _latent_kind(config: ExperimentConfig, space) -> str | None:
    """"factors" or "topics" for a latent aspect space, by what its model declares (`CAPABILITIES`); None for an
    explicit space."""
    if space.kind != "latent":
        return None
    from recdiv.algorithms.registry import RECOMMENDERS

    source = space.model or {r.key: r.name for r in config.recommenders}[space.recommender]
    return latent_kind(RECOMMENDERS.entry(source).capabilities)


def check_datasets(config: ExperimentConfig, inputs: Inputs) -> None:
    """Every dataset and split spec: first without data (all datasets), then with it (see the module docstring).

    Datasets are loaded into `inputs` second to last first, so that the first one — the one the run starts with —
    stays loaded (`Inputs` keeps one dataset in memory): an experiment with one dataset loads it once."""
    from recdiv.data.load import check_options, dataset_loader
    from recdiv.data.splits import check_split, parse_split_spec

    for i, d in enumerate(config.datasets):
        fmt, loader, _ = _checked(config, f"datasets[{i}].name", dataset_loader, d.name, d.data_dir)
        _checked(config, f"datasets[{i}].options", check_options, fmt, loader, d.options)
        for j, spec in enumerate(d.splits):
            _checked(config, f"datasets[{i}].splits[{j}]", parse_split_spec, spec)
    n = len(config.datasets)
    for i in [*range(1, n), 0]:
        dataset, _ = _checked(config, f"datasets[{i}]", inputs.dataset, i)
        for j, spec in enumerate(config.datasets[i].splits):
            _checked(config, f"datasets[{i}].splits[{j}]", check_split, dataset, spec)
        _check_attributes(config, i, dataset)


def _check_attributes(config: ExperimentConfig, i: int, dataset) -> None:
    """The item attributes used by explicit aspect spaces and content-based recommenders exist in dataset `i`."""
    have = ", ".join(dataset.attributes) or "none"
    label = config.datasets[i].key
    for k, a in enumerate(config.aspects):
        if a.kind == "explicit" and a.attribute not in dataset.attributes:
            raise config.error(f"aspects[{k}].attribute", f"dataset {label!r} (datasets[{i}]) has no item attribute "
                                                          f"{a.attribute!r} (its attributes: {have})")
    from recdiv.algorithms.registry import make_recommender

    for k, r in enumerate(config.recommenders):
        model = make_recommender(r.name, **r.params, **r.grid_points()[0])
        _checked(config, f"recommenders[{k}]", side_information, model, dataset)
