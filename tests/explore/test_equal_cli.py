"""The explorer's numbers are the command line's: on a sample of states, its exported experiment run by `recdiv
run` gives the same per-user values, bit for bit; on ML-100K its candidates, reranked lists and measures equal
`recdiv recommend`, `recdiv rerank` and `recdiv eval` run on the files of `recdiv data export`."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from recdiv.cli import main as cli
from recdiv.experiment.plan.systems import plan_systems
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.explore.catalog import Catalog, DatasetChoice
from recdiv.explore.engine import Engine
from recdiv.explore.export import experiment_toml, run_text
from recdiv.explore.state import Diversifier
from tests.explore.conftest import synthetic_state

D = Diversifier
STATES = [
    synthetic_state(),
    synthetic_state(recommender="wrmf", recommender_params={"factors": 8}, n=40, k=8,
                    measures=("nDCG@8", "P@5", "EILD@8", "ERR-IA@8", "Gini@8"),
                    a=D(reranker="IASelect"), b=D(reranker="MMR", params={"lambda": 0.3}, aspects="wrmf-factors")),
    synthetic_state(recommender="user-knn", seed=3, threshold=3.0,
                    a=D(reranker="PM2", params={"lambda": 0.7}), b=D(reranker="Calibrated", params={"lambda": 0.4})),
    synthetic_state(split="kfold:5:2", population="judged", k=13, measures=("nDCG@10", "EPC@10", "S-recall@10"),
                    a=D(reranker="NGD", params={"lambda": 0.6, "novelty": "PC"}),
                    b=D(reranker="DPP", params={"theta": 0.3})),
    synthetic_state(a=D(reranker="Ziegler", params={"theta_F": 0.4}), b=D(reranker="Random")),
    # the rerankers and measures of issue 30 (the group measures and FA*IR over the genres as item groups; B's FA*IR
    # protects the catalog's default group, written in the exported experiment)
    synthetic_state(measures=("nDCG@10", "AWRF@10", "GroupExposure(group=Drama)@10", "EE-L(samples=10)@10"),
                    a=D(reranker="MSD"), b=D(reranker="COVER", params={"lambda": 0.5})),
    synthetic_state(a=D(reranker="SSD", params={"window": 5}), b=D(reranker="COVER")),
    synthetic_state(a=D(reranker="Swap"), b=D(reranker="PlackettLuce", params={"scale": 2.0})),
    synthetic_state(a=D(reranker="FAIR", params={"p": 0.6, "group": "Drama"}), b=D(reranker="FAIR")),
]


@pytest.mark.parametrize("state", STATES, ids=[f"{s.a.reranker}+{s.b.reranker}" for s in STATES])
def test_recdiv_run_of_the_exported_toml_gives_the_explorers_values(state, synthetic_catalog, tmp_path):
    engine = Engine(synthetic_catalog)
    with threadpool_limits(1, user_api="blas"):  # as the server computes (server.one_native_thread)
        p = engine.prepare(state)
        names = ["baseline", "A", "B"]
        explorer = {label: engine.scores(p, *engine.ranking(p, None if label == "baseline" else label),
                                         list(state.measures)) for label in names}
    text = experiment_toml(engine, p)
    config = validate(tomllib.loads(text), "experiment.toml")
    assert config.model_dump() == p.config.model_dump()  # the file is the experiment the explorer computed
    run_experiment(config, tmp_path / "out", progress=False, report=False)
    scores = pd.read_parquet(tmp_path / "out" / "scores.parquet")
    users = p.data.split.train.users.id_of(engine.users(p)).astype(str)
    compared = 0
    for label, system in zip(names, [s.name for s in plan_systems(config)]):
        for m, values in explorer[label].items():
            if not isinstance(values, np.ndarray):
                continue
            theirs = scores[(scores["system"] == system) & (scores["measure"] == m)].set_index("user")["value"]
            np.testing.assert_array_equal(theirs.loc[users].to_numpy(), values, err_msg=f"{system} {m}")
            compared += 1
    assert compared >= 3 * (len(state.measures) - 1)


def test_exported_toml_names_the_state_and_systems(synthetic_engine):
    p = synthetic_engine.prepare(STATES[0])
    text = experiment_toml(synthetic_engine, p)
    assert text.startswith("# Exported by `recdiv explore`")
    assert "# Systems: baseline = pop, A = pop+A[genres], B = pop+B[genres]" in text
    data = tomllib.loads(text)
    assert data["diversifiers"][0] == {"name": "MMR", "label": "A", "params": {"lambda": 0.5},
                                       "aspects": ["genres"], "recommenders": ["pop"]}
    assert data["metrics"]["threshold"] == 4.0 and data["candidates"] == {"n": 50, "k": 10}


# the command line on ML-100K ---------------------------------------------------------------------------------
MEASURES = ["nDCG@10", "P@10", "EPC@10", "ILD@10", "alpha-nDCG@10", "ERR-IA@10"]


@pytest.mark.realdata
def test_ml100k_lists_and_values_equal_recommend_rerank_eval(data_root, tmp_path, capsys):
    catalog = Catalog({"ml-100k": DatasetChoice("ml-100k", "ml-100k", str(data_root))})
    engine = Engine(catalog)
    state = synthetic_state(dataset="ml-100k", split="u1", recommender="user-knn", n=100, k=10,
                            measures=tuple(MEASURES), b=D(reranker="xQuAD"))
    p = engine.prepare(state)
    d = tmp_path / "export"
    assert cli(["data", "export", "ml-100k", "--split", "u1", "--data-dir", str(data_root), "-o", str(d)]) == 0
    cand = tmp_path / "cand.run"
    assert cli(["recommend", "--dataset", "ml-100k", "--data-dir", str(data_root), "--split", "u1",
                "--algo", "user-knn", "-n", "100", "-o", str(cand)]) == 0
    users = set(p.data.split.train.users.id_of(engine.users(p)).astype(str))
    mine = _run_lines(run_text(engine, p, "baseline"), users)
    theirs = _run_lines(cand.read_text(), users)
    assert _top(theirs, 10) == mine  # the explorer's baseline is the top 10 of recommend's candidates
    for label, method, params in [("A", "MMR", ["lambda=0.5"]), ("B", "xQuAD", [])]:
        out = tmp_path / f"{label}.run"
        args = ["rerank", str(cand), "--method", method, "--aspects", str(d / "aspects.tsv"), "--train",
                str(d / "train.tsv"), "-k", "10", "--order", "rank", "-o", str(out)]
        assert cli(args + [a for x in params for a in ("--param", x)]) == 0
        text = run_text(engine, p, label)
        assert _run_lines(out.read_text(), users) == _run_lines(text, users), label
        run = tmp_path / f"{label}-explore.run"
        run.write_text(text)
        capsys.readouterr()
        assert cli(["eval", str(d / "test.qrels"), str(run), "-m", *MEASURES, "--aspects", str(d / "aspects.tsv"),
                    "--train", str(d / "train.tsv"), "--rating-scale", "1:5", "--per-user", "--format", "json"]) == 0
        per_user = _per_user(json.loads(capsys.readouterr().out))
        ranking, key = engine.ranking(p, label)
        values = engine.scores(p, ranking, key, MEASURES)
        ids = p.data.split.train.users.id_of(engine.users(p)).astype(str)
        for m in MEASURES:
            got = np.array([per_user[m][u] for u in ids])
            if m.startswith("ERR-IA"):  # sums over aspects in the aspect file's order, not the dataset's genre
                np.testing.assert_allclose(got, values[m], rtol=0, atol=1e-12, err_msg=f"{label} {m}")  # order
            else:
                np.testing.assert_array_equal(got, values[m], err_msg=f"{label} {m}")


def _run_lines(text: str, users: set[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        u, _, item, *_ = line.split()
        if u in users:
            out.setdefault(u, []).append(item)
    return out


def _top(lists: dict[str, list[str]], k: int) -> dict[str, list[str]]:
    return {u: items[:k] for u, items in lists.items()}


def _per_user(report) -> dict[str, dict[str, float]]:
    """{measure: {user: value}} of `recdiv eval --per-user --format json` for its one run."""
    (run,) = report["per_user"].values()
    return run
