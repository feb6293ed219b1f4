"""Testing kit for reranker authors: test your reranker the way recdiv tests its own.

- worked example: `example_e()` (one user, five candidates, k = 3, worked by hand), `SELECTIONS` (every built-in
  reranker's top 3 on it), `ids(rankings)` (a row's item ids);
- random instances: `random_instance(seed)` (ragged lists, items without aspects, users without a profile);
- the per-user-loop oracle: `check_against_loop(reranker, objective)`, `loop_rerank`, `user_cases`, `UserCase`,
  `nan_safe_max`;
- property checks: `check_reranker(reranker)`, `check_output`, `check_keeps_order`;
- conformance suites, the contracts recdiv checks every registered component against (`recdiv.testing.conformance`):
  `check_measure(cls)`, `check_reranker_class(cls)`, `check_recommender(cls)`, `check_dataset_format(fmt)`.

docs/tutorial-reranker.md uses all three on a new reranker. The names below are imported on first use.
"""

from recdiv._lazy import lazy_exports

_EXPORTS = {
    "SELECTIONS": "recdiv.testing.examples",
    "example_e": "recdiv.testing.examples",
    "ids": "recdiv.testing.examples",
    "random_instance": "recdiv.testing.instances",
    "UserCase": "recdiv.testing.oracle",
    "check_against_loop": "recdiv.testing.oracle",
    "loop_rerank": "recdiv.testing.oracle",
    "nan_safe_max": "recdiv.testing.oracle",
    "user_cases": "recdiv.testing.oracle",
    "check_keeps_order": "recdiv.testing.properties",
    "check_output": "recdiv.testing.properties",
    "check_reranker": "recdiv.testing.properties",
    "check_measure": "recdiv.testing.conformance",
    "check_reranker_class": "recdiv.testing.conformance",
    "check_recommender": "recdiv.testing.conformance",
    "check_dataset_format": "recdiv.testing.conformance",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
