"""The accuracy metrics' NumPy sums equal a per-user loop that adds rank by rank (trec_eval's order) bit for bit:
AP numerators, DCG and ideal DCG for every gain and every kind of discount (divisors and weights), on random grades
with ties, unjudged items and negative grades."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.data.qrels import Qrels
from recdiv.data.vocab import Vocab
from recdiv.eval.metrics import accuracy as A
from recdiv.models.discount import HalfLifeDiscount, JKDiscount, LogDiscount, ReciprocalDiscount

GRADES = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0]
DISCOUNTS = [LogDiscount(), JKDiscount(3.0), HalfLifeDiscount(5.0), ReciprocalDiscount()]


def discounted(x: float, discount, c: int, n: int) -> float:
    """x discounted at 0-based rank c as the kernels did: divided by the divisor, else times the weight."""
    div = discount.divisors(n)
    return x / div[c] if div is not None else x * discount.positions(n)[c]


def gain(g: float, kind: str, tau: float, d: float = 0.0) -> float:
    if kind == "rating":
        return g if g > 0 else 0.0
    if kind == "halflife":
        return g - d if g > d else 0.0
    if g < tau:
        return 0.0
    return {"binary": 1.0, "exp": 2.0**g - 1.0, "ranksys": 2.0 ** (g - tau + 1.0) - 1.0}[kind]


class View:
    def __init__(self, grades=None, qrels=None, users=None, tau=4.0):
        self.grades, self.qrels, self.users, self.threshold = grades, qrels, users, tau
        self.items = None if grades is None else np.zeros(grades.shape)
        self._memo = {}

    def memo(self, key, fn):
        if key not in self._memo:
            self._memo[key] = fn()
        return self._memo[key]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(0, 12), st.integers(0, 2**32 - 1), st.sampled_from([1.0, 3.0, 4.0, -1.5]))
def test_run_sums_equal_rank_by_rank_loop(n, k, seed, tau):
    rng = np.random.default_rng(seed)
    grades = np.where(rng.random((n, k)) < 0.4, np.nan, rng.choice(GRADES, size=(n, k)))
    rel = grades >= tau
    for w in {0, k, min(k, 3)}:
        hits, ap, first = A._prefix_stats(rel, w)
        for r in range(n):
            h, s, f = 0, 0.0, np.inf
            for c in range(w):
                if rel[r, c]:
                    h += 1
                    s += h / (c + 1.0)
                    f = min(f, c + 1.0)
            assert (hits[r], ap[r], first[r]) == (h, s, f)
    for kind in ("rating", "binary", "exp", "ranksys"):
        for discount in DISCOUNTS:
            got = A._dcg(View(grades, tau=tau), kind, discount, None)
            for r in range(n):
                s = 0.0
                for c in range(k):
                    if grades[r, c] == grades[r, c]:
                        s += discounted(gain(grades[r, c], kind, tau), discount, c, max(k, 1))
                assert got[r] == s


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 10), st.integers(1, 15), st.integers(0, 2**32 - 1), st.sampled_from([None, 1, 3, 20]),
       st.sampled_from([1.0, 4.0, -1.5]))
def test_ideal_sums_equal_sorted_loop(n_users, n_items, seed, cutoff, tau):
    rng = np.random.default_rng(seed)
    judged = rng.random((n_users, n_items)) < 0.5
    u, i = np.nonzero(judged)
    qrels = Qrels.from_arrays(u, i, rng.choice(GRADES, size=len(u)), Vocab(range(n_users)), Vocab(range(n_items)))
    users = np.flatnonzero(rng.random(n_users) < 0.7)
    m = qrels.matrix
    for kind in ("rating", "binary", "exp", "ranksys", "halflife"):
        d = 3.0 if kind == "halflife" else 0.0
        longest = max([m.indptr[x + 1] - m.indptr[x] for x in users], default=0)
        limit = longest if cutoff is None else min(cutoff, longest)
        for discount in DISCOUNTS:
            got = A.ideal_sums(View(qrels=qrels, users=users, tau=tau), kind, cutoff, discount, d)
            for r, x in enumerate(users):
                s = 0.0
                for j, g in enumerate(sorted(m.data[m.indptr[x]:m.indptr[x + 1]], reverse=True)[:limit]):
                    if gain(g, kind, tau, d) <= 0:
                        break
                    s += discounted(gain(g, kind, tau, d), discount, j, max(limit, 1))
                assert got[r] == s
