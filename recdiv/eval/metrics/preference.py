"""Preference-based evaluation (Diaz, Ekstrand & Mitra, *Recall, Robustness, and Lexicographic Evaluation*;
reference code diazf/pref_eval; docs/intent-aware.md).

Relevance is binary (grade ≥ τ); m = |Rel_u|; a run retrieves m_r of them at positions p_1 < … < p_{m_r}
(within the cutoff); the other m − m_r are imputed *pessimistically* at the bottom of the catalog
(positions n_c − (m − m_r) + 1 … n_c, n_c = catalog size minus the user's training items when a training
set is in the context, else the catalog size).

- `lexirecall` (X vs Y): more relevant items retrieved wins; otherwise compare positions from the lowest
  relevant item upward (leximin) — +1 when X is preferred, −1 when Y is, 0 when tied.
- `lexiprecision`: compare positions from the top (unretrieved loses to retrieved).
- `TSE(base=ap|rr|ndcg|rbp)` [RECON]: the recall-level metric value of the lowest relevant item alone,
  e(p_m) — a per-run measure whose per-user differences have the sign of lexirecall's first criterion.

lexirecall and lexiprecision compare two runs, so they are `PairwiseMeasure`s: parse them like any
measure, then call `compare(...)` (or `recdiv.eval.evaluate.preference_per_user`); `per_user` of a single run
raises ConfigError. `recdiv.eval.evaluate.preference_summary` gives the system-level figures of §D.5 (mean
preference, wins/ties/losses, win rate, two-sided sign test via `scipy.stats.binomtest`).
"""

from __future__ import annotations

import numpy as np

from recdiv.eval.measure import PairwiseMeasure, Param, PerUserMeasure, _cut
from recdiv.eval.metrics.intents import user_rows
from recdiv.models.discount import ExponentialDiscount, LogDiscount, ReciprocalDiscount

_BIG = np.iinfo(np.int64).max // 4


def _positions(rel: np.ndarray, width: int, descending: bool) -> np.ndarray:
    """1-based positions of the relevant items of each row, sorted; padded with 0 (descending) or _BIG."""
    pos = np.where(rel, np.arange(1, rel.shape[1] + 1), 0 if descending else _BIG)
    pos = -np.sort(-pos, axis=1) if descending else np.sort(pos, axis=1)
    if pos.shape[1] < width:
        fill = 0 if descending else _BIG
        pos = np.concatenate([pos, np.full((len(pos), width - pos.shape[1]), fill, dtype=pos.dtype)], axis=1)
    return pos


def _first_difference(px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """+1 where the first differing position is smaller in X, −1 where larger, 0 when none differs."""
    d = np.sign(py - px)
    nz = d != 0
    first = np.argmax(nz, axis=1)
    return np.where(nz.any(axis=1), d[np.arange(len(d)), first], 0).astype(np.int64)


def lexirecall(rel_x: np.ndarray, rel_y: np.ndarray) -> np.ndarray:
    """Per-user lexirecall preference of run X over run Y from (n, k) relevance masks (docs/intent-aware.md)."""
    mx, my = rel_x.sum(axis=1), rel_y.sum(axis=1)
    width = max(rel_x.shape[1], rel_y.shape[1], 1)
    tie = _first_difference(_positions(rel_x, width, True), _positions(rel_y, width, True))
    return np.where(mx != my, np.sign(mx - my), tie).astype(np.int64)


def lexiprecision(rel_x: np.ndarray, rel_y: np.ndarray) -> np.ndarray:
    """Per-user lexiprecision preference of X over Y (compare positions from the top; §D.3)."""
    width = max(rel_x.shape[1], rel_y.shape[1], 1)
    return _first_difference(_positions(rel_x, width, False), _positions(rel_y, width, False))


def catalog_sizes(view) -> np.ndarray:
    """n_c per evaluated user: catalog size minus the user's training items (if `train` is known)."""
    n_items = len(view.qrels.items)
    train = view.context.train
    if train is None:
        return np.full(len(view.users), n_items, dtype=np.int64)
    rows = user_rows(view, train)
    counts = np.diff(train.matrix.indptr)
    return n_items - np.where(rows >= 0, counts[np.maximum(rows, 0)], 0)


def lowest_relevant_position(rel: np.ndarray, n_rel: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """p_m: position of the lowest relevant item after pessimistic imputation (n_c if any is unretrieved)."""
    m_r = rel.sum(axis=1)
    last = np.where(rel.any(axis=1), rel.shape[1] - np.argmax(rel[:, ::-1], axis=1), 0)
    return np.where(m_r < n_rel, n_c, last)


class LexiRecall(PairwiseMeasure):
    """lexirecall: leximin preference between two rankings over the positions of relevant items.

    +1 if X retrieves more relevant items (pessimistic imputation), else the first difference scanning
    positions from the lowest relevant item upward; 0 if identical. Diaz, Ekstrand & Mitra; pref_eval
    `lexirecall`; docs/intent-aware.md
    """

    NAME = "lexirecall"
    FORMULA = "sign(m_r(X) − m_r(Y)), else first j from the bottom with p_j(X) ≠ p_j(Y)"
    CITATION = "Diaz, Ekstrand & Mitra, Recall, Robustness, and Lexicographic Evaluation"
    SECTION = "D.2"

    def _rule(self, rel_x, rel_y):
        return lexirecall(rel_x, rel_y)


class LexiPrecision(PairwiseMeasure):
    """lexiprecision: lexicographic preference over relevant positions from the top (Diaz 2023; pref_eval).

    docs/intent-aware.md
    """

    NAME = "lexiprecision"
    FORMULA = "first j from the top with p_j(X) ≠ p_j(Y) (unretrieved = worst)"
    CITATION = "Diaz, Recall, Robustness, and Lexicographic Evaluation; Diaz 2023 (lexiprecision)"
    SECTION = "D.3"

    def _rule(self, rel_x, rel_y):
        return lexiprecision(rel_x, rel_y)


class TSE(PerUserMeasure):
    """Total search efficiency [RECON]: the recall-level metric value of the lowest relevant item alone.

    TSE = e(p_m), p_m = position of the lowest relevant item after pessimistic imputation; base ap/rr:
    1/p_m (default), ndcg: 1/log2(p_m + 1), rbp: (1−p)p^{p_m−1}. Diaz, Ekstrand & Mitra eq. 3–5 (eq. 3 lost in
    the shipped text; reconstruction in docs/intent-aware.md and G.3.1).
    """

    NAME = "TSE"
    PARAMS = (Param("base", str, "ap", "recall-level metric e: 1/p (ap, rr), 1/log2(p+1) (ndcg), (1−p)p^(p−1) (rbp)",
                    choices=("ap", "rr", "ndcg", "rbp")),
              Param("p", float, 0.9, "persistence of base=rbp", low=0.0, high=1.0, low_open=True, high_open=True))
    FORMULA = "e(p_m): 1/p_m (ap, rr), 1/log2(p_m+1) (ndcg), (1−p)p^{p_m−1} (rbp)"
    CITATION = "Diaz, Ekstrand & Mitra, Recall, Robustness, and Lexicographic Evaluation (reconstructed)"
    SECTION = "D.4"
    FAMILY = "preference"

    def compute(self, view):
        rel = _cut(view.rel, self.cutoff)
        pm = lowest_relevant_position(rel, view.n_rel, catalog_sizes(view)).astype(np.float64)
        ok = pm > 0
        pm = np.where(ok, pm, 1.0)
        if self.base in ("ap", "rr"):
            v = ReciprocalDiscount().at(pm)
        elif self.base == "ndcg":
            v = LogDiscount().at(pm)
        else:
            v = (1.0 - self.p) * ExponentialDiscount(self.p).at(pm)
        return np.where(ok, v, 0.0)
