"""Parapar & Radlinski's ideal ordering of each user's ground-truth items (RecSys 2021 §5.1; METRICS.md §F.7).

For user u with test items T_u:

1. for every aspect a of T_u, L_a = the items of T_u having a, by rating descending, then number of
   aspects descending [CHOICE], then dense index;
2. w(u,a) = eq. 9 on T_u with the test ratings (rating-weighted aspect distribution; uniform if no mass);
3. ι = (); at each position, with w(ι,a) = eq. 9 on the items already placed (0 for the empty list),
   visit aspects by w(u,a) − w(ι,a) descending (ties: smaller aspect index), take the first aspect whose
   list still has an unused item and append that list's first unused item; stop at min(K, |T_u|).

Items without aspects are in no list; recdiv appends them after all aspect items, by the same order
[CHOICE]. Vectorised over users: the lists L_a share one per-user priority (rating, |A(i)|, index), so
"first unused item of L_a" is a masked argmin over users × |T_u| × aspects; the loop runs over positions.
The perturbation experiments (bottom-to-top swaps, redundant aspect, aspect swap) are built on top of
this (`return_aspects=True` gives the aspect used at each step).
"""

from __future__ import annotations

import numpy as np

from recdiv.data.qrels import Qrels
from recdiv.data.rankings import PAD, Rankings
from recdiv.eval.metrics.greedy_ideal import chunks_by_width, padded_rows

_BIG = np.iinfo(np.int64).max


def _priority(items: np.ndarray, grades: np.ndarray, n_asp: np.ndarray) -> np.ndarray:
    """(n, T) rank of each candidate in the L_a order (rating ↓, |A(i)| ↓, dense index ↑); _BIG at padding."""
    n, t = items.shape
    rows = np.repeat(np.arange(n), t)
    valid = (items >= 0).ravel()
    safe = np.where(items >= 0, items, 0).ravel()
    order = np.lexsort((safe, -n_asp[safe], -np.nan_to_num(grades).ravel(), ~valid, rows))
    rank = np.empty(n * t, dtype=np.int64)
    rank[order] = np.tile(np.arange(t), n)
    return np.where(items >= 0, rank.reshape(n, t), _BIG)


def _eq9(mass: np.ndarray, empty_uniform: bool) -> np.ndarray:
    total = mass.sum(axis=1, keepdims=True)
    fallback = 1.0 / mass.shape[1] if empty_uniform else 0.0
    return np.where(total > 0, mass / np.where(total > 0, total, 1.0), fallback)


def _order_chunk(items, grades, asp, n_asp, steps):
    n = asp.shape[0]
    prio = _priority(items, grades, n_asp)
    r = np.nan_to_num(grades)
    w_u = _eq9(np.einsum("nt,nta->na", r, asp.astype(np.float64)), True)
    mass = np.zeros_like(w_u)
    avail = items >= 0
    rows = np.arange(n)
    out_j = np.full((n, steps), -1, dtype=np.int64)
    out_a = np.full((n, steps), -1, dtype=np.int64)
    for s in range(steps):
        if not avail.any():
            break
        p = np.where(avail[:, :, None] & asp, prio[:, :, None], _BIG)  # (n, T, A)
        first = p.argmin(axis=1)  # first unused item of each L_a
        has_a = p.min(axis=1) < _BIG
        diff = np.where(has_a, w_u - _eq9(mass, False), -np.inf)
        a = diff.argmax(axis=1)  # ties: smaller aspect index
        any_a = has_a.any(axis=1)
        j_asp = first[rows, a]
        j_any = np.where(avail, prio, _BIG).argmin(axis=1)  # featureless items, once all aspects are done
        has = avail.any(axis=1)
        j = np.where(any_a, j_asp, j_any)
        out_j[has, s] = j[has]
        out_a[any_a, s] = a[any_a]
        avail[rows[has], j[has]] = False
        mass[has] += r[rows[has], j[has], None] * asp[rows[has], j[has]]
    return out_j, out_a


def ideal_ordering(qrels: Qrels, aspects, k: int, users: np.ndarray | None = None,
                   return_aspects: bool = False):
    """P&R §5.1 ideal ordering (METRICS.md §F.7) of every user's judged test items, length min(k, |T_u|).

    qrels: test ratings (all judged items are candidates, whatever their rating); aspects: `AspectSpace`
    over the same items; users: dense user indices (default: every user with a judged item).
    Returns `Rankings` (scores k, k−1, …), and with `return_aspects=True` also the (n, k) aspect index used
    at each position (−1 for padding and for items without aspects).
    """
    if aspects.items is not qrels.items and aspects.items != qrels.items:
        raise ValueError("the aspect space and the qrels use different item vocabularies")
    users = np.flatnonzero(qrels.n_labels() > 0) if users is None else np.asarray(users, dtype=np.int64)
    dense = aspects.dense(dtype=bool)
    n_asp = aspects.n_item_aspects
    cand, grades = padded_rows(qrels.matrix, users)
    widths = (cand >= 0).sum(axis=1)
    length = max(min(int(k), int(widths.max()) if len(widths) else 0), 0)
    out_i = np.full((len(users), length), PAD, dtype=np.int64)
    out_a = np.full((len(users), length), -1, dtype=np.int64)
    if length:
        for idx in chunks_by_width(widths, aspects.n_aspects):
            wc = max(int(widths[idx].max()), 1)
            items = cand[idx, :wc]
            asp = dense[np.where(items >= 0, items, 0)] & (items >= 0)[:, :, None]
            steps = min(length, wc)
            j, a = _order_chunk(items, grades[idx, :wc], asp, n_asp, steps)
            out_i[idx, :steps] = np.where(j >= 0, np.take_along_axis(items, np.maximum(j, 0), axis=1), PAD)
            out_a[idx, :steps] = a
    scores = np.where(out_i >= 0, (length - np.arange(length)).astype(np.float64), np.nan)
    ranking = Rankings(users, out_i, scores, qrels.users, qrels.items)
    return (ranking, out_a) if return_aspects else ranking
