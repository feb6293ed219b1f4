"""Recommender hyperparameter grids in experiment files: every point a system, or one point selected per split on a
validation split carved from the training data (selection checked against an independent re-computation)."""

from __future__ import annotations

import json

import pytest

from recdiv.algorithms.registry import make_recommender
from recdiv.data.load import load_dataset
from recdiv.data.qrels import Qrels
from recdiv.data.splits import holdout_split, make_split
from recdiv.errors import ConfigError
from recdiv.eval import EvalContext, parse_measure
from recdiv.experiment.plan.systems import plan_systems
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from tests.experiment.conftest import tiny_data


def _data(**svd):
    data = tiny_data()
    data["datasets"][0]["splits"] = ["kfold:2:1"]
    data["recommenders"][1] = {"name": "pure-svd", "label": "SVD", **svd}
    data["aspects"] = data["aspects"][:1]  # genres only
    data["diversifiers"] = [{"name": "IASelect", "aspects": ["genres"], "recommenders": ["SVD"]}]
    data["metrics"]["measures"] = ["P@5", "nDCG@5"]
    return data


def test_grid_points_are_systems():
    config = validate(_data(grid={"factors": [4, 8]}), "grid.toml")
    assert [r.key for r in config.recommenders] == ["pop", "SVD(factors=4)", "SVD(factors=8)"]
    assert config.recommenders[2].params == {"factors": 8}
    names = [s.name for s in plan_systems(config)]
    assert names == ["pop", "SVD(factors=4)", "SVD(factors=8)", "SVD(factors=4)+IASelect[genres]",
                     "SVD(factors=8)+IASelect[genres]"]


def test_grid_errors():
    with pytest.raises(ConfigError, match="both in params and in grid"):
        validate(_data(params={"factors": 4}, grid={"factors": [4, 8]}), "g.toml")
    with pytest.raises(ConfigError, match="give a grid"):
        validate(_data(select={"measure": "nDCG@5"}), "g.toml")
    with pytest.raises(ConfigError, match="empty"):
        validate(_data(grid={"factors": []}), "g.toml")


@pytest.mark.slow
def test_selection_on_a_validation_split(tmp_path):
    data = _data(grid={"factors": [2, 16]}, select={"measure": "nDCG@5", "validation": 0.25})
    config = validate(data, "select.toml")
    assert [s.name for s in plan_systems(config)] == ["pop", "SVD", "SVD+IASelect[genres]"]
    out = tmp_path / "out"
    result = run_experiment(config, out, progress=False, report=False)
    sel = json.loads((out / "selection.json").read_text("utf-8"))["synthetic:tiny"]["kfold:2:1"]["SVD"]
    # independent re-computation of the validation values
    split = make_split(load_dataset("synthetic:tiny"), "kfold:2:1", seed=config.seed)
    inner = holdout_split(split.train, 0.25, seed=config.seed)
    qrels = Qrels.from_interactions(inner.test)
    users = qrels.population(config.metrics.threshold, config.metrics.population)
    ctx = EvalContext(threshold=config.metrics.threshold, population=config.metrics.population, train=inner.train)
    values = []
    for f in (2, 16):
        model = make_recommender("pure-svd", factors=f, **({"seed": config.seed} if _takes_seed() else {}))
        values.append(parse_measure("nDCG@5").value(model.fit(inner.train).recommend(users, 5), qrels, ctx))
    assert [v["value"] for v in sel["values"]] == pytest.approx(values)
    assert sel["chosen"] == {"factors": [2, 16][max(range(2), key=lambda i: (values[i], -i))]}
    assert result.computed["fit"] == 2  # pop and the chosen SVD point only (on the whole training set)
    again = run_experiment(config, out, resume=True, progress=False, report=False)
    assert again.computed.get("fit", 0) == 0  # the search is cached too


def _takes_seed() -> bool:
    return "seed" in type(make_recommender("pure-svd").config).model_fields


@pytest.mark.slow
def test_selection_measure_follows_the_conventions(tmp_path):
    """With `[metrics] conventions = "lenskit"` the selection measure is LensKit's nDCG (binary gain, its discount)
    over LensKit's population (every test item relevant, every test user), as the experiment's own measures are:
    the values equal an independent re-computation under those conventions and differ from recdiv's own."""
    data = _data(grid={"factors": [2, 16]}, select={"measure": "nDCG@5", "validation": 0.25})
    data["metrics"] = {"measures": data["metrics"]["measures"], "conventions": "lenskit"}  # its threshold too
    config = validate(data, "select.toml")
    assert (config.metrics.threshold, config.metrics.population) == (0.0, "judged")
    out = tmp_path / "out"
    run_experiment(config, out, progress=False, report=False)
    sel = json.loads((out / "selection.json").read_text("utf-8"))["synthetic:tiny"]["kfold:2:1"]["SVD"]
    split = make_split(load_dataset("synthetic:tiny"), "kfold:2:1", seed=config.seed)
    inner = holdout_split(split.train, 0.25, seed=config.seed)
    qrels = Qrels.from_interactions(inner.test)
    seed = {"seed": config.seed} if _takes_seed() else {}
    values, own = [], []
    for f in (2, 16):
        lists = make_recommender("pure-svd", factors=f, **seed).fit(inner.train)
        lk_users = qrels.population(0.0, "judged")
        values.append(parse_measure("nDCG@5", "lenskit").value(lists.recommend(lk_users, 5), qrels,
                                                                EvalContext(threshold=0.0, population="judged",
                                                                            train=inner.train)))
        rd_users = qrels.population(4.0, "relevant")
        own.append(parse_measure("nDCG@5").value(lists.recommend(rd_users, 5), qrels,
                                                 EvalContext(threshold=4.0, population="relevant", train=inner.train)))
    assert [v["value"] for v in sel["values"]] == pytest.approx(values)
    assert values != pytest.approx(own)  # the conventions change the selection measure's values
