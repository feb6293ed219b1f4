"""Experiment files: validation errors name the file and the key path; examples and the demo are valid."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from recdiv.errors import ConfigError
from recdiv.experiment.execution.executors import make_executor
from recdiv.experiment.plan.systems import plan_systems
from recdiv.experiment.run.checks import check_components
from recdiv.experiment.run.demo import DEMO_TOML, demo_config
from recdiv.experiment.spec.experiment import load_experiment, validate
from tests.experiment.conftest import tiny_data

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _error(data: dict) -> str:
    with pytest.raises(ConfigError) as e:
        validate(data, "exp.toml")
    return str(e.value)


def test_tiny_config_is_valid(tiny_config):
    assert tiny_config.candidates.n == 30 and tiny_config.candidates.k == 5
    assert tiny_config.diversifiers[0].grid_points() == [{"lambda": 0.2}, {"lambda": 0.6}]
    assert tiny_config.evaluation_aspects == "genres"


def test_unknown_key_names_file_and_path():
    data = tiny_data()
    data["metrics"]["bogus"] = 1
    assert _error(data) == "exp.toml: metrics.bogus: unknown key"
    data = tiny_data()
    data["diversifiers"][1]["lamda"] = 0.5
    assert _error(data) == "exp.toml: diversifiers[1].lamda: unknown key"


def test_missing_and_mistyped_keys():
    data = tiny_data()
    del data["metrics"]
    assert _error(data) == "exp.toml: metrics: required key is missing"
    data = tiny_data()
    data["datasets"][0]["splits"] = ["u1", 5]
    assert _error(data).startswith("exp.toml: datasets[0].splits[1]: Input should be a valid string")
    data = tiny_data()
    data["candidates"]["k"] = 50
    assert "candidates: k = 50 is larger than the candidate depth n = 30" in _error(data)
    data = tiny_data()
    data["diversifiers"][0]["grid"]["lambda"] = []
    assert "diversifiers[0].grid: grid `lambda` is empty" in _error(data)


def test_references_are_checked():
    data = tiny_data()
    data["diversifiers"][0]["aspects"] = ["genres", "genre"]
    assert _error(data) == ("exp.toml: diversifiers[0].aspects[1]: no aspect space named 'genre' "
                            "(known: genres, latent)")
    data = tiny_data()
    data["aspects"][1]["recommender"] = "MF"
    assert "aspects[1].recommender: no recommender named 'MF' (known: SVD, pop)" in _error(data)
    data = tiny_data()
    data["recommenders"].append(copy.deepcopy(data["recommenders"][0]))
    assert "recommenders[2]: label 'pop' is used twice" in _error(data)


def test_aspect_kind_rules():
    data = tiny_data()
    del data["aspects"][0]["attribute"]
    assert "aspects[0]: an explicit aspect space needs `attribute`" in _error(data)
    data = tiny_data()
    data["aspects"][1]["model"] = "pure-svd"
    assert "aspects[1]: a latent aspect space needs exactly one of `recommender`" in _error(data)


def test_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="experiment file not found"):
        load_experiment(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", "utf-8")
    with pytest.raises(ConfigError, match=r"bad.toml: invalid TOML"):
        load_experiment(bad)
    bad.write_text("name = 'x'\n[[datasets]]\nname = 'synthetic:tiny'\nsplitz = []\n", "utf-8")
    with pytest.raises(ConfigError) as e:
        load_experiment(bad)
    assert str(e.value).startswith(f"{bad}: ")
    assert "datasets[0].splitz: unknown key" in str(e.value)


def test_component_parameters_are_checked_before_work(tiny_config):
    data = tiny_data()
    data["recommenders"][1]["params"] = {"factor": 8}
    with pytest.raises(ConfigError, match=r"^exp.toml: recommenders\[1\].params.factor: unknown key"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["recommenders"][1]["params"] = {"factors": "8"}  # strict types: a string is not a number
    with pytest.raises(ConfigError,
                       match=r"^exp.toml: recommenders\[1\].params.factors: Input should be a valid integer"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["diversifiers"][0]["grid"]["lambda"] = [0.5, 7.0]
    with pytest.raises(ConfigError,
                       match=r"^exp.toml: diversifiers\[0\].grid.lambda: Input should be less than or equal to 1"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["diversifiers"][1]["name"] = "IA-Selekt"
    with pytest.raises(ConfigError,
                       match=r"^exp.toml: diversifiers\[1\].name: unknown reranker 'IA-Selekt' \(did you mean"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["diversifiers"][1]["name"] = "ia-select"  # one spelling rule (#16.3)
    check_components(validate(data))
    data = tiny_data()
    data["metrics"]["measures"] = ["P@5", "nDGC@5"]
    with pytest.raises(ConfigError, match=r"^exp.toml: metrics.measures\[1\]: unknown measure 'nDGC'"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["statistics"]["test"] = "anova"
    with pytest.raises(ConfigError, match=r"^exp.toml: statistics.test: "):
        check_components(validate(data, "exp.toml"))
    check_components(tiny_config)


def test_latent_aspects_follow_declared_capabilities():
    data = tiny_data()
    data["aspects"][1] = {"name": "latent", "kind": "latent", "recommender": "pop", "l": 2}
    with pytest.raises(ConfigError,
                       match=r"^exp.toml: aspects\[1\]: 'pop' has no latent factors or topics .*item-factors"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["aspects"][1] = {"name": "latent", "kind": "latent", "model": "lda", "params": {"n_topics": 4}, "l": 2}
    check_components(validate(data))  # LDA is a recommender that declares topics
    data["aspects"][1]["options"] = {"abs": True}
    with pytest.raises(ConfigError, match=r"^exp.toml: aspects\[1\].options.abs: unknown key"):
        check_components(validate(data, "exp.toml"))
    data = tiny_data()
    data["aspects"][0]["options"] = {"top": "2"}
    with pytest.raises(ConfigError, match=r"^exp.toml: aspects\[0\].options.top: Input should be a valid integer"):
        check_components(validate(data, "exp.toml"))


def test_missing_component_is_named(tiny_config, monkeypatch):
    monkeypatch.setitem(sys.modules, "recdiv.diversifiers.registry", None)
    with pytest.raises(ConfigError, match=r"^tiny.toml: the diversifiers: recdiv.diversifiers.registry is not avail"):
        check_components(tiny_config)


def test_unknown_baseline_fails_before_work(tiny_config, tmp_path):
    from recdiv.experiment.run.runner import run_experiment

    data = tiny_data()
    data["statistics"]["baseline"] = "MF"
    with pytest.raises(ConfigError, match=r"^exp.toml: statistics.baseline: no system named 'MF' \(systems: pop, SVD,"):
        run_experiment(validate(data, "exp.toml"), tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_ray_backend_needs_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError, match=r"--backend ray needs the optional `ray` package"):
        make_executor(1, "ray")
    with pytest.raises(ConfigError, match="--jobs must be a positive integer, got 0"):
        make_executor(0, "local")


def test_systems_grid(tiny_config):
    names = [s.name for s in plan_systems(tiny_config)]
    assert names == ["pop", "SVD",
                     "pop+MMR(lambda=0.2)[genres]", "pop+MMR(lambda=0.2)[latent]",
                     "pop+MMR(lambda=0.6)[genres]", "pop+MMR(lambda=0.6)[latent]",
                     "SVD+MMR(lambda=0.2)[genres]", "SVD+MMR(lambda=0.2)[latent]",
                     "SVD+MMR(lambda=0.6)[genres]", "SVD+MMR(lambda=0.6)[latent]",
                     "SVD+IASelect[genres]"]


def test_cache_keys_follow_what_the_artefacts_depend_on():
    from recdiv.experiment.plan.graph import plan_models

    def keys(data):
        return {m.recommender or m.name: (m.fit_key, m.candidates_key, m.latent) for m in plan_models(validate(data),
                                                                                                    "split-hash")}

    base = keys(tiny_data())
    assert set(base) == {"pop", "SVD"} and len(base["SVD"][2]) == 1  # SVD is fitted once for candidates + aspects
    data = tiny_data()
    data["metrics"]["threshold"] = 3  # other evaluated users => other candidate lists, same fitted models
    other = keys(data)
    assert other["SVD"][0] == base["SVD"][0] and other["SVD"][1] != base["SVD"][1]
    data = tiny_data()
    data["recommenders"][1]["params"]["factors"] = 6
    assert keys(data)["SVD"][0] != base["SVD"][0] and keys(data)["pop"] == base["pop"]
    data = tiny_data()
    data["seed"] = 4
    assert keys(data)["SVD"][0] != base["SVD"][0]


def test_cache_keys_follow_the_components_source(monkeypatch):
    """#16.9: a change in a component's code changes its artefacts' keys, so --resume recomputes them."""
    from recdiv.experiment.plan import graph

    def keys():
        return {m.recommender: m.fit_key for m in graph.plan_models(validate(tiny_data()), "split-hash")}

    before = keys()
    monkeypatch.setattr(graph, "component_source", lambda kind, name: "changed" if name == "pure-svd" else "same")
    after = keys()
    assert after["SVD"] != before["SVD"]


def test_demo_file_matches_embedded_config():
    assert (EXAMPLES / "demo.toml").read_text("utf-8") == DEMO_TOML
    check_components(demo_config())


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_examples_are_valid(path):
    check_components(load_experiment(path))
