"""The smaller traps a newcomer met (issue 25), each fixed: `--param norm=none`, a ratings file given as qrels,
dataset names without a did-you-mean, and dist=latent-cosine asking `eval` for an option it does not have."""

from __future__ import annotations

import pytest

from recdiv.cli import main
from recdiv.cli.params import parse_params
from recdiv.diversifiers import make_reranker
from recdiv.errors import ConfigError, DataError


def test_param_none_is_the_word_where_a_field_takes_it():
    assert make_reranker("Calibrated", **parse_params(["norm=none"])).config.norm == "none"
    assert make_reranker("Calibrated", **parse_params(['norm="none"'])).config.norm == "none"
    with pytest.raises(ConfigError, match="lambda"):  # a number field still refuses None
        make_reranker("MMR", **parse_params(["lambda=none"]))


def test_ratings_file_as_qrels_says_what_it_looks_like(tmp_path, capsys):
    (tmp_path / "u.data").write_text("1\t6\t5\t887431973\n1\t10\t3\t875693118\n")
    (tmp_path / "r.run").write_text("1 Q0 6 1 2.0 t\n")
    assert main(["eval", str(tmp_path / "u.data"), str(tmp_path / "r.run")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'u.data'}:1: grade must be between -127 and 127" in err
    assert "looks like user item rating timestamp" in err and "awk '{print $1, 0, $2, $3}'" in err


def test_dataset_did_you_mean(tmp_path, monkeypatch):
    from recdiv.data.locate import dataset_path

    (tmp_path / "ml-100k").mkdir()
    monkeypatch.setenv("RECDIV_DATA", str(tmp_path))
    with pytest.raises(DataError, match=r"no dataset 'ml100' \(did you mean 'ml-100k'\?\)"):
        dataset_path("ml100")
    with pytest.raises(DataError, match=r"no dataset 'ml-10k' \(did you mean 'ml-100k'\?\)"):
        dataset_path("ml-10k")
    # an official dataset that is not downloaded is said so, with the command that fetches it (no "did you mean"
    # itself)
    with pytest.raises(DataError, match=r"dataset 'ml-1m' is not downloaded: not found in .*`recdiv data fetch ml-1m`"):
        dataset_path("ml-1m")
    monkeypatch.delenv("RECDIV_DATA")
    monkeypatch.setattr("recdiv.data.locate.search_dirs", lambda explicit=None: [])
    with pytest.raises(DataError, match=r"'ml-100k' is not downloaded: no data folder exists \(searched \$RECDIV_DATA"):
        dataset_path("ml-100k")


def test_latent_cosine_in_eval_names_a_route(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 1 5\n")
    (tmp_path / "r").write_text("1 Q0 1 1 2.0 t\n")
    assert main(["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "ILD(dist=latent-cosine)@10"]) == 2
    err = capsys.readouterr().err
    assert "--similarity" not in err and "dist=cosine or dist=jaccard with --aspects FILE" in err
