"""The output folder of an experiment: whose results it holds, how a run commits its results, how they are read back.

The results are ``experiment.json``, ``systems.json``, ``scores.parquet`` and, when the experiment has them,
``system_scores.parquet`` (system-level measures), ``selection.json`` (recommender grids with `select`),
``groups.parquet`` ([report] groups) and ``meta.json`` ([meta] robustness curves); ``manifest.json`` names the
experiment and lists the sha256 of each (and carries the stamps of `recdiv.experiment.storage.stamps`: what the results
were computed from, what the report was built from). Everything else (summaries, plots, report.html) is rebuilt from
them. A run writes them
only once all its work has finished (a run that fails or is killed leaves the previous results as they were):

1. into ``.pending/`` (each file atomically, the manifest last: a ``.pending/`` without a manifest is incomplete);
2. each file moved into place, the manifest last, then ``.pending/`` removed.

A run killed during step 2 is completed by the next `recdiv run` or `recdiv report` on the folder (the moves are
replayed from ``.pending/``), so the folder always holds one complete set — the previous or the new one.
`read_results` checks every file against the manifest and its own format, so a damaged or hand-edited folder is
one clean error naming the file, never a traceback or an empty report.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from recdiv.errors import ConfigError, DataError
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.outputs import check_output_dir, write_bytes, write_error

RESULT_FILES = ("experiment.json", "systems.json", "scores.parquet", "system_scores.parquet", "selection.json",
                "groups.parquet", "meta.json")
REQUIRED = RESULT_FILES[:3]
MANIFEST = "manifest.json"
PENDING = ".pending"
#: what recdiv writes in an output folder (anything else there is not ours): results, then what the report makes
OWN_ENTRIES = {*RESULT_FILES, MANIFEST, PENDING, "cache", "plots", "summary.csv", "summary.md", "summary.tex",
               "summary.txt", "report.html", "groups.csv", "meta_summary.json", "fronts.json"}
SCORE_COLUMNS = ["dataset", "split", "system", "measure", "user", "value"]


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


# whose folder ----------------------------------------------------------------------------------------------------
def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    except OSError as e:
        raise DataError(f"cannot read: {e.strerror}", path) from None
    except (UnicodeDecodeError, ValueError) as e:
        raise DataError(f"damaged: not valid JSON ({e})", path) from None


def _manifest(path: Path) -> dict[str, Any]:
    m = _json(path)
    ok = (isinstance(m, dict) and isinstance(m.get("experiment"), str) and isinstance(m.get("files"), dict)
          and all(isinstance(k, str) and k in RESULT_FILES and isinstance(v, str) for k, v in m["files"].items())
          and all(f in m["files"] for f in REQUIRED))
    if not ok:
        raise DataError("damaged: not a recdiv results manifest", path)
    return m


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest of the results in `out`; None if there is none or it is damaged."""
    try:
        return _manifest(out / MANIFEST)
    except DataError:
        return None


def update_manifest(out: Path, name: str, record: dict[str, Any]) -> None:
    """Set the manifest's entry `name` (a stamp, `recdiv.experiment.storage.stamps`) to `record`, atomically."""
    manifest = _manifest(out / MANIFEST)
    manifest[name] = record
    write_bytes(out / MANIFEST, _manifest_bytes(manifest))


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()


def owner(out: Path) -> str | None:
    """The name of the experiment whose results `out` holds (None: no results). DataError if they are damaged."""
    pending = out / PENDING / MANIFEST
    if pending.is_file():
        return _manifest(pending)["experiment"]
    if (out / MANIFEST).is_file():
        return _manifest(out / MANIFEST)["experiment"]
    if (out / "experiment.json").is_file():  # written before manifests existed
        data = _json(out / "experiment.json")
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise DataError("damaged: not an experiment configuration", out / "experiment.json")
        return data["name"]
    return None


def check_output(config: ExperimentConfig, out: Path, *, resume: bool, force: bool, option: str = "--out") -> None:
    """Refuse, before any work, an output folder that is not one, is not writable, holds files that are not
    recdiv's, or holds another experiment's (or damaged) results — unless `force`. `option` names where the folder
    came from in errors (`--out`, or the experiment file's key)."""
    check_output_dir(out, option)
    if not out.is_dir():
        return
    entries = [p.name for p in out.iterdir()]
    foreign = sorted(n for n in entries if n not in OWN_ENTRIES and not (n.startswith(".") and n.endswith(".tmp")))
    where = f"{option} {out}"
    if foreign and not force:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise ConfigError(f"{where}: the folder holds files that are not recdiv results ({shown}): choose another "
                          "folder, or pass --force to write into it anyway")
    try:
        name = owner(out)
    except DataError as e:
        if force:
            return
        raise ConfigError(f"{where}: the results in the folder are damaged ({e}): pass --force to replace them "
                          "(with --resume, the finished artefacts of its cache are still reused)") from None
    if name is None or name == config.name or force:
        return
    what = " (--resume continues the experiment of the folder)" if resume else ""
    raise ConfigError(f"{where}: the folder holds the results of experiment {name!r}, not {config.name!r}{what}: "
                      "choose another folder, or pass --force to replace them")


# committing results ----------------------------------------------------------------------------------------------
def finish_pending(out: Path) -> None:
    """Complete the commit of a run that was killed while moving its results into place (or drop an incomplete one)."""
    pending = out / PENDING
    if not pending.is_dir():
        return
    try:
        manifest = _manifest(pending / MANIFEST)
    except DataError:  # killed while writing .pending/: the previous results are untouched
        shutil.rmtree(pending, ignore_errors=True)
        return
    try:
        for name in RESULT_FILES:
            if (pending / name).is_file():
                os.replace(pending / name, out / name)
            elif name not in manifest["files"]:
                with contextlib.suppress(FileNotFoundError):
                    (out / name).unlink()
        os.replace(pending / MANIFEST, out / MANIFEST)
    except OSError as e:
        raise write_error(e, out) from None
    shutil.rmtree(pending, ignore_errors=True)


def begin_commit(out: Path) -> Path:
    """An empty ``.pending/`` folder in `out`, where a run writes its result files (see the module docstring)."""
    finish_pending(out)
    pending = out / PENDING
    shutil.rmtree(pending, ignore_errors=True)
    try:
        pending.mkdir(parents=True)
    except OSError as e:
        raise write_error(e, pending) from None
    return pending


def end_commit(out: Path, experiment: str, inputs: dict[str, Any] | None = None) -> None:
    """List the result files written into ``.pending/`` in its manifest, then move them into place as one set.
    `inputs`: the run's inputs stamp (`recdiv.experiment.storage.stamps`); the report stamp of the previous manifest
    is kept (it names the result files' sha256 it was built from, so it holds only if they are the same)."""
    pending = out / PENDING
    files = {n: sha256_file(pending / n) for n in RESULT_FILES if (pending / n).is_file()}
    manifest: dict[str, Any] = {"experiment": experiment, "files": files}
    if inputs is not None:
        manifest["inputs"] = inputs
    previous = read_manifest(out)
    if previous is not None and "report" in previous:
        manifest["report"] = previous["report"]
    write_bytes(pending / MANIFEST, _manifest_bytes(manifest))
    finish_pending(out)


# reading results -------------------------------------------------------------------------------------------------
class _System(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    name: str
    recommender: str
    diversifier: str | None
    reranker: str | None
    params: dict[str, Any]
    grid: dict[str, Any]
    aspects: str | None


_SYSTEMS = TypeAdapter(list[_System])


def _frame(path: Path, columns: list[str]) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(io.BytesIO(path.read_bytes()))
    except FileNotFoundError:
        raise DataError("file not found", path) from None
    except (OSError, ValueError) as e:  # pyarrow's format errors are ValueError (ArrowInvalid) or OSError
        raise DataError(f"damaged: not a readable Parquet file ({e})", path) from None
    if list(frame.columns) != columns:
        raise DataError(f"damaged: columns are {list(frame.columns)}, expected {columns}", path)
    for c in columns:
        if c == "value" and frame[c].dtype.kind != "f":
            raise DataError(f"damaged: column 'value' holds {frame[c].dtype}, expected floating-point numbers", path)
        if c != "value" and pd.api.types.infer_dtype(frame[c], skipna=False) not in ("string", "empty"):
            raise DataError(f"damaged: column {c!r} holds {frame[c].dtype}, expected strings", path)
    return frame


def read_results(out: str | Path) -> tuple[ExperimentConfig, list[dict[str, Any]], pd.DataFrame, pd.DataFrame | None]:
    """The experiment config, systems, per-user scores and system-level scores of an output folder, each checked
    against the manifest and its format (DataError naming the damaged file)."""
    out = Path(out)
    if not out.is_dir():
        raise ConfigError(f"{out}: not a folder (expected an experiment output folder)")
    finish_pending(out)
    for name in REQUIRED:
        if not (out / name).is_file():
            raise ConfigError(f"{out}: not an experiment output folder ({name} is missing; run `recdiv run` first)")
    listed = list(RESULT_FILES)
    if (out / MANIFEST).is_file():
        manifest = _manifest(out / MANIFEST)
        listed = list(manifest["files"])
        for name, want in manifest["files"].items():
            p = out / name
            if not p.is_file():
                raise DataError(f"damaged results: {name} is listed in {MANIFEST} but missing", p)
            if sha256_file(p) != want:
                raise DataError(f"damaged: its sha256 differs from the one in {MANIFEST} (the file was changed or "
                                "damaged after the run; rerun the experiment with --resume)", p)
    try:
        config = ExperimentConfig.model_validate(_json(out / "experiment.json"))
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise DataError(f"damaged: not a valid experiment configuration ({where + ': ' if where else ''}"
                        f"{err['msg']})", out / "experiment.json") from None
    try:
        systems = _SYSTEMS.validate_python(_json(out / "systems.json"), strict=True)
    except ValidationError as e:
        err = e.errors()[0]
        raise DataError(f"damaged: not a list of systems ({'.'.join(map(str, err['loc']))}: {err['msg']})",
                        out / "systems.json") from None
    if not systems:
        raise DataError("damaged: no systems", out / "systems.json")
    scores = _frame(out / "scores.parquet", SCORE_COLUMNS)
    sl_path = out / "system_scores.parquet"
    system_scores = _frame(sl_path, [*SCORE_COLUMNS[:4], "value"]) \
        if sl_path.is_file() and "system_scores.parquet" in listed else None
    _check_consistent(out, config, systems, scores, system_scores)
    return config, [s.model_dump() for s in systems], scores, system_scores


def _check_consistent(out: Path, config: ExperimentConfig, systems: list[_System], scores: pd.DataFrame,
                      system_scores: pd.DataFrame | None) -> None:
    """The scores belong to the experiment and systems of the folder, and every dataset has some."""
    names = {s.name for s in systems}
    datasets = {d.key for d in config.datasets}
    measures = set(config.metrics.measures)
    frames = [("scores.parquet", scores)] + ([("system_scores.parquet", system_scores)] if system_scores is not None
                                              else [])
    seen = set()
    for fname, frame in frames:
        for col, known in (("system", names), ("dataset", datasets), ("measure", measures)):
            extra = sorted(set(frame[col]) - known)
            if extra:
                raise DataError(f"damaged results: {col} {extra[0]!r} is not in the experiment of this folder "
                                "(experiment.json / systems.json)", out / fname)
        seen |= set(frame["dataset"])
    for d in config.datasets:
        if d.key not in seen:
            raise DataError(f"damaged results: no scores for dataset {d.key!r} of experiment.json", out)
