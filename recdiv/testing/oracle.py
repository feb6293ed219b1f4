"""The per-user-loop oracle: a reranker's lists must equal those of a plain Python loop of the same objective, run one
user at a time — the way every built-in reranker is tested (`recdiv.diversifiers.reference` holds their loops).

A vectorised reranker computes its objective for all users at once on (users × N) arrays; the loop computes it for
one user, one candidate at a time, straight from the formula. When both pick the same lists on random instances
(`random_instance`: ragged lists, items without aspects, users without a profile), the vectorisation is right.

    def objective(i, chosen, user):      # f(i | S) for candidate position i given the chosen positions S
        ...
    check_against_loop(MyReranker(), objective)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from recdiv.data.rankings import Rankings
from recdiv.diversifiers.reference import UserEnv, greedy_loop, user_environments
from recdiv.testing.instances import random_instance


@dataclass(frozen=True)
class UserCase:
    """One user's candidates as the loop sees them: `items` (item indices, best first), `scores`, `env` (the user's
    aspects(item) -> frozenset, sim(item, item): set cosine, NaN when undefined; pu: count-based p(a|u), pu_frac,
    novelty: IUF per item, has_profile — computed independently from the raw data) and the instance's `context`
    (its training data, aspects, seed) for anything else."""

    items: list[int]
    scores: list[float]
    env: UserEnv
    context: Any


Objective = Callable[[int, list[int], UserCase], float]


def loop_rerank(objective: Objective, user: UserCase, k: int) -> list[int]:
    """The greedy loop for one user: at each step the remaining candidate position with the largest objective;
    NaN values are skipped and ties go to the earliest candidate (the rule of `GreedyReranker`). Returns the
    chosen positions."""
    return greedy_loop(len(user.items), k, lambda remaining, chosen: {
        i: objective(i, list(chosen), user) for i in remaining})


def user_cases(candidates: Rankings, context, seed: int = 0) -> list[UserCase]:
    """One `UserCase` per row of `candidates` (rows in the same order)."""
    envs = user_environments(candidates, context, seed=seed)
    out = []
    for r, env in enumerate(envs):
        valid = candidates.items[r] >= 0
        out.append(UserCase(candidates.items[r][valid].tolist(), candidates.scores[r][valid].tolist(), env, context))
    return out


def check_against_loop(reranker, objective: Objective, *, seeds: Iterable[int] = (0, 1, 2), k: int = 8,
                       **instance) -> None:
    """Assert that `reranker.rerank` picks, for every user of random instances, the positions `loop_rerank`
    picks with `objective`. `instance` goes to `random_instance` (n_users, n_items, n_aspects, N, ragged).
    Raises AssertionError naming the seed, the user row and both lists."""
    for seed in seeds:
        candidates, context = random_instance(seed, **instance)
        out = reranker.rerank(candidates, k, context)
        for r, user in enumerate(user_cases(candidates, context, seed)):
            expected = [user.items[p] for p in loop_rerank(objective, user, k)]
            got = out.items[r][out.items[r] >= 0].tolist()
            if got != expected:
                raise AssertionError(f"seed {seed}, user row {r}: the reranker picks {got}, the per-user loop "
                                     f"{expected}")


def nan_safe_max(values: Iterable[float], default: float = 0.0) -> float:
    """The largest value that is not NaN (`default` when there is none): max_{j∈S} sim(i, j) in a loop."""
    defined = [v for v in values if not math.isnan(v)]
    return max(defined) if defined else default
