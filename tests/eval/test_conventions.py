"""`--conventions TOOL` (recdiv.eval.conventions): one switch gives each tool's numbers on the same files —
trec_eval and ndeval (the binaries built from ../shared/tools), ir_measures, ranx and LensKit (their Python
packages) — through `recdiv eval`, `recdiv compare`, experiments and Python; the output says which set was used.

Shared fixture: 40 users with grades 0–5 (users whose judgments are all 0: no relevant item, so recdiv's default
population leaves them out and every tool keeps them), lists of 30 (some 8) with unjudged items, one judged user
without a list (every tool's "0 for a missing ranking"; LensKit leaves such a user out, so it is compared with 0).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess

import numpy as np
import pytest

from recdiv.cli import main
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.conventions import CONVENTIONS, for_subtopics, get
from recdiv.eval.io import evaluate_files


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(25)
    d = tmp_path_factory.mktemp("conventions")
    qrels: dict = {}
    run: dict = {}
    for u in range(40):
        judged = rng.choice(200, 25, replace=False)
        grades = rng.integers(0, 6, 25) if u % 10 else np.zeros(25, dtype=int)  # u0, u10, ...: nothing relevant
        qrels[f"u{u}"] = {f"d{i}": int(g) for i, g in zip(judged, grades)}
        if u == 7:
            continue  # judged, no list
        n = 8 if u % 7 == 0 else 30
        pool = np.concatenate([rng.choice(judged, 15, replace=False), rng.choice(np.arange(200, 400), 15,
                                                                               replace=False)])
        ranked = rng.permutation(pool)[:n]
        scores = np.sort(rng.random(n))[::-1] + np.arange(n)[::-1]  # distinct, descending
        run[f"u{u}"] = {f"d{i}": float(s) for i, s in zip(ranked, scores)}
    (d / "q.txt").write_text("".join(f"{u} 0 {i} {g}\n" for u, docs in qrels.items() for i, g in docs.items()))
    (d / "run.txt").write_text("".join(f"{u} Q0 {i} {k + 1} {s!r} t\n" for u, docs in run.items()
                                       for k, (i, s) in enumerate(docs.items())))
    return d, qrels, run


def _per_user(d, measures, conventions, capsys) -> dict:
    """{measure: {user: value}} from `recdiv eval --conventions ... --per-user --format csv`."""
    assert main(["eval", str(d / "q.txt"), str(d / "run.txt"), "-m", *measures, "--conventions", conventions,
                 "--per-user", "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert f"conventions {get(conventions).name}:" in out.err  # the choice is printed
    values: dict = {}
    for row in csv.DictReader(io.StringIO(out.out)):
        if row["user"]:
            values.setdefault(row["measure"], {})[row["user"]] = float(row["value"])
    return {name: values[str(parse_measure(name, conventions))] for name in measures}


def _close(ours: dict, theirs: dict, name: str, users, tol=1e-9):
    assert set(ours) == set(users), name
    for u in users:
        assert ours[u] == pytest.approx(theirs.get(u, 0.0), abs=tol), (name, u)


def test_the_sets_and_their_errors():
    assert set(CONVENTIONS) == {"recdiv", "trec_eval", "ndeval", "ir_measures", "ranx", "lenskit"}
    assert get("trec-eval") is get("trec_eval") and get("LensKit").threshold == 0.0
    with pytest.raises(ConfigError, match="unknown conventions 'terrier': choose one of recdiv, trec_eval"):
        get("terrier")
    # spellings resolve to the chosen tool's definition; what a measure string says still wins
    assert str(parse_measure("nDCG@10", "lenskit")) == "nDCG(gain=binary,disc=jk)@10"
    assert str(parse_measure("nDCG(gain=exp)@10", "lenskit")) == "nDCG(gain=exp,disc=jk)@10"
    assert str(parse_measure("alpha-DCG@20", "ndeval")) == "alpha-DCG(norm=ndeval)@20"
    assert str(parse_measure("NRBP", "ndeval")) == str(parse_measure("NRBP(alpha=0.5,beta=0.5)"))
    assert str(parse_measure("Judged@10", "ir_measures")) == "Judged(labels=any)@10"
    assert parse_measure("R@10", "ir_measures") == parse_measure("Recall@10") == parse_measure("R@10", "trec_eval")
    assert main(["eval", "q", "r", "--conventions", "terrier"]) == 2


def test_trec_eval(files, reference_tools, capsys):
    d, qrels, _ = files
    names = {"P@10": "P_10", "Recall@10": "recall_10", "AP": "map", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank",
             "bpref": "bpref", "Rprec": "Rprec", "HitRate@10": "success_10"}
    ours = _per_user(d, list(names), "trec_eval", capsys)
    out = subprocess.run([str(reference_tools / "trec_eval"), "-c", "-q", "-m", "all_trec", str(d / "q.txt"),
                          str(d / "run.txt")], capture_output=True, text=True, check=True).stdout
    theirs: dict = {}
    for line in out.splitlines():
        m, u, v = line.split()
        if m in names.values():
            theirs.setdefault(m, {})[u] = float(v)
    for ours_name, trec_name in names.items():
        _close(ours[ours_name], theirs[trec_name], ours_name, list(qrels), tol=5.1e-5)  # trec_eval prints 4 digits
        assert np.mean(list(ours[ours_name].values())) == pytest.approx(theirs[trec_name]["all"], abs=5.1e-5)


def test_ir_measures_including_judged_with_negative_labels(files, tmp_path, capsys):
    ir_measures = pytest.importorskip("ir_measures")
    d, qrels, run = files
    q = [ir_measures.Qrel(u, i, g) for u, docs in qrels.items() for i, g in docs.items()]
    r = [ir_measures.ScoredDoc(u, i, s) for u, docs in run.items() for i, s in docs.items()]
    names = ["R@10", "Success@10", "P@10", "nDCG@10", "AP", "RR", "Judged@10", "Rprec", "Bpref"]
    ours = _per_user(d, names, "ir_measures", capsys)
    agg = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], q, r)
    for name in names:
        m = ir_measures.parse_measure(name)
        _close(ours[name], {x.query_id: x.value for x in ir_measures.iter_calc([m], q, r)}, name, list(qrels))
        assert np.mean(list(ours[name].values())) == pytest.approx(agg[m], abs=1e-12), name
    # a negative label (pooled, unjudged in trec_eval) is judged for ir_measures' Judged: the same number
    neg = tmp_path / "neg"
    neg.mkdir()
    (neg / "q.txt").write_text("a 0 x -1\na 0 y 1\nb 0 x 2\n")
    (neg / "run.txt").write_text("a Q0 x 1 3 t\na Q0 y 2 2 t\na Q0 z 3 1 t\nb Q0 z 1 1 t\n")
    got = _per_user(neg, ["Judged@10"], "ir_measures", capsys)["Judged@10"]
    want = {x.query_id: x.value for x in ir_measures.iter_calc(
        [ir_measures.Judged @ 10], [ir_measures.Qrel("a", "x", -1), ir_measures.Qrel("a", "y", 1),
                                    ir_measures.Qrel("b", "x", 2)],
        [ir_measures.ScoredDoc("a", "x", 3.0), ir_measures.ScoredDoc("a", "y", 2.0),
         ir_measures.ScoredDoc("a", "z", 1.0), ir_measures.ScoredDoc("b", "z", 1.0)])}
    assert got == want == {"a": pytest.approx(2 / 3), "b": 0.0}
    assert _per_user(neg, ["Judged@10"], "trec_eval", capsys)["Judged@10"]["a"] == pytest.approx(1 / 3)


def test_ranx(files, capsys):
    ranx = pytest.importorskip("ranx")
    d, qrels, run = files
    names = {"P@10": "precision@10", "Recall@10": "recall@10", "nDCG@10": "ndcg@10", "AP@10": "map@10",
             "RR": "mrr", "HitRate@10": "hit_rate@10", "F1@10": "f1@10", "nDCG(gain=exp)@10": "ndcg_burges@10"}
    ours = _per_user(d, list(names), "ranx", capsys)
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    for ours_name, theirs_name in names.items():
        mean = ranx.evaluate(rq, rr, theirs_name, make_comparable=True)
        assert np.mean(list(ours[ours_name].values())) == pytest.approx(mean, abs=1e-12), ours_name


def test_lenskit(files, capsys):
    pytest.importorskip("lenskit")
    from lenskit.data import ItemList
    from lenskit.metrics import NDCG, Hit, Precision, Recall, RecipRank
    from lenskit.metrics.ranking import AveragePrecision

    d, qrels, run = files
    metrics = {"P@10": Precision(10), "Recall@10": Recall(10), "nDCG@10": NDCG(10), "AP@10": AveragePrecision(10),
               "RR@10": RecipRank(10), "HitRate@10": Hit(10), "nDCG": NDCG()}
    ours = _per_user(d, list(metrics), "lenskit", capsys)
    for name, metric in metrics.items():
        theirs = {}
        for u, docs in run.items():  # LensKit measures the users with a list (recdiv: 0 without one)
            recs = ItemList(item_ids=list(docs), ordered=True)
            theirs[u] = float(metric.measure_list(recs, ItemList(item_ids=list(qrels[u]))))
        _close(ours[name], theirs, name, list(qrels), tol=1e-12)


def test_ndeval(reference_tools, tmp_path, capsys):
    from tests.eval.test_subtopics_ndeval import ndeval, write_case

    qrels, runs = write_case(tmp_path, 21)
    names = {"alpha-DCG@20": "alpha-DCG@20", "alpha-nDCG@10": "alpha-nDCG@10", "ERR-IA@20": "ERR-IA@20",
             "P-IA@10": "P-IA@10", "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "MAP-IA", "S-recall@20": "strec@20"}
    assert main(["eval", "--subtopics", str(qrels), str(runs[0]), "-m", *names, "--conventions", "ndeval",
                 "--per-user", "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert "conventions ndeval:" in out.err
    by_name: dict = {}
    for row in csv.DictReader(io.StringIO(out.out)):
        if row["user"]:
            by_name.setdefault(row["measure"], {})[row["user"]] = float(row["value"])
    ours = {name: by_name[str(parse_measure(name, for_subtopics(get("ndeval"))))] for name in names}
    ref = ndeval(reference_tools / "ndeval", qrels, runs[0])
    for name, nd in names.items():
        theirs = {t: (0.0 if np.isnan(v[nd]) else v[nd]) for t, v in ref.items() if t != "amean"}
        _close(ours[name], theirs, name, sorted(ours[name]), tol=5.1e-7)


def test_err_ia_with_subtopics_needs_no_weights(reference_tools, tmp_path, capsys):
    """Subtopic qrels carry no profile: ERR-IA weighs the subtopics uniformly without being told (before, it asked
    for `train`), and gives the same numbers as weights=uniform spelled out."""
    from tests.eval.test_subtopics_ndeval import write_case

    qrels, runs = write_case(tmp_path, 22, n_topics=8)
    assert main(["eval", "--subtopics", str(qrels), str(runs[0]), "-m", "ERR-IA@10", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["measure"] == "ERR-IA(weights=uniform)@10"  # the output names what was computed
    a = evaluate_files(None, [runs[0]], ["ERR-IA@10"], subtopics=qrels)
    b = evaluate_files(None, [runs[0]], ["ERR-IA(weights=uniform)@10"], subtopics=qrels)
    assert float(rows[0]["value"]) == a.values["run0"]["ERR-IA(weights=uniform)@10"]
    assert a.values["run0"]["ERR-IA(weights=uniform)@10"] == b.values["run0"]["ERR-IA(weights=uniform)@10"] > 0


def test_python_compare_and_experiment(files, tmp_path, capsys):
    d, qrels, _ = files
    default = evaluate_files(d / "q.txt", [d / "run.txt"], ["R@10"])
    chosen = evaluate_files(d / "q.txt", [d / "run.txt"], ["R@10"], conventions="ir_measures")
    assert default.values["run"]["Recall@10"] != chosen.values["run"]["Recall@10"]
    assert len(chosen.users) == len(qrels) > len(default.users)
    (d / "run2.txt").write_text((d / "run.txt").read_text().replace(" t\n", " t2\n").replace("d1", "d9"))
    assert main(["compare", str(d / "q.txt"), str(d / "run.txt"), str(d / "run2.txt"), "-m", "R@10",
                 "--conventions", "ir_measures", "--format", "json"]) == 0
    out = capsys.readouterr()
    rep = json.loads(out.out)
    assert rep["means"]["run"] == pytest.approx(chosen.values["run"]["Recall@10"], abs=1e-15)
    assert rep["conventions"].startswith("conventions ir_measures:") and "conventions ir_measures:" in out.err
    assert main(["compare", str(d / "q.txt"), str(d / "run.txt"), str(d / "run2.txt"), "-m", "R@10",
                 "--conventions", "ir_measures", "--format", "latex"]) == 0
    assert "% conventions ir_measures:" in capsys.readouterr().out


def test_experiment_conventions(tmp_path):
    from recdiv.experiment.spec.sections import MetricsConfig

    m = MetricsConfig(measures=["nDCG@10"], conventions="lenskit")
    assert (m.threshold, m.population) == (0.0, "judged")
    m = MetricsConfig(measures=["nDCG@10"], conventions="trec_eval", threshold=2.0)
    assert (m.threshold, m.population) == (2.0, "judged")  # explicit threshold wins
    plain = MetricsConfig(measures=["nDCG@10"])
    assert "conventions" not in plain.eval_settings() and m.eval_settings()["conventions"] == "trec_eval"
    with pytest.raises(ValueError, match="conventions"):
        MetricsConfig(measures=["nDCG@10"], conventions="terrier")
