"""The command line's handlers are thin: `recdiv rerank` and `recdiv compare` are `recdiv.rerank_files` and
`recdiv.compare_files` (`recdiv.workflows`), so Python gets what the shell gets, byte for byte."""

from __future__ import annotations

import json

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


QRELS = "u1 0 a 5\nu1 0 b 4\nu2 0 c 4\nu3 0 a 5\nu3 0 d 4\nu4 0 b 5\nu5 0 e 4\nu6 0 a 4\n"
LISTS = {"good": {"u1": "ab", "u2": "cx", "u3": "ad", "u4": "bx", "u5": "ex", "u6": "ab"},
         "bad": {"u1": "xy", "u2": "xy", "u3": "xa", "u4": "xb", "u5": "xy", "u6": "ay"}}


@pytest.fixture
def compare_inputs(tmp_path):
    q = tmp_path / "test.qrels"
    q.write_text(QRELS)
    runs = []
    for name, lists in LISTS.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{u} Q0 {i} {r + 1} {10 - r} {name}\n" for u, its in lists.items()
                             for r, i in enumerate(its)))
        runs.append(str(p))
    return str(q), runs


@pytest.mark.parametrize("fmt", ["json", "table", "markdown", "latex"])
def test_compare_files_is_the_command(compare_inputs, capsys, fmt):
    from recdiv.workflows.compare import tests_of

    q, runs = compare_inputs
    measures = ["P@2", "lexirecall@2"]
    assert main(["compare", q, *runs, "-m", *measures, "--format", fmt, "--test", "sign"]) == 0
    cli = capsys.readouterr().out
    report = recdiv.compare_files(q, runs, measures, tests=tests_of("sign"))
    if fmt == "json":
        assert report.json(json.loads(cli)[0]["provenance"]) == cli
    else:  # the provenance comments name the command line: the rest is the same
        from recdiv.provenance import record

        text = report.text(fmt, record(None))
        keep = [line for line in text.splitlines() if not line.startswith(("%", "<!--", "#"))]
        assert keep == [line for line in cli.splitlines() if not line.startswith(("%", "<!--", "#"))]
        assert len(keep) > 8
    prefs = next(r for kind, r in report.reports if kind == "pref")
    assert [(p["a"], p["b"], p["wins"], p["ties"], p["losses"]) for p in prefs["pairs"]] == \
        [("good", "bad", 5, 1, 0)]
    assert report.comparison.to_dict("P@2")["means"] == pytest.approx({"good": 8 / 12, "bad": 3 / 12})  # by hand


def test_compare_files_checks_its_options(compare_inputs):
    from recdiv.workflows.compare import tests_of

    q, runs = compare_inputs
    with pytest.raises(ConfigError, match="only --test sign applies"):
        recdiv.compare_files(q, runs, ["lexirecall@2"], tests=tests_of("t"))
    with pytest.raises(ConfigError, match="family-wise"):
        tests_of("tukey", "holm")
    with pytest.raises(ConfigError, match="at least two runs"):
        recdiv.compare_files(q, runs[:1], ["P@2"])
