"""recdiv's measures in PyTerrier's `pt.Experiment`, on precomputed result frames (no Java, no index): PyTerrier
evaluates measures given as ir_measures measures, so `recdiv.ir_measures` measures work unchanged. Checked: the
means equal recdiv's file route (`evaluate_files`, what `recdiv eval` runs) and PyTerrier's paired t-test p-values
equal recdiv's (`Results.compare(test="t", correction="none")`) on the same per-user values."""

from __future__ import annotations

import pandas as pd
import pyterrier as pt
import pytest

import recdiv.ir_measures as rd
from recdiv.eval.io import evaluate_files
from recdiv.eval.results import Results

from .test_ir_measures import write_case

MEASURES = ["nDCG@10", "alpha-nDCG@10", "S-RR@5", "lexirecall@10"]


def _frame(path, columns):
    return pd.read_csv(path, sep=" ", header=None, names=columns, dtype={"qid": str, "docno": str})


def test_pt_experiment_with_recdiv_measures_and_significance(tmp_path):
    paths = write_case(tmp_path, 21, subtopics=True)
    qrels = _frame(paths["qrels"], ["qid", "iteration", "docno", "label"])
    runs = [_frame(paths[n], ["qid", "Q0", "docno", "rank", "score", "name"]).drop(columns=["Q0", "name"])
            for n in ("run", "base")]
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "q"})
    plain = ["nDCG@10", "alpha-nDCG@10", "S-RR@5"]
    ms = [rd.measure(m) for m in plain] + [rd.measure("lexirecall@10", baseline=paths["base"])]
    table = pt.Experiment(runs, topics, qrels, eval_metrics=ms, names=["run", "base"], baseline=1,
                          correction="holm")
    ref = evaluate_files(None, [paths["run"], paths["base"]], MEASURES, subtopics=paths["qrels"], threshold=1.0,
                         population="judged", baseline="base")
    cmp = Results.from_evaluation(ref).compare(baseline="base", test="t", correction="none", measures=plain)
    row = table.set_index("name").loc["run"]
    for m, name in zip(MEASURES, map(str, ms)):
        assert row[name] == pytest.approx(ref.value("run", m), rel=1e-12), m
        if m in plain:
            p = next(pc.p_value for pc in cmp.pairs if pc.measure == m)
            assert row[f"{name} p-value"] == pytest.approx(p, rel=1e-9), m
    assert "java" not in pt.__dict__ or not pt.java.started()  # everything above ran without a JVM
