"""Golden check of the `recdiv` command line: run it over fixed inputs into a folder, compare two such folders.

    python bench/golden.py run OUT --recdiv TREE/.venv/bin/recdiv [--data DIR] [--force] [--keep-work]
    python bench/golden.py compare BASE NEW [--ignore-json-key KEY] [--ignore-line REGEX] [--ignore-file GLOB]
                                            [--strict] [--lines N]
    python bench/golden.py commands          # print the command lines a run executes

`run` executes 113 commands of the `recdiv` executable given (the venv of the tree under test) with the working
folder in a fresh temporary folder and absolute input paths: `data export` of ML-100K u1, the embedded synthetic
dataset and HetRec Last.fm 2K (data from --data, default $RECDIV_DATA or the first `shared/data` above this file or
the executable), `data info`, every baseline recommender, every reranker over genres/tags and over latent factors,
`eval` (117 measures of every family, per-user values, trec_eval -q text, `--subtopics`, `--predictions`, groups),
`compare` in every format with every test and correction, `meta`, `axioms`, help texts, a few error cases, and the
demo experiment (`recdiv run examples/demo.toml`, its `--resume` and `recdiv report`). Every file the commands write
and every stdout that is an output is stored under OUT; every command's line, exit code, stdout and stderr under
OUT/log/NAME.txt (errors are outputs). Stored text has the temporary folder, the data folder and the tree replaced
by <WORK>, <DATA> and <TREE>, and the elapsed times that `recommend`, `rerank` and `run` print ("in 0.4s", "1.2 s")
replaced by <T>. Binary results are stored as text, by the venv's Python: Parquet files as TSV (floats as repr;
the demo's per-user scores in demo/scores.parquet.tsv), and the experiment cache (named by keys that include
recdiv's version) as one sorted list of content digests per stage (demo/cache/STAGE.digests). Of demo-report/ (a
copy of demo/ that `recdiv report` rebuilds) only the files the report writes are kept.

`compare` lists the missing, new and differing files; for a differing text file the number of differing lines and
values (numeric ones with the largest difference) and the first --lines lines of a diff; for JSON the differing
values by path. Exit 1 if anything differs, else 0. Not compared unless --strict (and always listed): the outputs in
KNOWN_NONDETERMINISTIC, and SOURCE_DEPENDENT JSON values (fingerprints of recdiv's source, which differ between
any two trees with different code).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

#: outputs that differ between two runs of one tree today: (file glob, JSON key path or None = the whole file, why).
#: A key path is a tuple of globs, one per level.
KNOWN_NONDETERMINISTIC: list[tuple[str, tuple[str, ...] | None, str]] = [
    # issue 24: matplotlib writes a creation date and random element ids into every SVG
    ("demo*/plots/*.svg", None, "SVG creation date and random element ids (issue 24)"),
    ("meta/plots/*.svg", None, "SVG creation date and random element ids (issue 24)"),
    # ... and the experiment manifest records the sha256 of those SVGs
    ("demo*/manifest.json", ("report", "files", "plots/*.svg"), "sha256 of the SVG plots (issue 24)"),
]
#: JSON values that are fingerprints of recdiv's source code or version: the same for two runs of one tree, different
#: for two trees whose code differs (even by a comment), whatever the outputs.
SOURCE_DEPENDENT: list[tuple[str, tuple[str, ...], str]] = [
    ("demo*/manifest.json", ("inputs", "key"), "inputs stamp: hashes recdiv's source"),
    ("demo*/manifest.json", ("report", "key"), "report stamp: hashes recdiv's source"),
    ("demo*/manifest.json", ("inputs", "artefacts"), "cache keys: include recdiv's version"),
]

GENRE_MEASURES = ["nDCG@20", "alpha-nDCG@20", "ILD@20", "EPC@20"]
#: ~120 measures of every family (the sweeps count once per cutoff); trec_eval, ir_measures and ranx spellings last
#: of the accuracy block. ESSD reads --previous, lexirecall/lexiprecision --baseline.
MEASURES = """P@5,10,20 Recall@10,20 Recall F1@10 HitRate@10 AP AP@20 DCG@10 nDCG@10,20 nDCG nDCG(gain=exp)@10
nDCG(gain=binary)@20 nDCG(gain=ranksys,disc=jk,b=3)@20 nDCG(disc=recip)@10 DCG(gain=exp,disc=exp0.85)@10 RR RR@10
Rprec bpref bpref@50 infAP infAP(variant=valcarce) RBP@20 RBP(p=0.5,gain=graded)@20 ERR@20 HLU HLU(d=2,alpha=10)@20
HLU_breese NumRet NumRelRet NumRel NumQ SetP SetR SetF SetF(beta=2) Judged@10 Spearman Kendall FCP P(rel=5)@10
P.10 recall.20 ndcg_cut_10 map map_cut.20 success.10 recip_rank num_ret R@10 P(rel=4)@10 precision@10 mrr
precision@10-l4 ndcg_burges@10-l4 hit_rate@10
EPC@20 EPC(disc=log,rel=binary)@20 EIP@20 EFD@20 EFD(disc=exp0.85,rel=graded)@20 MSI@20 EPD@20
EPD(dist=jaccard,undefined=one)@20 EILD@20 EILD(rel=binary,disc=log)@20 ILD@20 ILD(dist=jaccard)@20 ILS@20 ESSD@20
RankBiasedEntropy@20 RankBiasedEntropy(p=0.5,smoothing=1)@20 Miscalibration@20
Miscalibration(alpha=0.1,weighting=count)@20 ARP@20 APLT@20 ACLT@20 PopRSP@20 PopREO@20 AggregateDiversity@20
AggregateDiversity(rel=binary)@20 Coverage@20 Entropy@20 Entropy(disc=log)@20 Gini@20 GiniDiversity@20
alpha-nDCG@10,20 alpha-nDCG(alpha=0.9,gain=graded)@20 alpha-DCG@20 alpha-DCG(norm=ndeval)@20 ERR-IA@20
ERR-IA(variant=ndeval)@20 ERR-IA(weights=uniform,variant=ndeval)@20 nERR-IA@20 nDCG-IA@20
nDCG-IA(weights=uniform,gain=rating)@20 P-IA@10 MAP-IA@20 S-recall@10,20 S-RR@20 NRBP@20 nNRBP@20 EU@20 RBU@20
RBU(grade=binary,weights=uniform)@20 ab-nDCG@20 ab-nDCG(alpha=0.5,beta=0.9,nonrel_to_zero=true)@20 lexirecall@20
lexiprecision@20 TSE@20 TSE(base=ndcg,p=0.5)@20""".split()
#: ndeval-style measures over subtopic qrels (RBU and nDCG-IA not listed: they took 10-20 s and 3 GB with --subtopics
#: until issue 24 (now ~2 s CPU, 0.3 GB); add them when the base is next regenerated)
SUBTOPIC_MEASURES = """alpha-nDCG@10,20 alpha-DCG(norm=ndeval)@20 ERR-IA(weights=uniform,variant=ndeval)@20
NRBP(alpha=0.5,beta=0.5)@20 nNRBP(alpha=0.5,beta=0.5)@20 S-recall@10,20 P-IA(weights=uniform)@10 MAP-IA@20
nERR-IA@20 S-RR@20 EU(weights=uniform)@20 P@10 nDCG@20""".split()
TREC_MEASURES = "P.5,10,20 recall.10 map ndcg_cut_10 recip_rank bpref Rprec num_ret num_rel_ret".split()
BASELINES = [  # u1, top-100: (run name, algorithm, extra arguments)
    ("pop", "pop", []), ("random", "random", ["--seed", "3"]), ("avg-rating", "avg-rating", []),
    ("user-knn", "user-knn", []), ("user-knn-k30", "user-knn", ["--param", "k=30"]), ("item-knn", "item-knn", []),
    ("mf-als", "mf-als", []), ("wrmf", "wrmf", ["--factors-out", "{W}/runs/u1/wrmf.factors.tsv"]),
    ("bpr", "bpr", []), ("pure-svd", "pure-svd", ["--factors-out", "{W}/runs/u1/pure-svd.factors.tsv"]),
    ("content", "content", ["--aspects", "{W}/u1/aspects.tsv"]), ("plsa", "plsa", []),
    ("lda", "lda", ["--param", "n_topics=10"]),
]
GENRES = ["--aspects", "{W}/u1/aspects.tsv", "--train", "{W}/u1/train.tsv"]
LATENT = ["--factors", "{W}/runs/u1/wrmf.factors.tsv", "--train", "{W}/u1/train.tsv"]
DOMINANT = [*LATENT, "--dominant", "3"]
RERANKS = [  # of the u1 WRMF top-100 to k = 20: (run name, method, arguments)
    ("mmr-l0.3", "MMR", [*GENRES, "--param", "lambda=0.3"]),
    ("mmr-l0.8-ranksys", "MMR", [*GENRES, "--param", "lambda=0.8", "--param", "variant=ranksys"]),
    ("mmr-jaccard", "MMR", [*GENRES, "--similarity", "jaccard"]),
    ("mmr-pearson", "MMR", [*GENRES, "--similarity", "pearson"]),
    ("mmr-order-rank", "MMR", [*GENRES, "--order", "rank"]),
    ("ziegler-t0.3", "Ziegler", [*GENRES, "--param", "theta_F=0.3"]),
    ("ziegler-t0.8", "Ziegler", [*GENRES, "--param", "theta_F=0.8"]),
    ("iaselect", "IA-Select", GENRES),
    ("iaselect-rating-rank", "IASelect", [*GENRES, "--param", "weighting=rating", "--param", "norm=rank"]),
    ("xquad-l0.3", "xQuAD", [*GENRES, "--param", "lambda=0.3"]),
    ("xquad-l0.8", "xquad", [*GENRES, "--param", "lambda=0.8", "--param", "alpha=0.5", "--param", "norm=minmax",
                             "--param", "weighting=fractional"]),
    ("ngd-l0.3", "NGD", [*GENRES, "--param", "lambda=0.3"]),
    ("ngd-l0.7-pc", "NGD", [*GENRES, "--param", "lambda=0.7", "--param", "novelty=PC"]),
    ("ngd-fd", "NGD", [*GENRES, "--param", "novelty=FD"]),
    ("pm2-l0.3", "PM2", [*GENRES, "--param", "lambda=0.3"]),
    ("pm2-l0.8", "PM-2", [*GENRES, "--param", "lambda=0.8", "--param", "weighting=fractional"]),
    ("dpp-t0.3", "DPP", [*GENRES, "--param", "theta=0.3"]),
    ("dpp-t0.8-rank", "DPP", [*GENRES, "--param", "theta=0.8", "--param", "norm=rank"]),
    ("calibrated-l0.3", "Calibrated", [*GENRES, "--param", "lambda=0.3"]),
    ("calibrated-l0.8", "Calibrated", [*GENRES, "--param", "lambda=0.8", "--param", "alpha=0.05",
                                       "--param", "weighting=count"]),
    ("random-rerank", "Random", []),
    ("random-s7", "Random", ["--seed", "7"]),
    ("mmr-latent", "MMR", [*LATENT, "--similarity", "latent-cosine"]),
    ("ziegler-latent", "Ziegler", LATENT),
    ("dpp-latent", "DPP", [*LATENT, "--param", "theta=0.3"]),
    ("iaselect-latent", "IASelect", DOMINANT),
    ("xquad-latent", "xQuAD", [*DOMINANT, "--param", "lambda=0.3"]),
    ("pm2-latent", "PM2", DOMINANT),
    ("calibrated-latent", "Calibrated", DOMINANT),
    ("ngd-latent", "NGD", LATENT),
    ("mmr-latent-svd", "MMR", ["--factors", "{W}/runs/u1/pure-svd.factors.tsv"]),
    ("xquad-factors-from-svd", "xQuAD", ["--train", "{W}/u1/train.tsv", "--factors-from", "pure-svd",
                                         "--factors-param", "factors=20", "--dominant", "2"]),
]


@dataclass
class Step:
    name: str  # log/NAME.txt; unique
    args: list[str]  # recdiv arguments ({W}: work folder, {D}: data folder, {T}: tree); [] = a Python action
    stdout: str | None = None  # file (relative to the work folder) that keeps stdout, else it goes to the log
    expect: int = 0  # expected exit code (error cases: 2)
    action: object = None  # callable(work) for the steps that prepare inputs without recdiv


def _u1_runs(names: list[str], folder: str = "runs/u1") -> list[str]:
    return [f"{{W}}/{folder}/{n}.run" for n in names]


def steps() -> list[Step]:
    """Every command of a golden run, in order."""
    q1, a1, t1 = "{W}/u1/test.qrels", "{W}/u1/aspects.tsv", "{W}/u1/train.tsv"
    out: list[Step] = [
        Step("version", ["--version"], "help/version.txt"),
        Step("help", ["--help"], "help/recdiv.txt"),
        Step("help-recommend", ["recommend", "--help"], "help/recommend.txt"),
        Step("help-rerank", ["rerank", "--help"], "help/rerank.txt"),
        Step("eval-list", ["eval", "--list"], "eval/list.txt"),
        Step("export-u1", ["data", "export", "ml-100k", "--split", "u1", "-o", "{W}/u1", "--data-dir", "{D}"]),
        Step("export-synthetic", ["data", "export", "synthetic:small", "--split", "holdout:0.2", "-o", "{W}/syn"]),
        Step("export-lastfm", ["data", "export", "hetrec2011-lastfm-2k", "--split", "holdout:0.2", "--seed", "1",
                               "--aspects", "tags", "--min-weight", "5", "--top", "10", "-o", "{W}/fm",
                               "--data-dir", "{D}"]),
        Step("subtopics-u1", [], action=write_subtopics),
    ]
    for name in ("ml-100k", "synthetic:small", "hetrec2011-lastfm-2k", "ml-latest-small"):
        out.append(Step(f"info-{name.replace(':', '-')}", ["data", "info", name, "--format", "json", "--data-dir",
                                                          "{D}"], f"info/{name.replace(':', '-')}.json"))
    out.append(Step("info-ml-100k-table", ["data", "info", "ml-100k", "--data-dir", "{D}"], "info/ml-100k.txt"))
    rec = ["recommend", "--train", t1, "--qrels", q1, "-n", "100"]
    for name, algo, extra in BASELINES:
        out.append(Step(f"recommend-u1-{name}", [*rec, "--algo", algo, *extra, "-o", f"{{W}}/runs/u1/{name}.run"]))
    out += [
        Step("recommend-u1-pop-by-name", ["recommend", "--dataset", "ml-100k", "--split", "u1", "--data-dir", "{D}",
                                          "--algo", "pop", "-n", "100", "--tag", "pop-by-name",
                                          "-o", "{W}/runs/u1/pop-by-name.run"]),
        Step("predict-u1-mf-als", ["recommend", "--train", t1, "--qrels", q1, "--algo", "mf-als", "--predict",
                                   "-o", "{W}/runs/u1/mf-als.pred"]),
        Step("predict-u1-user-knn", ["recommend", "--train", t1, "--qrels", q1, "--algo", "user-knn", "--param",
                                     "feedback=explicit", "--predict", "-o", "{W}/runs/u1/user-knn.pred"]),
    ]
    for ds, n, algos in (("syn", "100", ("pop", "item-knn", "wrmf")), ("fm", "50", ("pop", "wrmf"))):
        for algo in algos:
            extra = ["--factors-out", f"{{W}}/runs/{ds}/wrmf.factors.tsv"] if algo == "wrmf" else []
            extra += ["--param", "factors=16"] if (ds, algo) == ("fm", "wrmf") else []
            out.append(Step(f"recommend-{ds}-{algo}", ["recommend", "--train", f"{{W}}/{ds}/train.tsv", "--qrels",
                                                       f"{{W}}/{ds}/test.qrels", "-n", n, "--algo", algo, *extra,
                                                       "-o", f"{{W}}/runs/{ds}/{algo}.run"]))
    for name, method, extra in RERANKS:
        out.append(Step(f"rerank-u1-{name}", ["rerank", "{W}/runs/u1/wrmf.run", "--method", method, *extra, "-k", "20",
                                              "--tag", name, "-o", f"{{W}}/reranked/u1/{name}.run"]))
    for ds, name, method, extra in (
            ("syn", "xquad", "xQuAD", ["--aspects", "{W}/syn/aspects.tsv", "--train", "{W}/syn/train.tsv"]),
            ("syn", "mmr-latent", "MMR", ["--factors", "{W}/runs/syn/wrmf.factors.tsv"]),
            ("fm", "xquad-tags", "xQuAD", ["--aspects", "{W}/fm/aspects.tsv", "--train", "{W}/fm/train.tsv"]),
            ("fm", "iaselect-latent", "IASelect", ["--factors", "{W}/runs/fm/wrmf.factors.tsv", "--dominant", "3",
                                                   "--train", "{W}/fm/train.tsv"])):
        out.append(Step(f"rerank-{ds}-{name}", ["rerank", f"{{W}}/runs/{ds}/wrmf.run", "--method", method, *extra,
                                                "-k", "20", "-o", f"{{W}}/reranked/{ds}/{name}.run"]))
    # a candidate without tags is an item without aspects for MMR as for xQuAD and IA-Select (issue 24)
    out.append(Step("rerank-fm-mmr-tags", ["rerank", "{W}/runs/fm/wrmf.run", "--method", "MMR", "--aspects",
                                           "{W}/fm/aspects.tsv", "-k", "20", "-o", "{W}/reranked/fm/mmr-tags.run"]))
    all_u1 = _u1_runs([b[0] for b in BASELINES]) + _u1_runs([r[0] for r in RERANKS], "reranked/u1")
    ctx = ["--train", t1, "--aspects", a1]
    full = ["-m", *MEASURES, *ctx, "--previous", "{W}/runs/u1/pop.run", "--baseline", "{W}/runs/u1/wrmf.run",
            "--rating-scale", "1:5"]
    few = [*_u1_runs(["wrmf"]), *_u1_runs(["xquad-l0.3", "iaselect", "mmr-latent"], "reranked/u1")]
    out += [
        Step("eval-u1-all-runs", ["eval", q1, *all_u1, *full, "--format", "json"], "eval/u1-all-runs.json"),
        Step("eval-u1-per-user", ["eval", q1, *few, *_u1_runs(["pop"]), *full, "--format", "csv", "--per-user"],
             "eval/u1-per-user.csv"),
        Step("eval-u1-trec-q", ["eval", q1, *few[:2], "-m", *TREC_MEASURES, "-q"], "eval/u1-trec.q"),
        Step("eval-u1-default-table", ["eval", q1, *_u1_runs([b[0] for b in BASELINES] + ["pop-by-name"])],
             "eval/u1-default.txt"),
        Step("eval-u1-judged-t3", ["eval", q1, *few, "-m", "P@10", "nDCG@10", "AP", "alpha-nDCG@10", *ctx,
                                   "--population", "judged", "--rel-threshold", "3", "--format", "json"],
             "eval/u1-judged-t3.json"),
        Step("eval-u1-groups", ["eval", q1, *few, "-m", "nDCG@20", "alpha-nDCG@20", "ILD@20", *ctx,
                                "--groups", "profile-size:4"], "eval/u1-groups.txt"),
        Step("eval-u1-groups-json", ["eval", q1, *few, "-m", "nDCG@20", "EPC@20", *ctx, "--groups", "popularity",
                                     "--format", "json"], "eval/u1-groups.json"),
        Step("eval-u1-per-user-table", ["eval", q1, *few[:2], "-m", "nDCG@10", "ILD@10", *ctx, "--per-user"],
             "eval/u1-per-user-table.txt"),
        Step("eval-u1-predictions", ["eval", q1, "--predictions", "{W}/runs/u1/mf-als.pred", "--predictions",
                                     "{W}/runs/u1/user-knn.pred", "-m", "RMSE", "MAE", "Spearman", "Kendall", "FCP",
                                     "--format", "csv", "--per-user"], "eval/u1-predictions.csv"),
        Step("eval-u1-subtopics-q", ["eval", "--subtopics", "{W}/u1/subtopics.qrels", *few, "-m", *SUBTOPIC_MEASURES,
                                     "-q"], "eval/u1-subtopics.q"),
        Step("eval-u1-subtopics-csv", ["eval", "--subtopics", "{W}/u1/subtopics.qrels", *few, "-m",
                                       *SUBTOPIC_MEASURES, "--format", "csv", "--per-user"], "eval/u1-subtopics.csv"),
        Step("eval-syn", ["eval", "{W}/syn/test.qrels", "{W}/runs/syn/pop.run", "{W}/runs/syn/item-knn.run",
                          "{W}/runs/syn/wrmf.run", "{W}/reranked/syn/xquad.run", "{W}/reranked/syn/mmr-latent.run",
                          "-m", *MEASURES[:40], "EPC@20", "ILD@20", "alpha-nDCG@20", "ERR-IA@20", "ab-nDCG@20",
                          "Gini@20", "--train", "{W}/syn/train.tsv", "--aspects", "{W}/syn/aspects.tsv",
                          "--format", "csv", "--per-user"], "eval/syn.csv"),
        Step("eval-lastfm", ["eval", "{W}/fm/test.qrels", "{W}/runs/fm/pop.run", "{W}/runs/fm/wrmf.run",
                             "{W}/reranked/fm/xquad-tags.run",
                             "{W}/reranked/fm/iaselect-latent.run", "--rel-threshold", "1", "-m", "P@10,20",
                             "nDCG@20", "AP", "EPC@20", "ILD@20", "alpha-nDCG@20", "ERR-IA@20", "S-recall@20",
                             "Coverage@20", "--train", "{W}/fm/train.tsv", "--aspects", "{W}/fm/aspects.tsv",
                             "--format", "json"], "eval/lastfm.json"),
    ]
    cmp_runs = [*few, "{W}/reranked/u1/mmr-l0.3.run"]
    cmp = ["compare", q1, *cmp_runs, *(x for m in GENRE_MEASURES for x in ("-m", m)), *ctx, "--baseline", "wrmf"]
    for name, extra, ext in (
            ("t-holm", [], "txt"),
            ("wilcoxon-bonferroni-md", ["--test", "wilcoxon", "--correction", "bonferroni", "--format", "markdown"],
             "md"),
            ("sign-bh-latex", ["--test", "sign", "--correction", "bh", "--format", "latex"], "tex"),
            ("permutation-json", ["--test", "permutation", "--samples", "2000", "--correction", "none",
                                  "--format", "json"], "json"),
            ("bootstrap-json", ["--test", "bootstrap", "--samples", "300", "--ci", "bootstrap", "--confidence", "0.9",
                                "--format", "json"], "json"),
            ("tukey", ["--test", "tukey", "--samples", "1000"], "txt"),
            ("tukey-anova-latex", ["--test", "tukey-anova", "--format", "latex"], "tex"),
            ("t-greater-per-user-json", ["--alternative", "greater", "--alpha", "0.01", "--per-user", "--format",
                                         "json"], "json"),
            ("groups-md", ["--groups", "profile-size:3", "--format", "markdown"], "md")):
        out.append(Step(f"compare-{name}", [*cmp, *extra], f"compare/{name}.{ext}"))
    out += [
        Step("compare-no-baseline-json", ["compare", q1, *cmp_runs, "-m", "nDCG@20", "--format", "json"],
             "compare/no-baseline.json"),
        Step("compare-lexi", ["compare", q1, *cmp_runs, "-m", "lexirecall@20", "-m", "lexiprecision@20",
                              "--baseline", "wrmf", "--format", "markdown"], "compare/lexi.md"),
        Step("compare-subtopics-json", ["compare", "--subtopics", "{W}/u1/subtopics.qrels", *cmp_runs, "-m",
                                        "alpha-nDCG@20", "-m", "S-recall@20", "--baseline", "wrmf", "--format",
                                        "json"], "compare/subtopics.json"),
        Step("compare-output-file", [*cmp, "--format", "latex", "-o", "{W}/compare/output-file.tex"]),
    ]
    meta_runs = _u1_runs(["pop", "user-knn", "item-knn", "wrmf", "bpr", "pure-svd"])
    meta = ["meta", q1, *meta_runs, "-m", "nDCG@20", "-m", "P@20", "-m", "alpha-nDCG@20", *ctx, "--samples", "2000",
            "--asl-samples", "200", "--robustness-samples", "5", "--sparsity-levels", "1,0.5,0.2",
            "--popularity-levels", "0,5,10"]
    out += [
        Step("meta-text", meta, "meta/analyses.txt"),
        Step("meta-json-plots", [*meta, "--format", "json", "--plots", "{W}/meta/plots"], "meta/analyses.json"),
        Step("meta-perturbation", ["meta", q1, *meta_runs, "-m", "nDCG@20", "-m", "ILD@20", *ctx, "--analysis",
                                   "perturbation", "--perturbation-k", "10", "--format", "json"],
             "meta/perturbation.json"),
        Step("axioms-table", ["axioms", "--cases", "5", "--max-size", "8"], "axioms/table.md"),
        Step("axioms-json", ["axioms", "-m", "alpha-nDCG@10", "-m", "ab-nDCG@10", "-m", "P@10", "--cases", "10",
                             "--format", "json"], "axioms/some.json"),
        Step("run-demo", ["run", "{T}/examples/demo.toml", "--out", "{W}/demo", "--quiet"]),
        Step("run-demo-resume", ["run", "{T}/examples/demo.toml", "--out", "{W}/demo", "--resume", "--quiet"]),
        Step("copy-demo", [], action=copy_demo),
        Step("report-demo", ["report", "{W}/demo-report"], "demo-report/report.stdout.txt"),
        # errors are outputs: exit code, one-line message
        Step("error-unknown-measure", ["eval", q1, *few[:1], "-m", "nDGC@10"], expect=2),
        Step("error-unknown-reranker", ["rerank", "{W}/runs/u1/wrmf.run", "--method", "IA-Selekt", "-o",
                                        "{W}/errors/x.run"], expect=2),
        Step("error-missing-run", ["eval", q1, "{W}/runs/u1/missing.run"], expect=2),
        Step("error-bad-param", ["recommend", "--train", t1, "--algo", "user-knn", "--param", "k=-1", "-o",
                                 "{W}/errors/x.run"], expect=2),
        Step("error-xquad-needs-train", ["rerank", "{W}/runs/u1/wrmf.run", "--method", "xQuAD", "--aspects", a1,
                                         "-o", "{W}/errors/x.run"], expect=2),
        # today a mean over 0 users with exit 0 (issue 24 will make it an error)
        Step("lastfm-default-threshold", ["eval", "{W}/fm/test.qrels", "{W}/runs/fm/pop.run", "-m", "P@10"],
             "errors/lastfm-default-threshold.txt"),
    ]
    return out


def write_subtopics(work: Path) -> None:
    """ndeval-style subtopic qrels of u1 (user genre item 0/1): the genres of every judged item, relevant when the
    grade is >= 4."""
    genres: dict[str, list[str]] = {}
    for line in (work / "u1" / "aspects.tsv").read_text().splitlines():
        item, genre = line.split("\t")[:2]
        genres.setdefault(item, []).append(genre)
    lines = []
    for line in (work / "u1" / "test.qrels").read_text().splitlines():
        user, _, item, grade = line.split()
        lines += [f"{user} {g} {item} {int(int(grade) >= 4)}\n" for g in genres.get(item, [])]
    (work / "u1" / "subtopics.qrels").write_text("".join(lines))


def copy_demo(work: Path) -> None:
    """`recdiv report` rebuilds a copy of the demo folder (the run's own files stay as the run wrote them)."""
    shutil.copytree(work / "demo", work / "demo-report")


# Binary outputs as text, by the Python of the venv under test (pyarrow, numpy) -----------------------------------
DUMP = r'''
import hashlib, json, sys
from pathlib import Path
import numpy as np, pyarrow.parquet as pq

def cell(v):
    return "NA" if v is None else repr(v) if isinstance(v, float) else str(v).replace("\t", "\\t").replace("\n", "\\n")

def lines(table):
    """Schema metadata (but pandas'), the columns with one value as `# name = value`, then the others as TSV."""
    meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items() if k != b"pandas"}
    head = [f"# {k}: {v}" for k, v in sorted(meta.items())]
    cols, names = [], []
    for f, col in zip(table.schema, table.columns):
        values = col.to_pylist()
        if table.num_rows > 1 and all(v == values[0] for v in values):
            head.append(f"# {f.name}:{f.type} = {cell(values[0])}")
        else:
            cols.append(values)
            names.append(f"{f.name}:{f.type}")
    head.append("\t".join(names))
    return head + ["\t".join(cell(c[r]) for c in cols) for r in range(table.num_rows)]

def digest(path):
    h = hashlib.sha256()
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            parts = []
            for k in sorted(z.files):
                a = np.ascontiguousarray(z[k])
                h.update(f"{k}\0{a.dtype.str}\0{a.shape}\0".encode())
                h.update(a.tobytes())
                parts.append(f"{k}{list(a.shape)}:{a.dtype}")
        return h.hexdigest(), " ".join(parts)
    if path.suffix == ".parquet":
        table = pq.read_table(path)
        h.update("\n".join(lines(table)).encode())
        return h.hexdigest(), f"{table.num_rows} rows: " + " ".join(table.column_names)
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), f"{len(data)} bytes"

jobs = json.loads(sys.stdin.read())
for kind, src, dst in jobs:
    if kind == "table":
        Path(dst).write_text("\n".join(lines(pq.read_table(src))) + "\n")
    else:  # a cache folder: one sorted digest list per stage
        Path(dst).mkdir(parents=True, exist_ok=True)
        for stage in sorted(p for p in Path(src).iterdir() if p.is_dir()):
            rows = sorted(" ".join(digest(p)) for p in stage.rglob("*") if p.is_file() and p.suffix != ".sha256")
            (Path(dst) / f"{stage.name}.digests").write_text("".join(r + "\n" for r in rows))
'''
#: folders that are copies of another, rewritten by a command: only the files it writes are kept
REWRITTEN = {"demo-report": ("summary.*", "report.*", "manifest.json", "plots/*")}
TIME = re.compile(r"(?<![\w.])\d+\.\d(?= ?s\b)")  # the elapsed times of recommend, rerank and run


class Normaliser:
    """Replaces the run's own folders in text by placeholders, longest first."""

    def __init__(self, **places: Path):
        pairs = {}
        for tag, p in places.items():
            for variant in {str(p), os.path.realpath(p)}:
                pairs[variant] = f"<{tag}>"
        self.pairs = sorted(pairs.items(), key=lambda kv: -len(kv[0]))

    def __call__(self, text: str) -> str:
        for old, new in self.pairs:
            text = text.replace(old, new)
        return text


def find_data(*starts: Path) -> Path | None:
    if os.environ.get("RECDIV_DATA"):
        return Path(os.environ["RECDIV_DATA"])
    for start in starts:
        for parent in start.absolute().parents:
            if (parent / "shared" / "data" / "ml-100k").is_dir():
                return parent / "shared" / "data"
    return None


def run(args: argparse.Namespace) -> int:
    exe = Path(args.recdiv).absolute()
    tree = Path(args.tree).absolute() if args.tree else exe.parent.parent.parent
    data = Path(args.data).absolute() if args.data else find_data(Path(__file__), exe)
    out = Path(args.out).absolute()
    for what, ok in ((f"--recdiv {exe}: not an executable", os.access(exe, os.X_OK)),
                     (f"{tree}/examples/demo.toml not found (give the tree with --tree)",
                      (tree / "examples" / "demo.toml").is_file()),
                     (f"data folder {data} without ml-100k (give it with --data)",
                      data is not None and (data / "ml-100k").is_dir()),
                     (f"{out} exists (--force replaces it)", args.force or not out.exists())):
        if not ok:
            print(f"golden: {what}", file=sys.stderr)
            return 2
    work = Path(tempfile.mkdtemp(prefix="recdiv-golden-"))
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    t0, load = time.perf_counter(), f"{os.getloadavg()[0]:.1f}"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # `timeout`, kill: clean up as after Ctrl-C
    try:
        norm = Normaliser(WORK=work, DATA=data, TREE=tree)
        surprises = execute(work, stage, norm, exe, data, tree)
        store(work, stage, norm, exe.parent / "python")
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if not args.keep_work:
            shutil.rmtree(work, ignore_errors=True)
        raise
    if out.exists():
        shutil.rmtree(out)
    stage.rename(out)
    if args.keep_work:
        print(f"golden: work folder kept: {work}", file=sys.stderr)
    else:
        shutil.rmtree(work)
    files = sum(1 for p in out.rglob("*") if p.is_file())
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"golden: {len(steps())} commands, {files} files in {out}; wall {time.perf_counter() - t0:.0f} s, CPU "
          f"{cpu.ru_utime + cpu.ru_stime:.0f} s, load average {load} before, {os.getloadavg()[0]:.1f} after",
          file=sys.stderr)
    for s in surprises:
        print(f"golden: unexpected exit code: {s}", file=sys.stderr)
    return 0


def execute(work: Path, stage: Path, norm: Normaliser, exe: Path, data: Path, tree: Path) -> list[str]:
    """Run every step in `work`, its log into stage/log; the steps whose exit code was not the expected one."""
    env = {**os.environ, "RECDIV_DATA": str(data), "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    (stage / "log").mkdir()
    surprises = []
    for step in steps():
        t = time.perf_counter()
        if step.action is not None:
            step.action(work)
            (stage / "log" / f"{step.name}.txt").write_text(f"# {step.action.__doc__.split(chr(10))[0]}\n")
            continue
        argv = [a.format(W=work, D=data, T=tree) for a in step.args]
        for a in argv:  # the folders of the outputs
            if a.startswith(str(work)) and "." in Path(a).name:
                Path(a).parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([str(exe), *argv], cwd=work, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, errors="backslashreplace")
        stdout, stderr = norm(proc.stdout), TIME.sub("<T>", norm(proc.stderr))
        if step.stdout:
            (work / step.stdout).parent.mkdir(parents=True, exist_ok=True)
            (work / step.stdout).write_text(proc.stdout)
        log = [f"$ recdiv {' '.join(norm(a) for a in argv)}", f"exit {proc.returncode}"]
        if not step.stdout:
            log += ["--- stdout", TIME.sub("<T>", stdout).rstrip("\n")]
        log += ["--- stderr", stderr.rstrip("\n")]
        (stage / "log" / f"{step.name}.txt").write_text("\n".join(log) + "\n")
        if proc.returncode != step.expect:
            surprises.append(f"{step.name}: exit {proc.returncode} (expected {step.expect})")
        print(f"{step.name:32} exit {proc.returncode}  {time.perf_counter() - t:5.1f} s", file=sys.stderr)
    return surprises


def store(work: Path, stage: Path, norm: Normaliser, python: Path) -> None:
    """Copy the work folder's files into the stage folder: text normalised, Parquet and the cache as text."""
    jobs = []
    for src in sorted(work.rglob("*")):
        rel = src.relative_to(work)
        if not src.is_file() or "cache" in rel.parts[:-1]:
            continue
        inner = "/".join(rel.parts[1:])
        if rel.parts[0] in REWRITTEN and not any(fnmatch.fnmatch(inner, g) for g in REWRITTEN[rel.parts[0]]):
            continue
        dst = stage / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".parquet":
            jobs.append(("table", str(src), str(dst.with_name(dst.name + ".tsv"))))
            continue
        data = src.read_bytes()
        try:
            dst.write_text(norm(data.decode("utf-8")))
        except UnicodeDecodeError:
            dst.write_bytes(data)
    for cache in sorted(p for p in work.rglob("cache") if p.is_dir() and p.relative_to(work).parts[0] not in REWRITTEN):
        jobs.append(("cache", str(cache), str(stage / cache.relative_to(work))))
    subprocess.run([str(python), "-c", DUMP], input=json.dumps(jobs), text=True, check=True)


# compare ------------------------------------------------------------------------------------------------------------
def _match(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(fnmatch.fnmatchcase(p, q) for p, q in zip(path, pattern))


def _prune(obj, keys: list[str], paths: list[tuple[str, ...]], at: tuple[str, ...] = ()):
    """`obj` without the dict keys in `keys` (any depth) and the values at `paths`."""
    if isinstance(obj, dict):
        return {k: _prune(v, keys, paths, (*at, k)) for k, v in obj.items()
                if k not in keys and not any(_match((*at, k), p) for p in paths)}
    if isinstance(obj, list):
        return [_prune(v, keys, paths, at) for v in obj]
    return obj


def _leaves(obj, at: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, f"{at}.{k}" if at else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, f"{at}[{i}]")
    else:
        yield at, obj


def _number(x) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float):
        return float(x)
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


class Tally:
    """Differing values: how many, how many numeric, the largest numeric difference."""

    def __init__(self):
        self.values = self.numeric = 0
        self.largest = 0.0

    def add(self, a, b) -> None:
        self.values += 1
        x, y = _number(a), _number(b)
        if x is not None and y is not None:
            self.numeric += 1
            d = abs(x - y) if math.isfinite(x) and math.isfinite(y) else math.inf
            self.largest = max(self.largest, d)

    def __str__(self) -> str:
        s = f"{self.values} value{'s differ' if self.values != 1 else ' differs'}"
        return s + (f" ({self.numeric} numeric, largest |Δ| {self.largest:.3g})" if self.numeric else "")


TOKEN = re.compile(r"[\t ,|&]+")


def _only(lines: list[str], other: list[str]) -> list[str]:
    """The lines of `lines` not matched by an equal line of `other` (multiset difference), in file order."""
    extra = Counter(lines) - Counter(other)
    out = []
    for line in lines:
        if extra[line] > 0:
            extra[line] -= 1
            out.append(line)
    return out


def compare_text(a: str, b: str, drop: list[re.Pattern], lines: int) -> list[str] | None:
    """None if equal (after --ignore-line), else a summary line and the first `lines` lines of a diff. Equal line
    counts: line i against line i. Otherwise a diff (difflib up to 5,000 lines; beyond, the lines of each side that
    the other does not hold, paired in order, so that no file makes it slow)."""
    la = [s for s in a.splitlines() if not any(r.search(s) for r in drop)]
    lb = [s for s in b.splitlines() if not any(r.search(s) for r in drop)]
    if la == lb:
        return None
    if len(la) == len(lb):
        pairs = [(i, x, y) for i, (x, y) in enumerate(zip(la, lb)) if x != y]
        shown = [d for i, x, y in pairs[:lines] for d in (f"@@ line {i + 1}", f"-{x}", f"+{y}")]
    elif max(len(la), len(lb)) <= 5000:
        ops = difflib.SequenceMatcher(None, la, lb).get_opcodes()
        pairs = [(i, x, y) for op, i1, i2, j1, j2 in ops if op != "equal"
                 for i, x, y in zip(range(i1, i2), la[i1:i2], lb[j1:j2])]
        shown = list(difflib.unified_diff(la, lb, n=0, lineterm=""))[2:]  # without the ---/+++ header
    else:
        gone, came = _only(la, lb), _only(lb, la)
        pairs = [(0, x, y) for x, y in zip(gone, came)]
        half = max(1, lines // 2)
        shown = [f"-{x}" for x in gone[:half]] + [f"+{y}" for y in came[:half]]
    tally = Tally()
    for _, x, y in pairs:
        ta, tb = TOKEN.split(x), TOKEN.split(y)
        for u, v in zip(ta, tb):
            if u != v:
                tally.add(u, v)
        tally.values += abs(len(ta) - len(tb))
    head = f"{len(pairs)} of {len(la)} lines changed ({tally})"
    head += f"; {len(lb)} lines in NEW" if len(la) != len(lb) else ""
    return [head, *(f"    {d[:200]}" for d in shown[:lines])]


def compare_json(a: str, b: str, keys: list[str], paths: list[tuple[str, ...]], lines: int) -> list[str] | None:
    ja, jb = _prune(json.loads(a), keys, paths), _prune(json.loads(b), keys, paths)
    if ja == jb:
        return None
    da, db = dict(_leaves(ja)), dict(_leaves(jb))
    tally, shown = Tally(), []
    for k in [*da, *(k for k in db if k not in da)]:
        x, y = da.get(k, "<absent>"), db.get(k, "<absent>")
        if x != y or type(x) is not type(y):
            tally.add(x, y)
            if len(shown) < lines:
                shown.append(f"    {k}: {json.dumps(x)[:90]} -> {json.dumps(y)[:90]}")
    return [f"{tally} (of {len(da)})", *shown]


def compare(args: argparse.Namespace) -> int:
    base, new = Path(args.base), Path(args.new)
    for d in (base, new):
        if not d.is_dir():
            print(f"golden: {d}: not a folder", file=sys.stderr)
            return 2
    try:
        drop = [re.compile(r) for r in args.ignore_line]
    except re.error as e:
        print(f"golden: --ignore-line: {e}", file=sys.stderr)
        return 2
    defaults = [] if args.strict else [(g, p, why) for g, p, why in KNOWN_NONDETERMINISTIC + SOURCE_DEPENDENT]
    files_a = {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()}
    files_b = {p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()}
    skipped, ignored, same, report, absent = [], 0, 0, [], {"missing": 0, "new": 0}
    for rel in sorted(files_a | files_b):
        if any(fnmatch.fnmatch(rel, g) for g in args.ignore_file):
            ignored += 1
            continue
        if any(fnmatch.fnmatch(rel, g) and p is None for g, p, _ in defaults):
            skipped.append(rel)
            continue
        if rel not in files_b or rel not in files_a:
            which = "missing" if rel not in files_b else "new"
            absent[which] += 1
            report.append((rel, ["missing in NEW" if which == "missing" else "new in NEW (not in BASE)"]))
            continue
        a, b = (base / rel).read_bytes(), (new / rel).read_bytes()
        paths = [p for g, p, _ in defaults if p is not None and fnmatch.fnmatch(rel, g)]
        if a == b:
            same += 1
            continue
        try:
            ta, tb = a.decode("utf-8"), b.decode("utf-8")
        except UnicodeDecodeError:
            report.append((rel, ["binary files differ"]))
            continue
        if rel.endswith(".json"):
            try:
                result = compare_json(ta, tb, args.ignore_json_key, paths, args.lines)
            except json.JSONDecodeError:
                result = compare_text(ta, tb, drop, args.lines)
        else:
            result = compare_text(ta, tb, drop, args.lines)
        if result is None:
            same += 1
        else:
            report.append((rel, result))
    for rel, text in report:
        print(f"{rel}: {text[0]}")
        for line in text[1:]:
            print(line)
    differ = len(report) - absent["missing"] - absent["new"]
    print(f"golden compare: {len(files_a | files_b)} files: {same} equal, {differ} differ, {absent['missing']} missing "
          f"in NEW, {absent['new']} new in NEW, {ignored} ignored (--ignore-file)")
    if defaults:
        print(f"not compared by default (--strict compares them): {len(skipped)} files known nondeterministic, "
              "and these JSON values:")
        for g, p, why in defaults:
            print(f"    {g}{' ' + '.'.join(p) if p else ''}: {why}")
    return 1 if report else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="golden.py", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the golden commands into a new folder")
    r.add_argument("out", help="folder to create")
    r.add_argument("--recdiv", required=True, help="the recdiv executable of the tree under test (.venv/bin/recdiv)")
    r.add_argument("--tree", help="the tree (for examples/demo.toml; default: three levels above --recdiv)")
    r.add_argument("--data", help="folder of ml-100k, hetrec2011-lastfm-2k, ml-latest-small")
    r.add_argument("--force", action="store_true", help="replace OUT if it exists")
    r.add_argument("--keep-work", action="store_true", help="keep the temporary work folder")
    c = sub.add_parser("compare", help="compare two golden folders (exit 1 if anything differs)",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=COMPARE_EPILOG)
    c.add_argument("base")
    c.add_argument("new")
    c.add_argument("--ignore-json-key", action="append", default=[], metavar="KEY",
                   help="drop this key at any depth of every JSON file before comparing (repeatable)")
    c.add_argument("--ignore-line", action="append", default=[], metavar="REGEX",
                   help="drop the lines of text files that match (re.search; repeatable)")
    c.add_argument("--ignore-file", action="append", default=[], metavar="GLOB",
                   help="do not compare files whose path (relative to the folder) matches (repeatable)")
    c.add_argument("--strict", action="store_true",
                   help="also compare KNOWN_NONDETERMINISTIC files and SOURCE_DEPENDENT JSON values")
    c.add_argument("--lines", type=int, default=12, help="diff lines / differing values shown per file (12)")
    sub.add_parser("commands", help="print the command lines of a run")
    args = parser.parse_args(argv)
    if args.command == "run":
        try:
            return run(args)
        except KeyboardInterrupt:
            print("golden: interrupted (temporary folders removed)", file=sys.stderr)
            return 130
    if args.command == "compare":
        return compare(args)
    for s in steps():
        print(f"{s.name}: " + (f"recdiv {' '.join(s.args)}" if s.args else f"(python) {s.action.__doc__.split('.')[0]}")
              + (f" > {s.stdout}" if s.stdout else ""))
    return 0


COMPARE_EPILOG = """Intended, value-free changes:
  --ignore-json-key KEY     e.g. a provenance record in JSON outputs (issue 25): --ignore-json-key provenance
  --ignore-line REGEX       e.g. provenance header lines of text, Markdown, LaTeX, CSV and HTML outputs and of the
                            Parquet metadata dumps ("# KEY: VALUE" lines):
                            --ignore-line '^[#%] ?(recdiv|provenance|version|commit|command|python)\\b'
                            --ignore-line '<meta name="(generator|provenance)'
  --ignore-file GLOB        e.g. --ignore-file 'help/*' when a help text changes on purpose
Once provenance lands, a check reads:
  python bench/golden.py compare /work/golden/base NEW --ignore-json-key provenance --ignore-line 'REGEX'
with the key and the line pattern that issue 25 chose (and `recdiv --version` in help/version.txt differs when the
version does: --ignore-file help/version.txt).
"""

if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `compare ... | head` ends quietly
    sys.exit(main())
