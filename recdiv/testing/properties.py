"""Property checks every reranker must pass (every built-in one does: tests/diversifiers/test_properties.py).

For each random instance (`random_instance`) and each k, the output of `rerank(candidates, k, context)`:

- keeps the users, in the same rows, and has min(k, N) columns;
- gives each user an ordered subset of that user's own candidates, without repeats, min(k, n_u) long (n_u = the
  user's number of candidates), padded with −1 after it, with scores strictly decreasing along the list (so that
  the order survives a TREC run file);
- is the same when called twice (deterministic for a given context seed), and leaves the candidates unchanged.

`check_keeps_order(reranker)` asserts the property of a pure-relevance setting (MMR with λ = 1, xQuAD with λ = 0,
…): the output is the baseline's top k.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from recdiv.data.rankings import Rankings
from recdiv.testing.instances import random_instance


def check_output(candidates: Rankings, output: Rankings, k: int, where: str = "") -> None:
    """Assert the properties of one output (see the module docstring); AssertionError says which user row fails."""
    at = f"{where}: " if where else ""
    if not np.array_equal(output.users, candidates.users):
        raise AssertionError(f"{at}the output's users differ from the candidates' (rows must keep their users)")
    if output.k != min(k, candidates.k):
        raise AssertionError(f"{at}the output has {output.k} columns, expected min(k={k}, N={candidates.k})")
    for r in range(len(candidates)):
        cands = candidates.items[r][candidates.items[r] >= 0].tolist()
        row = output.items[r].tolist()
        n = min(k, len(cands))
        got = row[:n]
        problem = None
        if len(set(got)) != len(got):
            problem = f"repeats an item: {got}"
        elif not set(got) <= set(cands) or -1 in got:
            problem = f"picks {got}, not all among its candidates {cands}"
        elif any(x != -1 for x in row[n:]):
            problem = f"has {row[n:]} after its {n} items instead of -1 padding"
        elif n > 1 and not np.all(np.diff(output.scores[r][:n]) < 0):
            problem = f"scores {output.scores[r][:n].tolist()} do not decrease strictly along the list"
        if problem:
            raise AssertionError(f"{at}user row {r} {problem}")


def check_reranker(reranker, *, seeds: Iterable[int] = range(4), ks: Iterable[int] = (1, 3, 8, 50),
                   **instance) -> None:
    """Assert every property of the module docstring on random instances (`instance` goes to `random_instance`:
    n_users, n_items, n_aspects, N, ragged)."""
    for seed in seeds:
        candidates, context = random_instance(seed, **instance)
        items, scores = candidates.items.copy(), candidates.scores.copy()
        for k in ks:
            where = f"seed {seed}, k {k}"
            out = reranker.rerank(candidates, k, context)
            check_output(candidates, out, k, where)
            again = reranker.rerank(candidates, k, context)
            if not np.array_equal(out.items, again.items):
                raise AssertionError(f"{where}: two calls give different lists (the reranker must be deterministic "
                                     "for a given context seed)")
        if not (np.array_equal(items, candidates.items) and np.array_equal(scores, candidates.scores, equal_nan=True)):
            raise AssertionError(f"seed {seed}: the reranker modified its candidates")


def check_keeps_order(reranker, *, seeds: Iterable[int] = range(4), ks: Iterable[int] = (1, 5, 12),
                      **instance) -> None:
    """Assert that the reranker returns the baseline's top k (a pure-relevance setting)."""
    for seed in seeds:
        candidates, context = random_instance(seed, **instance)
        for k in ks:
            out = reranker.rerank(candidates, k, context)
            if not np.array_equal(out.items, candidates.items[:, : out.k]):
                raise AssertionError(f"seed {seed}, k {k}: the lists differ from the baseline's top {k}")
