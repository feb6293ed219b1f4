"""An experiment is validated whole before any work and before anything is written; every error names the file
and the key path; values are strict (no coercion, finite, plain names)."""

from __future__ import annotations

import copy
import tomllib

import pytest

from recdiv.cli import main
from recdiv.errors import ConfigError
from recdiv.experiment.execution import executors
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from tests.experiment.conftest import small_toml

SMALL_TOML = small_toml(
    """
name = "small"
seed = 1

[[datasets]]
name = "synthetic:tiny"
label = "A"
splits = ["holdout:0.2"]

[[datasets]]
name = "synthetic:tiny"
label = "B"
options = { n_users = 30 }
splits = ["kfold:2:1"]

[[recommenders]]
name = "pop"
""",
    """measures = ["P@5", "AggregateDiversity@5"]
population = "judged"
""",
)


def small() -> dict:
    return tomllib.loads(SMALL_TOML)


@pytest.fixture
def no_work(monkeypatch):
    """Fails the test if any task starts."""
    def forbidden(*args, **kw):
        raise AssertionError("work started before the experiment was validated")

    monkeypatch.setattr(executors, "run_task", forbidden)


def _run_error(data: dict, out) -> str:
    with pytest.raises(ConfigError) as e:
        run_experiment(validate(data, "exp.toml"), out, progress=False)
    assert not out.exists(), "nothing may be written before the experiment is validated"
    return str(e.value)


def _tsv_dataset(folder, timestamps: bool):
    folder.mkdir()
    rows = [f"u{u}\ti{i}\t{1 + (u * i) % 5}" + (f"\t{1000 + u * 10 + i}" if timestamps else "")
            for u in range(8) for i in range(6)]
    (folder / "interactions.tsv").write_text("\n".join(rows) + "\n", "utf-8")
    return folder


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda d, tmp: d["datasets"][1].update(splits=["kfold:2:9"]),
     r"^exp.toml: datasets\[1\].splits\[0\]: kfold needs k ≥ 2 and 1 ≤ fold ≤ k, got k=2, fold=9$"),
    (lambda d, tmp: d["datasets"][1].update(splits=["kfold:2:1", "holdout:x"]),
     r"^exp.toml: datasets\[1\].splits\[1\]: bad number in split spec 'holdout:x'"),
    (lambda d, tmp: d["datasets"][1].update(splits=["u1"]),
     r"^exp.toml: datasets\[1\].splits\[0\]: unknown split spec 'u1'"),
    (lambda d, tmp: d["datasets"][1].update(options={"n_users": 30, "colour": "red"}),
     r"^exp.toml: datasets\[1\].options: unknown option 'colour' of the synthetic loader \(its options: n_users,"),
    (lambda d, tmp: d["datasets"][1].update(options={"n_users": "30"}),
     r"^exp.toml: datasets\[1\].options: option 'n_users' of the synthetic loader: Input should be a valid integer"),
    (lambda d, tmp: d["datasets"][1].update(name="no-such-dataset", options={}),
     r"^exp.toml: datasets\[1\].name: no dataset 'no-such-dataset'"),
    (lambda d, tmp: d["datasets"][1].update(name=str(_tsv_dataset(tmp / "notime", False)), options={},
                                            splits=["temporal:0.8"]),
     r"^exp.toml: datasets\[1\].splits\[0\]: a temporal split needs timestamps"),
    (lambda d, tmp: d["datasets"][1].update(name=str(_tsv_dataset(tmp / "noattr", True)), options={}),
     r"^exp.toml: aspects\[0\].attribute: dataset 'B' \(datasets\[1\]\) has no item attribute 'genres'"),
    (lambda d, tmp: d["aspects"][0].update(similarity="cosinus"),
     r"^exp.toml: aspects\[0\].similarity: unknown item similarity 'cosinus'"),
    (lambda d, tmp: d["aspects"][0].update(similarity="latent-cosine"),
     r"^exp.toml: aspects\[0\].similarity: latent-cosine needs the item factors"),
])
def test_a_bad_second_dataset_is_reported_before_any_work(edit, expected, tmp_path, no_work):
    data = small()
    edit(data, tmp_path)
    assert _match(expected, _run_error(data, tmp_path / "out"))


def _match(pattern: str, text: str) -> bool:
    import re

    assert re.search(pattern, text), text
    return True


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda d: d["candidates"].update(n="30"), r"^exp.toml: candidates.n: Input should be a valid integer"),
    (lambda d: d["candidates"].update(k=5.0), r"^exp.toml: candidates.k: Input should be a valid integer"),
    (lambda d: d.update(seed=True), r"^exp.toml: seed: Input should be a valid integer"),
    (lambda d: d.update(seed=-1), r"^exp.toml: seed: Input should be greater than or equal to 0"),
    (lambda d: d["metrics"].update(threshold=float("nan")), r"^exp.toml: metrics.threshold: must be a finite"),
    (lambda d: d["metrics"].update(threshold=float("inf")), r"^exp.toml: metrics.threshold: must be a finite"),
    (lambda d: d["recommenders"][0].update(params={"x": float("-inf")}),
     r"^exp.toml: recommenders\[0\].params.x: must be a finite number, got -inf"),
    (lambda d: d["diversifiers"][0]["grid"].update({"lambda": [0.5, float("nan")]}),
     r"^exp.toml: diversifiers\[0\].grid.lambda\[1\]: must be a finite number"),
    (lambda d: d.update(name="../../x"), r"^exp.toml: name: must be a plain name"),
    (lambda d: d.update(name=".."), r"^exp.toml: name: must be a plain name"),
    (lambda d: d["recommenders"][0].update(label="po\x00p"), r"^exp.toml: recommenders\[0\].label: contains a NUL"),
    (lambda d: d["metrics"].update(population=1), r"^exp.toml: metrics.population: Input should be 'relevant'"),
])
def test_values_are_strict(edit, expected):
    data = small()
    edit(data)
    with pytest.raises(ConfigError) as e:
        validate(data, "exp.toml")
    _match(expected, str(e.value))


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda d: d["recommenders"][0].update(params={"nope": 1}),
     r"^exp.toml: recommenders\[0\].params.nope: unknown key$"),
    (lambda d: d["diversifiers"][0]["grid"].update({"lambda": [2.0]}),
     r"^exp.toml: diversifiers\[0\].grid.lambda: Input should be less than or equal to 1$"),
    (lambda d: d["metrics"].update(measures=["P@5", "nDGC@5"]), r"^exp.toml: metrics.measures\[1\]: "),
    (lambda d: d.update(statistics={"test": "anova"}), r"^exp.toml: statistics.test: "),
    (lambda d: d.update(statistics={"correction": "wrong"}), r"^exp.toml: statistics.correction: "),
    (lambda d: d.update(statistics={"baseline": "MF"}), r"^exp.toml: statistics.baseline: no system named 'MF'"),
])
def test_component_errors_name_the_file_and_key(edit, expected, tmp_path, no_work):
    data = small()
    edit(data)
    _match(expected, _run_error(data, tmp_path / "out"))


def test_data_errors_of_the_command_name_the_file(tmp_path, capsys):
    p = tmp_path / "exp.toml"
    p.write_text(SMALL_TOML.replace("options = { n_users = 30 }", 'options = { n_users = "30" }'), "utf-8")
    assert main(["run", str(p), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"recdiv: error: {p}: datasets[1].options: option 'n_users'")
    assert not (tmp_path / "out").exists()


def test_valid_small_experiment_runs(tmp_path):
    """The file the mutations above start from is valid and runs (so each mutation is what fails)."""
    result = run_experiment(validate(copy.deepcopy(small()), "exp.toml"), tmp_path / "out", progress=False,
                            report=False)
    assert result.computed["scores"] == 4 and not result.damaged


def test_an_unreadable_experiment_file_is_a_clean_error(tmp_path, capsys):
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    assert main(["run", str(loop)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"recdiv: error: {loop}: cannot read the experiment file: ") and err.count("\n") == 1
