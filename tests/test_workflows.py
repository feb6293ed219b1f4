"""The command line's handlers are thin: `recdiv rerank` is `recdiv.rerank_files` (`recdiv.workflows`), so Python
gets what the shell gets, byte for byte (`recdiv compare` = `recdiv.compare_files`: tests/eval/test_compare_cli.py)."""

from __future__ import annotations

import pytest

import recdiv
from recdiv.cli import main
from recdiv.errors import ConfigError


@pytest.fixture
def rerank_inputs(tmp_path):
    run = tmp_path / "cands.run"
    run.write_text("".join(f"u Q0 c{j} {j} {s} base\n" for j, s in zip(range(1, 6), [.9, .8, .7, .6, .5]))
                   + "v Q0 c9 1 0.9 base\nv Q0 c2 2 0.8 base\n")  # c9: described by no file
    asp = tmp_path / "aspects.tsv"
    asp.write_text("c1\tA\nc2\tA\nc3\tC\nc4\tA\nc4\tC\nc5\tD\np1\tA\np2\tA\np2\tC\np3\tD\n")
    train = tmp_path / "train.tsv"
    train.write_text("u\tp1\t5\nu\tp2\t4\nu\tp3\t2\nv\tp1\t3\n")
    return run, asp, train


@pytest.mark.parametrize("method", ["xQuAD", "MMR"])
def test_rerank_files_is_the_command(rerank_inputs, tmp_path, capsys, method):
    run, asp, train = rerank_inputs
    cli = tmp_path / "cli.run"
    assert main(["rerank", str(run), "--method", method, "--aspects", str(asp), "--train", str(train), "-k", "3",
                 "-o", str(cli)]) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    done = recdiv.rerank_files(run, method, 3, aspects=asp, train=train)
    done.write(tmp_path / "py.run")
    assert (tmp_path / "py.run").read_text() == cli.read_text()
    assert done.n_users == 2 and done.depth == 5
    # the command's summary line is the library's, but for the elapsed time
    assert line.rsplit(";", 1)[0] == done.summary(3, "score", 0.0, cli).rsplit(";", 1)[0]
    assert "1 candidate item not in the aspect file, the training file" not in line
    assert "1 candidate item in none of the aspect file, the training file: without features" in line


def test_rerank_files_checks_its_inputs(rerank_inputs):
    run, asp, _ = rerank_inputs
    with pytest.raises(ConfigError, match="xQuAD needs --train"):
        recdiv.rerank_files(run, "xQuAD", 3, aspects=asp)
    with pytest.raises(ConfigError, match="--factors-from mf-als fits the model on --train"):
        recdiv.rerank_files(run, "MMR", 3, factors_from="mf-als")
