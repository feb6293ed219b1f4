"""The [meta] section of an experiment: discriminative power from the scores, robustness curves from the lists,
perturbation experiments from the test ratings (the same values as `recdiv meta` on the split's files), in
meta_summary.json and in the report; [report] groups: systems compared inside user groups (on synthetic:tiny)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.eval.meta.discriminative import discriminative_power
from recdiv.experiment.report.summary import dataset_results
from recdiv.experiment.run.runner import run_experiment
from recdiv.experiment.spec.experiment import validate
from recdiv.experiment.storage.folder import read_results
from tests.experiment.conftest import tiny_data

META = {"analyses": ["dp", "asl", "sparsity", "popularity", "perturbation"], "measures": ["nDCG@5", "P@5"],
        "samples": 500,
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
    assert set(summary) == {"systems", "measures", "seed", "discriminative_power", "asl", "sparsity", "popularity",
                            "perturbation", "perturbation_splits"}
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
    assert "bottom_to_top: mean value per perturbation level" in page and "τ_b of the level ordering" in page
    assert len(list((out / "plots").glob("*robustness*.svg"))) == 2
    assert len(list((out / "plots").glob("*perturbation-level.svg"))) == 3  # means; and 3 p-value charts
    assert len(list((out / "plots").glob("*one-sided-Wilcoxon*.svg"))) == 3


def _recdiv_meta(config, spec: str, tmp_path, measures: list[str], capsys) -> dict:
    """`recdiv meta --analysis perturbation --format json` on split `spec` of the experiment written as files:
    test ratings as TREC qrels, the metrics' aspect space as a TSV, one run (the perturbation systems are simulated
    from the test ratings; runs are not used). Files hold ids as text: integer ids are zero-padded so that the
    files' sorted vocabulary keeps the dataset's order (the ideal ordering breaks ties by item index, METRICS.md
    §F.7; α-nDCG's ideal by the id's text, so α-nDCG matches only on a dataset with text ids); aspects are named by
    their index in the space (ties by aspect index)."""
    from recdiv.cli import main
    from recdiv.experiment.plan.inputs import Inputs
    from recdiv.experiment.tasks.spaces import build_explicit_space

    inputs = Inputs(config)
    split, _ = inputs.split(0, spec)
    test = split.test.matrix.tocoo()

    def text(ids) -> list[str]:
        return [f"{x:06d}" if isinstance(x, int | np.integer) else str(x) for x in ids]

    uid, iid = text(split.test.users.ids), text(split.test.items.ids)
    d = tmp_path / spec.replace(":", "-")
    d.mkdir()
    (d / "test.qrels").write_text("".join(f"{uid[u]} 0 {iid[i]} {r:g}\n" for u, i, r in
                                          zip(test.row, test.col, test.data)))
    (d / "one.run").write_text("".join(f"{uid[u]} Q0 {iid[i]} 1 1 one\n" for u, i in
                                       dict(zip(test.row, test.col)).items()))
    space = build_explicit_space(config.aspects[0], inputs.dataset(0)[0])
    member = space.membership.tocoo()
    (d / "aspects.tsv").write_text("".join(f"{iid[i]}\ta{a:03d}\n" for i, a in zip(member.row, member.col)))
    capsys.readouterr()
    argv = ["meta", str(d / "test.qrels"), str(d / "one.run"), "--aspects", str(d / "aspects.tsv"),
            "--analysis", "perturbation", "--rel-threshold", f"{config.metrics.threshold:g}",
            "--population", config.metrics.population, "--format", "json"]
    for m in measures:
        argv += ["-m", m]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["perturbation"]


def test_meta_perturbation_equals_recdiv_meta(tmp_path, capsys):
    """One split: the experiment's perturbation results are `recdiv meta`'s on the same test ratings and aspects
    (synthetic:tiny as a recdiv TSV folder, so that ids are text on both sides)."""
    from recdiv.data.load import load_dataset

    tiny = load_dataset("synthetic:tiny")
    folder = tmp_path / "tiny-tsv"
    folder.mkdir()
    x = tiny.interactions.matrix.tocoo()
    users, items = tiny.interactions.users.ids, tiny.interactions.items.ids
    (folder / "interactions.tsv").write_text("".join(f"u{users[u]}\ti{items[i]}\t{r:g}\n"
                                                     for u, i, r in zip(x.row, x.col, x.data)))
    g = tiny.attributes["genres"].matrix.tocoo()
    names = tiny.attributes["genres"].names.ids
    (folder / "genres.aspects.tsv").write_text("".join(f"i{items[i]}\t{names[a]}\n" for i, a in zip(g.row, g.col)))
    data = tiny_data()
    data["datasets"] = [{"name": str(folder), "splits": ["kfold:2:1"]}]
    data["diversifiers"] = []
    measures = ["nDCG@5", "P@5", "alpha-nDCG@5"]
    data["meta"] = {"analyses": ["perturbation"], "measures": measures}
    config = validate(data, "tiny.toml")
    out = tmp_path / "out"
    run_experiment(config, out, progress=False)
    got = json.loads((out / "meta_summary.json").read_text("utf-8"))[config.datasets[0].key]
    assert got["perturbation_splits"] == 1 and "discriminative_power" not in got
    want = _recdiv_meta(config, "kfold:2:1", tmp_path, measures, capsys)
    assert set(got["perturbation"]) == set(want) == {"bottom_to_top", "redundant_aspect", "aspect_swap"}
    for fam, results in want.items():
        assert set(results) == set(measures)
        for m, w in results.items():
            g = got["perturbation"][fam][m]
            assert g["levels"] == w["levels"], (fam, m)
            assert g["means"] == pytest.approx(w["means"], rel=1e-12), (fam, m)
            assert g["pvalues"] == pytest.approx(w["pvalues"], rel=1e-9), (fam, m)
            assert g["tau"] == pytest.approx(w["tau"]), (fam, m)
    assert got["perturbation"]["bottom_to_top"]["nDCG@5"]["tau"] == pytest.approx(1.0)


def test_meta_perturbation_pools_the_splits(meta_run, tmp_path, capsys):
    """Two splits: each level's per-user values are pooled, so a pooled mean is the user-weighted mean of the
    splits' `recdiv meta` means (a split whose lists stop changing keeps its last level's values)."""
    import pandas as pd

    config, out = meta_run
    pooled = json.loads((out / "meta_summary.json").read_text("utf-8"))["synthetic:tiny"]["perturbation"]
    scores = pd.read_parquet(out / "scores.parquet")
    per_split = {spec: _recdiv_meta(config, spec, tmp_path, ["nDCG@5", "P@5"], capsys)
                 for spec in config.datasets[0].splits}
    for fam in ("bottom_to_top", "redundant_aspect", "aspect_swap"):
        for m in ("nDCG@5", "P@5"):
            parts = [(np.array(r[fam][m]["levels"]), np.array(r[fam][m]["means"]),
                      len(scores[(scores["split"] == spec) & (scores["system"] == "pop") & (scores["measure"] == m)]))
                     for spec, r in per_split.items()]
            levels = sorted({int(s) for lv, _, _ in parts for s in lv})
            assert pooled[fam][m]["levels"] == levels
            want = [sum(n * mean[np.searchsorted(lv, s, side="right") - 1] for lv, mean, n in parts)
                    / sum(n for _, _, n in parts) for s in levels]
            assert pooled[fam][m]["means"] == pytest.approx(want, rel=1e-12)


def test_meta_split_analyses_are_cached(meta_run, monkeypatch):
    """`--resume` reuses each split's robustness curves and perturbation values from the store."""
    import recdiv.eval.meta.perturbation as pert
    import recdiv.eval.meta.study as study

    config, out = meta_run
    before = (out / "meta.json").read_text("utf-8")

    def fail(*args, **kwargs):
        raise AssertionError("recomputed")

    for mod, name in ((pert, "perturbation_values"), (study, "sparsity_robustness"), (study, "popularity_robustness")):
        monkeypatch.setattr(mod, name, fail)
    run_experiment(config, out, resume=True, progress=False)
    assert (out / "meta.json").read_text("utf-8") == before


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
    for bad, where in (({"perturbation_families": ["bottom_to_top", "bottom_to_top"]}, "listed twice"),
                       ({"perturbation_families": ["top_to_bottom"]}, r"meta\.perturbation_families\[0\]"),
                       ({"perturbation_k": 0}, r"meta\.perturbation_k"), ({"perturbation_level": 3}, "unknown key")):
        data["meta"] = bad
        with pytest.raises(ConfigError, match=where):
            validate(data, "tiny.toml")
    bare = {**tiny_data(), "aspects": [], "diversifiers": [], "meta": {"analyses": ["perturbation"]}}
    bare["metrics"] = {**bare["metrics"], "measures": ["P@5", "nDCG@5"]}
    with pytest.raises(ConfigError, match=r"meta\.analyses: `perturbation` .* aspect space"):
        validate(bare, "tiny.toml")


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
