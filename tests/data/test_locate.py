"""Where the loaders look for a dataset by name: a given --data-dir alone (it must exist), else RECDIV_DATA (which
must exist when set), ../shared/data and the folder `recdiv data fetch` stores into."""

from __future__ import annotations

import pytest

from recdiv.cli import main
from recdiv.data import fetch, locate
from recdiv.errors import DataError


def test_fetch_stores_where_the_loaders_look(monkeypatch):
    monkeypatch.delenv("RECDIV_DATA", raising=False)
    assert fetch.default_dir() == locate.FETCH_HOME


def test_a_fetched_dataset_is_found_by_name(tmp_path, monkeypatch):
    home = tmp_path / "cache"
    (home / "my-data").mkdir(parents=True)
    monkeypatch.setattr(locate, "FETCH_HOME", home)
    monkeypatch.delenv("RECDIV_DATA", raising=False)
    assert locate.dataset_path("my-data") == home / "my-data"
    assert home in locate.search_dirs()
    with pytest.raises(DataError, match=r"no dataset 'nope': .*`recdiv data fetch NAME` downloads one of ml-100k, "):
        locate.dataset_path("nope")


def test_a_missing_data_dir_is_an_error_not_a_fallback(tmp_path, monkeypatch, capsys):
    with pytest.raises(DataError, match=r"--data-dir .*: no such folder"):
        locate.dataset_path("ml-100k", tmp_path / "typo")
    monkeypatch.setenv("RECDIV_DATA", str(tmp_path / "typo"))
    with pytest.raises(DataError, match=r"RECDIV_DATA=.*: no such folder"):
        locate.dataset_path("ml-100k")
    monkeypatch.delenv("RECDIV_DATA")
    assert main(["data", "info", "ml-100k", "--data-dir", str(tmp_path / "typo")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["recommend", "--dataset", "ml-100k", "--data-dir", str(tmp_path / "typo"), "--split", "u1",
                 "--algo", "pop", "-o", str(tmp_path / "x.run")]) == 2
    assert "no such folder" in capsys.readouterr().err
