"""Oracle: recdiv's accuracy measures against the trec_eval 10.0 binary (compiled from ../shared/tools in the
session fixture `reference_tools`) and pytrec_eval, on qrels with negative labels (−1, −2: "pooled but unjudged",
trec_eval's `form_res_rels.c`), judged non-relevant 0, graded 1–3, score ties and topics without a run.

trec_eval prints 4 decimals: values agree to 5e-5 with the binary and to 1e-12 with pytrec_eval (the same C code,
full precision). Population: `--population judged` is trec_eval `-c` (every topic of the qrels, negative-only
topics included; a topic without a run scores 0).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from recdiv.eval import parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.io import load_inputs

# recdiv measure → trec_eval per-query measure name (and the -m option that produces it)
PAIRS = [
    ("AP", "map", "map"), ("AP@10", "map_cut_10", "map_cut.10"), ("P@5", "P_5", "P.5,10,20"),
    ("P@10", "P_10", None), ("P@20", "P_20", None), ("Recall@10", "recall_10", "recall.10"),
    ("nDCG", "ndcg", "ndcg"), ("nDCG@10", "ndcg_cut_10", "ndcg_cut.10"), ("RR", "recip_rank", "recip_rank"),
    ("Rprec", "Rprec", "Rprec"), ("bpref", "bpref", "bpref"), ("infAP", "infAP", "infAP"),
    ("HitRate@10", "success_10", "success.10"), ("NumRet", "num_ret", "num_ret"), ("NumRel", "num_rel", "num_rel"),
    ("NumRelRet", "num_rel_ret", "num_rel_ret"), ("SetP", "set_P", "set_P"), ("SetR", "set_recall", "set_recall"),
    ("SetF", "set_F", "set_F"),
]
LABELS = np.array([-2, -1, 0, 1, 2, 3])


def _write_case(folder: Path, seed: int) -> tuple[Path, Path]:
    """Random qrels (labels −2..3) and a run with score ties, over 40 topics and 30 documents."""
    rng = np.random.default_rng(seed)
    docs = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}" for _ in range(60)]
    docs = list(dict.fromkeys(docs))[:30]
    qrels, run = [], []
    for t in range(40):
        judged = rng.choice(docs, size=rng.integers(1, len(docs)), replace=False)
        for d in judged:
            qrels.append(f"t{t} 0 {d} {rng.choice(LABELS, p=[.1, .15, .25, .2, .15, .15])}")
        if t % 7 == 3:
            continue  # a topic without a run
        ranked = rng.choice(docs, size=rng.integers(1, len(docs)), replace=False)
        scores = np.round(rng.uniform(0, 4, size=len(ranked)), 0 if t % 3 == 0 else 3)  # some topics tie a lot
        run += [f"t{t} Q0 {d} {k + 1} {s} r" for k, (d, s) in enumerate(zip(ranked, scores))]
    run.append("t99 Q0 d1 1 1.0 r")  # a run topic without qrels: ignored by both
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "run"


def _trec_eval(binary: Path, qrels: Path, run: Path, level: int) -> dict:
    opts = [o for _, _, m in PAIRS if m for o in ("-m", m)]
    out = subprocess.run([str(binary), "-q", "-c", "-l", str(level), *opts, "-m", "num_q", str(qrels), str(run)],
                         capture_output=True, text=True, check=True).stdout
    values: dict = {}
    for line in out.splitlines():
        name, topic, value = line.split()
        values.setdefault(topic, {})[name] = float(value)
    return values


def _pytrec(qrels: Path, run: Path, level: int) -> dict:
    q: dict = {}
    for line in qrels.read_text().split("\n"):
        if line:
            t, _, d, g = line.split()
            q.setdefault(t, {})[d] = int(g)
    r: dict = {}
    for line in run.read_text().split("\n"):
        if line:
            t, _, d, _, s, _ = line.split()
            r.setdefault(t, {})[d] = float(s)
    names = {n.split("_")[0] if n.startswith(("P_", "recall_", "success_")) else n for _, n, _ in PAIRS}
    names = {"P", "recall", "success", "map_cut", "ndcg_cut", *names} - {"P_5", "P_10", "P_20"}
    return pytrec_eval.RelevanceEvaluator(q, names, relevance_level=level).evaluate(r)


@pytest.mark.parametrize("seed,level", [(1, 1), (2, 2), (3, 1)])
def test_accuracy_measures_equal_trec_eval_with_negative_labels(reference_tools, tmp_path, seed, level):
    qrels, run = _write_case(tmp_path, seed)
    ref = _trec_eval(reference_tools / "trec_eval", qrels, run, level)
    full = _pytrec(qrels, run, level)
    inputs = load_inputs(qrels, [run], threshold=float(level), population="judged")
    r, q, ctx = inputs.runs["run"], inputs.qrels, inputs.context
    users = q.users.id_of(RunView.of(ctx, r, q).users)
    assert len(users) == 40 and int(ref["all"]["num_q"]) == 40
    checked = 0
    in_run = np.array([u in full for u in users])  # pytrec_eval evaluates the topics of the run only
    assert in_run.sum() == 34
    for ours, name, _ in PAIRS:
        m = parse_measure(ours)
        got = m.per_user(r, q, ctx)
        want = np.array([ref[u][name] for u in users])
        exact = np.array([full[u][name] if u in full else 0.0 for u in users])
        np.testing.assert_allclose(got, want, rtol=0, atol=5.1e-5, err_msg=f"{ours} vs trec_eval {name}")
        np.testing.assert_allclose(got[in_run], exact[in_run], rtol=1e-12, atol=1e-12,
                                   err_msg=f"{ours} vs pytrec_eval {name}")
        if ours != "NumRel" or level == 1:  # with -c trec_eval's "all" num_rel counts labels > 0 whatever -l says
            assert m.value(r, q, ctx) == pytest.approx(ref["all"][name], abs=5.1e-5), ours
        checked += len(users)
    assert checked == 40 * len(PAIRS)
    assert parse_measure("NumQ").value(r, q, ctx) == 40.0


def test_issue_example_negative_label_is_pooled_but_unjudged(reference_tools, tmp_path):
    """Issue 18 item 1: qrels a −1 / b 1 / c 0, run a > b > d: trec_eval bpref 1.0, infAP 0.75."""
    (tmp_path / "qrels").write_text("q 0 a -1\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "run").write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 d 3 1 r\n")
    ref = _trec_eval(reference_tools / "trec_eval", tmp_path / "qrels", tmp_path / "run", 1)["q"]
    assert (ref["bpref"], ref["infAP"]) == (1.0, 0.75)
    inputs = load_inputs(tmp_path / "qrels", [tmp_path / "run"], threshold=1.0)
    r, q, ctx = inputs.runs["run"], inputs.qrels, inputs.context
    # by hand: b is the only relevant item and no judged non-relevant item is above it → bpref 1; infAP at
    # rank 2: 1/2 + (1/2)·(pool 1 / 1)·(ε / 2ε) = 0.75 (a is in the pool, unjudged)
    assert parse_measure("bpref").value(r, q, ctx) == 1.0
    assert parse_measure("infAP").value(r, q, ctx) == 0.75
    # a (−1) and d (absent) are unjudged, b judged: Judged@3 = 1/3; Judged@1 = 0
    assert parse_measure("Judged@3").value(r, q, ctx) == pytest.approx(1 / 3)
    assert parse_measure("Judged@1").value(r, q, ctx) == 0.0
    # Valcarce's infAP has no pool factor: the negative label is skipped like any unjudged item
    assert parse_measure("infAP(variant=valcarce)").value(r, q, ctx) == pytest.approx(0.5 + 0.5 * 0.5)


def test_negative_labels_never_relevant_even_below_zero_threshold(reference_tools, tmp_path):
    """trec_eval -l 0 makes every label ≥ 0 relevant and still not −1 (its rel_levels start at 0); a threshold
    below 0 acts as 0."""
    (tmp_path / "qrels").write_text("q 0 a -1\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "run").write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 c 3 1 r\n")
    ref = _trec_eval(reference_tools / "trec_eval", tmp_path / "qrels", tmp_path / "run", 0)["q"]
    for tau in (0.0, -1.0):
        inputs = load_inputs(tmp_path / "qrels", [tmp_path / "run"], threshold=tau)
        r, q, ctx = inputs.runs["run"], inputs.qrels, inputs.context
        for ours, name, _ in PAIRS:
            assert parse_measure(ours).value(r, q, ctx) == pytest.approx(ref[name], abs=5.1e-5), (tau, ours)
    assert ref["num_rel"] == 2
