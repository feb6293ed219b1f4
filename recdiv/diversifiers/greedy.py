"""THE greedy template shared by every reranker (METRICS.md §E.0, §0.6), vectorised over users.

S ← (); while |S| < min(k, N): evaluate f(i | S) for every remaining candidate of every user at once; NaN objectives
are skipped; pick the maximum, ties → the earliest candidate (lowest position, RankSys `GreedyReranker.selectItem`);
if every remaining objective of a user is NaN, pick that user's earliest remaining candidate; append; update state.
Only the k positions are looped over; every step works on (users × N) arrays.

A reranker states its objective and its state update by subclassing `GreedyReranker`:

    class MyReranker(GreedyReranker):
        def init_state(self, block): return {...}           # anything
        def objective(self, state, block, remaining, t): return values  # (n, N), NaN = skip
        def update(self, state, block, picked, t): ...      # picked (n,) positions, −1 = nothing picked
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from recdiv.diversifiers.base import CandidateBlock, Reranker


def greedy_select(
    valid: np.ndarray,
    k: int,
    objective: Callable[[np.ndarray, int], np.ndarray],
    update: Callable[[np.ndarray, int], None],
) -> np.ndarray:
    """Run the greedy template; returns chosen positions (n, k), −1 once a user has no candidate left.

    objective(remaining, t) -> (n, N) values (only entries where `remaining` is true are read);
    update(picked, t) is called after every step with picked (n,) positions (−1 for users with nothing left).
    """
    from recdiv.diversifiers.greedy_kernels import select_best  # numba: loaded only when the template runs

    n = valid.shape[0]
    remaining = valid.copy()
    left = valid.sum(axis=1)
    out = np.full((n, k), -1, dtype=np.int64)
    best = np.empty(n, dtype=np.int64)
    for t in range(k):
        has = left > t
        if not has.any():
            break
        f = np.asarray(objective(remaining, t), dtype=np.float64)
        select_best(np.broadcast_to(f, remaining.shape), remaining, has, best)  # also removes the picks
        out[:, t] = best
        update(best.copy(), t)
    return out


class GreedyReranker(Reranker):
    """A reranker defined by an objective f(i | S) and a state update; the loop is `greedy_select`.

    A built-in reranker may also implement `fused(block, k)`: the same selection compiled per user
    (recdiv/diversifiers/greedy_kernels.py), used only while `init_state`, `objective` and `update` are the ones it was
    written for (a subclass or an instance that replaces any of them runs through the template).
    """

    def _rerank_block(self, block: CandidateBlock, k: int) -> np.ndarray:
        if self._fused_applies():
            out = self.fused(block, k)
            if out is not None:
                return out
        state = self.init_state(block)
        return greedy_select(
            block.valid, k,
            lambda remaining, t: self.objective(state, block, remaining, t),
            lambda picked, t: self.update(state, block, picked, t),
        )

    def fused(self, block: CandidateBlock, k: int) -> np.ndarray | None:
        """Chosen positions (n, k) from a compiled per-user loop equal to the template's, or None (use the template)."""
        return None

    def _fused_applies(self) -> bool:
        cls = type(self)
        owner = next(c for c in cls.__mro__ if "fused" in c.__dict__)
        methods = ("init_state", "objective", "update")
        return not any(m in vars(self) for m in methods) and all(
            getattr(cls, m) is getattr(owner, m) for m in methods)

    @abstractmethod
    def init_state(self, block: CandidateBlock) -> Any:
        """State before the first pick (any object)."""

    @abstractmethod
    def objective(self, state: Any, block: CandidateBlock, remaining: np.ndarray, t: int) -> np.ndarray:
        """f(i | S) for every candidate (n, N); NaN = undefined (skipped). `t` = |S|."""

    def update(self, state: Any, block: CandidateBlock, picked: np.ndarray, t: int) -> None:
        """Fold the picked positions (n,), −1 = none, into the state. Default: stateless objective."""
