"""Plackett–Luce sampling (recdiv.models.stochastic): the distribution of sampled rankings against the closed form
and against LensKit 2025.8's `lenskit.stochastic.StochasticTopNRanker`, and its sort keys against LensKit's on the
same uniforms."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

from recdiv.models.stochastic import plackett_luce, plackett_luce_keys, plackett_luce_weights

lk_stochastic = pytest.importorskip("lenskit.stochastic")

SCORES = np.array([2.0, 1.5, 0.3, -0.4])
DRAWS = 20_000


def pl_probability(order, w) -> float:
    """P(π) = Π_t w(π_t) / Σ_{j ∉ π_<t} w(j) (Plackett 1975)."""
    rest, p = list(range(len(w))), 1.0
    for i in order:
        p *= w[i] / sum(w[j] for j in rest)
        rest.remove(i)
    return p


@pytest.mark.parametrize(("transform", "scale"), [("softmax", 1.0), ("softmax", 0.5), ("linear", 1.0)])
def test_weights_are_lenskits(transform, scale):
    """LensKit's weights: softmax(β·s), or (β·s − min)/Σ — recdiv's, to rounding; the lowest score's linear weight
    is 0 in both (raised to the smallest float32 normal when sorting)."""
    ranker = lk_stochastic.StochasticTopNRanker(transform=transform, scale=scale)
    u = np.random.default_rng(5).uniform(0, 1, len(SCORES))

    class Fixed:
        def uniform(self, lo, hi, n):
            return u

    theirs = ranker._compute_keys(SCORES.copy(), Fixed())
    valid = np.ones((1, len(SCORES)), dtype=bool)
    ours = plackett_luce_keys(plackett_luce_weights(SCORES[None, :], valid, transform, scale), valid, u[None, :])[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert np.argsort(-ours).tolist() == np.argsort(-theirs).tolist()


@pytest.mark.parametrize("transform", ["softmax", "none"])
def test_sampled_rankings_follow_plackett_luce(transform):
    scores = SCORES if transform == "softmax" else np.array([4.0, 3.0, 2.0, 1.0])
    valid = np.ones((DRAWS, 4), dtype=bool)
    w = plackett_luce_weights(np.tile(scores, (DRAWS, 1)), valid, transform)
    got = plackett_luce(w, valid, 4, np.random.default_rng(0))
    perms = list(itertools.permutations(range(4)))
    index = {p: j for j, p in enumerate(perms)}
    counts = np.bincount([index[tuple(r)] for r in got.tolist()], minlength=24)
    expected = np.array([pl_probability(p, w[0]) for p in perms]) * DRAWS
    assert chisquare(counts, expected).pvalue > 1e-3


def test_same_distribution_as_lenskit():
    """Two-sample test of the top-2 pairs (12 cells) from recdiv's sampler and LensKit's ranker, and LensKit's
    against the closed form: the same Plackett–Luce distribution."""
    from lenskit.data import ItemList

    ranker = lk_stochastic.StochasticTopNRanker(n=2, rng=42)
    items = ItemList(item_ids=np.arange(4), scores=SCORES)
    theirs = [tuple(ranker(items).ids()) for _ in range(DRAWS // 4)]
    valid = np.ones((DRAWS // 4, 4), dtype=bool)
    w = plackett_luce_weights(np.tile(SCORES, (DRAWS // 4, 1)), valid)
    ours = [tuple(r) for r in plackett_luce(w, valid, 2, np.random.default_rng(1)).tolist()]
    pairs = list(itertools.permutations(range(4), 2))
    table = np.array([[sum(1 for x in sample if x == p) for p in pairs] for sample in (ours, theirs)])
    assert chi2_contingency(table).pvalue > 1e-3
    probs = np.array([w[0][a] / w[0].sum() * w[0][b] / (w[0].sum() - w[0][a]) for a, b in pairs])  # P(a, then b)
    assert chisquare(table[1], probs * table[1].sum()).pvalue > 1e-3


def test_padding_and_seeds():
    valid = np.array([[True, True, False], [True, True, True]])
    w = plackett_luce_weights(np.array([[1.0, 0.0, np.nan], [0.0, 1.0, 2.0]]), valid)
    out = plackett_luce(w, valid, 3, np.random.default_rng(3))
    assert out[0, 2] == -1 and sorted(out[0, :2].tolist()) == [0, 1] and sorted(out[1].tolist()) == [0, 1, 2]
    a = plackett_luce(w, valid, 2, np.random.default_rng(9), samples=4)
    b = np.concatenate([plackett_luce(w[:1], valid[:1], 2, rng := np.random.default_rng(9), samples=4),
                        plackett_luce(w[1:], valid[1:], 2, rng, samples=4)])
    np.testing.assert_array_equal(a, b)  # rows drawn one after the other: blocks do not change the samples
