"""Fixtures shared by the metric tests."""

from __future__ import annotations

import pandas as pd
import pytest

from recdiv.aspects.space import AspectSpace
from recdiv.data.qrels import Qrels


@pytest.fixture(scope="module")
def example_c_test_items() -> tuple[Qrels, AspectSpace]:
    """METRICS.md Example C test items of user u and their aspects: the P&R ideal (§F.7) is
    (i1, i5, i6, i4, i2, i3), using aspects A, D, A, C, A, D."""
    q = Qrels.from_frame(pd.DataFrame({"user": ["u"] * 6, "item": ["i1", "i2", "i3", "i4", "i5", "i6"],
                                       "grade": [5.0, 4, 2, 4, 5, 5]}))
    asp = AspectSpace.from_frame(pd.DataFrame({"item": ["i1", "i1", "i2", "i3", "i4", "i5", "i6"],
                                               "aspect": ["A", "C", "A", "D", "C", "D", "A"]}), q.items)
    return q, asp
