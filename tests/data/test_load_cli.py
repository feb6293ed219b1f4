"""load_dataset, dataset_stats and `recdiv data info` (`recdiv data fetch`: test_fetch.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from recdiv import ConfigError, DataError
from recdiv.arrays.concentration import gini
from recdiv.cli import main
from recdiv.data.load import detect_format, load_dataset
from recdiv.data.stats import dataset_stats
from recdiv.data.synthetic import generate


def test_gini_worked_example():
    """METRICS.md §B.9 example: counts a=3, b=2, c=1 over a catalog of 5 items -> G = 0.6667."""
    assert gini(np.array([3, 2, 1, 0, 0])) == pytest.approx(2 / 3)
    assert gini(np.ones(7)) == pytest.approx(0, abs=1e-12) and gini(np.array([0, 0, 5])) == pytest.approx(1.0)
    assert gini(np.zeros(3)) == 0


def test_stats_keys_on_synthetic():
    s = dataset_stats(generate("tiny"))
    for key in ("users", "items", "interactions", "density", "gini", "rating_scale", "aspects"):
        assert key in s
    assert (s["users"], s["items"], s["interactions"]) == (40, 120, 1200)
    assert s["density"] == pytest.approx(0.25) and s["rating_scale"] == [1.0, 5.0]
    assert s["aspects"] == {"genres": 18}


@pytest.mark.realdata
def test_load_dataset_by_name_path_and_alias(data_root):
    a = load_dataset("ml-100k", data_dir=data_root, splits=False)
    b = load_dataset(data_root / "ml-100k", splits=False)
    c = load_dataset("ml100k", data_root, splits=False)
    assert a.interactions.nnz == b.interactions.nnz == c.interactions.nnz == 100_000
    assert not a.splits and a.name == c.name == "ml-100k"
    assert detect_format(data_root / "hetrec2011-lastfm-2k") == "hetrec-lastfm"
    h = load_dataset("lastfm-2k", data_root, min_tag_users=5)
    assert h.attributes["tags"].n_values == 312
    assert detect_format(data_root / "ml-latest-small") == "movielens-csv"
    with pytest.raises(ConfigError, match=r"unknown option 'min_tag_users' of the ml-100k loader"):
        load_dataset("ml-100k", data_root, min_tag_users=2)


def test_load_dataset_synthetic_and_unknown(tmp_path):
    assert load_dataset("synthetic").interactions.nnz == 60_000
    ds = load_dataset("synthetic:tiny", seed=2)
    assert ds.name == "synthetic:tiny:seed=2"
    with pytest.raises(DataError, match="unknown dataset format"):
        load_dataset(tmp_path)
    with pytest.raises(DataError, match="no dataset 'nope'"):
        load_dataset("nope", data_dir=tmp_path)


def test_load_recdiv_tsv_folder(tmp_path):
    (tmp_path / "interactions.tsv").write_text("u1\ti1\t4\t10\nu1\ti2\t2\t11\nu2\ti1\t5\t12\n")
    (tmp_path / "genres.aspects.tsv").write_text("i1\tDrama\ni2\tComedy\ni3\tDrama\n")
    ds = load_dataset(tmp_path)
    assert ds.interactions.nnz == 3 and ds.items.ids.tolist() == ["i1", "i2", "i3"]
    assert ds.interactions.scale == (2.0, 5.0)
    assert ds.attributes["genres"].matrix.toarray().tolist() == [[0, 1], [1, 0], [0, 1]]


# CLI ---------------------------------------------------------------------------------------------------------
@pytest.mark.realdata
def test_cli_info_json_ml100k(ml100k_dir, capsys):
    assert main(["data", "info", str(ml100k_dir), "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert (s["users"], s["items"], s["interactions"]) == (943, 1682, 100_000)
    assert s["density"] == pytest.approx(100_000 / (943 * 1682))
    assert s["rating_scale"] == [1.0, 5.0] and s["aspects"] == {"genres": 19}
    items = pd.read_csv(ml100k_dir / "u.data", sep="\t", header=None)[1].to_numpy()
    counts = np.bincount(items, minlength=1683)[1:]
    assert s["gini"] == pytest.approx(gini(counts))


@pytest.mark.realdata
def test_cli_info_table_hetrec(data_root, capsys):
    assert main(["data", "info", "hetrec2011-lastfm-2k", "--data-dir", str(data_root)]) == 0
    out = capsys.readouterr().out
    assert "17,632" in out and "92,834" in out and "186,479" in out and "implicit" in out


def test_cli_info_bad_input_one_line_exit_2(tmp_path, capsys):
    d = tmp_path / "ml"
    d.mkdir()
    (d / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,2,abc,964982703\n")
    (d / "movies.csv").write_text("movieId,title,genres\n1,A,Drama\n")
    assert main(["data", "info", str(d)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"recdiv: error: {d / 'ratings.csv'}:3: rating must be a number, got 'abc'"]


def test_cli_data_without_subcommand(capsys):
    assert main(["data"]) == 2
