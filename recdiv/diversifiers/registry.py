"""The rerankers by name: `RERANKERS` (a `recdiv.registry.Registry`) and `make_reranker(name, **params)`.

Names follow the registry's spelling rule: ``IA-Select`` = ``ia-select`` = ``iaselect`` = ``IASelect``; the
papers' spellings (``PM-2``, ``xQuAD``, ``MMR``) are aliases. ``module:Class`` and the entry-point group
``recdiv.rerankers`` add rerankers of other packages (docs/tutorial-reranker.md).
"""

from __future__ import annotations

from recdiv.config import validate_config
from recdiv.diversifiers.base import Reranker
from recdiv.diversifiers.calibrated import Calibrated
from recdiv.diversifiers.dpp import DPP
from recdiv.diversifiers.ia_select import IASelect
from recdiv.diversifiers.mmr import MMR
from recdiv.diversifiers.ngd import NGD
from recdiv.diversifiers.pm2 import PM2
from recdiv.diversifiers.random import Random
from recdiv.diversifiers.xquad import XQuAD
from recdiv.diversifiers.ziegler import Ziegler
from recdiv.registry import Registry

RERANKERS: Registry[type[Reranker]] = Registry("reranker", group="recdiv.rerankers", base=Reranker)
for _cls, _aliases in [
    (MMR, ("maximal-marginal-relevance",)),
    (Ziegler, ("topic-diversification",)),
    (IASelect, ()),
    (XQuAD, ()),
    (NGD, ("novelty-greedy",)),
    (PM2, ()),
    (DPP, ("determinantal-point-process",)),
    (Calibrated, ("calibration", "steck")),
    (Random, ("random-rerank",)),
]:
    RERANKERS.add(_cls.NAME, _cls, aliases=_aliases)


def make_reranker(name: str, **params) -> Reranker:
    """A configured reranker by name (or ``module:Class``), e.g. `make_reranker("MMR", **{"lambda": 0.8})`.

    Unknown names (with a did-you-mean) and invalid parameters raise `ConfigError` naming the problem.
    """
    entry = RERANKERS.entry(name)
    cls = entry.obj
    config = validate_config(cls.Config, params, what=f"bad parameters for reranker {entry.name}")
    return cls(config)
