"""Measures against another list in experiments: RBO, LIP and ESSD against the system's candidate list (the
recommender's top n), lexirecall and lexiprecision against the system's baseline of [statistics] (its recommender's
list by default, or the named system). The runner's values equal recdiv's own on the same lists, bit for bit; a
baseline compared with itself prefers nothing (0); [meta] leaves them out, and refuses them by name."""

from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pytest

from recdiv.errors import ConfigError
from recdiv.experiment.run.checks import check_components
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate

from .conftest import small_toml

HEAD = """
name = "against"
seed = 2

[[datasets]]
name = "synthetic:tiny"
splits = ["kfold:2:1"]

[[recommenders]]
name = "pop"

[[recommenders]]
name = "pure-svd"
label = "SVD"
params = { factors = 6 }
"""
MEASURES = ["P@5", "RBO@5", "RBO(p=0.5,norm=geometric)@5", "LIP@5", "ESSD@5", "lexirecall@5", "lexiprecision@5"]
METRICS = f"measures = {MEASURES!r}\nthreshold = 4\npopulation = \"judged\"".replace("'", '"')
MMR = "pop+MMR(lambda=0.5)[genres]"


def _config(tail: str = ""):
    return validate(tomllib.loads(small_toml(HEAD, METRICS, tail)), "against.toml")


def _run(tmp_path, tail: str = "") -> pd.DataFrame:
    run_experiment(_config(tail), tmp_path / "out", progress=False)
    return pd.read_parquet(tmp_path / "out" / "scores.parquet")


def _library_lists():
    """The split, qrels, evaluation context and every system's lists, made with the library as the runner does."""
    from recdiv.algorithms.registry import make_recommender
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.load import load_dataset
    from recdiv.data.qrels import Qrels
    from recdiv.data.splits import make_split
    from recdiv.diversifiers import make_reranker
    from recdiv.eval import EvalContext
    from recdiv.models.context import Context

    dataset = load_dataset("synthetic:tiny")
    split = make_split(dataset, "kfold:2:1", seed=2)
    genres = dataset.attributes["genres"]
    space = AspectSpace(split.train.items, genres.names, genres.matrix, "genres")
    qrels = Qrels.from_interactions(split.test)
    users = qrels.population(4, "judged")
    cands = {"pop": make_recommender("pop").fit(split.train).recommend(users, 20),
             "SVD": make_recommender("pure-svd", factors=6, seed=2).fit(split.train).recommend(users, 20)}
    lists = {name: c.truncate(5) for name, c in cands.items()}
    for rec in ("pop", "SVD"):
        lists[f"{rec}+MMR(lambda=0.5)[genres]"] = make_reranker("MMR", **{"lambda": 0.5}).rerank(
            cands[rec], 5, Context(train=split.train, aspects=space, seed=2))
    ctx = EvalContext(threshold=4, population="judged", train=split.train, aspects=space)
    return qrels, ctx, cands, lists


def _values(scores: pd.DataFrame, system: str, measure: str) -> np.ndarray:
    return scores[(scores["system"] == system) & (scores["measure"] == measure)]["value"].to_numpy()


def test_values_are_the_library_values_on_the_same_lists(tmp_path):
    from dataclasses import replace

    from recdiv.eval import evaluate

    scores = _run(tmp_path)
    qrels, ctx, cands, lists = _library_lists()
    baseline = {"pop": "pop", "SVD": "pop", MMR: "pop", "SVD+MMR(lambda=0.5)[genres]": "SVD"}
    for system, run in lists.items():
        rec = system.split("+")[0]
        np.testing.assert_array_equal(_values(scores, system, "P@5"),
                                      evaluate(run, qrels, ["P@5"], ctx).user_values("run", "P@5"))
        own = replace(ctx, previous=cands[rec], cache=type(ctx.cache)())  # eval --previous (the view is cached)
        reference = evaluate(run, qrels, MEASURES[1:5], own)
        for m in MEASURES[1:5]:
            np.testing.assert_array_equal(_values(scores, system, m), reference.user_values("run", m), err_msg=m)
        base = lists[baseline[system]]
        pairwise = evaluate({"run": run, "base": base}, qrels, MEASURES[5:], ctx, baseline="base")  # --baseline
        for m in MEASURES[5:]:
            np.testing.assert_array_equal(_values(scores, system, m), pairwise.user_values("run", m), err_msg=m)
    # what the numbers say: a recommender's top 5 is the top of its own candidates; MMR moved the lists
    assert (_values(scores, "pop", "RBO@5") == 1).all() and (_values(scores, "pop", "LIP@5") == 0).all()
    assert (_values(scores, "pop", "lexirecall@5") == 0).all()  # the first recommender: its own baseline
    assert _values(scores, MMR, "RBO@5").mean() < 1 and _values(scores, MMR, "LIP@5").max() > 0
    assert set(np.unique(_values(scores, "SVD", "lexirecall@5"))) <= {-1.0, 0.0, 1.0}
    assert (_values(scores, "SVD", "lexirecall@5") != 0).any()


def test_a_named_baseline_is_the_pairwise_baseline(tmp_path):
    """statistics.baseline names a diversified system: every other system's preferences are over its lists (its
    task runs first: a dependency), and it prefers nothing over itself."""
    from recdiv.eval.evaluate import preference_per_user

    scores = _run(tmp_path, f'[statistics]\nbaseline = "{MMR}"\n')
    qrels, ctx, _, lists = _library_lists()
    for system, run in lists.items():
        want = (np.zeros(len(_values(scores, system, "P@5"))) if system == MMR
                else preference_per_user("lexirecall@5", run, lists[MMR], qrels, ctx))
        np.testing.assert_array_equal(_values(scores, system, "lexirecall@5"), want, err_msg=system)
    summary = pd.read_csv(tmp_path / "out" / "summary.csv")
    tested = summary[(summary["measure"] == "lexirecall@5") & (summary["system"] == "pop")]
    assert tested["baseline"].tolist() == [MMR] and np.isfinite(tested["p_value"]).all()


def test_plan_keys_and_dependencies():
    from recdiv.experiment.plan.graph import plan_split
    from recdiv.experiment.plan.systems import plan_systems

    config = _config(f'[statistics]\nbaseline = "{MMR}"\n')
    systems = plan_systems(config)
    tasks = plan_split(config, systems, 0, "kfold:2:1", "d", "s", 0)
    by_name = {t.plan.system.name: (i, t) for i, t in enumerate(tasks) if t.kind == "system"}
    mmr_id, mmr = by_name[MMR]
    assert mmr.plan.baseline is None  # the baseline itself
    _, pop = by_name["pop"]
    assert pop.plan.baseline == (MMR, mmr.plan.candidates_key, mmr.plan.ranking_key) and mmr_id in pop.deps
    plain = validate(tomllib.loads(small_toml(HEAD, 'measures = ["P@5", "RBO@5"]\nthreshold = 4\npopulation = '
                                              '"judged"', f'[statistics]\nbaseline = "{MMR}"\n')), "plain.toml")
    keys = {t.plan.system.name: t.plan.scores_key for t in plan_split(plain, plan_systems(plain), 0, "kfold:2:1",
                                                                        "d", "s", 0) if t.kind == "system"}
    again = {t.plan.system.name: t.plan.scores_key for t in tasks if t.kind == "system"}
    assert keys[MMR] == again[MMR]  # no pairwise comparison of its own: the key of an experiment without one
    assert keys["pop"] != again["pop"]  # its preferences depend on the baseline's lists


def test_meta_leaves_them_out_and_refuses_them_by_name():
    from recdiv.experiment.analyses.meta import meta_measures

    config = _config('[meta]\nanalyses = ["dp"]\n')
    assert meta_measures(config, MEASURES) == ["P@5"]
    named = _config('[meta]\nanalyses = ["dp"]\nmeasures = ["P@5", "RBO@5"]\n')
    with pytest.raises(ConfigError, match=r"against.toml: meta.measures\[1\]: RBO@5 compares a system's lists "
                                          r"with other lists"):
        check_components(named)
