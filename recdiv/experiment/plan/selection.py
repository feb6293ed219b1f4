"""Hyperparameter selection of recommenders with `grid` and `select` (`recdiv.experiment.spec.sections.SelectConfig`).

For each split, in the runner's process before the split's tasks are planned: hold out `select.validation` of every
user's training interactions (`holdout_split`, seeded by the experiment seed), fit every grid point on the rest,
recommend candidates.k items to the validation users with a relevant held-out item (the experiment's threshold and
population) and score them with `select.measure`, defined under the experiment's `[metrics] conventions` as its
measures are; the best mean wins (highest, or lowest for a lower-is-better
measure; ties: the first point in grid order). The table of every point's value is cached in the artefact store
(a resumed run does not search again) and written to ``selection.json``.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from recdiv.data.qrels import Qrels
from recdiv.errors import ConfigError
from recdiv.experiment.plan.graph import recommender_params
from recdiv.experiment.plan.inputs import Inputs
from recdiv.experiment.spec.sections import RecommenderSpec
from recdiv.experiment.storage.cache import Store, hash_config


def search(inputs: Inputs, di: int, spec: str, rec: RecommenderSpec, store: Store) -> pd.DataFrame:
    """One row per grid point: params (JSON), value of select.measure on the validation split, chosen (bool)."""
    config = inputs.config
    split, sfp = inputs.split(di, spec)
    conventions = config.metrics.conventions
    key = hash_config("select", sfp, rec.model_dump(mode="json"), config.seed, config.candidates.k,
                      config.metrics.threshold, config.metrics.population, *([conventions] if conventions else []))
    table = store.load_frame("select", key)
    if table is not None:
        return table
    from recdiv.algorithms.registry import make_recommender
    from recdiv.data.splits import holdout_split
    from recdiv.eval import EvalContext, parse_measure

    measure = parse_measure(rec.select.measure, conventions)  # as the experiment's measures (`[metrics]`)
    if set(measure.NEEDS) - {"train"}:
        raise ConfigError(f"recommenders[{rec.key}].select.measure: {measure} needs {', '.join(measure.NEEDS)}; "
                          "selection measures may use the training data only")
    inner = holdout_split(split.train, rec.select.validation, seed=config.seed)
    qrels = Qrels.from_interactions(inner.test)
    users = qrels.population(config.metrics.threshold, config.metrics.population)
    if len(users) == 0:
        raise ConfigError(f"recommenders[{rec.key}].select: no validation user has a relevant item")
    ctx = EvalContext(threshold=config.metrics.threshold, population=config.metrics.population, train=inner.train)
    rows = []
    for point in rec.grid_points():
        params = recommender_params(rec.name, {**rec.params, **point}, config.seed)
        model = make_recommender(rec.name, **params).fit(inner.train)
        value = float(measure.value(model.recommend(users, config.candidates.k), qrels, ctx))
        rows.append({"params": json.dumps(point, sort_keys=True), "value": value})
    table = pd.DataFrame(rows)
    values = table["value"].to_numpy()
    best = values.argmax() if measure.HIGHER_IS_BETTER else values.argmin()  # first of ties
    table["chosen"] = [i == best for i in range(len(table))]
    store.save_frame("select", key, table)
    return table


def selected_params(inputs: Inputs, di: int, spec: str, store: Store,
                    record: dict | None = None) -> dict[str, dict[str, Any]]:
    """{recommender key: chosen grid point} of every recommender with `select` on this split; `record` (if given)
    receives {key: {"measure", "validation", "chosen", "values": [{"params", "value"}]}}."""
    out = {}
    for rec in inputs.config.recommenders:
        if rec.select is None:
            continue
        table = search(inputs, di, spec, rec, store)
        chosen = json.loads(table.loc[table["chosen"], "params"].iloc[0])
        out[rec.key] = chosen
        if record is not None:
            record[rec.key] = {"measure": rec.select.measure, "validation": rec.select.validation, "chosen": chosen,
                               "values": [{"params": json.loads(p), "value": v}
                                          for p, v in zip(table["params"], table["value"])]}
    return out
