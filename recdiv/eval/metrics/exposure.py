"""System-level (aggregate) diversity and exposure metrics (docs/novelty-diversity.md).

Computed over all users' top-K lists at once, so they have no per-user values: `value(rankings, qrels,
context)` returns the system figure (they are `SystemMeasure`s). c_i = number of lists whose top K contains i, or
Σ_u disc(rank_u(i)) with a position discount (RankSys `AbstractSalesDiversityMetric`); p_i = c_i / Σ_j c_j;
n_I = |I| is the whole item vocabulary, including items never recommended.

``users=evaluated`` (default) takes the lists of the evaluated population (the users every per-user metric is
averaged over, docs/metrics.md); ``users=run`` takes every list of the run, as RankSys does.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from recdiv.arrays.concentration import entropy, gini
from recdiv.eval.context import EvalContext, RunView
from recdiv.eval.measure import Param, SystemMeasure
from recdiv.eval.params import POSITION_DISC, USERS
from recdiv.eval.partial import Counts, Union
from recdiv.models.discount import parse_discount
from recdiv.models.relevance import is_relevant

if TYPE_CHECKING:
    from recdiv.data.qrels import Qrels
    from recdiv.data.rankings import Rankings

__all__ = ["AggregateDiversity", "Coverage", "Entropy", "Gini", "GiniDiversity", "exposure_counts"]


def exposure_counts(items: np.ndarray, n_items: int, disc: str = "none") -> np.ndarray:
    """c_i = Σ over lists of disc(rank of i) (1 per list with disc=none) for an (n, K) item array."""
    valid = items >= 0
    w = parse_discount(disc).weights(valid)
    return np.bincount(items[valid], weights=w[valid], minlength=n_items).astype(np.float64)


_RECOMMENDED_REL = Param("rel", str, "none", "count every recommended item, or only those relevant to a user they "
                         "were recommended to", choices=("none", "binary"))


class _Exposure(SystemMeasure):
    FAMILY = "system"
    SECTION = "B.9"
    CUTOFF = "optional"

    def lists(self, rankings: Rankings, qrels: Qrels, context: EvalContext):
        """(users, items (n, K)) of the lists the measure aggregates."""
        if self.params.get("users", "evaluated") == "run":
            users, items = rankings.users, rankings.items
        else:
            view = RunView.of(context, rankings, qrels)
            users, items = view.users, view.items
        if self.cutoff is not None:
            items = items[:, : self.cutoff]
        return users, items



class _Recommended(_Exposure):
    """The set of recommended items: merged with or."""

    def block_state(self, rankings, qrels, context) -> Union:
        """Boolean over items: recommended (and, with rel=binary, relevant to a user it was recommended to)."""
        users, items = self.lists(rankings, qrels, context)
        keep = items >= 0
        if self.params.get("rel", "none") == "binary":
            tau = context.threshold
            keep &= is_relevant(qrels.lookup(users, items), tau)
        out = np.zeros(len(rankings.item_vocab), dtype=bool)
        out[items[keep]] = True
        return Union(out)


class _Concentration(_Exposure):
    """Measures of the exposure counts c_i: kept as whole-number counts of (rank, item), so that blocks of users add
    up exactly and c_i = Σ_k n_{k,i}·disc(k) is summed rank by rank whatever the blocks."""

    def block_state(self, rankings, qrels, context) -> Counts:
        _, items = self.lists(rankings, qrels, context)
        valid = items >= 0
        if self.disc == "none":
            keys = items[valid].astype(np.int64)
        else:
            keys = np.nonzero(valid)[1].astype(np.int64) * len(rankings.item_vocab) + items[valid]
        return Counts.of(keys)

    def exposure(self, state: Counts, n_items: int) -> np.ndarray:
        """c_i of every item of the vocabulary from the (rank, item) counts."""
        c = np.zeros(n_items)
        if self.disc == "none":
            c[state.keys] = state.counts
            return c
        pos, item = np.divmod(state.keys, n_items)
        if len(pos):
            w = parse_discount(self.disc).weights(np.ones((1, int(pos.max()) + 1), dtype=bool))[0]
            np.add.at(c, item, state.counts * w[pos])  # keys ascend rank by rank: each c_i summed in rank order
        return c


class AggregateDiversity(_Recommended):
    """Aggregate diversity (Adomavicius & Kwon 2012; thesis §2.3.6): |∪_u R_u^K|, the number of distinct items
    recommended. rel=binary counts only items relevant to at least one user they were recommended to [CHOICE].
    docs/novelty-diversity.md"""

    NAME = "AggregateDiversity"
    RANGE = (0.0, math.inf)
    MONOTONE_IN_CUTOFF = True
    PARAMS = (_RECOMMENDED_REL, USERS)
    FORMULA = "|∪_u R_u^K|"
    CITATION = "Adomavicius & Kwon, IEEE TKDE 2012; thesis §2.3.6"

    def finish(self, state: Union, n_items: int) -> float:
        return float(state.mask.sum())


class Coverage(_Recommended):
    """Catalog coverage: aggregate diversity / n_I (share of the item vocabulary ever recommended)."""

    NAME = "Coverage"
    RANGE = (0.0, 1.0)
    MONOTONE_IN_CUTOFF = True
    PARAMS = (_RECOMMENDED_REL, USERS)
    FORMULA = "|∪_u R_u^K| / |I|"
    CITATION = "Herlocker et al., TOIS 2004; Ge et al., RecSys 2010"

    def finish(self, state: Union, n_items: int) -> float:
        rec = state.mask
        return float(rec.sum() / len(rec)) if len(rec) else 0.0


class Entropy(_Concentration):
    """Shannon entropy of the exposure distribution: −Σ_{i: p_i>0} p_i log2 p_i (RankSys `Entropy`)."""

    NAME = "Entropy"
    RANGE = (0.0, math.inf)
    PARAMS = (POSITION_DISC, USERS)
    FORMULA = "−Σ_i p_i log2 p_i, p_i = c_i / Σ_j c_j"
    CITATION = "Shannon 1948; RankSys Entropy; thesis §2.3.6"

    def finish(self, state: Counts, n_items: int) -> float:
        return entropy(self.exposure(state, n_items))


class Gini(_Concentration):
    """Gini coefficient of item exposure (concentration: 0 = uniform, 1 = all exposure on one item).

    G = (1 / (n_I − 1)) Σ_{j=1}^{n_I} (2j − n_I − 1) p_(j), ascending p (RankSys returns 1 − G).
    """

    NAME = "Gini"
    RANGE = (0.0, 1.0)
    HIGHER_IS_BETTER = False  # concentration: lower is more diverse
    PARAMS = (POSITION_DISC, USERS)
    FORMULA = "(1/(n_I−1)) Σ_j (2j − n_I − 1) p_(j)"
    CITATION = "Fleder & Hosanagar 2009; RankSys GiniIndex (as 1 − G)"

    def finish(self, state: Counts, n_items: int) -> float:
        return gini(self.exposure(state, n_items))


class GiniDiversity(_Concentration):
    """1 − Gini: the diversity form returned by RankSys `GiniIndex` (1 = uniform exposure)."""

    NAME = "GiniDiversity"
    RANGE = (0.0, 1.0)
    PARAMS = (POSITION_DISC, USERS)
    FORMULA = "1 − G"
    CITATION = "RankSys GiniIndex"

    def finish(self, state: Counts, n_items: int) -> float:
        return 1.0 - gini(self.exposure(state, n_items))
