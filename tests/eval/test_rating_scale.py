"""`--rating-scale MIN:MAX` / `load_inputs(scale=…)` / `EvalContext(scale=…)`: r_max of the measures that need the
maximum grade; without it the largest test grade (and `eval` says so); grades outside a declared scale are errors."""

from __future__ import annotations

import shutil

import ir_measures
import numpy as np
import pytest

from recdiv.cli import main
from recdiv.errors import ConfigError, DataError
from recdiv.eval import parse_measure
from recdiv.eval.context import EvalContext, RunView
from recdiv.eval.io import load_inputs


@pytest.fixture
def files(tmp_path):
    # grades 0..3: the largest test grade is 3, gdeval's scale is 0..4
    rng = np.random.default_rng(4)
    q, r = [], []
    for t in range(1, 21):
        docs = rng.choice(30, size=12, replace=False)
        q += [f"{t} 0 d{d} {rng.integers(0, 4)}\n" for d in docs]
        ranked = rng.choice(30, size=15, replace=False)
        r += [f"{t} Q0 d{d} {k + 1} {100 - k} x\n" for k, d in enumerate(ranked)]
    (tmp_path / "qrels").write_text("".join(q))
    (tmp_path / "run").write_text("".join(r))
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval (ir_measures) needs perl")
def test_err_with_scale_0_4_equals_gdeval(files):
    """gdeval's ERR fixes the maximum grade at 4: ERR@K with --rating-scale 0:4 (τ = 1) equals it per topic."""
    qrels, run = files
    ref = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.ERR @ 5, ir_measures.ERR @ 20], ir_measures.read_trec_qrels(str(qrels)),
        ir_measures.read_trec_run(str(run)))}
    declared = load_inputs(qrels, [run], threshold=1.0, scale="0:4")
    largest = load_inputs(qrels, [run], threshold=1.0)
    for k in (5, 20):
        m = parse_measure(f"ERR@{k}")
        for inputs, equal in ((declared, True), (largest, False)):
            r, q, ctx = inputs.runs["run"], inputs.qrels, inputs.context
            users = q.users.id_of(RunView.of(ctx, r, q).users)
            want = np.array([ref[(u, f"ERR@{k}")] for u in users])
            got = m.per_user(r, q, ctx)
            assert np.allclose(got, want, atol=5.1e-6) == equal  # gdeval prints 5 decimals


def test_scale_by_hand_and_in_python(files, tmp_path):
    """One relevant item of grade 3 at rank 1: ERR@1 = (2^3 − 1)/2^{r_max}."""
    (tmp_path / "q1").write_text("u 0 a 3\nu 0 b 0\n")
    (tmp_path / "r1").write_text("u Q0 a 1 2 x\nu Q0 b 2 1 x\n")
    inputs = load_inputs(tmp_path / "q1", [tmp_path / "r1"], threshold=1.0, scale=(0, 5))
    r, q = inputs.runs["r1"], inputs.qrels
    assert parse_measure("ERR@1").value(r, q, inputs.context) == 7 / 32
    assert parse_measure("ERR@1").value(r, q, EvalContext(threshold=1.0)) == 7 / 8  # largest test grade: 3
    assert parse_measure("ERR@1").value(r, q, EvalContext(threshold=1.0, scale=(0, 4))) == 7 / 16
    assert parse_measure("RBP(gain=graded,p=0.5)@1").value(r, q, inputs.context) == 0.5 * 3 / 5


def test_cli_errors_and_note(files, tmp_path, capsys):
    qrels, run = files
    assert main(["eval", str(qrels), str(run), "-m", "ERR@10", "--rel-threshold", "1", "--rating-scale", "1:2"]) == 2
    err = capsys.readouterr().err
    line = next(n for n, text in enumerate(qrels.read_text().splitlines(), 1) if text.split()[3] == "3")
    assert err.strip() == f"recdiv: error: {qrels}:{line}: grade 3 is outside the rating scale 1:2 (--rating-scale)"
    for bad in ("1-5", "5:1", "x:y", "-1:5"):
        assert main(["eval", str(qrels), str(run), "-m", "ERR@10", f"--rating-scale={bad}"]) == 2
        assert capsys.readouterr().err.startswith("recdiv: error: --rating-scale: expected")
    assert main(["eval", str(qrels), str(run), "-m", "ERR@10", "nDCG@10", "--rel-threshold", "1"]) == 0
    err = capsys.readouterr().err
    assert "ERR@10 uses the maximum grade r_max = 3, the largest grade in the qrels" in err and "nDCG" not in err
    assert main(["eval", str(qrels), str(run), "-m", "ERR@10", "--rel-threshold", "1", "--rating-scale", "0:4"]) == 0
    assert "recdiv: note" not in capsys.readouterr().err  # stderr holds only eval's statement of what it did
    with pytest.raises(ConfigError):
        load_inputs(qrels, [run], scale=(3, 3))
    with pytest.raises(DataError):
        load_inputs(qrels, [run], scale=(1, 5))  # grade 0 is below 1


def test_which_measures_use_the_maximum_grade():
    uses = ["ERR@5", "RBP(gain=graded)", "ERR-IA@5", "alpha-nDCG(gain=graded)@5", "ab-nDCG@5", "EPC(rel=graded)@5"]
    not_ = ["nDCG@5", "RBP", "ERR-IA(variant=ndeval)@5", "alpha-nDCG@5", "EPC(rel=binary)@5", "AP"]
    assert all(parse_measure(m).uses_max_grade() for m in uses)
    assert not any(parse_measure(m).uses_max_grade() for m in not_)
