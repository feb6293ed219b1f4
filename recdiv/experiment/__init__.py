"""Experiments: TOML files of datasets × splits × recommenders × diversifiers × measures, run with caching and
reported (docs/experiments.md). The package is in layers, lowest first (docs/architecture.md): `spec` → `storage`
→ `plan` → `tasks` → `execution` → `analyses` → `report` → `run`."""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "ExperimentConfig": "recdiv.experiment.spec.experiment",
    "load_experiment": "recdiv.experiment.spec.experiment",
    "validate": "recdiv.experiment.spec.experiment",
    "run_experiment": "recdiv.experiment.run.runner",
    "RunResult": "recdiv.experiment.run.runner",
    "build_report": "recdiv.experiment.report.build",
    "Report": "recdiv.experiment.report.build",
    "read_results": "recdiv.experiment.storage.folder",
    "summarize": "recdiv.experiment.report.summary",
    "run_demo": "recdiv.experiment.run.demo",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
