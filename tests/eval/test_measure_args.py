"""The `-m` option of `recdiv eval` and `recdiv compare` (repeatable, several values, before or after the files,
sweeps, other tools' spellings) and eval's trec_eval `-q` style per-user output."""

from __future__ import annotations

import json

import pytest

from recdiv.cli import main

QRELS = "u 0 a 5\nu 0 b 4\nu 0 c 3\nu 0 d 2\nu 0 e 4\nv 0 a 1\nw 0 z 5\nw 0 a 4\n"
RUN1 = "u Q0 x 1 5 t\nu Q0 a 2 4 t\nu Q0 c 3 3 t\nu Q0 b 4 2 t\nu Q0 y 5 1 t\nw Q0 a 1 1 t\n"
RUN2 = "u Q0 a 1 3 t\nu Q0 b 2 2 t\nw Q0 z 1 3 t\nw Q0 a 2 2 t\n"


@pytest.fixture
def f(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r1.run").write_text(RUN1)
    (tmp_path / "r2.run").write_text(RUN2)
    return tmp_path


def _json(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("argv", [
    ["q.txt", "r1.run", "r2.run", "-m", "P@5", "AP"],
    ["-m", "P@5", "AP", "q.txt", "r1.run", "r2.run"],
    ["q.txt", "-m", "P@5", "AP", "r1.run", "r2.run"],
    ["-m", "P@5", "q.txt", "-m", "AP", "r1.run", "r2.run"],
    ["-m", "P.5", "q.txt", "--format", "json", "r1.run", "-m", "map", "r2.run"],
    ["-m", "P@5", "AP", "--", "q.txt", "r1.run", "r2.run"],
])
def test_eval_measures_before_or_after_the_files(f, capsys, argv):
    data = _json(capsys, ["eval", "--format", "json", *argv])
    assert list(data["runs"]) == ["r1", "r2"]
    assert list(data["runs"]["r1"]) == ["P@5", "AP"]
    assert data["runs"]["r1"]["P@5"] == pytest.approx((2 / 5 + 1 / 5) / 2)


def test_compare_takes_the_same_measure_arguments(f, capsys):
    outs = []
    for argv in (["q.txt", "r1.run", "r2.run", "-m", "P@5", "-m", "AP"],
                 ["-m", "P@5", "AP", "q.txt", "r1.run", "r2.run"],
                 ["-m", "P.5", "q.txt", "r1.run", "-m", "map", "r2.run"]):
        outs.append([{k: v for k, v in r.items() if k != "provenance"}  # it names the command, which differs
                     for r in _json(capsys, ["compare", *argv, "--format", "json"])])
    assert outs[0] == outs[1] == outs[2]
    assert [r["measure"] for r in outs[0]] == ["P@5", "AP"]
    assert main(["compare", "q.txt", "r1.run", "r2.run"]) == 2
    assert "needs at least one measure" in capsys.readouterr().err


def test_sweeps_and_errors(f, capsys):
    data = _json(capsys, ["eval", "q.txt", "r1.run", "-m", "P@1,2,5", "ndcg_cut.5,10", "--format", "json"])
    assert list(data["runs"]["r1"]) == ["P@1", "P@2", "P@5", "nDCG@5", "nDCG@10"]
    assert main(["eval", "-m", "P@5", "q.txt", "r1.rnu"]) == 2
    assert "-m r1.rnu: no such file, and not a measure" in capsys.readouterr().err
    assert main(["eval", "q.txt", "r1.run", "-m", "precison@5"]) == 2
    assert "did you mean 'P'" in capsys.readouterr().err


def test_rel_per_measure_overrides_the_threshold(f, capsys):
    data = _json(capsys, ["eval", "q.txt", "r1.run", "-m", "P@5", "P(rel=5)@5", "P(rel=4)@5", "--rel-threshold",
                          "3", "--format", "json", "--per-user"])
    # τ = 3: u has a, b, c, e relevant; w has z, a. rel=5: only a (u) and z (w); rel=4: a, b, e / z, a
    assert data["per_user"]["r1"]["P@5"] == {"u": pytest.approx(3 / 5), "w": pytest.approx(1 / 5)}
    assert data["per_user"]["r1"]["P(rel=5)@5"] == {"u": pytest.approx(1 / 5), "w": 0.0}
    assert data["per_user"]["r1"]["P(rel=4)@5"] == {"u": pytest.approx(2 / 5), "w": pytest.approx(1 / 5)}


def test_q_prints_trec_eval_style_lines(f, capsys):
    assert main(["eval", "q.txt", "r1.run", "r2.run", "-m", "P@5", "HLU_breese", "-q"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [x.strip() for x in lines[0]] == ["runid", "all", "r1"]
    assert [[x.strip() for x in line] for line in lines[1:5]] == [
        ["P@5", "u", "0.400000"], ["P@5", "w", "0.200000"], ["P@5", "all", "0.300000"],
        ["HLU_breese", "all", lines[4][2]]]  # a system-level measure has only its `all` line
    assert [x.strip() for x in lines[5]] == ["runid", "all", "r2"]
    assert main(["eval", "q.txt", "r1.run", "-m", "P@5", "-q", "--format", "json"]) == 2
    assert "-q prints trec_eval-style text" in capsys.readouterr().err
