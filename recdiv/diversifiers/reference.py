"""Straightforward per-user Python loops of every reranker's objective (METRICS.md §E), written from the formulas
and from RankSys's per-user code conventions (`GreedyReranker`, `LambdaReranker`, `Stats`), not from the
vectorised implementation. They are the oracle of the equivalence tests and the peer of the benchmark.

`reference_rerank(name, params, cands, scores, k, env)` reranks one user's candidates (item indices, best first) and
returns the chosen positions. `env` supplies: aspects(i) -> set, sim(i, j) -> float (NaN = undefined), pu ->
{aspect: p(a|u)} (count-based, or as requested by `weighting`), pu_frac, novelty (array), has_profile, rng.
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
    rng: Any = None


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


def _minmax(s: list[float]) -> list[float]:
    lo, hi = min(s), max(s)
    return [1.0 if hi == lo else (x - lo) / (hi - lo) for x in s]


def _probability(s: list[float]) -> list[float]:
    """s⁺(i) / Σ_j s⁺(j), uniform if the sum is 0 (xQuAD's P(i|u))."""
    shift = min(0.0, min(s))
    sp = [x - shift for x in s]
    tot = sum(sp)
    return [x / tot if tot > 0 else 1.0 / len(s) for x in sp]


def _lambda_values(remaining, rel, nov, lam):
    """RankSys `LambdaReranker` with norm=true: z-scores over the remaining candidates."""
    rs, ns = _Stats(), _Stats()
    for i in remaining:
        rs.accept(rel[i])
        ns.accept(nov[i])
    return {i: (1 - lam) * rs.z(rel[i]) + lam * ns.z(nov[i]) for i in remaining}


def _aspect_probs(cands, scores, env):
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
    n = len(cands)
    lam = params.get("lambda", 0.5)
    if name == "MMR" and params.get("variant", "thesis") == "thesis":
        sh = _minmax(scores)

        def value(rem, S):
            out = {}
            for i in rem:
                sims = [env.sim(cands[i], cands[j]) for j in S]
                defined = [x for x in sims if not math.isnan(x)]
                if S and not env.aspects(cands[i]) and lam < 1:
                    out[i] = math.nan
                    continue
                out[i] = lam * sh[i] - (1 - lam) * (max(defined) if defined else 0.0)
            return out

        return greedy_loop(n, k, value)
    if name == "MMR":
        if lam == 0:
            return list(range(min(k, n)))

        def value(rem, S):
            nov = {}
            for i in rem:  # RankSys UserMMR: running mean of the distances to S; NaN once one is undefined
                avg = 0.0
                for n, j in enumerate(S, 1):
                    avg += ((1 - env.sim(cands[i], cands[j])) - avg) / n
                nov[i] = avg
            return _lambda_values(rem, scores, nov, lam)

        return greedy_loop(n, k, value)
    if name == "Ziegler":
        th = params.get("theta_F", 0.5)

        def value(rem, S):
            cstar = {i: round(float(sum(np.nan_to_num(env.sim(cands[i], cands[j])) for j in S)), 12) for i in rem}
            order = sorted(rem, key=lambda i: (cstar[i], i))
            rdis = {i: r + 1 for r, i in enumerate(order)}
            return {i: -((1 - th) * (i + 1) + th * rdis[i]) for i in rem}

        return greedy_loop(n, k, value)
    if name == "IASelect":
        sh = _minmax(scores)

        def V(i, a):
            A = env.aspects(cands[i])
            return sh[i] / len(A) if a in A else 0.0

        def value(rem, S):
            return {i: sum(p * V(i, a) * math.prod(1 - V(j, a) for j in S) for a, p in env.pu.items()) for i in rem}

        return greedy_loop(n, k, value)
    if name == "xQuAD":
        alpha = params.get("alpha", 1.0)
        P = _aspect_probs(cands, scores, env)

        def div(i, S):
            return sum(p * P[i].get(a, 0.0) * math.prod(1 - alpha * P[j].get(a, 0.0) for j in S)
                       for a, p in env.pu.items() if p > 0)

        if params.get("norm", "sum") == "zscore":
            if lam == 0:
                return list(range(min(k, n)))
            return greedy_loop(n, k, lambda rem, S: _lambda_values(rem, scores, {i: div(i, S) for i in rem}, lam))
        sh = _probability(scores) if params.get("norm", "sum") == "sum" else _minmax(scores)
        return greedy_loop(n, k, lambda rem, S: {i: (1 - lam) * sh[i] + lam * div(i, S) for i in rem})
    if name == "NGD":
        if lam == 0:
            return list(range(min(k, n)))
        nov = [env.novelty[c] for c in cands]
        vals = _lambda_values(range(n), scores, nov, lam)
        return greedy_loop(n, k, lambda rem, S: vals)
    if name == "PM2":
        P = _aspect_probs(cands, scores, env)
        aspects = sorted(env.pu)
        votes = {a: env.pu[a] * min(k, n) for a in aspects}
        seats = {a: 0.0 for a in aspects}

        def value(rem, S):
            if S:  # fold in the last pick
                last = P[S[-1]]
                tot = sum(last.values())
                if tot > 0:
                    for a, p in last.items():
                        seats[a] += p / tot
            qt = {a: votes[a] / (2 * seats[a] + 1) for a in aspects}
            star = max(aspects, key=lambda a: (qt[a], -aspects.index(a)))
            return {i: sum((lam if a == star else 1 - lam) * qt[a] * P[i].get(a, 0.0) for a in aspects)
                    for i in rem}

        return greedy_loop(n, k, value)
    if name == "DPP":
        return _dpp(params, cands, scores, k, env)
    if name == "Calibrated":
        if lam == 0 or not env.has_profile:
            return list(range(min(k, n)))
        alpha = params.get("alpha", 0.01)
        p = env.pu_frac
        sh = scores if params.get("norm", "minmax") == "none" else _minmax(scores)

        def pgi(c):
            A = env.aspects(c)
            return {a: 1.0 / len(A) for a in A}

        def objective(items):
            q: dict = {}
            for c in items:
                for a, v in pgi(c).items():
                    q[a] = q.get(a, 0.0) + v / len(items)
            kl = sum(pa * math.log(pa / ((1 - alpha) * q.get(a, 0.0) + alpha * pa)) for a, pa in p.items() if pa > 0)
            return (1 - lam) * sum(sh[cands.index(c)] for c in items) - lam * kl

        return greedy_loop(n, k, lambda rem, S: {i: objective([cands[j] for j in S] + [cands[i]]) for i in rem})
    if name == "Random":
        return [int(x) for x in env.rng.permutation(n)[:k]]
    raise ValueError(f"no reference for {name!r}")


def _dpp(params, cands, scores, k, env):
    """`laming-chen/fast-map-dpp` `dpp()` on the user's kernel, then fill with the baseline order."""
    th = params.get("theta", 0.5)
    n = len(cands)
    if th == 1.0:
        return list(range(min(k, n)))
    q = np.array(scores, float) if th is None else np.exp(th / (2 * (1 - th)) * np.array(_minmax(scores)))
    S = np.array([[np.nan_to_num(env.sim(a, b)) for b in cands] for a in cands])
    L = q[:, None] * S * q[None, :]
    eps = params.get("epsilon", 1e-10)
    cis = np.zeros((k, n))
    di2s = np.copy(np.diag(L))
    selected = [int(np.argmax(di2s))]
    if di2s[selected[0]] >= eps:
        while len(selected) < min(k, n):
            t = len(selected) - 1
            j = selected[-1]
            eis = (L[j, :] - cis[:t, j] @ cis[:t, :]) / math.sqrt(di2s[j])
            cis[t, :] = eis
            di2s = di2s - eis**2
            di2s[selected] = -np.inf
            j = int(np.argmax(di2s))
            if di2s[j] < eps:
                break
            selected.append(j)
    rest = [i for i in range(n) if i not in selected]
    return (selected + rest)[: min(k, n)]


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
                          has_profile=bool(prof), rng=rng)
    return [envs[u] for u in cands.users]
