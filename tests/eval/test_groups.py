"""User groups (recdiv.eval.groups): quantile labels, profile size and mainstreaminess, group files, per-group
means and tests through the API, `recdiv eval --groups` and `recdiv compare --groups`."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from recdiv.cli import main
from recdiv.data.interactions import Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError, DataError
from recdiv.eval.groups import (
    group_labels,
    mainstreaminess,
    parse_spec,
    profile_sizes,
    quantile_labels,
    read_group_file,
)
from recdiv.eval.results import Results
from tests.eval.test_compare_cli import LISTS, REL, _p2, files  # noqa: F401  (fixture)


def test_quantile_labels_by_hand():
    # cuts at the 1/3 and 2/3 quantiles of (1, 2, 3, 4, 5, 6) = 2.667, 4.333
    labels = quantile_labels(np.array([1, 2, 3, 4, 5, 6]), 3, "size", lambda v: f"{v:.0f}")
    assert list(labels) == ["Q1 size 1–2", "Q1 size 1–2", "Q2 size 3–4", "Q2 size 3–4", "Q3 size 5–6",
                            "Q3 size 5–6"]
    # ties at a cut go to the lower group: median of (1, 1, 1, 2) is 1
    assert list(quantile_labels(np.array([1, 1, 1, 2]), 2, "n")) == ["Q1 n 1–1"] * 3 + ["Q2 n 2–2"]


def _train():
    # users u0: items a, b; u1: a; u2: a, b, c  → item popularity a 3, b 2, c 1
    m = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1]], dtype=float))
    return Interactions(Vocab(["u0", "u1", "u2"]), Vocab(["a", "b", "c"]), m)


def test_profile_size_and_mainstreaminess_by_hand():
    tr = _train()
    assert list(profile_sizes(tr, [0, 1, 2])) == [2, 1, 3]
    assert mainstreaminess(tr, [0, 1, 2]) == pytest.approx([(3 + 2) / 2, 3.0, (3 + 2 + 1) / 3])
    labels = group_labels("popularity:2", ["u0", "u1", "u2"], train=tr, user_index=[0, 1, 2])
    assert labels[1] != labels[2] and labels[1].startswith("Q2")  # u1 watches only the most popular item


def test_group_file_and_specs(tmp_path):
    f = tmp_path / "g.tsv"
    f.write_text("u1\tcold\nu2\twarm\n# comment\n\nu3\twarm\n")
    assert read_group_file(f) == {"u1": "cold", "u2": "warm", "u3": "warm"}
    assert list(group_labels(str(f), ["u2", "u9", "u1"])) == ["warm", None, "cold"]
    (tmp_path / "bad.tsv").write_text("u1\tcold\nu1\twarm\n")
    with pytest.raises(DataError, match="two groups"):
        read_group_file(tmp_path / "bad.tsv")
    with pytest.raises(ConfigError):
        parse_spec("profile-size:1")
    with pytest.raises(ConfigError, match="neither"):
        parse_spec("no-such-file.tsv")
    with pytest.raises(ConfigError, match="--train"):
        group_labels("profile-size", ["u1"])


def test_results_by_group_and_compare_groups():
    rng = np.random.default_rng(0)
    a, b = rng.random(40), rng.random(40)
    res = Results({"A": {"m": a}, "B": {"m": b}})
    labels = np.array(["x"] * 15 + ["y"] * 25, dtype=object)
    parts = res.by_group(labels)
    assert list(parts) == ["x", "y"] and parts["x"].mean("A", "m") == pytest.approx(a[:15].mean())
    cmp = res.compare_groups(labels, test="t", correction="holm")
    assert cmp["y"].pair("A", "B", "m").p_value == pytest.approx(stats.ttest_rel(a[15:], b[15:]).pvalue)
    with pytest.raises(ConfigError):
        res.by_group(labels[:10])


def test_cli_groups(files, capsys, tmp_path):  # noqa: F811
    q, runs = files
    g = tmp_path / "groups.tsv"
    g.write_text("u1\tone\nu2\tone\nu3\tone\nu4\ttwo\nu5\ttwo\nu6\ttwo\n")
    assert main(["compare", q, *runs, "-m", "P@2", "--groups", str(g), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    vals = {n: _p2(LISTS[n]) for n in LISTS}  # users in sorted order u1..u6
    one = out["groups"]["one"]
    assert one["n"] == 3 and one["means"]["good"] == pytest.approx(vals["good"][:3].mean())
    assert one["pairs"][0]["p_value"] == pytest.approx(
        stats.ttest_rel(vals["good"][:3], vals["mid"][:3]).pvalue)
    assert main(["eval", q, *runs, "-m", "P@2", "--groups", str(g), "--format", "json"]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["groups"]["two"]["runs"]["bad"]["P@2"] == pytest.approx(vals["bad"][3:].mean())
    assert main(["eval", q, *runs, "-m", "P@2", "--groups", "profile-size"]) == 2
    assert "--train" in capsys.readouterr().err
    assert sorted(REL) == ["u1", "u2", "u3", "u4", "u5", "u6"]
