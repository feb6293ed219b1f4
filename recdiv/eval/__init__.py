"""Evaluation: measures (`metrics/`, one module per family), statistics (`stats/`), meta-evaluation (`meta/`)
and the infrastructure they share (measure, context, catalog, evaluate, io, results).

The main names are available here and imported on first use:

    from recdiv.eval import EvalContext, parse_measure
"""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "EvalContext": "recdiv.eval.context",
    "RunView": "recdiv.eval.context",
    "Measure": "recdiv.eval.measure",
    "register": "recdiv.eval.measure",
    "list_measures": "recdiv.eval.catalog",
    "parse_measure": "recdiv.eval.catalog",
    "parse_measures": "recdiv.eval.catalog",
    "evaluate": "recdiv.eval.evaluate",
    "preference_per_user": "recdiv.eval.evaluate",
    "preference_summary": "recdiv.eval.evaluate",
    "Evaluation": "recdiv.eval.evaluate",
    "evaluate_files": "recdiv.eval.io",
    "evaluate_itemlists": "recdiv.eval.io",
    "load_inputs": "recdiv.eval.io",
    "MEASURES": "recdiv.eval.catalog",
    "Param": "recdiv.eval.measure",
    "PerUserMeasure": "recdiv.eval.measure",
    "SystemMeasure": "recdiv.eval.measure",
    "PairwiseMeasure": "recdiv.eval.measure",
    "add_spelling": "recdiv.eval.catalog",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
