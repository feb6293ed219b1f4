"""Registry of rerankers: `RERANKERS` (name → class) and `make_reranker(name, **params)`."""

from __future__ import annotations

from pydantic import ValidationError

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
from recdiv.errors import ConfigError

RERANKERS: dict[str, type[Reranker]] = {
    cls.NAME: cls for cls in (MMR, Ziegler, IASelect, XQuAD, NGD, PM2, DPP, Calibrated, Random)
}


def make_reranker(name: str, **params) -> Reranker:
    """A configured reranker by registry name, e.g. `make_reranker("MMR", **{"lambda": 0.8})`.

    Unknown names and invalid parameters raise `ConfigError` naming the problem.
    """
    cls = RERANKERS.get(name)
    if cls is None:
        lower = {k.lower(): k for k in RERANKERS}
        if name.lower() in lower:
            cls = RERANKERS[lower[name.lower()]]
        else:
            raise ConfigError(f"unknown reranker {name!r} (known: {', '.join(RERANKERS)})")
    try:
        return cls(cls.Config(**params))
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(str(x) for x in err['loc']) or name}: {err['msg']}" for err in e.errors())
        raise ConfigError(f"bad parameters for reranker {cls.NAME}: {problems}") from None
