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
    importlib.import_module(_name)
