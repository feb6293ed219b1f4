"""lexirecall / lexiprecision through `recdiv eval --baseline RUN` (METRICS.md §D.6 worked example, checked with
pref_eval): per-user preferences of every run over the baseline, run value their mean."""

from __future__ import annotations

import json

import pytest

from recdiv.cli import main
from recdiv.eval.evaluate import evaluate
from recdiv.eval.io import load_inputs


def _write(tmp_path):
    """§D.6: one user, relevant r1..r3; A has them at ranks (2, 7, 9), B at (1, 3, 9), C at (1, 2)."""
    (tmp_path / "qrels").write_text("u 0 r1 1\nu 0 r2 1\nu 0 r3 1\n")
    paths = []
    for name, relpos in {"A": (2, 7, 9), "B": (1, 3, 9), "C": (1, 2)}.items():
        rel, non = iter(["r1", "r2", "r3"]), iter(f"n{i:03d}" for i in range(20))
        lines = [f"u Q0 {next(rel) if k in relpos else next(non)} {k} {10 - k} {name}" for k in range(1, 11)]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        paths.append(str(tmp_path / name))
    return str(tmp_path / "qrels"), paths


def test_lexirecall_against_a_baseline(tmp_path, capsys):
    qrels, paths = _write(tmp_path)
    assert main(["eval", qrels, *paths, "-m", "lexirecall", "lexiprecision", "AP", "--baseline", "B",
                 "--rel-threshold", "1", "--per-user", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # pref_eval: A < B on both; C < B on lexirecall (fewer found), C > B on lexiprecision (r1, r2 at the top)
    assert out["runs"]["A"]["lexirecall"] == -1 and out["runs"]["A"]["lexiprecision"] == -1
    assert out["runs"]["C"]["lexirecall"] == -1 and out["runs"]["C"]["lexiprecision"] == 1
    assert out["runs"]["B"]["lexirecall"] == 0 and out["runs"]["B"]["lexiprecision"] == 0
    assert out["per_user"]["C"]["lexiprecision"] == {"u": 1.0}
    assert out["runs"]["A"]["AP"] == pytest.approx((1 / 2 + 2 / 7 + 3 / 9) / 3)
    # the baseline given as a file path
    assert main(["eval", qrels, *paths, "-m", "lexirecall", "--baseline", paths[1], "--rel-threshold", "1"]) == 0
    capsys.readouterr()


def test_pairwise_measure_needs_a_baseline(tmp_path, capsys):
    qrels, paths = _write(tmp_path)
    assert main(["eval", qrels, *paths, "-m", "lexirecall@20", "--rel-threshold", "1"]) == 2
    assert capsys.readouterr().err.strip() == ("recdiv: error: lexirecall@20 compares two runs: name the run to "
                                               "compare the others with, --baseline RUN (one of: A, B, C), or use "
                                               "`recdiv compare`")
    assert main(["eval", qrels, *paths, "-m", "lexirecall", "--baseline", "D", "--rel-threshold", "1"]) == 2
    assert "--baseline 'D' is not one of the runs: A, B, C" in capsys.readouterr().err
    inputs = load_inputs(qrels, paths, threshold=1.0)
    res = evaluate(inputs.runs, inputs.qrels, ["lexirecall"], inputs.context, baseline="A")
    assert res.table()["lexirecall"].to_dict() == {"A": 0.0, "B": 1.0, "C": -1.0}
    assert res.user_values("C", "lexirecall").tolist() == [-1]
