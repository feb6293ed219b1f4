"""Item groups in experiments (`item_groups` = an explicit aspect space): FAIR reranks with its protected group,
AWRF and GroupExposure are evaluated over the groups, the other new rerankers (MSD, SSD, COVER, Swap, PlackettLuce)
and EE run as systems; the runner's lists and values equal the library's on the same split; a reranker or a measure
that needs groups without `item_groups` is a one-line error naming the key."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.errors import ConfigError
from recdiv.experiment.run.checks import check_components
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.components import check_component_params
from recdiv.experiment.spec.experiment import ExperimentConfig, validate
from tests.experiment.conftest import CANDIDATES_AND_GENRES

HEAD = """
name = "groups"
seed = 1
{groups}

[[datasets]]
name = "synthetic:tiny"
splits = ["kfold:2:1"]

[[recommenders]]
name = "pop"
""" + CANDIDATES_AND_GENRES

TOML = HEAD + """
[[diversifiers]]
name = "FAIR"
params = { group = "Drama", p = 0.6 }

[[diversifiers]]
name = "MSD"
aspects = ["genres"]

[[diversifiers]]
name = "SSD"
aspects = ["genres"]

[[diversifiers]]
name = "COVER"
aspects = ["genres"]

[[diversifiers]]
name = "Swap"
aspects = ["genres"]

[[diversifiers]]
name = "PlackettLuce"

[metrics]
measures = ["P@5", "AWRF@5", "GroupExposure(group=Drama)@5", "EE-L(samples=20)@5"]
threshold = 4
population = "judged"
"""


def _config(text: str, groups: str | None = "genres") -> ExperimentConfig:
    import tomllib

    return validate(tomllib.loads(text.replace("{groups}", "" if groups is None else f'item_groups = "{groups}"')),
                    "groups.toml")


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    config = _config(TOML)
    out = tmp_path_factory.mktemp("groups") / "out"
    run_experiment(config, out, progress=False)
    return config, pd.read_parquet(out / "scores.parquet"), out


def test_fair_and_group_measures_equal_the_library(ran):
    from recdiv.algorithms.registry import make_recommender
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.load import load_dataset
    from recdiv.data.qrels import Qrels
    from recdiv.data.splits import make_split
    from recdiv.diversifiers import make_reranker
    from recdiv.eval import EvalContext, parse_measure
    from recdiv.models.context import Context

    config, scores, _ = ran
    dataset = load_dataset("synthetic:tiny")
    split = make_split(dataset, "kfold:2:1", seed=config.seed)
    genres = dataset.attributes["genres"]
    groups = AspectSpace(split.train.items, genres.names, genres.matrix, "genres")
    qrels = Qrels.from_interactions(split.test)
    users = qrels.population(4, "judged")
    cands = make_recommender("pop").fit(split.train).recommend(users, 20)
    fair = make_reranker("FAIR", group="Drama", p=0.6).rerank(cands, 5, Context(train=split.train, item_groups=groups,
                                                                                   seed=config.seed))
    ctx = EvalContext(threshold=4, population="judged", train=split.train, item_groups=groups)
    systems = set(scores["system"])
    name = "pop+FAIR"
    for m in ("AWRF@5", "GroupExposure(group=Drama)@5", "P@5"):
        got = scores[(scores["system"] == name) & (scores["measure"] == m)]["value"].to_numpy()
        np.testing.assert_allclose(got, parse_measure(m).per_user(fair, qrels, ctx), err_msg=m)
    assert not np.allclose(  # the protected group moved the lists: FAIR's exposure of Drama differs from pop's
        scores[(scores["system"] == name) & (scores["measure"] == "GroupExposure(group=Drama)@5")]["value"],
        scores[(scores["system"] == "pop") & (scores["measure"] == "GroupExposure(group=Drama)@5")]["value"])
    for r in ("MSD", "SSD", "COVER", "Swap", "PlackettLuce"):
        assert any(s.startswith(f"pop+{r}") for s in systems), r
    ee = scores[scores["measure"] == "EE-L(samples=20)@5"]["value"]
    assert ee.notna().all() and (ee >= 0).all()


def test_groups_are_required_where_needed():
    no_groups = _config(TOML, None)
    with pytest.raises(ConfigError, match=r"diversifiers\[0\]\.name: FAIR needs item groups"):
        check_component_params(no_groups)
    without_fair = TOML.split("[[diversifiers]]")[0] + '[metrics]\nmeasures = ["P@5", "AWRF@5"]\n'
    with pytest.raises(ConfigError, match=r"groups.toml: metrics\.measures\[1\]: AWRF@5 needs item groups"):
        check_components(_config(without_fair, None))
    with pytest.raises(Exception, match="item_groups"):
        _config(without_fair, "nope")


def _union_area(points, ref) -> float:
    """Area of the union of the boxes [ref, p] (higher is better on both axes), by sweeping x downwards."""
    area, top = 0.0, ref[1]
    xs = sorted(points, key=lambda p: -p[0])
    for (x, y), nxt in zip(xs, [*xs[1:], (ref[0], None)]):
        top = max(top, y)
        area += max(0.0, x - max(nxt[0], ref[0])) * max(0.0, top - ref[1])
    return area


def test_report_fronts_are_the_means_front(ran):
    import json

    _, scores, out = ran
    fronts = json.loads((out / "fronts.json").read_text())
    (pair,) = [p for p in fronts["synthetic:tiny"] if p["y"] == "GroupExposure(group=Drama)@5"]
    (entry,) = pair["recommenders"]
    every = entry["all"]
    means = scores.groupby(["system", "measure"])["value"].mean()
    pts = {s: (means[(s, "P@5")], means[(s, "GroupExposure(group=Drama)@5")]) for s in every["systems"]}
    assert set(every["systems"]) == {"pop", *(s for s in set(scores["system"]) if s.startswith("pop+"))}
    front = {s for s, (x, y) in pts.items()
             if not any(a >= x and b >= y and (a, b) != (x, y) for a, b in pts.values())}
    assert set(every["front"]) == front
    ref = (min(x for x, _ in pts.values()), min(y for _, y in pts.values()))
    assert every["reference"] == pytest.approx(ref)
    assert every["hypervolume"]["value"] == pytest.approx(_union_area(list(pts.values()), ref))
    lo, hi = every["hypervolume"]["low"], every["hypervolume"]["high"]
    assert lo <= every["hypervolume"]["value"] <= hi and lo < hi
    assert "Fronts: GroupExposure(group=Drama)@5 against P@5" in (out / "report.html").read_text()
