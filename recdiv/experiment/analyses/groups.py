"""User groups of an experiment (``[report] groups``): the group of every evaluated (split, user), computed after
the scores from each split's training data (`recdiv.eval.groups`), written to ``groups.parquet`` (dataset, split,
spec, user, group) and read by the report, which compares the systems inside every group."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recdiv.data.qrels import Qrels
from recdiv.eval.groups import group_labels
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.cache import write_frame
from recdiv.experiment.tasks.environment import TaskEnv


def write_groups(env: TaskEnv, index, out: Path) -> None:
    """groups.parquet for every dataset and split of the run (`index`: (dataset, split, plan) of every system
    task); removed when the experiment has no groups."""
    config = env.config
    path = out / "groups.parquet"
    if not config.report.groups:
        if path.exists():
            path.unlink()
        return
    datasets = {d.key: i for i, d in enumerate(config.datasets)}
    frames = []
    for dataset, spec in dict.fromkeys((d, s) for d, s, _ in index):
        split, _ = env.inputs.split(datasets[dataset], spec)
        qrels = Qrels.from_interactions(split.test)
        users = qrels.population(config.metrics.threshold, config.metrics.population)
        ids = np.asarray(qrels.users.id_of(users)).astype(str)
        for g in config.report.groups:
            labels = group_labels(g, ids, train=split.train, user_index=users)
            frames.append(pd.DataFrame({"dataset": dataset, "split": spec, "spec": g, "user": ids,
                                        "group": pd.Series(labels, dtype=object)}))
    write_frame(path, pd.concat(frames, ignore_index=True))


def labels_for_results(out: Path, dataset: str, spec: str, rows: pd.MultiIndex) -> np.ndarray | None:
    """Group labels aligned with a dataset's `Results` rows ((split, user) pairs in sorted order)."""
    path = Path(out) / "groups.parquet"
    if not path.is_file():
        return None
    g = pd.read_parquet(path)
    g = g[(g["dataset"] == dataset) & (g["spec"] == spec)].set_index(["split", "user"])["group"]
    return g.reindex(rows).to_numpy(dtype=object)


def group_sections(config: ExperimentConfig, out: Path, dataset: str, res: Any, rows: pd.MultiIndex, compare):
    """[(spec, {group: Comparison})] of a dataset; `compare(res)` runs the experiment's tests on a Results."""
    sections = []
    for spec in config.report.groups:
        labels = labels_for_results(out, dataset, spec, rows)
        if labels is None:
            continue
        parts = {g: compare(sub) for g, sub in res.by_group(labels).items()
                 if len(sub.per_user(sub.systems[0], sub.per_user_measures[0])) >= 2}
        sections.append((spec, parts))
    return sections
