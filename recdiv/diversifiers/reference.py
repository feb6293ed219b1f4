"""Straightforward per-user Python loops of every reranker's objective (METRICS.md §E), written from the formulas
and from RankSys's per-user code conventions (`GreedyReranker`, `LambdaReranker`, `Stats`), not from the
vectorised implementation. They are the oracle of the equivalence tests and the peer of the benchmark.

Each reranker's loop is its class's `reference` (beside the class, in its module), chosen by the registry:
`reference_rerank(name, params, cands, scores, k, env)` reranks one user's candidates (item indices, best first) and
returns the chosen positions; this module holds what the loops share. `env` supplies: aspects(i) -> set,
sim(i, j) -> float (NaN = undefined), pu -> {aspect: p(a|u)} (count-based, or as requested by `weighting`),
pu_frac, novelty (array), has_profile, rng, groups(i) -> set of item group names and group_names (FA*IR's protected
group), slots (the width of the candidate table the user's list sits in: a sampler draws one number per slot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class UserEnv:
    aspects: Any  # callable item -> frozenset of aspects
    sim: Any  # callable (i, j) -> float, NaN when undefined
    pu: dict = field(default_factory=dict)  # p(a|u) (count-based unless stated)
    pu_frac: dict = field(default_factory=dict)  # Steck's p(g|u)
    novelty: Any = None  # item -> novelty
    has_profile: bool = True
    rng: Any = None  # the run's generator (seeded as the reranker): users draw from it in ascending user order
    groups: Any = None  # callable item -> frozenset of item group names
    group_names: tuple = ()  # every item group's name
    slots: int | None = None  # the candidate table's width (None: the list's length)


class _Stats:
    """RankSys `Stats`: running mean and sample variance (Welford); NaN inputs are ignored."""

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def accept(self, x: float) -> None:
        if math.isnan(x):
            return
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def z(self, x: float) -> float:
        if self.n < 2:
            return math.nan
        sd = math.sqrt(self.m2 / (self.n - 1)) if self.m2 >= 0 else math.nan
        if not sd > 0:
            return math.nan
        return (x - self.mean) / sd


def greedy_loop(n: int, k: int, value) -> list[int]:
    """RankSys `GreedyReranker.selectItem`: NaN skipped, strict > keeps the earliest, default = first remaining."""
    remaining = list(range(n))
    out: list[int] = []
    while len(out) < min(k, n):
        best, bv = remaining[0], -math.inf
        vals = value(remaining, out)
        for i in remaining:
            v = vals[i]
            if math.isnan(v):
                continue
            if v > bv:
                best, bv = i, v
        out.append(best)
        remaining.remove(best)
    return out


def minmax(s: list[float]) -> list[float]:
    lo, hi = min(s), max(s)
    return [1.0 if hi == lo else (x - lo) / (hi - lo) for x in s]


def normalized(s: list[float], how: str) -> list[float]:
    """ŝ over one user's whole candidate list (METRICS.md §E.0 `norm=`): minmax, max (s/max), sum (s/Σ s), rank
    (1 − (pos − 1)/N), zscore ((s − mean)/sd, sample sd; NaN when sd = 0 or fewer than 2 values), none (s)."""
    n = len(s)
    if how == "minmax":
        return minmax(s)
    if how == "max":
        return [x / max(s) for x in s]
    if how == "sum":
        return [x / sum(s) for x in s]
    if how == "rank":
        return [1.0 - p / n for p in range(n)]
    if how == "zscore":
        mean = sum(s) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
        return [(x - mean) / sd if sd > 0 else math.nan for x in s]
    if how == "none":
        return list(s)
    raise ValueError(f"unknown norm {how!r}")


def probability(s: list[float]) -> list[float]:
    """s⁺(i) / Σ_j s⁺(j), uniform if the sum is 0 (xQuAD's P(i|u))."""
    shift = min(0.0, min(s))
    sp = [x - shift for x in s]
    tot = sum(sp)
    return [x / tot if tot > 0 else 1.0 / len(s) for x in sp]


def lambda_values(remaining, rel, nov, lam):
    """RankSys `LambdaReranker` with norm=true: z-scores over the remaining candidates."""
    rs, ns = _Stats(), _Stats()
    for i in remaining:
        rs.accept(rel[i])
        ns.accept(nov[i])
    return {i: (1 - lam) * rs.z(rel[i]) + lam * ns.z(nov[i]) for i in remaining}


def aspect_probs(cands, scores, env):
    """P(i|u,a) = s⁺(i)[a∈A(i)] / Σ_{j: a∈A(j)} s⁺(j) (uniform over the candidates with a if that sum is 0)."""
    shift = min(0.0, min(scores))
    sp = [s - shift for s in scores]
    z: dict = {}
    cnt: dict = {}
    for c, s in zip(cands, sp):
        for a in env.aspects(c):
            z[a] = z.get(a, 0.0) + s
            cnt[a] = cnt.get(a, 0) + 1
    return [{a: (s / z[a] if z[a] > 0 else 1.0 / cnt[a]) for a in env.aspects(c)} for c, s in zip(cands, sp)]


def reference_rerank(name: str, params: dict, cands: list[int], scores: list[float], k: int,
                     env: UserEnv) -> list[int]:
    """The positions reranker `name`'s readable loop chooses for one user: its class's `reference` (found through
    the registry, so a reranker brings its own oracle)."""
    from recdiv.diversifiers.registry import RERANKERS

    return RERANKERS.get(name).reference(params, cands, scores, k, env)


def user_environments(cands, ctx, seed: int = 0) -> list[UserEnv]:
    """Independent per-user environments: set cosine, count and fractional p(a|u), IUF, from the raw data."""
    space, train = ctx.aspects, ctx.train
    A = [frozenset(space.membership[i].indices.tolist()) for i in range(len(space.items))]

    def sim(i, j):
        if not A[i] or not A[j]:
            return math.nan
        return len(A[i] & A[j]) / math.sqrt(len(A[i]) * len(A[j]))

    pop = np.bincount(train.matrix.indices, minlength=train.n_items)
    n_active = (np.diff(train.matrix.indptr) > 0).sum()
    nov = np.where(pop > 0, -np.log2(np.maximum(pop, 1) / n_active), -np.log2(pop[pop > 0].min() / n_active))
    rng = np.random.default_rng(seed)
    groups, group_names = _item_groups(ctx.item_groups, len(space.items))
    envs = {}
    for u in sorted(cands.users):
        prof = train.matrix[u].indices.tolist()
        counts: dict = {}
        frac: dict = {}
        for i in prof:
            for a in A[i]:
                counts[a] = counts.get(a, 0) + 1
                frac[a] = frac.get(a, 0.0) + 1.0 / len(A[i]) / len(prof)
        tot = sum(counts.values())
        F = space.n_aspects
        pu = {a: counts.get(a, 0) / tot for a in range(F)} if tot else {a: 1.0 / F for a in range(F)}
        pf = {a: frac.get(a, 0.0) for a in range(F)} if tot else {a: 1.0 / F for a in range(F)}
        envs[u] = UserEnv(aspects=lambda i: A[i], sim=sim, pu=pu, pu_frac=pf, novelty=nov,
                          has_profile=bool(prof), rng=rng, groups=lambda i: groups[i], group_names=group_names,
                          slots=cands.k)
    return [envs[u] for u in cands.users]


def _item_groups(space, n_items: int) -> tuple[list[frozenset], tuple]:
    """(the group names of every item, every group's name) from the item groups' membership (none: no groups)."""
    if space is None:
        return [frozenset()] * n_items, ()
    names = tuple(str(x) for x in space.names.ids)
    return [frozenset(names[a] for a in space.membership[i].indices.tolist()) for i in range(n_items)], names
