"""The [meta] section of an experiment: discriminative power from the scores, robustness curves from the lists,
in meta_summary.json and in the report; [report] groups: systems compared inside user groups (on synthetic:tiny)."""

from __future__ import annotations

import json

import pytest

from recdiv.errors import ConfigError
from recdiv.eval.meta.discriminative import discriminative_power
from recdiv.experiment.config import validate
from recdiv.experiment.report import dataset_results, read_results
from recdiv.experiment.runner import run_experiment
from tests.experiment.conftest import tiny_data

META = {"analyses": ["dp", "asl", "sparsity", "popularity"], "measures": ["nDCG@5", "P@5"], "samples": 500,
        "asl_samples": 200, "robustness_samples": 3, "sparsity_levels": [1.0, 0.5], "popularity_levels": [0, 10]}


@pytest.fixture(scope="module")
def meta_run(tmp_path_factory):
    data = tiny_data()
    data["meta"] = META
    data["report"] = {"groups": ["profile-size:2"]}
    config = validate(data, "tiny.toml")
    out = tmp_path_factory.mktemp("meta") / "out"
    run_experiment(config, out, progress=False)
    return config, out


def test_meta_summary_and_report(meta_run):
    config, out = meta_run
    summary = json.loads((out / "meta_summary.json").read_text("utf-8"))["synthetic:tiny"]
    assert set(summary) == {"systems", "measures", "seed", "discriminative_power", "asl", "sparsity", "popularity"}
    # dp equals discriminative_power on the pooled per-user matrix of the report's Results
    cfg, systems, scores, sl = read_results(out)
    res = dataset_results(cfg, systems, scores, sl, "synthetic:tiny")
    ref = discriminative_power(res.matrix("nDCG@5"), "valcarce", n_samples=500, seed=config.seed)
    assert summary["discriminative_power"]["nDCG@5"]["dp"] == pytest.approx(ref.dp)
    assert len(summary["discriminative_power"]["nDCG@5"]["curve"]) == 11 * 10 // 2
    sp = summary["sparsity"]
    assert sp["levels"] == [1.0, 0.5] and sp["splits"] == 2
    assert sp["mean_tau"]["nDCG@5"][0] == 1.0 and -1 <= sp["mean_tau"]["nDCG@5"][1] <= 1
    assert summary["popularity"]["levels"] == [0.0, 10.0]
    page = (out / "report.html").read_text("utf-8")
    assert "Meta-evaluation" in page and "p-value curves" in page and "robustness to sparsity" in page
    assert len(list((out / "plots").glob("*robustness*.svg"))) == 2


def test_meta_config_errors():
    data = tiny_data()
    data["meta"] = {"measures": ["nDCG@99"]}
    with pytest.raises(ConfigError, match=r"meta\.measures\[0\]"):
        validate(data, "tiny.toml")
    data["meta"] = {"analyses": ["bogus"]}
    with pytest.raises(ConfigError, match=r"meta\.analyses"):
        validate(data, "tiny.toml")
    data["meta"] = {"sparsity_levels": [0.0]}
    with pytest.raises(ConfigError, match="fractions"):
        validate(data, "tiny.toml")


def test_group_breakdown(meta_run):
    import pandas as pd

    _, out = meta_run
    groups = pd.read_parquet(out / "groups.parquet")
    assert set(groups["group"].str[:2]) == {"Q1", "Q2"}
    table = pd.read_csv(out / "groups.csv")
    scores = pd.read_parquet(out / "scores.parquet")
    g = groups[groups["spec"] == "profile-size:2"]
    q1 = g[g["group"].str.startswith("Q1")][["split", "user"]]
    sub = scores.merge(q1, on=["split", "user"])
    want = sub[(sub["system"] == "pop") & (sub["measure"] == "P@5")]["value"].mean()
    got = table[(table["group"].str.startswith("Q1")) & (table["system"] == "pop") & (table["measure"] == "P@5")]
    assert float(got["mean"].iloc[0]) == pytest.approx(want, rel=1e-5)
    assert "User groups: profile-size:2" in (out / "report.html").read_text("utf-8")
    with pytest.raises(ConfigError, match=r"report\.groups"):
        validate({**tiny_data(), "report": {"groups": ["profile-size:1"]}}, "tiny.toml")
