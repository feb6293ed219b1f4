"""Metric families, one module each. Importing this package registers every measure; the order below is the
order of the metric reference (docs/metrics.md) within each kind."""

# isort: off
from recdiv.eval.metrics import accuracy  # noqa: F401
from recdiv.eval.metrics import sets  # noqa: F401
from recdiv.eval.metrics import rating  # noqa: F401
from recdiv.eval.metrics import correlation  # noqa: F401
from recdiv.eval.metrics import novelty  # noqa: F401
from recdiv.eval.metrics import diversity  # noqa: F401
from recdiv.eval.metrics import categories  # noqa: F401
from recdiv.eval.metrics import popularity  # noqa: F401
from recdiv.eval.metrics import exposure  # noqa: F401
from recdiv.eval.metrics import fairness  # noqa: F401
from recdiv.eval.metrics import intent_aware  # noqa: F401
from recdiv.eval.metrics import intent_utility  # noqa: F401
from recdiv.eval.metrics import unified  # noqa: F401
from recdiv.eval.metrics import preference  # noqa: F401
# isort: on
