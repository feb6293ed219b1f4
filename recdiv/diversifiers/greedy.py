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
        def relevance_term(self, state, block, remaining, t): ...  # optional: the objective's relevance part

`trace(candidates, k, context)` runs the template and records, at the step each item was chosen, its objective and
(where the reranker declares `relevance_term`) the objective's relevance and diversity parts (the explorer's view
of a user's list; never used to rerank).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from recdiv.diversifiers.base import CandidateBlock, Reranker, candidate_block

if TYPE_CHECKING:
    from recdiv.data.rankings import Rankings
    from recdiv.models.context import Context


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


@dataclass(frozen=True)
class Trace:
    """What `GreedyReranker.trace` records (users × k, NaN where nothing was chosen): positions of the chosen
    candidates (−1 none), the objective f(i | S) of each chosen item at its step, and its relevance and diversity
    parts (None when the reranker does not split its objective); steps: greedy steps recorded (0: the reranker
    answered without the template)."""

    positions: np.ndarray
    objective: np.ndarray
    relevance: np.ndarray | None
    diversity: np.ndarray | None
    steps: int


class GreedyReranker(Reranker):
    """A reranker defined by an objective f(i | S) and a state update; the loop is `greedy_select`.

    A built-in reranker may also implement `fused(block, k)`: the same selection compiled per user
    (recdiv/diversifiers/greedy_kernels.py), used only while `init_state`, `objective` and `update` are the ones it was
    written for (a subclass or an instance that replaces any of them runs through the template).
    """

    DEPTH_FREE = True  # step t depends on the steps before it only (PM-2 and FA*IR, which read k, say False)

    def _rerank_block(self, block: CandidateBlock, k: int) -> np.ndarray:
        steps = block.cache.get("trace")  # set by `trace`: run the template and record every step
        if steps is None and self._fused_applies():
            out = self.fused(block, k)
            if out is not None:
                return out
        state = self.init_state(block)

        def objective(remaining: np.ndarray, t: int) -> np.ndarray:
            f = self.objective(state, block, remaining, t)
            if steps is not None:
                rel = self.relevance_term(state, block, remaining, t)
                steps.append((np.array(np.broadcast_to(f, block.items.shape), dtype=np.float64),
                               None if rel is None else np.array(np.broadcast_to(rel, block.items.shape),
                                                                 dtype=np.float64)))
            return f

        return greedy_select(block.valid, k, objective, lambda picked, t: self.update(state, block, picked, t))

    def trace(self, candidates: Rankings, k: int, context: Context) -> Trace:
        """The greedy selection of `candidates` (a few users) with, at the step each item was chosen, its objective
        f(i | S) and, when the reranker declares `relevance_term`, the relevance part and the rest (the diversity
        part). The positions equal `rerank`'s unless the reranker answers a case without the template (e.g. MMR
        with variant=ranksys and λ = 0 returns the baseline): then `steps` is 0."""
        block = candidate_block(candidates, context)
        steps: list = []
        block.cache["trace"] = steps
        kk = min(k, block.N)
        pos = self._rerank_block(block, kk)
        n = block.n
        obj, rel = np.full((n, kk), np.nan), np.full((n, kk), np.nan)
        rows = np.arange(n)
        split = bool(steps) and all(r is not None for _, r in steps)
        for t, (f, r) in enumerate(steps):
            p = pos[:, t]
            ok = p >= 0
            obj[ok, t] = f[rows[ok], p[ok]]
            if split:
                rel[ok, t] = r[rows[ok], p[ok]]
        return Trace(pos, obj, rel if split else None, obj - rel if split else None, len(steps))

    def relevance_term(self, state: Any, block: CandidateBlock, remaining: np.ndarray, t: int) -> np.ndarray | None:
        """The part of `objective` that rewards relevance (n, N), the rest being the diversity part; None (the
        default) when the objective does not split that way (a product, a seat allocation). Read by `trace`
        only."""
        return None

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
