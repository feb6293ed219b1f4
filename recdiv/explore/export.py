"""What the explorer exports: the state as an experiment TOML (`recdiv run` computes the same lists and
values) and a system's lists as a TREC run (as `recdiv recommend` / `recdiv rerank` write them)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from recdiv.errors import ConfigError
from recdiv.explore.engine import Engine, Prepared
from recdiv.explore.experiment import experiment_of, to_toml
from recdiv.explore.state import to_query


def experiment_toml(engine: Engine, p: Prepared) -> str:
    """The experiment of the state, with a header naming the state and the systems as `recdiv run` names them."""
    from recdiv.experiment.plan.systems import plan_systems

    data = experiment_of(p.state, engine.catalog, p.data.dataset, p.threshold)
    names = [s.name for s in plan_systems(p.config)]
    labels = ["baseline", *(d.label for d in p.config.diversifiers)]
    header = ("Exported by `recdiv explore`: `recdiv run experiment.toml` computes the same lists and values.\n"
              f"State: ?{to_query(p.state)}\n"
              "Systems: " + ", ".join(f"{a} = {b}" for a, b in zip(labels, names)))
    return to_toml(data, header)


def run_text(engine: Engine, p: Prepared, system: str) -> str:
    """The top-k lists of `system` (baseline, A or B) for every evaluated user, as a TREC run."""
    from recdiv.data.textio import write_rankings

    known = ["baseline", *(d.label for d in p.config.diversifiers)]
    if system not in known:
        raise ConfigError(f"system {system!r}: this state has {', '.join(known)}")
    ranking, _ = engine.ranking(p, None if system == "baseline" else system)
    tag = p.config.recommenders[0].name if system == "baseline" else engine.diversifier(p, system).name
    with tempfile.TemporaryDirectory(prefix="recdiv-explore-") as tmp:
        path = Path(tmp) / "run"
        write_rankings(ranking, path, tag=tag)
        return path.read_text(encoding="utf-8")
