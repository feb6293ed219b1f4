"""The inputs a run's work is computed from: each dataset of the experiment and each split of it, with their content
fingerprints (the store keys derive from them).

`Inputs` is an explicit object, one per process that works on an experiment (the runner's process, each worker): it
holds one dataset and one split at a time — a new dataset drops the previous dataset and split, a new split the
previous split — together with the objects shared by the tasks of the current split (`Inputs.shared`: qrels,
contexts with their caches, aspect spaces), which go with it. Nothing is kept at module level: when the run ends,
its `Inputs` goes with it.
"""

from __future__ import annotations

from typing import Any

from recdiv.experiment.spec.experiment import ExperimentConfig
from recdiv.experiment.storage.cache import ArrayHasher, fingerprint_interactions


class Inputs:
    """Dataset and split of `config` (one of each at a time), loaded on first use, with their fingerprints."""

    def __init__(self, config: ExperimentConfig):
        self.config = config
        self._dataset: tuple[str, Any, str] | None = None  # (key, dataset, fingerprint)
        self._split: tuple[str, Any, str] | None = None  # (key, split, fingerprint)
        self._shared: dict[Any, Any] = {}

    def dataset(self, index: int) -> tuple[Any, str]:
        """(dataset `index` of the experiment, its content fingerprint)."""
        d = self.config.datasets[index]
        key = d.model_dump_json()
        if self._dataset is None or self._dataset[0] != key:
            self._dataset = self._split = None  # one dataset at a time in memory
            self._shared = {}
            from recdiv.data.load import load_dataset  # the loaders import pandas and pyarrow

            dataset = load_dataset(d.name, data_dir=d.data_dir, **d.options)
            h = fingerprint_interactions(ArrayHasher(d.name), dataset.interactions)
            for name in sorted(dataset.attributes):
                h.update(name).update(dataset.attributes[name].matrix).update(dataset.attributes[name].names)
            self._dataset = (key, dataset, h.hexdigest())
        return self._dataset[1], self._dataset[2]

    def split(self, index: int, spec: str) -> tuple[Any, str]:
        """(split `spec` of dataset `index`, seeded by the experiment seed; its content fingerprint)."""
        dataset, dfp = self.dataset(index)
        key = f"{dfp}:{spec}:{self.config.seed}"
        if self._split is None or self._split[0] != key:
            self._split = None
            self._shared = {}
            from recdiv.data.splits import make_split

            split = make_split(dataset, spec, seed=self.config.seed)
            h = ArrayHasher(dfp, spec)
            for part in (split.train, split.test, split.validation):
                if part is None:
                    h.update(None)
                else:
                    fingerprint_interactions(h, part)
            self._split = (key, split, h.hexdigest())
        return self._split[1], self._split[2]

    def shared(self, index: int, spec: str) -> dict[Any, Any]:
        """Objects shared by the tasks of split `spec` of dataset `index` (qrels, contexts with their caches: user
        aspect distributions, novelty arrays, metric ideals; aspect spaces); dropped with the split."""
        self.split(index, spec)
        return self._shared
