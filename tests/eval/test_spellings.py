"""Other tools' measure names (`recdiv.eval.spellings`): every alias is its canonical measure (the same object),
and gives the number the other tool computes on the same files — pytrec_eval (trec_eval), ir_measures and ranx —
user by user. Also: `rel=` per measure, cutoff sweeps."""

from __future__ import annotations

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.eval.catalog import expand_sweeps, parse_measure, parse_measures
from recdiv.eval.evaluate import evaluate
from recdiv.eval.io import load_inputs

TAU = 4

#: (other tool's spelling, recdiv's canonical spelling)
TREC_EVAL = [("P.5", "P@5"), ("P_10", "P@10"), ("recall.10", "Recall@10"), ("recall_20", "Recall@20"),
             ("ndcg_cut.10", "nDCG@10"), ("ndcg_cut_20", "nDCG@20"), ("ndcg", "nDCG"), ("map", "AP"),
             ("map_cut.10", "AP@10"), ("map_cut_5", "AP@5"), ("recip_rank", "RR"), ("Rprec", "Rprec"),
             ("bpref", "bpref"), ("success.10", "HitRate@10"), ("success_5", "HitRate@5"), ("infAP", "infAP")]
IR_MEASURES = [("nDCG@10", "nDCG@10"), ("AP", "AP"), ("AP@10", "AP@10"), ("RR", "RR"),
               ("RR@5", "RR@5"), ("R@10", "Recall@10"), ("Rprec", "Rprec"), ("Bpref", "bpref"),
               ("Success@10", "HitRate@10"), ("infAP", "infAP"), ("P(rel=5)@10", "P(rel=5)@10")]
RANX = [("precision@10", "P@10"), ("recall@10", "Recall@10"), ("ndcg@10", "nDCG@10"),
        ("ndcg_burges@10", "nDCG(gain=exp)@10"), ("map@10", "AP@10"), ("map", "AP"), ("mrr", "RR"),
        ("hit_rate@10", "HitRate@10"), ("f1@10", "F1@10"), ("r-precision", "Rprec"), ("bpref", "bpref")]


@pytest.mark.parametrize(("alias", "canonical"), TREC_EVAL + IR_MEASURES + RANX)
def test_alias_is_the_canonical_measure(alias, canonical):
    assert parse_measure(alias) == parse_measure(canonical)
    assert str(parse_measure(alias)) == canonical


def test_sweeps_and_levels():
    assert [str(m) for m in parse_measures(["P@5,10,20", "ndcg_cut.5,10", "nDCG(gain=exp)@5, 10"])] == [
        "P@5", "P@10", "P@20", "nDCG@5", "nDCG@10", "nDCG(gain=exp)@5", "nDCG(gain=exp)@10"]
    assert expand_sweeps("RBP(p=0.8)@5,10") == ["RBP(p=0.8)@5", "RBP(p=0.8)@10"]
    assert expand_sweeps("P@10") == ["P@10"] and expand_sweeps("nDCG(gain=exp,disc=jk)@10") == [
        "nDCG(gain=exp,disc=jk)@10"]
    assert str(parse_measure("precision@10-l5")) == "P(rel=5)@10"
    assert str(parse_measure("ndcg_burges@10-l4")) == "nDCG(gain=exp,rel=4)@10"
    with pytest.raises(ConfigError, match="drops the gain of lower grades"):
        parse_measure("ndcg@10-l4")  # ranx's ndcg above level 1 is not trec_eval's: refused, not mis-mapped
    with pytest.raises(ConfigError, match="finite"):
        parse_measure("P(rel=nan)@10")
    with pytest.raises(ConfigError, match="did you mean 'P'"):
        parse_measure("precison@10")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """60 users, 25 judgments each (grades 0–5), runs of 30 (some 8) distinct-scored items, some unjudged."""
    rng = np.random.default_rng(7)
    d = tmp_path_factory.mktemp("spell")
    q, r = [], []
    for u in range(60):
        judged = rng.choice(200, 25, replace=False)
        for i, g in zip(judged, rng.integers(0, 6, 25)):
            q.append(f"u{u} 0 d{i} {g}\n")
        n = 8 if u % 7 == 0 else 30
        unjudged = rng.choice(np.arange(200, 400), 15, replace=False)
        pool = np.concatenate([rng.choice(judged, 15, replace=False), unjudged])
        ranked = rng.permutation(pool)[:n]
        scores = np.sort(rng.random(n))[::-1] + np.arange(n)[::-1]  # distinct, descending
        r += [f"u{u} Q0 d{i} {k + 1} {s:.12f} t\n" for k, (i, s) in enumerate(zip(ranked, scores))]
    (d / "q.txt").write_text("".join(q))
    (d / "run.txt").write_text("".join(r))
    qrels: dict = {}
    run: dict = {}
    for line in q:
        u, _, i, g = line.split()
        qrels.setdefault(u, {})[i] = int(g)
    for line in r:
        u, _, i, _, s, _ = line.split()
        run.setdefault(u, {})[i] = float(s)
    return d, qrels, run


def _recdiv(files, names):
    """{name: {user: value}} of recdiv over every judged user (trec_eval's population) at τ = 4."""
    d, _, _ = files
    inputs = load_inputs(d / "q.txt", [d / "run.txt"], threshold=TAU, population="judged")
    ev = evaluate(inputs.runs, inputs.qrels, names, inputs.context)
    users = [str(u) for u in ev.users]
    return {n: dict(zip(users, ev.per_user["run"][str(parse_measure(n))])) for n in names}


def _close(ours: dict, theirs: dict, name: str):
    assert set(theirs) <= set(ours), name
    for u, v in theirs.items():
        assert ours[u] == pytest.approx(v, abs=1e-9), (name, u)


def test_trec_eval_spellings_equal_pytrec_eval(files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    _, qrels, run = files
    names = [a for a, _ in TREC_EVAL]
    ours = _recdiv(files, names)
    keys = {a: a.replace(".", "_") for a in names}
    res = pytrec_eval.RelevanceEvaluator(qrels, set(names), relevance_level=TAU).evaluate(run)
    for a in names:
        _close(ours[a], {u: v[keys[a]] for u, v in res.items()}, a)
    # rel= per measure: P(rel=5)@10 at --rel-threshold 4 is trec_eval -l 5
    ours = _recdiv(files, ["P(rel=5)@10", "AP(rel=2)"])
    res5 = pytrec_eval.RelevanceEvaluator(qrels, {"P.10"}, relevance_level=5).evaluate(run)
    res2 = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=2).evaluate(run)
    _close(ours["P(rel=5)@10"], {u: v["P_10"] for u, v in res5.items()}, "P(rel=5)@10")
    _close(ours["AP(rel=2)"], {u: v["map"] for u, v in res2.items()}, "AP(rel=2)")


def test_ir_measures_spellings_equal_ir_measures(files):
    ir_measures = pytest.importorskip("ir_measures")
    _, qrels, run = files
    q = [ir_measures.Qrel(u, i, g) for u, docs in qrels.items() for i, g in docs.items()]
    r = [ir_measures.ScoredDoc(u, i, s) for u, docs in run.items() for i, s in docs.items()]
    spelled = {"P(rel=4)@10": "P(rel=4)@10", "nDCG@10": "nDCG@10", "AP": "AP(rel=4)", "AP@10": "AP(rel=4)@10",
               "RR": "RR(rel=4)", "RR@5": "RR(rel=4)@5", "R@10": "R(rel=4)@10", "Rprec": "Rprec(rel=4)",
               "Bpref": "Bpref(rel=4)", "Success@10": "Success(rel=4)@10", "infAP": "infAP(rel=4)",
               "P(rel=5)@10": "P(rel=5)@10"}
    ours = _recdiv(files, list(spelled))
    for name, theirs_name in spelled.items():
        measure = ir_measures.parse_measure(theirs_name)
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], q, r)}
        _close(ours[name], theirs, name)


@pytest.mark.slow
def test_ranx_spellings_equal_ranx(files):
    ranx = pytest.importorskip("ranx")
    _, qrels, run = files
    # ranx keeps judgments of grade ≥ 1 as its qrels; grade-0 judgments are judged non-relevant (bpref)
    spelled = [f"{a}-l{TAU}" if a not in ("ndcg@10",) else a for a, _ in RANX]
    ours = _recdiv(files, spelled)
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    for name in spelled:
        theirs = ranx.evaluate(rq, rr, name, return_mean=False)
        users = list(rr.get_query_ids())
        _close(ours[name], dict(zip(users, map(float, theirs))), name)
