"""The runner end to end on synthetic:tiny: outputs, resume without work, interruption + resume, reports."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recdiv.cli import main
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.experiment.tasks import system as system_task
from tests.experiment.conftest import TINY_TOML, tiny_data

# 2 splits × (2 recommenders + 9 diversified systems)
N_SYSTEMS = 11
EXPECTED = Counter({"fit": 4, "candidates": 4, "aspects": 1 + 2, "rerank": 2 * 9, "scores": 2 * N_SYSTEMS})


def _run(config, out, **kw):
    return run_experiment(config, out, progress=False, **kw)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["dataset", "split", "system", "measure", "user"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    config = validate(tiny_data(), "tiny.toml")
    out = tmp_path_factory.mktemp("first") / "out"
    result = _run(config, out)
    return config, out, result, pd.read_parquet(out / "scores.parquet")


def test_outputs(first):
    _, out, result, scores = first
    assert result.computed == EXPECTED
    assert sum(result.cached.values()) == 0
    for name in ["scores.parquet", "system_scores.parquet", "summary.csv", "summary.md", "summary.tex",
                 "report.html", "experiment.json", "systems.json"]:
        assert (out / name).is_file(), name
    assert list(scores.columns) == ["dataset", "split", "system", "measure", "user", "value"]
    assert scores["system"].nunique() == N_SYSTEMS
    assert set(scores["split"]) == {"kfold:2:1", "kfold:2:2"}
    assert set(scores["measure"]) == {"P@5", "nDCG@5", "ILD@5", "alpha-nDCG@5", "EPC@5"}
    # paired: every system has a value for the same (split, user) pairs of every measure
    sizes = scores.groupby(["system", "measure"]).size()
    assert sizes.nunique() == 1
    sl = pd.read_parquet(out / "system_scores.parquet")
    assert set(sl["measure"]) == {"AggregateDiversity@5"} and len(sl) == 2 * N_SYSTEMS
    assert not list(out.rglob(".*.tmp"))


def test_inline_run_keeps_no_dataset_in_the_process(first):
    """The datasets, splits and contexts of inline tasks live in the run's own `Inputs`, which goes with the run;
    the main process never holds a worker's environment."""
    import gc

    from recdiv.experiment.execution import workers
    from recdiv.experiment.plan.inputs import Inputs
    from recdiv.experiment.tasks.environment import TaskEnv

    gc.collect()
    # type(o), not isinstance: a dead weak proxy among the objects raises ReferenceError on isinstance
    assert not [o for o in gc.get_objects() if issubclass(type(o), Inputs | TaskEnv)]
    assert workers._served is None


def test_baseline_scores_match_direct_evaluation(first):
    """The runner's per-user P@5 of the popularity baseline equals evaluating its top-5 directly."""
    from recdiv.algorithms.registry import make_recommender
    from recdiv.data.load import load_dataset
    from recdiv.data.qrels import Qrels
    from recdiv.data.splits import make_split
    from recdiv.eval import EvalContext, parse_measure

    config, _, _, scores = first
    split = make_split(load_dataset("synthetic:tiny"), "kfold:2:1", seed=config.seed)
    qrels = Qrels.from_interactions(split.test)
    ctx = EvalContext(threshold=4, population="judged")
    users = qrels.population(4, "judged")
    run = make_recommender("pop").fit(split.train).recommend(users, 5)
    expected = parse_measure("P@5").per_user(run, qrels, ctx)
    got = scores[(scores["system"] == "pop") & (scores["split"] == "kfold:2:1") & (scores["measure"] == "P@5")]
    np.testing.assert_allclose(got["value"].to_numpy(), expected)
    assert got["user"].tolist() == [str(u) for u in qrels.users.id_of(users)]


def test_resume_does_no_work_and_gives_identical_results(first, tiny_file, capsys):
    config, out, _, scores = first
    result = _run(config, out, resume=True, report=False)
    assert result.computed == Counter()
    assert result.cached["scores"] == 2 * N_SYSTEMS
    pd.testing.assert_frame_equal(_sorted(pd.read_parquet(out / "scores.parquet")), _sorted(scores))
    # the same through the command line
    assert main(["run", str(tiny_file), "--out", str(out), "--resume", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "computed: nothing" in captured.err
    assert f"report: {out / 'report.html'}" in captured.out


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_interrupted_run_resumes_to_identical_results(first, tmp_path, monkeypatch, error):
    config, _, _, scores = first
    out = tmp_path / "out"
    real = system_task.evaluate_ranking
    calls = {"n": 0}

    def failing(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 8:
            raise error("simulated crash")
        return real(*args, **kw)

    monkeypatch.setattr(system_task, "evaluate_ranking", failing)
    with pytest.raises(error):
        _run(config, out, report=False)
    assert not list(out.rglob(".*.tmp"))  # nothing half-written
    assert len(list((out / "cache" / "scores").rglob("*.parquet"))) == 7
    assert not (out / "scores.parquet").exists()
    monkeypatch.setattr(system_task, "evaluate_ranking", real)
    result = _run(config, out, resume=True, report=False)
    assert result.computed["scores"] == 2 * N_SYSTEMS - 7
    assert result.cached["scores"] == 7
    pd.testing.assert_frame_equal(_sorted(pd.read_parquet(out / "scores.parquet")), _sorted(scores))


def test_fresh_run_recomputes(first, tmp_path):
    _, out, _, scores = first
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    data = tiny_data()
    data["diversifiers"] = data["diversifiers"][:1]
    data["metrics"]["measures"] = ["P@5", "ILD@5", "nDCG@10"]  # one new measure
    small = validate(data)
    resumed = _run(small, copy, resume=True, report=False)
    # 10 systems on 2 splits: only the new measure is computed (scores rewritten), no refit, no rerank
    assert resumed.computed == Counter({"scores": 2 * 10})
    fresh = _run(small, copy, resume=False, report=False)
    assert fresh.computed == Counter({"fit": 4, "candidates": 4, "aspects": 3, "rerank": 16, "scores": 20})
    new = pd.read_parquet(copy / "scores.parquet")
    old = scores[scores["system"].isin(new["system"].unique()) & scores["measure"].isin(["P@5", "ILD@5"])]
    pd.testing.assert_frame_equal(_sorted(new[new["measure"] != "nDCG@10"]), _sorted(old))


def test_report_is_rebuilt_from_scores(first, tmp_path, capsys):
    _, out, _, _ = first
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("cache"))
    before = (copy / "summary.csv").read_text("utf-8")
    for name in ["summary.csv", "summary.md", "summary.tex", "report.html"]:
        (copy / name).unlink()
    shutil.rmtree(copy / "plots")
    assert main(["report", str(copy)]) == 0
    assert f"report: {copy / 'report.html'}" in capsys.readouterr().out
    assert (copy / "summary.csv").read_text("utf-8") == before
    page = (copy / "report.html").read_text("utf-8")
    charts = re.findall(r"<div class='chart' id='(chart\d+)' role='img' aria-label='([^']*)'", page)
    svgs = sorted((copy / "plots").glob("*.svg"))
    # trade-off charts (P@5 against ILD@5, alpha-nDCG@5, EPC@5) and one means chart per measure (6)
    assert len(charts) == len(svgs) == 3 + 6
    assert "synthetic:tiny: ILD@5 vs P@5" in [label for _, label in charts]
    assert all(p.read_bytes().lstrip().startswith(b"<?xml") for p in svgs)
    assert "<table class='means'>" in page and "SVD+IASelect[genres]" in page
    # self-contained: plotly.js inline, nothing loaded from elsewhere
    assert page.count("<script") == 1 + len(charts) and "<script src" not in page and "<link" not in page
    assert "Plotly.newPlot" in page


def test_report_of_a_folder_without_results(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "not an experiment output folder" in capsys.readouterr().err


def test_run_command_reports_bad_files(tmp_path, capsys):
    p = tmp_path / "bad.toml"
    p.write_text(TINY_TOML.replace('population = "judged"', 'population = "all"'), "utf-8")
    assert main(["run", str(p), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"recdiv: error: {p}: metrics.population: Input should be 'relevant' or 'judged'")


def test_parallel_run_gives_identical_results(first, tmp_path):
    _, _, _, scores = first
    data = tiny_data()
    data["datasets"][0]["splits"] = ["kfold:2:1"]
    small = validate(data)
    result = _run(small, tmp_path / "par", jobs=2)
    assert result.computed == Counter({"fit": 2, "candidates": 2, "aspects": 2, "rerank": 9, "scores": 11})
    par = pd.read_parquet(tmp_path / "par" / "scores.parquet")
    pd.testing.assert_frame_equal(_sorted(par), _sorted(scores[scores["split"] == "kfold:2:1"]))


def test_paths_are_relative_to_cwd(tiny_config, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert tiny_config.output_dir() == Path("results") / "tiny"
    assert tiny_config.output_dir("x") == Path("x")
