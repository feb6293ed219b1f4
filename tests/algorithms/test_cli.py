"""`recdiv recommend` end to end on ML-100K u1 (real data) and its error handling."""

from __future__ import annotations

import pytest

from recdiv.cli import main
from recdiv.cli.params import parse_param
from recdiv.data.textio import read_trec_run
from recdiv.errors import ConfigError


def test_parse_param():
    assert parse_param("k=50") == ("k", 50)
    assert parse_param("alpha=0.5") == ("alpha", 0.5)
    assert parse_param("feedback=implicit") == ("feedback", "implicit")
    assert parse_param("save_nbrs=null") == ("save_nbrs", None)
    with pytest.raises(ConfigError):
        parse_param("k")


@pytest.mark.realdata
def test_recommend_writes_trec_run(tmp_path, data_root, capsys):
    out = tmp_path / "pop.run"
    rc = main(["recommend", "--dataset", "ml-100k", "--data-dir", str(data_root), "--split", "u1", "--algo", "pop",
               "-n", "20", "-o", str(out)])
    assert rc == 0
    run = read_trec_run(out)
    assert run["user"].nunique() == 459  # u1.test has 459 users
    assert run.groupby("user").size().eq(20).all()


@pytest.mark.realdata
def test_recommend_bad_param_exits_2(tmp_path, data_root, capsys):
    rc = main(["recommend", "--dataset", "ml-100k", "--data-dir", str(data_root), "--split", "u1", "--algo",
               "user-knn", "--param", "neighbours=5", "-o", str(tmp_path / "x.run")])
    assert rc == 2
    assert "neighbours" in capsys.readouterr().err
