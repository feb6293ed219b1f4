"""The output folder: nothing finished is lost (failed, crashed or killed runs leave the previous results as they
were), another experiment's folder is refused, and `recdiv report` on a damaged folder is one clean error."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.errors import ConfigError, DataError
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.experiment.storage.folder import MANIFEST, PENDING, RESULT_FILES, read_results
from recdiv.experiment.tasks import system as system_task
from tests.experiment.conftest import small_toml

TOML = small_toml(
    """
name = "one"
seed = 2

[[datasets]]
name = "synthetic:tiny"
splits = ["holdout:0.2"]

[[recommenders]]
name = "pop"

[[recommenders]]
name = "random"
""",
    """measures = ["P@5", "ILD@5", "AggregateDiversity@5"]
population = "judged"
""",
)


def config(**changes):
    data = tomllib.loads(TOML)
    data.update(changes)
    return validate(data, "one.toml")


def _snapshot(out: Path) -> dict[str, bytes]:
    return {n: (out / n).read_bytes() for n in [*RESULT_FILES, MANIFEST, "summary.csv"] if (out / n).is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "out"
    run_experiment(config(), out, progress=False)
    return out


@pytest.fixture
def copy(finished, tmp_path) -> Path:
    dest = tmp_path / "out"
    shutil.copytree(finished, dest)
    return dest


def test_results_are_listed_in_the_manifest(finished):
    m = json.loads((finished / MANIFEST).read_text("utf-8"))
    assert m["experiment"] == "one"
    assert sorted(m["files"]) == sorted(RESULT_FILES[:4])  # AggregateDiversity is system-level
    assert not (finished / PENDING).exists()


def test_optional_result_files_are_committed_with_the_scores(copy):
    """[report] groups writes groups.parquet: it is part of the committed set (listed, replaced, removed)."""
    data = tomllib.loads(TOML)
    data["report"] = {"groups": ["profile-size"]}
    run_experiment(validate(data, "one.toml"), copy, resume=True, progress=False)
    m = json.loads((copy / MANIFEST).read_text("utf-8"))
    assert "groups.parquet" in m["files"] and (copy / "groups.parquet").is_file()
    read_results(copy)
    run_experiment(config(), copy, resume=True, progress=False)  # without groups: the stale file goes
    assert not (copy / "groups.parquet").exists()
    assert "groups.parquet" not in json.loads((copy / MANIFEST).read_text("utf-8"))["files"]


def test_a_failing_run_leaves_the_results_of_the_folder(copy, capsys):
    """The issue's case: a run with bad data into a finished folder used to overwrite experiment.json and
    systems.json first; `recdiv report` then wrote an empty summary and exited 0."""
    before = _snapshot(copy)
    bad = tomllib.loads(TOML)
    bad["datasets"][0]["splits"] = ["kfold:2:9"]
    with pytest.raises(ConfigError):
        run_experiment(validate(bad, "one.toml"), copy, progress=False)
    assert _snapshot(copy) == before
    assert main(["report", str(copy)]) == 0
    assert (copy / "summary.csv").read_bytes() == before["summary.csv"]
    assert "\npop " in capsys.readouterr().out  # the terminal table of the report


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_run_that_crashes_mid_way_leaves_the_results_of_the_folder(copy, monkeypatch, error):
    before = _snapshot(copy)
    real = system_task.evaluate_ranking
    calls = {"n": 0}

    def failing(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise error("simulated crash")
        return real(*args, **kw)

    monkeypatch.setattr(system_task, "evaluate_ranking", failing)
    data = tomllib.loads(TOML)
    data["metrics"]["measures"].append("nDCG@5")  # same experiment, more work
    with pytest.raises(error):
        run_experiment(validate(data, "one.toml"), copy, resume=True, progress=False)
    assert _snapshot(copy) == before
    monkeypatch.setattr(system_task, "evaluate_ranking", real)
    run_experiment(validate(data, "one.toml"), copy, resume=True, progress=False)
    assert "nDCG@5" in set(pd.read_parquet(copy / "scores.parquet")["measure"])


def test_another_experiments_folder_is_refused_unless_forced(copy, capsys, tmp_path):
    before = _snapshot(copy)
    other = config(name="two")
    for resume in (False, True):
        with pytest.raises(ConfigError, match=r"holds the results of experiment 'one', not 'two'"):
            run_experiment(other, copy, resume=resume, progress=False)
    assert _snapshot(copy) == before
    p = tmp_path / "two.toml"
    p.write_text(TOML.replace('name = "one"', 'name = "two"'), "utf-8")
    assert main(["run", str(p), "--out", str(copy), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"recdiv: error: --out {copy}: the folder holds the results of "
                                                   "experiment 'one', not 'two'") and "--force" in err
    assert main(["run", str(p), "--out", str(copy), "--quiet", "--force", "--resume"]) == 0
    assert json.loads((copy / MANIFEST).read_text("utf-8"))["experiment"] == "two"
    # the same experiment may run again (fresh or resumed) into its own folder
    assert main(["run", str(p), "--out", str(copy), "--quiet", "--resume"]) == 0


def test_a_folder_with_other_files_is_refused(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious", "utf-8")
    with pytest.raises(ConfigError, match=r"holds files that are not recdiv results \(thesis.tex\)"):
        run_experiment(config(), out, progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]


@pytest.mark.parametrize("out", ["afile", "afile/sub"])
def test_an_output_folder_that_is_a_file_is_refused(tmp_path, out):
    (tmp_path / "afile").write_text("x", "utf-8")
    with pytest.raises(ConfigError, match=r"^--out .*afile"):
        run_experiment(config(), tmp_path / out, progress=False)


def test_the_default_output_folder_stays_under_results(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^one.toml: name: must be a plain name"):
        config(name="../../x")
    assert config().output_dir() == Path("results") / "one"


def test_a_run_killed_while_committing_is_completed(copy):
    """Simulate a kill after the new results were staged and one of them moved into place."""
    pending = copy / PENDING
    pending.mkdir()
    systems = json.loads((copy / "systems.json").read_text("utf-8"))[:2]
    files = {"systems.json": (json.dumps(systems) + "\n").encode()}
    for name in ("experiment.json", "scores.parquet"):
        files[name] = (copy / name).read_bytes()
    scores = pd.read_parquet(copy / "scores.parquet")
    buf = io.BytesIO()
    scores[scores["system"].isin([s["name"] for s in systems])].to_parquet(buf, index=False)
    files["scores.parquet"] = buf.getvalue()
    new = {"experiment": "one", "files": {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}}
    for n, d in files.items():
        (pending / n).write_bytes(d)
    (pending / MANIFEST).write_text(json.dumps(new), "utf-8")
    os.replace(pending / "systems.json", copy / "systems.json")  # the kill came after the first move
    _, systems_, _, system_scores = read_results(copy)  # completes the commit
    assert [s["name"] for s in systems_] == [s["name"] for s in systems] and system_scores is None
    assert not pending.exists() and not (copy / "system_scores.parquet").exists()
    # a .pending/ without its manifest is an incomplete commit: dropped, the previous results stay
    pending.mkdir()
    (pending / "systems.json").write_text("[]", "utf-8")
    read_results(copy)
    assert not pending.exists()


def _damage_truncate(out: Path) -> str:
    p = out / "scores.parquet"
    p.write_bytes(p.read_bytes()[:100])
    return "scores.parquet"


def _damage_json(out: Path) -> str:
    (out / "systems.json").write_text('[{"name": "pop"', "utf-8")
    return "systems.json"


def _rewrite(out: Path, name: str, data: bytes) -> None:
    """Change a result file and its manifest entry (a consistent but wrong folder: the format checks must see it)."""

    (out / name).write_bytes(data)
    if not (out / MANIFEST).exists():
        return
    m = json.loads((out / MANIFEST).read_text("utf-8"))
    m["files"][name] = hashlib.sha256(data).hexdigest()
    (out / MANIFEST).write_text(json.dumps(m), "utf-8")


def _frame_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def _damage_columns(out: Path) -> str:
    f = pd.read_parquet(out / "scores.parquet").rename(columns={"value": "score"})
    _rewrite(out, "scores.parquet", _frame_bytes(f))
    return "scores.parquet"


def _damage_value_type(out: Path) -> str:
    f = pd.read_parquet(out / "scores.parquet")
    _rewrite(out, "scores.parquet", _frame_bytes(f.assign(value=f["value"].astype(str))))
    return "scores.parquet"


def _damage_systems_shape(out: Path) -> str:
    _rewrite(out, "systems.json", b'{"name": "pop"}')
    return "systems.json"


def _damage_experiment(out: Path) -> str:
    data = json.loads((out / "experiment.json").read_text("utf-8"))
    data["candidates"]["n"] = "20"
    _rewrite(out, "experiment.json", json.dumps(data).encode())
    return "experiment.json"


def _damage_foreign_scores(out: Path) -> str:
    f = pd.read_parquet(out / "scores.parquet")
    _rewrite(out, "scores.parquet", _frame_bytes(f.assign(dataset="ml-100k")))
    return "scores.parquet"


def _damage_missing(out: Path) -> str:
    (out / "system_scores.parquet").unlink()
    return "system_scores.parquet"


def _damage_checksum(out: Path) -> str:
    f = pd.read_parquet(out / "scores.parquet")
    (out / "scores.parquet").write_bytes(_frame_bytes(f.assign(value=f["value"] * 0)))  # well-formed, but changed
    return "scores.parquet"


def _damage_manifest(out: Path) -> str:
    (out / MANIFEST).write_text('{"experiment": 1}', "utf-8")
    return MANIFEST


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_json, _damage_columns, _damage_value_type,
                                    _damage_systems_shape, _damage_experiment, _damage_foreign_scores,
                                    _damage_missing, _damage_checksum, _damage_manifest], ids=lambda f: f.__name__)
def test_report_on_a_damaged_folder_is_a_clean_error(copy, capsys, damage):
    name = damage(copy)
    assert main(["report", str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("recdiv: error: ") and name in err, err
    with pytest.raises(DataError):
        read_results(copy)


def test_report_without_a_manifest_still_reads_older_folders(copy):
    (copy / MANIFEST).unlink()
    read_results(copy)
    _damage_foreign_scores(copy)
    with pytest.raises(DataError, match="dataset 'ml-100k' is not in the experiment"):
        read_results(copy)


def test_report_on_a_file_or_an_empty_folder(tmp_path, capsys):
    (tmp_path / "f").write_text("x", "utf-8")
    assert main(["report", str(tmp_path / "f")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["report", str(tmp_path)]) == 2
    assert "not an experiment output folder" in capsys.readouterr().err


def test_resume_recomputes_a_damaged_cache_artefact_and_says_so(copy, tmp_path, capsys):
    before = pd.read_parquet(copy / "scores.parquet")
    cands = sorted((copy / "cache" / "candidates").rglob("*.npz"))
    reranked = sorted((copy / "cache" / "rerank").rglob("*.npz"))
    for p in (cands[0], reranked[0]):
        data = bytearray(p.read_bytes())
        data[len(data) // 2] ^= 0xFF
        p.write_bytes(bytes(data))
    for p in (copy / "cache" / "scores").rglob("*.parquet"):  # the scores must be recomputed from them
        p.unlink()
    p = tmp_path / "one.toml"
    p.write_text(TOML, "utf-8")
    assert main(["run", str(p), "--out", str(copy), "--resume", "--quiet"]) == 0
    err = capsys.readouterr().err
    for damaged in (cands[0], reranked[0]):
        rel = damaged.relative_to(copy / "cache")
        assert f"recdiv: warning: damaged cache artefact {rel} (checksum mismatch): recomputed" in err
    assert "candidates 1" in err and "rerank 1" in err
    pd.testing.assert_frame_equal(pd.read_parquet(copy / "scores.parquet"), before)
