"""Item similarities of Example E and their per-step slices used by the rerankers (METRICS.md §E.11)."""

from __future__ import annotations

import numpy as np

from recdiv.aspects.similarity import Jaccard, LatentCosine, SetCosine
from recdiv.diversifiers.blocks import similarity_slicer
from recdiv.testing.examples import example_e

R = 1 / np.sqrt(2)


def test_set_cosine_example_e():
    _, ctx = example_e()
    s = SetCosine(ctx.aspects).sim(np.arange(5), np.arange(5))
    expected = np.array([[1, 1, 0, R, 0], [1, 1, 0, R, 0], [0, 0, 1, R, 0], [R, R, R, 1, 0], [0, 0, 0, 0, 1]])
    np.testing.assert_allclose(s, expected)


def test_slicers_equal_pairwise_sim():
    """Bit-mask (0/1, ≤ 63 aspects), sparse and generic slices equal ItemSimilarity.sim, NaN included."""
    _, ctx = example_e()
    rng = np.random.default_rng(0)
    items = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, -1]])
    feats = rng.normal(size=(8, 3))
    feats[4] = 0
    for sim in (SetCosine(ctx.aspects), Jaccard(ctx.aspects), LatentCosine(feats)):
        sl, _ = similarity_slicer(sim, items)
        for pos in ([0, 0], [3, 2], [4, 6]):
            got = sl(np.array(pos))
            want = sim.sim(items[np.arange(2), pos][:, None], items)[:, 0, :]
            np.testing.assert_allclose(got, want, equal_nan=True)
