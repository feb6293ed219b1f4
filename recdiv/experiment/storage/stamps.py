"""Stamps in an output folder's manifest that let `--resume` skip work that its inputs make unnecessary (#15.4).

The manifest (`recdiv.experiment.storage.folder`) lists the sha256 of every result file; it also carries two stamps:

- ``"inputs"``, written by a run as it commits its results: a fingerprint of everything the cache keys of the run
  derive from — the validated experiment configuration, recdiv's source code (every file of the package, so also
  the code of every built-in recommender, reranker, loader and split), the bytes of every dataset's files and of
  the user→group files of ``[report] groups`` — and
  the cache artefacts that a resumed run checks before reusing them (candidates, aspect spaces, per-user scores).
  A ``--resume`` whose fingerprint is the stamp's, whose result files match the manifest and whose listed artefacts
  match their checksum records computes nothing and commits nothing: it neither imports the components nor loads
  the datasets. Anything else takes the full path (each stage checks its own cache keys), so a changed configuration,
  source file or data file, or a damaged or missing artefact, is recomputed exactly as before. Experiments with
  components from outside recdiv (``module:Class``, plugins), a ``[meta]`` section or recommender grids with
  ``select`` get no stamp (their resume always takes the full path).
- ``"report"``, written by `recdiv.experiment.report.build.build_report`: a fingerprint of the report's inputs (the
  result files' sha256, recdiv's source code, the plotly and matplotlib versions) and the sha256 of every report
  file. A run whose report stamp matches and whose report files are intact keeps the report as it is
  (``recdiv report DIR`` rebuilds it regardless).

This module imports no component and reads no dataset: it only hashes files.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

import recdiv
from recdiv import __version__
from recdiv.data.locate import dataset_path
from recdiv.errors import RecdivError
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.cache import Store
from recdiv.experiment.storage.folder import PENDING, read_manifest, sha256_file

#: bump when what a stamp covers changes
STAMP_VERSION = 1
PACKAGE = Path(recdiv.__file__).resolve().parent  # the recdiv package folder
#: libraries whose version changes the report's files (plotly.js is embedded in report.html; SVGs by matplotlib)
REPORT_LIBRARIES = ("plotly", "matplotlib")


def _tree(root: Path, h: Any, skip: tuple[str, ...] = ()) -> None:
    """Feed every file under `root` (sorted relative paths, sizes and bytes) into hasher `h`."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and not any(part in skip for part in p.parts))
    for p in files:
        data = p.read_bytes()
        h.update(f"{p.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        h.update(data)


def source_fingerprint() -> str:
    """sha256 of recdiv's source: every file of the package (compiled caches excluded)."""
    h = hashlib.sha256()
    _tree(PACKAGE, h, skip=("__pycache__",))
    return h.hexdigest()


def dataset_fingerprint(name: str, data_dir: str | None) -> str:
    """sha256 of the files of a dataset's folder (a generated `synthetic` dataset: its name, the rest is code and
    configuration). RecdivError if the dataset is not found."""
    if name == "synthetic" or name.startswith("synthetic:"):
        return name
    h = hashlib.sha256()
    _tree(dataset_path(name, data_dir), h)
    return h.hexdigest()


def stampable(config: ExperimentConfig) -> bool:
    """Whether a resume of `config` may be skipped by its inputs stamp: no `[meta]` analyses and no recommender grid
    with `select` (their cached artefacts are not listed in the stamp), and only components whose source is
    recdiv's own (a component from elsewhere is outside `source_fingerprint`). Imports the registries: call it in a
    run that does the work anyway."""
    if config.meta is not None or any(r.select is not None for r in config.recommenders):
        return False
    from recdiv.algorithms.registry import RECOMMENDERS

    objs = [RECOMMENDERS.get(r.name) for r in config.recommenders]
    objs += [RECOMMENDERS.get(a.model) for a in config.aspects if a.model]
    if config.diversifiers:
        from recdiv.diversifiers.registry import RERANKERS

        objs += [RERANKERS.get(d.name) for d in config.diversifiers]
    return all(_own(c) for obj in objs for c in (obj.__mro__ if isinstance(obj, type) else (obj,)))


def _own(obj: Any) -> bool:
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    return module is None or path is None or module.__name__ in ("abc", "builtins") or \
        Path(path).resolve().is_relative_to(PACKAGE)


def inputs_key(config: ExperimentConfig) -> str | None:
    """The fingerprint of a run's inputs (see the module docstring); None if a dataset cannot be found."""
    try:
        data = [dataset_fingerprint(d.name, d.data_dir) for d in config.datasets]
        # [report] groups from a user→group file: groups.parquet is computed from its bytes by every full run
        groups = [hashlib.sha256(Path(g).read_bytes()).hexdigest() for g in config.report.groups if Path(g).is_file()]
    except (RecdivError, OSError):
        return None
    payload = [STAMP_VERSION, __version__, config.model_dump(mode="json"), source_fingerprint(), data, groups]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def inputs_record(key: str | None, artefacts: list[str]) -> dict[str, Any] | None:
    """The manifest's "inputs" stamp: `key` (None: the run gets no stamp) and the cache artefacts (paths relative to
    the cache folder) that a resume checks."""
    return None if key is None else {"key": key, "artefacts": sorted(set(artefacts))}


def unchanged_run(config: ExperimentConfig, out: Path) -> Counter | None:
    """The cached artefacts per stage if a resume of `config` in `out` has nothing to do (the inputs stamp matches,
    the result files match the manifest and every listed artefact its checksum record), else None."""
    if (out / PENDING).exists():
        return None  # a commit to complete: the full path does it
    manifest = read_manifest(out)
    record = manifest.get("inputs") if manifest else None
    if not isinstance(record, dict) or not isinstance(record.get("artefacts"), list):
        return None
    if not _files_match(out, manifest["files"]):
        return None
    store = Store(out / "cache", resume=True)
    counts: Counter = Counter()
    for rel in record["artefacts"]:
        stage, _, name = str(rel).partition("/")
        key, _, ext = Path(name).name.partition(".")
        if store.path(stage, key, ext) != store.root / rel or not store.has(stage, key, ext):
            return None
        counts[stage] += 1
    if record.get("key") != inputs_key(config):  # last: it hashes the sources and the data files
        return None
    return counts


def _files_match(out: Path, files: dict[str, str]) -> bool:
    try:
        return all(sha256_file(out / name) == want for name, want in files.items())
    except OSError:
        return False


# the report -------------------------------------------------------------------------------------------------------
def report_key(results: dict[str, str]) -> str:
    """The fingerprint of a report's inputs: the sha256 of the result files it is built from (`results`, as listed in
    the manifest), recdiv's source and the versions of `REPORT_LIBRARIES`."""
    versions = {}
    for lib in REPORT_LIBRARIES:
        try:
            versions[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            versions[lib] = None
    payload = [STAMP_VERSION, results, source_fingerprint(), versions]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def report_record(out: Path, key: str, files: list[Path]) -> dict[str, Any]:
    """The manifest's "report" stamp: `key` and the sha256 of each report file (paths relative to `out`)."""
    return {"key": key, "files": {p.relative_to(out).as_posix(): sha256_file(p) for p in files}}


def report_up_to_date(out: Path) -> list[Path] | None:
    """The report's files if its stamp matches its inputs and every file its recorded sha256, else None."""
    manifest = read_manifest(out)
    record = manifest.get("report") if manifest else None
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict) or not record["files"]:
        return None
    if not _files_match(out, record["files"]) or record.get("key") != report_key(manifest["files"]):
        return None
    return [out / name for name in record["files"]]


__all__ = ["dataset_fingerprint", "inputs_key", "inputs_record", "report_key", "report_record",
           "report_up_to_date", "source_fingerprint", "stampable", "unchanged_run"]
