"""The rerankers by name: `RERANKERS` (a `recdiv.registry.Registry`) and `make_reranker(name, **params)`.

Names follow the registry's spelling rule: ``IA-Select`` = ``ia-select`` = ``iaselect`` = ``IASelect``; the
papers' spellings (``PM-2``, ``xQuAD``, ``MMR``) are aliases. ``module:Class`` and the entry-point group
``recdiv.rerankers`` add rerankers of other packages (docs/tutorial-reranker.md).

The built-ins are registered by name and module (`Registry.defer`): a reranker's module (and numba, SciPy, pydantic
behind it) is imported when that reranker is first looked up, so that `recdiv rerank --help` lists the names without
importing any, and `recdiv rerank --method MMR` imports MMR's module only. Each name is its class's `NAME`
(tests/test_registry.py checks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recdiv.registry import Registry

if TYPE_CHECKING:
    from recdiv.diversifiers.base import Reranker

RERANKERS: Registry[type[Reranker]] = Registry("reranker", group="recdiv.rerankers",
                                               base="recdiv.diversifiers.base:Reranker")
for _name, _spec, _aliases in [
    ("MMR", "recdiv.diversifiers.mmr:MMR", ("maximal-marginal-relevance",)),
    ("Ziegler", "recdiv.diversifiers.ziegler:Ziegler", ("topic-diversification",)),
    ("IASelect", "recdiv.diversifiers.ia_select:IASelect", ()),
    ("xQuAD", "recdiv.diversifiers.xquad:XQuAD", ()),
    ("NGD", "recdiv.diversifiers.ngd:NGD", ("novelty-greedy",)),
    ("PM2", "recdiv.diversifiers.pm2:PM2", ()),
    ("DPP", "recdiv.diversifiers.dpp:DPP", ("determinantal-point-process",)),
    ("Calibrated", "recdiv.diversifiers.calibrated:Calibrated", ("calibration", "steck")),
    ("Random", "recdiv.diversifiers.random:Random", ("random-rerank",)),
    ("PlackettLuce", "recdiv.diversifiers.plackett_luce:PlackettLuce", ("stochastic",)),
    ("FAIR", "recdiv.diversifiers.fair:FAIR", ()),
    ("MSD", "recdiv.diversifiers.msd:MSD", ("max-sum-diversification",)),
    ("SSD", "recdiv.diversifiers.ssd:SSD", ("sliding-spectrum-decomposition",)),
    ("COVER", "recdiv.diversifiers.cover:COVER", ("coverage", "facility-location")),
    ("Swap", "recdiv.diversifiers.swap:Swap", ()),
]:
    RERANKERS.defer(_name, _spec, aliases=_aliases)


def make_reranker(name: str, **params) -> Reranker:
    """A configured reranker by name (or ``module:Class``), e.g. `make_reranker("MMR", **{"lambda": 0.8})`.

    Unknown names (with a did-you-mean) and invalid parameters raise `ConfigError` naming the problem.
    """
    from recdiv.config import validate_config

    entry = RERANKERS.entry(name)
    cls = entry.obj
    config = validate_config(cls.Config, params, what=f"bad parameters for reranker {entry.name}")
    return cls(config)
