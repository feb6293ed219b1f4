"""recdiv's measures as ir_measures measures (`recdiv.ir_measures`).

Oracles: (1) the file route of recdiv itself — the same qrels, runs and side data written as files and read by
`recdiv.eval.io.evaluate_files` (what `recdiv eval` runs): per-query values and aggregates bit-identical (==);
(2) ir_measures' own providers where they define the same measure under the same settings (relevance ⇔ grade ≥ 1,
the mean over every query of the qrels; pytrec_eval for nDCG/P/R/AP/RR/Rprec/bpref, pyndeval for the intent-aware
measures on subtopic qrels with binary judgments, runs without score ties since pyndeval orders ties its own way):
per query to 1e-12.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pandas as pd
import pytest

import recdiv.ir_measures as rd
from recdiv.errors import ConfigError
from recdiv.eval.io import evaluate_files


def write_case(folder, seed: int, *, subtopics: bool = False, ties: bool = True, int_ids: bool = False):
    """Qrels (graded; subtopic qrels if asked), two runs, training interactions, item aspects and a previous run, as
    files; returns their paths."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(30)]
    topics = [str(t) if int_ids else f"t{t}" for t in range(1, 26)]
    qrels = []
    for t in topics:
        n_sub = int(rng.integers(1, 5))
        for d in rng.choice(docs, size=rng.integers(1, 15), replace=False):
            if subtopics:
                for s in rng.choice(n_sub, size=rng.integers(1, n_sub + 1), replace=False):
                    qrels.append(f"{t} {s + 1} {d} {int(rng.random() < 0.5)}")
            else:
                qrels.append(f"{t} 0 {d} {int(rng.integers(0, 5))}")
    paths = {"qrels": folder / "qrels"}
    paths["qrels"].write_text("\n".join(qrels) + "\n")
    for name in ("run", "base", "previous"):
        lines = []
        for t in topics:
            if rng.random() < 0.1:
                continue  # a topic without a list
            ranked = rng.choice(docs, size=rng.integers(1, 25), replace=False)
            scores = rng.integers(0, 6, size=len(ranked)) if ties else rng.permutation(len(ranked)) + 0.5
            lines += [f"{t} Q0 {d} {k + 1} {float(s)} {name}" for k, (d, s) in enumerate(zip(ranked, scores))]
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n")
    paths["train"] = folder / "train.tsv"
    paths["train"].write_text("".join(f"u{u}\t{d}\t{int(rng.integers(1, 6))}\n" for u in range(40)
                                      for d in rng.choice(docs, size=rng.integers(1, 12), replace=False)))
    paths["aspects"] = folder / "aspects.tsv"
    paths["aspects"].write_text("".join(f"{d}\tg{g}\n" for d in docs[:-3]
                                        for g in rng.choice(6, size=rng.integers(1, 4), replace=False)))
    return paths


def read(paths, run="run"):
    """The qrels and a run as lists of ir_measures' named tuples."""
    return list(ir_measures.read_trec_qrels(str(paths["qrels"]))), list(ir_measures.read_trec_run(str(paths[run])))


def ours(measures, paths, data=None, run="run", baseline=None):
    """{measure: ({query: value}, aggregate)} through ir_measures."""
    qrels, r = ir_measures.read_trec_qrels(str(paths["qrels"])), ir_measures.read_trec_run(str(paths[run]))
    ms = [rd.measure(m, data=data, baseline=baseline) for m in measures]
    per: dict = {}
    for metric in ir_measures.iter_calc(ms, qrels, r):
        per.setdefault(metric.measure, {})[metric.query_id] = metric.value
    agg = ir_measures.calc_aggregate(ms, ir_measures.read_trec_qrels(str(paths["qrels"])),
                                     ir_measures.read_trec_run(str(paths[run])))
    return {m: (per[rd_m], agg[rd_m]) for m, rd_m in zip(measures, ms)}


PLAIN = ["nDCG@10", "nDCG(gain=exp)@5", "P@5", "Recall@10", "AP", "RR@10", "ERR@10", "RBP(p=0.8)@10", "bpref",
         "HitRate@3", "NumRet", "Judged@10"]
SIDE = ["EPC@10", "EFD(disc=log)@10", "ILD@10", "EILD(rel=binary)@10", "alpha-nDCG@10", "nDCG-IA@10", "S-RR@5",
        "ERR-IA@7", "EU@10", "RBU@10", "ab-nDCG@10", "ESSD@10", "Gini@10"]
SUBTOPIC = ["alpha-nDCG@7", "alpha-nDCG@10", "ERR-IA(variant=ndeval)@13", "nERR-IA@10", "nDCG-IA(weights=uniform)@10",
            "S-RR@10", "S-recall@10", "NRBP(alpha=0.5,beta=0.5)", "EU(weights=uniform)@10",
            "RBU(weights=uniform)@10", "P-IA(weights=uniform)@10", "MAP-IA@20", "nDCG@10", "P@5"]


@pytest.mark.parametrize("int_ids", [False, True])
def test_plain_measures_equal_the_file_route(tmp_path, int_ids):
    paths = write_case(tmp_path, 1, int_ids=int_ids)
    ref = evaluate_files(paths["qrels"], [paths["run"]], PLAIN, threshold=1.0, population="judged")
    got = ours(PLAIN, paths)
    users = [str(u) for u in ref.users]
    for m in PLAIN:
        per, agg = got[m]
        assert set(per) == set(users), m
        assert [per[u] for u in users] == ref.user_values("run", m).tolist(), m
        assert agg == ref.value("run", m), m


def test_side_data_from_files_and_frames_equal_the_file_route(tmp_path):
    paths = write_case(tmp_path, 2)
    measures = [m for m in SIDE if m != "Gini@10"]
    ref = evaluate_files(paths["qrels"], [paths["run"]], measures, train=paths["train"], aspects=paths["aspects"],
                         previous=paths["previous"], threshold=1.0, population="judged")
    from recdiv.data.textio import read_interactions_tsv, read_item_aspects_tsv

    files = rd.Data(train=paths["train"], aspects=paths["aspects"], previous=paths["previous"])
    frames = rd.Data(train=read_interactions_tsv(paths["train"]), aspects=read_item_aspects_tsv(paths["aspects"]),
                     previous=ir_measures.read_trec_run(str(paths["previous"])), name="frames")
    users = [str(u) for u in ref.users]
    for data in (files, frames):
        got = ours(measures, paths, data)
        for m in measures:
            per, agg = got[m]
            assert [per[u] for u in users] == ref.user_values("run", m).tolist(), m
            assert agg == ref.value("run", m), m


def test_subtopic_qrels_equal_recdiv_subtopics(tmp_path):
    """Intent-aware measures read the qrels' iteration field as the subtopic: `recdiv eval --subtopics`."""
    paths = write_case(tmp_path, 3, subtopics=True)
    ref = evaluate_files(None, [paths["run"]], SUBTOPIC, subtopics=paths["qrels"], threshold=1.0,
                         population="judged")
    got = ours(SUBTOPIC, paths)
    users = [str(u) for u in ref.users]
    for m in SUBTOPIC:
        per, agg = got[m]
        assert [per[u] for u in users] == ref.user_values("run", m).tolist(), m
        assert agg == ref.value("run", m), m


#: recdiv measure, ir_measures measure with the same definition under these settings
SAME_PLAIN = [("nDCG@10", "nDCG@10"), ("nDCG", "nDCG"), ("P@5", "P@5"), ("Recall@10", "R@10"), ("AP", "AP"),
              ("AP@10", "AP@10"), ("RR", "RR"), ("Rprec", "Rprec"), ("bpref", "Bpref"), ("HitRate@5", "Success@5"),
              ("P(rel=3)@10", "P(rel=3)@10"), ("NumRelRet", "NumRelRet")]
SAME_SUBTOPIC = [("alpha-nDCG@10", "alpha_nDCG@10"), ("alpha-nDCG@20", "alpha_nDCG(alpha=0.5)@20"),
                 ("ERR-IA(variant=ndeval)@10", "ERR_IA@10"), ("nERR-IA@20", "nERR_IA@20"),
                 ("alpha-DCG(norm=ndeval)@10", "alpha_DCG@10"), ("P-IA(weights=uniform)@5", "P_IA@5"),
                 ("NRBP(alpha=0.5,beta=0.5)", "NRBP"), ("nNRBP(alpha=0.5,beta=0.5)", "nNRBP"),
                 ("MAP-IA", "AP_IA"), ("S-recall@10", "StRecall@10")]


@pytest.mark.parametrize("subtopics", [False, True])
def test_equal_to_ir_measures_own_providers(tmp_path, subtopics):
    paths = write_case(tmp_path, 4, subtopics=subtopics, ties=False)
    pairs = SAME_SUBTOPIC if subtopics else SAME_PLAIN
    qrels, run = read(paths)
    theirs = [ir_measures.parse_measure(t) for _, t in pairs]
    mine = [rd.measure(o) for o, _ in pairs]
    per: dict = {}
    for metric in ir_measures.iter_calc(theirs + mine, qrels, run):
        per.setdefault(metric.measure, {})[metric.query_id] = metric.value
    agg = ir_measures.calc_aggregate(theirs + mine, qrels, run)
    compared = 0
    for (o, t), mt, mo in zip(pairs, theirs, mine):
        assert set(per[mo]) == set(per[mt]), o
        for q in per[mt]:
            want = per[mt][q]
            want = 0.0 if subtopics and math.isnan(want) else want  # ndeval: 0/0 for a topic without relevance
            assert per[mo][q] == pytest.approx(want, rel=1e-12, abs=1e-12), (o, t, q)
            compared += 1
        if not subtopics:
            assert agg[mo] == pytest.approx(agg[mt], rel=1e-12), (o, t)
    assert compared == len(pairs) * 25


def test_any_cutoff_where_ir_measures_has_fixed_ones(tmp_path):
    """pyndeval computes alpha-nDCG and ERR-IA at 5, 10 and 20 only; recdiv at any K (here 7 and 13), and K = 20
    equals pyndeval's."""
    paths = write_case(tmp_path, 5, subtopics=True, ties=False)
    qrels, run = read(paths)
    agg = ir_measures.calc_aggregate([rd.alpha_nDCG@7, rd.alpha_nDCG@13, rd.alpha_nDCG@20, ir_measures.alpha_nDCG@20,
                                      rd.ERR_IA(variant="ndeval")@13], qrels, run)
    assert agg[rd.alpha_nDCG@20] == pytest.approx(agg[ir_measures.alpha_nDCG@20], rel=1e-12)
    assert 0 < agg[rd.alpha_nDCG@7] != agg[rd.alpha_nDCG@13]


def test_population_relevant(tmp_path):
    """population="relevant": queries without a relevant document get NaN and stay out of the mean, as in
    `recdiv eval` (threshold 3: several topics have no grade ≥ 3)."""
    paths = write_case(tmp_path, 6)
    data = rd.Data(threshold=3, population="relevant")
    ref = evaluate_files(paths["qrels"], [paths["run"]], ["nDCG@10", "RR"], threshold=3.0)
    got = ours(["nDCG@10", "RR"], paths, data)
    users = [str(u) for u in ref.users]
    for m in ("nDCG@10", "RR"):
        per, agg = got[m]
        outside = [q for q in per if q not in users]
        assert outside and all(math.isnan(per[q]) for q in outside)
        assert [per[u] for u in users] == ref.user_values("run", m).tolist()
        assert agg == ref.value("run", m)


def test_lexirecall_against_a_baseline(tmp_path):
    paths = write_case(tmp_path, 7)
    ref = evaluate_files(paths["qrels"], [paths["run"], paths["base"]], ["lexirecall@10", "lexiprecision"],
                         threshold=1.0, population="judged", baseline="base")
    for baseline in (paths["base"], list(ir_measures.read_trec_run(str(paths["base"]))),
                     pd.DataFrame(list(ir_measures.read_trec_run(str(paths["base"]))))):
        got = ours(["lexirecall@10", "lexiprecision"], paths, baseline=baseline)
        for m in ("lexirecall@10", "lexiprecision"):
            per, agg = got[m]
            assert [per[str(u)] for u in ref.users] == ref.user_values("run", m).tolist()
            assert set(np.unique(list(per.values()))) <= {-1.0, 0.0, 1.0}
            assert agg == ref.value("run", m)


def test_names_and_printing():
    assert str(rd.RBU(p=0.8)@10) == "recdiv.RBU(p=0.8)@10"
    assert rd.nDCG_IA@10 == rd.measure("nDCG-IA@10") == rd.ndcgia@10
    assert rd.measure("ndcg_cut_10") == rd.nDCG@10  # other tools' spellings, as everywhere in recdiv
    assert rd.nDCG@10 != ir_measures.nDCG@10  # both may be asked at once
    named = rd.Data(aspects="genres.tsv", name="genres")
    assert repr(rd.ILD(data=named)@10) == "recdiv.ILD(data=genres)@10"
    assert repr(rd.ILD(data=rd.Data(aspects="genres.tsv", threshold=4))@10) == \
        "recdiv.ILD(data=threshold=4,aspects=genres.tsv)@10"
    with pytest.raises(AttributeError, match="no measure 'nonsense'"):
        rd.nonsense  # noqa: B018


def test_bad_input_is_one_clear_error(tmp_path):
    paths = write_case(tmp_path, 8)
    qrels, run = read(paths)
    cases = [
        (rd.Gini@10, "system-level measure"),
        (rd.FCP, "pools every user's pairs"),
        (rd.lexirecall@10, r"give it the other run, lexirecall\(baseline=RUN\)"),
        (rd.nDCG(baseline=run)@10, "not a pairwise measure"),
        (rd.RBU(p=2.0)@10, r"RBU: p must be in \(0, 1\], got 2"),
        (rd.ILD@10, "needs `aspects`.*data=recdiv.ir_measures.Data"),
        (rd.ILD(data=rd.Data(aspects=pd.DataFrame({"item": ["d1"]})))@10, "no column 'aspect'"),
    ]
    for m, message in cases:
        with pytest.raises(ConfigError, match=message):
            ir_measures.calc_aggregate([m], qrels, run)
    nan_run = pd.DataFrame({"query_id": ["t1", "t1"], "doc_id": ["d1", "d2"], "score": [1.0, np.nan]})
    with pytest.raises(ConfigError, match="score of query 't1', document 'd2' is NaN"):
        ir_measures.calc_aggregate([rd.nDCG@10], qrels, nan_run)
    with pytest.raises(ConfigError, match="population must be judged or relevant"):
        rd.Data(population="all")
