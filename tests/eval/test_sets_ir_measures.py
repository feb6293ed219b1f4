"""Judged@K and the set / count measures against ir_measures (its own providers: `judged` for Judged,
pytrec_eval for the trec_eval measures) per query, on labels 0–3 (ir_measures counts a negative label as judged,
trec_eval does not: that case is tested against the trec_eval binary in test_trec_eval_binary.py)."""

from __future__ import annotations

import ir_measures
import numpy as np
import pytest

from recdiv.eval import parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.io import load_inputs

PAIRS = [("Judged@5", "Judged@5"), ("Judged@10", "Judged@10"), ("Judged", "Judged"), ("SetP", "SetP"),
         ("SetR", "SetR"), ("SetF", "SetF"), ("SetF(beta=0.5)", "SetF(beta=0.5)"), ("NumRet", "NumRet"),
         ("NumRelRet", "NumRelRet"), ("NumRel", "NumRel"), ("NumQ", "NumQ")]


@pytest.mark.parametrize("seed", [5, 6])
def test_equal_to_ir_measures(tmp_path, seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(25)]
    qrels, run = [], []
    for t in range(30):
        for d in rng.choice(docs, size=rng.integers(1, 20), replace=False):
            qrels.append(ir_measures.Qrel(f"t{t}", str(d), int(rng.integers(0, 4))))
        ranked = rng.choice(docs, size=rng.integers(1, 25), replace=False)
        scores = rng.permutation(len(ranked)).astype(float)  # no ties: ir_measures' Judged breaks them by id ascending
        run += [ir_measures.ScoredDoc(f"t{t}", str(d), s) for d, s in zip(ranked, scores)]
    (tmp_path / "qrels").write_text("".join(f"{q.query_id} 0 {q.doc_id} {q.relevance}\n" for q in qrels))
    (tmp_path / "run").write_text("".join(f"{r.query_id} Q0 {r.doc_id} 1 {r.score} x\n" for r in run))
    ref: dict = {}
    measures = [ir_measures.parse_measure(theirs) for _, theirs in PAIRS]
    for m in ir_measures.iter_calc(measures, qrels, run):
        ref.setdefault(str(m.measure), {})[m.query_id] = m.value
    agg = ir_measures.calc_aggregate(measures, qrels, run)
    inputs = load_inputs(tmp_path / "qrels", [tmp_path / "run"], threshold=1.0, population="judged")
    r, q, ctx = inputs.runs["run"], inputs.qrels, inputs.context
    users = q.users.id_of(RunView.of(ctx, r, q).users)
    for ours, theirs in PAIRS:
        m = parse_measure(ours)
        want = np.array([ref[str(ir_measures.parse_measure(theirs))][u] for u in users])
        np.testing.assert_allclose(m.per_user(r, q, ctx), want, rtol=1e-12, atol=0, err_msg=ours)
        assert m.value(r, q, ctx) == pytest.approx(agg[ir_measures.parse_measure(theirs)], rel=1e-12), ours
