"""Set-based and counting measures of trec_eval and ir_measures (docs/metrics.md): the retrieved list taken as a
set (trec_eval `set_P`, `set_recall`, `set_F`), the counts `num_ret`, `num_rel`, `num_rel_ret`, `num_q`, and
ir_measures' judgment rate `Judged@K`.

Counts are summed over the evaluated users (trec_eval's "all" line, ir_measures' `SumAgg`), not averaged;
the per-user values are the per-topic ones. Conventions as in `recdiv.eval.metrics.accuracy`: relevant ⇔
grade ≥ τ; a negative label is pooled but unjudged (never judged, never relevant); a user without a list
has retrieved nothing.
"""

from __future__ import annotations

import math

import numpy as np

from recdiv.eval.measure import Param, PerUserMeasure
from recdiv.eval.metrics.accuracy import _hits, _safe_div


def _retrieved(view) -> np.ndarray:
    """|R_u|: length of each evaluated user's list (0 without a list)."""
    return view.lengths.astype(np.float64)


class _Count(PerUserMeasure):
    """A per-user count whose system value is the sum over the evaluated users."""

    CUTOFF = "none"

    def aggregate_final(self, values: np.ndarray, state) -> float:
        return float(np.sum(values))


class NumRet(_Count):
    """Number of retrieved items: |R_u| (trec_eval `num_ret`, ir_measures `NumRet`); summed over users."""

    NAME = "NumRet"
    RANGE = (0.0, math.inf)
    FORMULA = "|R_u| (system value: Σ_u)"
    CITATION = "trec_eval num_ret; ir_measures NumRet"
    SECTION = "A"

    def compute(self, view):
        return _retrieved(view)


class NumRelRet(_Count):
    """Number of relevant items retrieved: |R_u ∩ Rel_u| (trec_eval `num_rel_ret`, ir_measures `NumRet(rel=τ)`)."""

    NAME = "NumRelRet"
    RANGE = (0.0, math.inf)
    FORMULA = "|R_u ∩ Rel_u| (system value: Σ_u)"
    CITATION = "trec_eval num_rel_ret; ir_measures NumRelRet"
    SECTION = "A"

    def compute(self, view):
        return _hits(view, None).astype(np.float64)


class NumRel(_Count):
    """Number of relevant test items, retrieved or not: |Rel_u| (trec_eval `num_rel`, ir_measures `NumRel`)."""

    NAME = "NumRel"
    RANGE = (0.0, math.inf)
    FORMULA = "|Rel_u| (system value: Σ_u)"
    CITATION = "trec_eval num_rel; ir_measures NumRel"
    SECTION = "A"

    def compute(self, view):
        return view.n_rel.astype(np.float64)


class NumQ(_Count):
    """Number of evaluated users (queries): 1 per user, summed (trec_eval `num_q`, ir_measures `NumQ`)."""

    NAME = "NumQ"
    RANGE = (0.0, math.inf)
    FORMULA = "1 per evaluated user (system value: the number of users)"
    CITATION = "trec_eval num_q; ir_measures NumQ"
    SECTION = "A"

    def compute(self, view):
        return np.ones(len(view.users))


class SetP(PerUserMeasure):
    """Set precision: the fraction of the whole retrieved list that is relevant.

    SetP(u) = |R_u ∩ Rel_u| / |R_u| (0 for an empty list). trec_eval `set_P`; ir_measures `SetP`. docs/metrics.md
    """

    NAME = "SetP"
    RANGE = (0.0, 1.0)
    CUTOFF = "none"
    FORMULA = "|R_u ∩ Rel_u| / |R_u|"
    CITATION = "trec_eval set_P; ir_measures SetP"
    SECTION = "A.1"

    def compute(self, view):
        return _safe_div(_hits(view, None), _retrieved(view))


class SetR(PerUserMeasure):
    """Set recall: the fraction of the relevant test items found anywhere in the list.

    SetR(u) = |R_u ∩ Rel_u| / |Rel_u|. trec_eval `set_recall`; ir_measures `SetR`. docs/metrics.md
    """

    NAME = "SetR"
    RANGE = (0.0, 1.0)
    CUTOFF = "none"
    FORMULA = "|R_u ∩ Rel_u| / |Rel_u|"
    CITATION = "trec_eval set_recall; ir_measures SetR"
    SECTION = "A.2"

    def compute(self, view):
        return _safe_div(_hits(view, None), view.n_rel)


class SetF(PerUserMeasure):
    """Set F-measure of SetP and SetR with trec_eval's weighting parameter β.

    SetF(u) = (β + 1)·P·R / (β·P + R), P = SetP, R = SetR; 0 when nothing relevant is retrieved. β weights
    recall as trec_eval's `set_F.β` does (β = 1: the harmonic mean); ir_measures `SetF(beta=β)` passes β to
    trec_eval unchanged. Van Rijsbergen 1979 (E measure). docs/metrics.md
    """

    NAME = "SetF"
    RANGE = (0.0, 1.0)
    CUTOFF = "none"
    PARAMS = (Param("beta", float, 1.0, "weight of recall (trec_eval's set_F parameter)", low=0.0, low_open=True),)
    FORMULA = "(β + 1)·SetP·SetR / (β·SetP + SetR)"
    CITATION = "trec_eval set_F; ir_measures SetF; van Rijsbergen 1979"
    SECTION = "A.1–A.2"

    def compute(self, view):
        hits = _hits(view, None)
        p = _safe_div(hits, _retrieved(view))
        r = _safe_div(hits, view.n_rel)
        return _safe_div((self.beta + 1.0) * p * r, np.where(hits > 0, self.beta * p + r, 0.0))


class Judged(PerUserMeasure):
    """Judgment rate: the fraction of the top K that has a judgment.

    Judged@K(u) = |{k ≤ min(K, n) : i_k judged}| / min(K, n) — divided by the list length when the list is
    shorter than K, as ir_measures does; without cutoff the whole list; 0 for an empty list. labels=graded
    (default): judged ⇔ grade ≥ 0, a negative label (pooled but unjudged, trec_eval) is not; labels=any: every
    qrels line counts, negative labels too — ir_measures' `Judged` exactly (`--conventions ir_measures`).
    MacAvaney et al., ir_measures `Judged`. docs/metrics.md
    """

    NAME = "Judged"
    RANGE = (0.0, 1.0)
    PARAMS = (Param("labels", str, "graded", "which qrels lines count as judged: grade ≥ 0, or any line (ir_measures)",
                    choices=("graded", "any")),)
    FORMULA = "|{k ≤ min(K,n) : grade(i_k) ≥ 0}| / min(K, n) (labels=any: i_k in the qrels)"
    CITATION = "ir_measures Judged (MacAvaney, Macdonald & Ounis, ECIR 2022)"
    SECTION = "A"

    def compute(self, view):
        k = view.items.shape[1] if self.cutoff is None else min(self.cutoff, view.items.shape[1])
        judged = view.judged[:, :k] if self.labels == "graded" else ~np.isnan(view.grades[:, :k])
        judged = judged.sum(axis=1).astype(np.float64)
        return _safe_div(judged, np.minimum(_retrieved(view), k))
