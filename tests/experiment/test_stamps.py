"""#15.4: a `--resume` of an unchanged experiment does no work and keeps its report (the stamps of the manifest,
`recdiv.experiment.storage.stamps`); every kind of change — configuration, source code, data file, damaged cache
artefact, damaged result file, damaged or missing report file — is recomputed or rebuilt, and `recdiv report` always
rebuilds."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.diversifiers.random import Random
from recdiv.experiment.plan.inputs import Inputs
from recdiv.experiment.report import build as report
from recdiv.experiment.run import runner
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.experiment.storage import stamps
from recdiv.experiment.storage.folder import MANIFEST, read_results

TOML = """
name = "stamped"
seed = 1

[[datasets]]
name = "{data}"
splits = ["holdout:0.25"]

[[recommenders]]
name = "pop"

[[recommenders]]
name = "random"

[candidates]
n = 6
k = 3

[[diversifiers]]
name = "Random"
recommenders = ["pop"]

[metrics]
measures = ["P@3", "nDCG@3"]
threshold = 3
"""
#: what a resume checks: the candidates of the two recommenders and the scores of the three systems
ARTEFACTS = Counter({"candidates": 2, "scores": 3})


class Mine(Random):
    """A reranker from outside recdiv (`module:Class`): its source is not in recdiv's fingerprint."""


def _dataset(folder: Path) -> Path:
    folder.mkdir()
    rows = [f"u{u}\ti{i}\t{1 + (3 * u + 5 * i) % 5}" for u in range(12) for i in range(10) if (u + 2 * i) % 3]
    (folder / "interactions.tsv").write_text("\n".join(rows) + "\n", "utf-8")
    return folder


def _toml(tmp: Path, data: Path, text: str = TOML) -> Path:
    p = tmp / "stamped.toml"
    p.write_text(text.format(data=data.as_posix()), "utf-8")
    return p


def _config(toml: Path):
    import tomllib

    return validate(tomllib.loads(toml.read_text("utf-8")), str(toml))


def _run(toml: Path, out: Path, **kw):
    return run_experiment(_config(toml), out, resume=True, progress=False, **kw)


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("stamped")
    toml = _toml(tmp, _dataset(tmp / "data"))
    run_experiment(_config(toml), tmp / "out", progress=False)
    return toml, tmp / "out"


@pytest.fixture
def copy(finished, tmp_path) -> tuple[Path, Path]:
    toml, out = finished
    shutil.copytree(out, tmp_path / "out")
    return toml, tmp_path / "out"


def _forbid(monkeypatch, *names: str) -> None:
    """Make the full path of the run (`check_run`, dataset loading) and/or the report build fail if called."""
    def forbidden(*args, **kw):
        raise AssertionError("this resume should have been skipped")

    for name in names:
        monkeypatch.setattr(*{"run": (runner, "check_run"), "data": (Inputs, "dataset"),
                              "report": (report, "_build_report")}[name], forbidden)


def _count_report_builds(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = report._build_report

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(report, "_build_report", counting)
    return calls


def test_a_run_stamps_its_inputs_and_its_report(finished):
    _, out = finished
    m = json.loads((out / MANIFEST).read_text("utf-8"))
    assert len(m["inputs"]["key"]) == 64
    assert Counter(a.partition("/")[0] for a in m["inputs"]["artefacts"]) == ARTEFACTS
    assert all((out / "cache" / a).is_file() for a in m["inputs"]["artefacts"])
    assert {"report.html", "summary.md", "summary.csv", "summary.tex", "summary.txt"} <= set(m["report"]["files"])
    assert any(f.startswith("plots/") for f in m["report"]["files"])


def test_an_unchanged_resume_does_nothing(copy, monkeypatch, capsys):
    toml, out = copy
    before = _files(out)
    _forbid(monkeypatch, "run", "data", "report")
    assert main(["run", str(toml), "--out", str(out), "--resume"]) == 0
    captured = capsys.readouterr()
    assert "computed: nothing; reused 5 cached artefacts" in captured.err
    assert f"report up to date: its inputs are unchanged (`recdiv report {out}` rebuilds it)" in captured.err
    summary = (out / "summary.txt").read_text("utf-8")  # the terminal table, kept with the report
    assert captured.out == summary + "\n" + f"report: {out / 'report.html'}\n"
    assert _files(out) == before  # nothing written, not even the manifest
    result = _run(toml, out)
    assert result.computed == Counter() and result.cached == ARTEFACTS and result.damaged == []
    assert result.report.up_to_date and result.report.html == out / "report.html"
    assert _run(toml, out, report=False).report is None


def test_a_changed_configuration_is_computed(copy, monkeypatch, tmp_path):
    shared, out = copy
    builds = _count_report_builds(monkeypatch)
    toml = tmp_path / "changed.toml"
    toml.write_text(shared.read_text("utf-8").replace('"nDCG@3"]', '"nDCG@3", "RR@3"]'), "utf-8")
    assert _run(toml, out).computed == Counter({"scores": 3})  # only the new measure
    assert builds == [1] and "RR@3" in set(read_results(out)[2]["measure"])
    _forbid(monkeypatch, "run", "report")
    assert _run(toml, out).computed == Counter()  # stamped again


def test_changed_source_code_takes_the_full_path(copy, monkeypatch):
    toml, out = copy
    builds = _count_report_builds(monkeypatch)
    monkeypatch.setattr(stamps, "source_fingerprint", lambda: "edited")
    result = _run(toml, out)
    assert result.computed == Counter() and result.cached == ARTEFACTS  # the components' own keys are unchanged
    assert builds == [1]  # the report's code may have changed
    _forbid(monkeypatch, "run", "report")
    assert _run(toml, out).computed == Counter()


def test_the_source_fingerprint_covers_every_file_of_the_package(tmp_path, monkeypatch):
    tree = tmp_path / "recdiv"
    shutil.copytree(stamps.PACKAGE, tree, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(stamps, "PACKAGE", tree)
    first = stamps.source_fingerprint()
    assert first == stamps.source_fingerprint()
    (tree / "__pycache__").mkdir(exist_ok=True)
    (tree / "__pycache__" / "x.pyc").write_bytes(b"compiled")  # caches are not source
    assert stamps.source_fingerprint() == first
    metric = tree / "eval" / "metrics" / "accuracy.py"
    metric.write_text(metric.read_text("utf-8") + "# edited\n", "utf-8")
    edited = stamps.source_fingerprint()
    assert edited != first
    (tree / "extra.py").write_text("", "utf-8")
    assert stamps.source_fingerprint() not in (first, edited)


def test_a_changed_data_file_is_recomputed(tmp_path, monkeypatch):
    data = _dataset(tmp_path / "data")
    toml = _toml(tmp_path, data)
    out = tmp_path / "out"
    run_experiment(_config(toml), out, progress=False, report=False)
    lines = (data / "interactions.tsv").read_text("utf-8").splitlines()
    u, i, r = lines[0].split("\t")
    lines[0] = f"{u}\t{i}\t{6 - int(r)}"  # one rating changed
    (data / "interactions.tsv").write_text("\n".join(lines) + "\n", "utf-8")
    assert _run(toml, out, report=False).computed == Counter({"fit": 2, "candidates": 2, "rerank": 1, "scores": 3})
    _forbid(monkeypatch, "run")
    assert _run(toml, out, report=False).computed == Counter()


def test_a_changed_group_file_is_read_again(tmp_path, monkeypatch):
    data = _dataset(tmp_path / "data")
    groups = tmp_path / "groups.tsv"
    groups.write_text("".join(f"u{u}\t{'a' if u < 6 else 'b'}\n" for u in range(12)), "utf-8")
    toml = _toml(tmp_path, data, TOML + f'\n[report]\ngroups = ["{groups.as_posix()}"]\n')
    out = tmp_path / "out"
    run_experiment(_config(toml), out, progress=False, report=False)
    first = pd.read_parquet(out / "groups.parquet")
    groups.write_text("".join(f"u{u}\t{'a' if u % 2 else 'b'}\n" for u in range(12)), "utf-8")
    assert _run(toml, out, report=False).computed == Counter()  # the full path: the scores are all cached
    again = pd.read_parquet(out / "groups.parquet")
    assert len(again) == len(first) and not again["group"].equals(first["group"])
    _forbid(monkeypatch, "run")
    assert _run(toml, out, report=False).computed == Counter()


@pytest.mark.parametrize("stage", ["candidates", "scores"])
def test_a_damaged_cache_artefact_is_recomputed_and_said(copy, capsys, stage):
    toml, out = copy
    victim = sorted((out / "cache" / stage).rglob(f"*.{'npz' if stage == 'candidates' else 'parquet'}"))[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    assert main(["run", str(toml), "--out", str(out), "--resume", "--quiet"]) == 0
    err = capsys.readouterr().err
    rel = victim.relative_to(out / "cache")
    assert f"recdiv: warning: damaged cache artefact {rel} (checksum mismatch): recomputed" in err
    assert f"{stage} 1" in err


def test_a_missing_cache_artefact_is_recomputed(copy):
    toml, out = copy
    next((out / "cache" / "scores").rglob("*.parquet")).unlink()
    assert _run(toml, out).computed == Counter({"scores": 1})


def test_a_damaged_result_file_is_rewritten(copy, monkeypatch):
    toml, out = copy
    scores = pd.read_parquet(out / "scores.parquet")
    with open(out / "scores.parquet", "ab") as fh:
        fh.write(b"x")
    builds = _count_report_builds(monkeypatch)
    assert _run(toml, out).computed == Counter()
    pd.testing.assert_frame_equal(read_results(out)[2], scores)
    assert builds == []  # the same results: the report still holds


@pytest.mark.parametrize("damage", ["delete a plot", "edit report.html", "delete summary.md"])
def test_a_damaged_or_missing_report_file_is_rebuilt(copy, monkeypatch, damage):
    toml, out = copy
    before = (out / "summary.md").read_bytes()
    if damage == "delete a plot":
        next((out / "plots").glob("*.svg")).unlink()
    elif damage == "edit report.html":
        (out / "report.html").write_text("<html></html>", "utf-8")
    else:
        (out / "summary.md").unlink()
    _forbid(monkeypatch, "run")
    builds = _count_report_builds(monkeypatch)
    result = _run(toml, out)
    assert builds == [1] and not result.report.up_to_date
    assert (out / "summary.md").read_bytes() == before and len(list((out / "plots").glob("*.svg"))) > 0
    assert stamps.report_up_to_date(out) is not None


def test_the_report_command_always_rebuilds(copy, monkeypatch, capsys):
    _, out = copy
    builds = _count_report_builds(monkeypatch)
    assert main(["report", str(out)]) == 0
    assert builds == [1] and f"report: {out / 'report.html'}" in capsys.readouterr().out
    assert stamps.report_up_to_date(out) is not None


def test_no_inputs_stamp_for_components_from_outside_recdiv(tmp_path, monkeypatch):
    data = _dataset(tmp_path / "data")
    toml = _toml(tmp_path, data, TOML.replace('name = "Random"', f'name = "{__name__}:Mine"'))
    out = tmp_path / "out"
    run_experiment(_config(toml), out, progress=False, report=False)
    assert "inputs" not in json.loads((out / MANIFEST).read_text("utf-8"))
    calls: list[int] = []
    real = runner.check_run
    monkeypatch.setattr(runner, "check_run", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    assert _run(toml, out, report=False).computed == Counter()
    assert calls == [1]  # the full path, every time
