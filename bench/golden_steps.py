"""The commands of a golden run (`bench/golden.py run`): the fixed inputs, measures, recommenders and rerankers, and
every command line in order (`steps()`), with the two Python actions that prepare inputs without recdiv."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

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
