"""`recdiv demo`: a complete experiment on the embedded synthetic dataset, offline, in well under a minute.

Two baselines (popularity, and WRMF: implicit-feedback ALS matrix factorisation) give top-100 candidates; MMR
and xQuAD (λ grid) and IA-Select rerank them to 10 over explicit aspects (genres) and latent ones (the 3
dominant WRMF factors of each item); accuracy, novelty, diversity, intent-aware and unified metrics are tested
against each system's own baseline (Wilcoxon, Holm). The experiment file is `DEMO_TOML`, the same text as
examples/demo.toml.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from recdiv.experiment.run.runner import RunResult, run_experiment
from recdiv.experiment.spec.experiment import ExperimentConfig, validate

DEMO_TOML = """\
# The experiment of `recdiv demo` (`make demo`): the embedded synthetic dataset, offline, < 1 minute on 2 cores.
name = "demo"
description = "Pop and MF on synthetic:small, diversified by MMR, xQuAD and IA-Select over genres and latent factors."
seed = 0

[[datasets]]
name = "synthetic:small"
splits = ["holdout:0.2"]

[[recommenders]]
name = "pop"
label = "Pop"

[[recommenders]]
name = "wrmf"       # implicit-feedback ALS matrix factorisation (Hu, Koren & Volinsky 2008)
label = "MF"
params = { factors = 20 }

[candidates]
n = 100   # top-N candidates of each recommender
k = 10    # length of the reranked lists

[[aspects]]
name = "genres"
kind = "explicit"
attribute = "genres"

[[aspects]]
name = "latent"
kind = "latent"
recommender = "MF"   # the item factors of the MF recommender fitted on each split
l = 3                # dominant factors per item

[[diversifiers]]
name = "MMR"
grid = { lambda = [0.0, 0.25, 0.5, 0.75, 1.0] }   # λ weights relevance (thesis form): λ = 1 is the baseline
aspects = ["genres", "latent"]

[[diversifiers]]
name = "xQuAD"
grid = { lambda = [0.0, 0.25, 0.5, 0.75, 1.0] }   # λ weights diversity: λ = 0 is the baseline
aspects = ["genres", "latent"]

[[diversifiers]]
name = "IASelect"
aspects = ["genres", "latent"]

[metrics]
measures = ["P@10", "nDCG@10", "EPC@10", "ILD@10", "alpha-nDCG@10", "ERR-IA@10", "S-recall@10", "ab-nDCG@10",
            "AggregateDiversity@10"]
threshold = 4
aspects = "genres"   # aspects of the diversity and intent-aware metrics

[statistics]
test = "wilcoxon"
baseline = "recommender"   # each diversified system against its recommender's list
correction = "holm"
alpha = 0.05

[report]
tradeoff = [["nDCG@10", "alpha-nDCG@10"], ["nDCG@10", "ILD@10"], ["nDCG@10", "EPC@10"]]
"""


def demo_config() -> ExperimentConfig:
    return validate(tomllib.loads(DEMO_TOML), "recdiv demo")


def run_demo(out: str | Path = "results/demo", *, resume: bool = False, force: bool = False, jobs: int = 1,
             progress: bool = True) -> RunResult:
    """Run the demo experiment into `out` and build its report."""
    return run_experiment(demo_config(), out, resume=resume, force=force, jobs=jobs, progress=progress)
