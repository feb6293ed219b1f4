"""AspectSpace user distributions on the Example C/E profile (METRICS.md §E.11)."""

from __future__ import annotations

import numpy as np

from recdiv.models.intent import user_aspect_distribution
from recdiv.testing.examples import example_e


def test_user_distributions_example_c():
    _, ctx = example_e()
    space, train = ctx.aspects, ctx.train
    np.testing.assert_allclose(user_aspect_distribution(space, train, "count")[0], [0.5, 0.25, 0.25])
    np.testing.assert_allclose(user_aspect_distribution(space, train, "rating")[0], [0.6, 4 / 15, 2 / 15])
    np.testing.assert_allclose(user_aspect_distribution(space, train, "fractional")[0], [0.5, 1 / 6, 1 / 3])


def test_fractional_divides_by_profile_size():
    """Steck: (1/|P_u|) Σ p(a|i); a profile item without aspects counts in |P_u|."""
    import pandas as pd

    from recdiv.aspects.space import AspectSpace
    from recdiv.data.interactions import Interactions
    from recdiv.data.vocab import Vocab

    items = Vocab(["x", "y"])
    space = AspectSpace.from_frame(pd.DataFrame({"item": ["x"], "aspect": ["A"]}), items)
    train = Interactions.from_frame(pd.DataFrame({"user": [1, 1], "item": ["x", "y"]}), items=items)
    np.testing.assert_allclose(user_aspect_distribution(space, train, "fractional")[0], [0.5])
