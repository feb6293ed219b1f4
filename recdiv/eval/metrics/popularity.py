"""Popularity bias of recommendation lists: average popularity and long-tail share per list (ARP, APLT, ACLT;
Abdollahpouri et al.) and the disparity between popular and unpopular items across all lists (PopRSP, PopREO;
Zhu, Wang & Caverlee 2020).

Popularity φ(i) = |U_i|, the number of training users of i (`EvalContext.train`); the short head Φ is the set of
most popular items that together make up the first `head` share of the training interactions (default 0.8, the
80/20 split; `recdiv.models.novelty.short_head`), the long tail Γ every other item of the catalogue (items absent
from the training data included). Lists are cut at K; |L_u| = min(K, n_u); a user without a list scores 0.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from recdiv.errors import ConfigError
from recdiv.eval.context import RunView
from recdiv.eval.measure import Measure, Param, PerUserMeasure, SystemMeasure
from recdiv.eval.metrics.expected import _cached
from recdiv.eval.metrics.intents import user_rows
from recdiv.eval.partial import Sums
from recdiv.models.novelty import gather, short_head, user_frequency

if TYPE_CHECKING:
    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings
    from recdiv.eval.context import EvalContext

__all__ = ["ACLT", "APLT", "ARP", "PopREO", "PopRSP"]


def _train(measure: Measure, view):
    train = view.context.train
    if train.items != view.rankings.item_vocab:
        raise ConfigError(f"{measure}: training data and run use different item vocabularies")
    return train


def _head(measure: Measure, view) -> np.ndarray:
    train = _train(measure, view)
    return _cached(view.context, ("short-head", train, measure.head), lambda: short_head(train, measure.head))


def _list(measure: Measure, view) -> tuple[np.ndarray, np.ndarray]:
    """(items (n, K) −1 padded, |L_u|) of the lists cut at K."""
    items = view.items if measure.cutoff is None else view.items[:, : measure.cutoff]
    return items, (items >= 0).sum(axis=1).astype(np.float64)


def _per_item(values: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.divide(values, n, out=np.zeros_like(values), where=n > 0)


HEAD = Param("head", float, 0.8, "share of the training interactions the short head makes up", low=0.0, high=1.0,
             low_open=True, high_open=True)


class _Popularity(PerUserMeasure):
    FAMILY = "popularity"
    NEEDS = ("train",)
    SECTION = ""


class ARP(_Popularity):
    """Average recommendation popularity: ARP@K(u) = (1/|L_u|) Σ_{i∈L_u} φ(i), φ(i) = |U_i| training users.

    Abdollahpouri, Burke & Mobasher, FLAIRS 2019 ("Managing popularity bias ... personalized re-ranking");
    Yin et al., VLDB 2012; Elliot `ARP`.
    """

    NAME = "ARP"
    RANGE = (0.0, math.inf)
    HIGHER_IS_BETTER = False  # popularity of what is recommended: lower is less biased
    FORMULA = "(1/|L_u|) Σ_{i∈L_u} |U_i|"
    CITATION = "Abdollahpouri, Burke & Mobasher, FLAIRS 2019; Yin et al., VLDB 2012"

    def compute(self, view):
        items, n = _list(self, view)
        phi = user_frequency(_train(self, view))[0]
        return _per_item(gather(phi, items).sum(axis=1), n)


class APLT(_Popularity):
    """Average percentage of long-tail items: APLT@K(u) = |L_u ∩ Γ| / |L_u|, Γ = items outside the short head.

    Abdollahpouri, Burke & Mobasher, RecSys 2017 ("Controlling popularity bias in learning-to-rank
    recommendation") and FLAIRS 2019; Elliot `APLT`.
    """

    NAME = "APLT"
    RANGE = (0.0, 1.0)
    PARAMS = (HEAD,)
    FORMULA = "|L_u ∩ Γ| / |L_u|; Γ = catalogue minus the items making up the first `head` of interactions"
    CITATION = "Abdollahpouri, Burke & Mobasher, RecSys 2017; FLAIRS 2019"

    def compute(self, view):
        items, n = _list(self, view)
        tail = gather((~_head(self, view)).astype(np.float64), items)
        return _per_item(tail.sum(axis=1), n)


class ACLT(_Popularity):
    """Average coverage of long-tail items: ACLT@K(u) = |L_u ∩ Γ|, the number of long-tail items in the list.

    Abdollahpouri, Burke & Mobasher, FLAIRS 2019; Elliot `ACLT`.
    """

    NAME = "ACLT"
    RANGE = (0.0, math.inf)
    MONOTONE_IN_CUTOFF = True
    PARAMS = (HEAD,)
    FORMULA = "|L_u ∩ Γ|"
    CITATION = "Abdollahpouri, Burke & Mobasher, FLAIRS 2019"

    def compute(self, view):
        items, _ = _list(self, view)
        return gather((~_head(self, view)).astype(np.float64), items).sum(axis=1)


class _GroupDisparity(SystemMeasure):
    """std/mean (population std) over the groups Φ (head) and Γ (tail) of the probabilities P(g) = Σ_u num_u(g) /
    Σ_u den_u(g) over the evaluated users (Zhu, Wang & Caverlee, SIGIR 2020); 0 = parity, NaN when both are 0."""

    FAMILY = "popularity"
    NEEDS = ("train",)
    SECTION = ""
    HIGHER_IS_BETTER = False
    PARAMS = (HEAD,)

    def counts(self, view, items: np.ndarray, head: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(numerators (2,), denominators (2,)) for (head, tail), summed over the evaluated users."""
        raise NotImplementedError  # pragma: no cover - abstract

    def block_state(self, rankings: Rankings, qrels: Qrels, context: EvalContext) -> Sums:
        """(numerators, denominators): counts over the block's users, so blocks add up exactly."""
        view = RunView.of(context, rankings, qrels)
        items, _ = _list(self, view)
        return Sums(self.counts(view, items, _head(self, view)))

    def finish(self, state: Sums, n_items: int) -> float:
        num, den = state.arrays
        p = np.divide(num, den, out=np.zeros(2), where=den > 0)
        return float(np.std(p) / np.mean(p)) if p.sum() > 0 else float("nan")

    @staticmethod
    def _unseen(view, train, group: np.ndarray, among=None) -> float:
        """Σ_u |G \\ P_u| over the evaluated users, or Σ_u |G ∩ among_u \\ P_u| (`among`: users × items CSR)."""
        import scipy.sparse as sp

        rows = user_rows(view, train)
        seen = train.matrix[np.maximum(rows, 0)].astype(bool).astype(np.float64)
        seen = sp.diags((rows >= 0).astype(np.float64)) @ seen  # users absent from training have seen nothing
        g = group.astype(np.float64)
        if among is None:
            return float(len(view.users) * g.sum() - (seen @ g).sum())
        among = among.astype(bool).astype(np.float64)
        return float((among @ g).sum() - (among.multiply(seen) @ g).sum())


class PopRSP(_GroupDisparity):
    """Popularity-based ranking statistical parity: P(g) = Σ_u |L_u^K ∩ G_g| / Σ_u |G_g \\ P_u| (P_u = training
    items of u) for g ∈ {Φ, Γ}; PopRSP@K = std(P) / mean(P) = |P_Φ − P_Γ| / (P_Φ + P_Γ); 0 = parity.

    Zhu, Wang & Caverlee, SIGIR 2020 (RSP over item groups); Elliot `PopRSP`.
    """

    NAME = "PopRSP"
    FORMULA = "std/mean over {Φ, Γ} of Σ_u |L_u ∩ G| / Σ_u |G \\ P_u|"
    CITATION = "Zhu, Wang & Caverlee, SIGIR 2020"

    def counts(self, view, items, head):
        train = _train(self, view)
        valid = items >= 0
        in_head = gather(head.astype(np.float64), items)
        num = np.array([in_head.sum(), (valid & (in_head == 0)).sum()], dtype=np.float64)
        den = np.array([self._unseen(view, train, head), self._unseen(view, train, ~head)])
        return num, den


class PopREO(_GroupDisparity):
    """Popularity-based ranking equal opportunity: as PopRSP over relevant items only, P(g) = Σ_u |L_u^K ∩ G_g ∩
    Rel_u| / Σ_u |G_g ∩ Rel_u \\ P_u|; PopREO@K = std(P) / mean(P); 0 = equal opportunity.

    Zhu, Wang & Caverlee, SIGIR 2020 (REO over item groups); Elliot `PopREO`.
    """

    NAME = "PopREO"
    FORMULA = "std/mean over {Φ, Γ} of Σ_u |L_u ∩ G ∩ Rel_u| / Σ_u |G ∩ Rel_u \\ P_u|"
    CITATION = "Zhu, Wang & Caverlee, SIGIR 2020"

    def counts(self, view, items, head):
        train = _train(self, view)
        rel = view.rel[:, : items.shape[1]] & (items >= 0)
        in_head = gather(head.astype(np.float64), items) > 0
        num = np.array([(rel & in_head).sum(), (rel & ~in_head).sum()], dtype=np.float64)
        relevant = view.qrels.relevant(view.threshold)[view.users]
        den = np.array([self._unseen(view, train, head, relevant), self._unseen(view, train, ~head, relevant)])
        return num, den
