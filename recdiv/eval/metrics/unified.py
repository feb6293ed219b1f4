"""Unified accuracy–diversity metric αβ-nDCG (Parapar & Radlinski, RecSys 2021; docs/intent-aware.md).

Per aspect a and user u (P&R eq. 4–16):

- γ_a^u = Σ_{i∈I_u, a∈A(i)} r(u,i) / Σ_{a'} Σ_{i∈I_u, a'∈A(i)} r(u,i) (eq. 9, rating-weighted), I_u = the
  training profile (``gamma_source=train``) or the user's judged test items (``gamma_source=test``, the
  setting of the P&R ideal-ordering experiments); an empty profile gives the uniform distribution;
- P(a|u,i) = 0 if a ∉ A(i); α if i is unjudged; β·r(u,i)/r_max if i is judged (eq. 5–6);
  ``nonrel_to_zero=true`` maps ratings below τ to 0 (the MissOverNon axiom's r(u,j) = 0);
- P(a|u,S_k) = γ_a^u Π_{j<k}(1 − P(a|u,i_j)) (eq. 7, 12); G[k] = 1 − Π_a (1 − P(a|u,i_k)·P(a|u,S_k)) (eq. 13);
- αβ-nDCG@K = Σ_{k≤K} G[k]/log2(1+k) / the same over the greedy ideal of the user's judged test items
  (eq. 15–16; ties §0.6, ``ideal_ties``).
"""

from __future__ import annotations

import numpy as np

from recdiv.eval.measure import Param, PerUserMeasure
from recdiv.eval.metrics.greedy_ideal import check_ideal_ties
from recdiv.eval.metrics.intents import (
    aspect_space,
    aspect_table,
    cutoff_of,
    qrels_csr,
    run_rows,
    user_distribution,
)
from recdiv.eval.params import IDEAL_TIES
from recdiv.models.discount import LogDiscount
from recdiv.models.intent import aspect_distribution
from recdiv.models.relevance import is_judged, is_relevant


def item_probabilities(grades: np.ndarray, alpha: float, beta: float, r_max: float, threshold: float,
                       nonrel_to_zero: bool) -> np.ndarray:
    """P(a|u,i) for a ∈ A(i) (eq. 5–6): α for unjudged items, β·r/r_max for judged ones (NaN grade = unjudged; a
    negative label is pooled but unjudged)."""
    judged = is_judged(grades)
    r = np.nan_to_num(grades)
    if nonrel_to_zero:
        r = np.where(is_relevant(grades, threshold), r, 0.0)
    return np.where(judged, beta * r / r_max, alpha)


def gamma_weights(view, source: str, measure: str = "ab-nDCG") -> np.ndarray:
    """(n, A) γ_a^u (eq. 9): rating-weighted aspect distribution of the training profile or of the test items."""
    if source == "train":
        return user_distribution(view, "rating", measure, instead="gamma_source=test")
    space = aspect_space(view)
    mass = np.asarray((view.qrels.matrix[view.users] @ space.indicator).todense(), dtype=np.float64)
    return aspect_distribution(mass, mass.sum(axis=1, keepdims=True), space.n_aspects)


def ab_gains(view, items: np.ndarray, probs: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """G[k] = 1 − Π_{a∈A(i_k)} (1 − P_k·γ_a Π_{j<k, a∈A(i_j)}(1 − P_j)) for (n, K) lists (eq. 13).

    probs (n, K): P(a|u,i_k) (the same for every aspect of i_k); items −1 padded (gain 0). Numba kernel, one
    pass per list, the running products kept per aspect.
    """
    from recdiv.eval.metrics import unified_kernels as kernels  # numba loads when a kernel runs

    return kernels.list_gains(np.ascontiguousarray(items, dtype=np.int64),
                              np.ascontiguousarray(probs, dtype=np.float64), aspect_table(view),
                              aspect_space(view).n_aspects,
                              np.ascontiguousarray(gamma, dtype=np.float64))


class AlphaBetaNDCG(PerUserMeasure):
    """αβ-nDCG: unified accuracy–novelty–diversity nDCG (Parapar & Radlinski, RecSys 2021, eq. 4–16).

    G[k] = 1 − Π_a (1 − P(a|u,i_k)·γ_a^u Π_{j<k}(1 − P(a|u,i_j))), P(a|u,i) = β r(u,i)/r_max (judged) or α
    (unjudged) on a ∈ A(i); αβ-nDCG@K = Σ_k G[k]/log2(1+k) / greedy ideal over the judged test items.
    docs/intent-aware.md
    """

    NAME = "ab-nDCG"
    PARAMS = (
        Param("alpha", float, 0.005, "P(a|u,i) of an unjudged item having a", low=0.0, high=1.0),
        Param("beta", float, 0.5, "scale of P(a|u,i) = β r/r_max of a judged item having a", low=0.0, high=1.0),
        Param("gamma_source", str, "train", "items of γ_a^u: the training profile, or the user's judged test items",
              choices=("train", "test")),
        Param("nonrel_to_zero", bool, False, "ratings below τ count as 0 (the MissOverNon axiom's r = 0)"),
        IDEAL_TIES,
    )
    FORMULA = "Σ_k (1 − Π_a(1 − P(a|u,i_k) P(a|u,S_k))) / log2(1+k), over the greedy ideal"
    CITATION = "Parapar & Radlinski, Towards Unified Metrics for Accuracy and Diversity, RecSys 2021"
    SECTION = "C.11"
    FAMILY = "unified"
    NEEDS = ("aspects",)

    def uses_max_grade(self) -> bool:
        return True

    def _probs(self, view, items, grades):
        p = item_probabilities(grades, self.alpha, self.beta, view.max_grade, view.threshold, self.nonrel_to_zero)
        return np.where(items >= 0, p, 0.0)

    def gains(self, view, items: np.ndarray, grades: np.ndarray, gamma: np.ndarray) -> np.ndarray:
        """(n, L) gains G[k] of arbitrary item lists (rows aligned with view.users; grades NaN = unjudged)."""
        return ab_gains(view, items, self._probs(view, items, grades), gamma)

    def run_gains(self, view, k: int, gamma: np.ndarray) -> np.ndarray:
        """(n, K) gains G[k] of the run cut (or padded) at K; P(a|u,i) from each user's qrels row (one kernel pass)."""
        from recdiv.eval.metrics import unified_kernels as kernels  # numba loads when a kernel runs

        space = aspect_space(view)
        items = np.ascontiguousarray(view.rankings.items, dtype=np.int64)
        return kernels.run_gains(items, run_rows(view), int(k), view.users.astype(np.int64), *qrels_csr(view),
                                 aspect_table(view), space.n_aspects, gamma, self.alpha, self.beta, view.max_grade,
                                 view.threshold, self.nonrel_to_zero)

    def ideal(self, view, gamma: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
        """Greedy ideal lists over each user's judged test items with aspects: (items (n, L), gains (n, L)),
        L = min(steps, the largest number of judged items having aspects of any user, at least 1).

        Numba kernel (`recdiv.eval.metrics.unified_kernels.greedy_ab_ideal`); a cached longer
        or complete list is reused (greedy ideals of different lengths share their prefix); kept in the context's
        cache.
        """
        space = aspect_space(view)
        src = view.context.train if self.gamma_source == "train" else None
        key = ("ab ideal", view.qrels, space, src, self.alpha, self.beta, self.gamma_source, self.nonrel_to_zero,
               self.ideal_ties, view.threshold, view.context.population, view.max_grade)
        hit = view.context.cache.peek(key)
        if hit is not None and (hit[0] or hit[1].shape[1] >= steps):
            return hit[1][:, :steps], hit[2][:, :steps]
        check_ideal_ties(self.NAME, self.ideal_ties)
        from recdiv.eval.metrics import unified_kernels as kernels  # numba loads when a kernel runs

        users = view.users.astype(np.int64)
        q_ptr, q_idx, q_val = qrels_csr(view)
        table = aspect_table(view)
        widths = kernels.candidate_widths(users, q_ptr, q_idx, table, space.n_aspects)
        width = max(int(widths.max()) if len(widths) else 0, 1)
        length = min(steps, width)
        rank = view.qrels.items.string_rank
        keys = np.ascontiguousarray(rank if self.ideal_ties == "max_id" else len(rank) - 1 - rank, dtype=np.int64)
        out_i, out_g = kernels.greedy_ab_ideal(users, q_ptr, q_idx, q_val, table, space.n_aspects, gamma, keys,
                                               self.beta, view.max_grade, view.threshold, self.nonrel_to_zero, length)
        view.context.cache.put(key, (length == width, out_i, out_g))
        return out_i, out_g

    def compute(self, view):
        from recdiv.eval.metrics import unified_kernels as kernels  # numba loads when a kernel runs

        k = cutoff_of(self, view)
        gamma = gamma_weights(view, self.gamma_source, str(self))
        disc = LogDiscount().positions(k)
        dcg = kernels.discounted_sums(self.run_gains(view, k, gamma), disc)
        _, ig = self.ideal(view, gamma, k)
        idcg = kernels.discounted_sums(np.ascontiguousarray(ig), disc[: ig.shape[1]])
        return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)
