"""Imports every metric-family module so that its measures register (one line per family)."""

import importlib

_MODULES = [
    "recdiv.eval.accuracy",
    "recdiv.eval.rank_correlation",
    "recdiv.eval.novelty_diversity",
    "recdiv.eval.exposure",
    "recdiv.eval.intent_aware",
    "recdiv.eval.unified",
    "recdiv.eval.preference",
]

for _name in _MODULES:
    try:
        importlib.import_module(_name)
    except ModuleNotFoundError as _e:  # a family not written yet
        if _e.name != _name:
            raise
