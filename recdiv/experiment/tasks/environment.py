"""The one environment every task works with: the validated experiment, its artefact store and this process's
inputs (`recdiv.experiment.plan.inputs.Inputs`: the dataset and split, one at a time, and what the tasks of the
split share).

The runner builds one `TaskEnv` and runs inline tasks with it. It crosses a process boundary as JSON only
(`json`, `from_json`): a worker process rebuilds it once (the pool's initializer, or the first Ray task of the
run, `recdiv.experiment.execution.workers`) and runs all its tasks with it, so a worker validates the experiment
once and keeps its dataset between tasks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from recdiv.experiment.plan.inputs import Inputs
from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.cache import Store


@dataclass
class TaskEnv:
    """What a task needs beyond its plan: the experiment, the store and the inputs of this process."""

    config: ExperimentConfig
    store: Store
    inputs: Inputs

    @classmethod
    def create(cls, config: ExperimentConfig, store: Store) -> TaskEnv:
        return cls(config, store, Inputs(config))

    @cached_property
    def json(self) -> str:
        """The environment as JSON (the experiment and where the store is): what is sent to worker processes."""
        store = {"root": str(self.store.root.resolve()), "resume": self.store.resume, "since_ns": self.store.since_ns}
        return json.dumps({"config": self.config.model_dump(mode="json"), "store": store}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TaskEnv:
        """The environment `json` describes, in this process (its inputs empty)."""
        data = json.loads(text)
        s = data["store"]
        return cls.create(ExperimentConfig.model_validate(data["config"]),
                          Store(Path(s["root"]), resume=s["resume"], since_ns=s["since_ns"]))
