"""Metrics (accuracy, novelty, diversity, intent-aware, unified, preference), statistics, meta-evaluation.

Importing this package registers every measure with `recdiv.eval.measure.REGISTRY`.
"""

from recdiv.eval.context import EvalContext, RunView, evaluate
from recdiv.eval.io import evaluate_itemlists, load_inputs, summarize
from recdiv.eval.measure import Measure, list_measures, parse_measure, parse_measures, register

# Metric modules register their measures on import; each family adds its module here.
from recdiv.eval import _families  # noqa: F401  isort: skip

__all__ = ["EvalContext", "Measure", "RunView", "evaluate", "evaluate_itemlists", "list_measures", "load_inputs",
           "parse_measure", "parse_measures", "register", "summarize"]
