"""FA*IR — fair top-k ranking with a ranked group fairness constraint (Zehlike, Bonchi, Castillo, Hajian, Megahed &
Baeza-Yates, CIKM 2017)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from recdiv.diversifiers.base import CandidateBlock, RerankerConfig
from recdiv.diversifiers.greedy import GreedyReranker
from recdiv.errors import ConfigError

if TYPE_CHECKING:
    from recdiv.diversifiers.reference import UserEnv

#: the longest list whose minimum table FA*IR computes (its significance search is O(k²) per step)
MAX_K = 10_000


class FAIRConfig(RerankerConfig):
    p: float = Field(0.5, gt=0.0, lt=1.0, description="target minimum proportion of protected items")
    alpha: float = Field(0.1, gt=0.0, lt=1.0, description="significance of the ranked group fairness test")
    adjust: bool = Field(True, description="correct α for testing every prefix (Zehlike et al.'s α_c)")
    group: str | None = Field(None, description="the protected item group; None = the only group of the item "
                                                "groups")


class FAIR(GreedyReranker):
    """FA*IR: every prefix of length t must hold at least m(t) protected items, m(t) = F⁻¹(α_c; t, p), the
    α_c-quantile of Binomial(t, p) (the fewest protected items a fair ranking shows with probability above α_c).
    Greedy: f(i | S) = −pos(i) (the best-ranked remaining candidate) over the protected candidates while
    |S ∩ protected| < m(|S| + 1), over all candidates otherwise; when no protected candidate is left, the best
    remaining one. α_c (`adjust`, Algorithm 1 AdjustSignificance): the largest significance whose test, applied to
    every prefix 1..k, rejects a fair ranking (positions protected with probability p independently) with
    probability at most α — computed exactly by propagating the distribution of the protected count over the
    prefixes (`minimum_protected`). Protected items: the items of `group` in `Context.item_groups`.
    Zehlike et al., "FA*IR: A Fair Top-k Ranking Algorithm", CIKM 2017.
    """

    NAME = "FAIR"
    PURE_RELEVANCE = ({"p": 0.01},)
    FORMULA = "the best remaining candidate, a protected one while |S ∩ P| < m(|S|+1), m(t) = F⁻¹(α_c; t, p)"
    CITATION = "Zehlike et al., CIKM 2017"
    NEEDS = ("item_groups",)
    Config = FAIRConfig
    DEPTH_FREE = False  # its objective reads k

    def init_state(self, block: CandidateBlock):
        protected = protected_items(block.context, self.config.group)
        prot = np.where(block.valid, protected[np.maximum(block.items, 0)], False)
        k = block.cache["k"]
        return {"protected": prot, "count": np.zeros(block.n, dtype=np.int64),
                "m": minimum_protected(k, self.config.p, self.config.alpha, self.config.adjust),
                "order": -np.arange(block.N, dtype=np.float64)[None, :]}

    def _rerank_block(self, block, k):
        block.cache["k"] = k
        return super()._rerank_block(block, k)

    def fused(self, block, k):
        from recdiv.diversifiers.greedy_kernels import fair_greedy

        st = self.init_state(block)
        out = np.full((block.n, k), -1, dtype=np.int64)
        fair_greedy(np.ascontiguousarray(st["protected"]), np.ascontiguousarray(block.valid), st["m"], out)
        return out

    def objective(self, st, block, remaining, t):
        need = st["count"] < st["m"][t]
        return np.where(need[:, None] & ~st["protected"], np.nan, st["order"])

    def update(self, st, block, picked, t):
        rows = np.arange(block.n)
        st["count"] += (picked >= 0) & st["protected"][rows, np.maximum(picked, 0)]

    @staticmethod
    def reference(params: dict, cands: list[int], scores: list[float], k: int, env: UserEnv) -> list[int]:
        """The readable per-user loop of FA*IR (its oracle: `recdiv.diversifiers.reference`): Zehlike et al.'s
        (CIKM 2017) Algorithm 2 — at every position t = |S| + 1 the best remaining protected candidate while
        |S ∩ P| < m(t) (the best remaining one when no protected candidate is left), else the best remaining one —
        with the table m of `reference_table` (k: the list length asked, at most the candidate table's width)."""
        group = params.get("group")
        if group is None:
            if len(env.group_names) != 1:
                raise ValueError(f"FAIR: name the protected group among {env.group_names}")
            group = env.group_names[0]
        protected = [group in env.groups(c) for c in cands]
        need = reference_table(k, params.get("p", 0.5), params.get("alpha", 0.1), params.get("adjust", True))
        remaining = list(range(len(cands)))
        chosen: list[int] = []
        while remaining and len(chosen) < k:
            shown = sum(protected[i] for i in chosen)
            pool = [i for i in remaining if protected[i]] if shown < need[len(chosen)] else []
            best = min(pool or remaining)  # the best-ranked: the earliest position
            chosen.append(best)
            remaining.remove(best)
        return chosen


def reference_table(k: int, p: float, alpha: float, adjust: bool = True) -> list[int]:
    """FA*IR's table m(1..k) written out for the oracle, independently of `minimum_protected`, in exact rational
    arithmetic (p and α read as written, 0.9 = 9/10): m(t) is the smallest m with F(m; t, p) ≥ a (F the binomial
    CDF, summed term by term); with `adjust`, a = α_c, Algorithm 1's corrected significance: the largest a whose
    table rejects a fair ranking (every position protected with probability p, independently) with probability at
    most α. The table only changes where a crosses a CDF value F(m; t, p), so the candidates for a are the midpoints
    between consecutive CDF values (ascending, while the table still qualifies), and the rejection probability is
    summed over all 2^k protected/unprotected sequences (k ≤ 16)."""
    import itertools
    import math
    from fractions import Fraction

    if k > 16:
        raise ValueError("the readable FA*IR table enumerates 2^k sequences: k ≤ 16")
    p, alpha = Fraction(str(p)), Fraction(str(alpha))

    def cdf(m: int, t: int) -> Fraction:
        return sum(math.comb(t, x) * p**x * (1 - p) ** (t - x) for x in range(m + 1))

    def table(a: Fraction) -> list[int]:
        return [next(m for m in range(t + 1) if cdf(m, t) >= a) for t in range(1, k + 1)]

    if not adjust:
        return table(alpha)

    def rejection(m: list[int]) -> Fraction:
        total = Fraction(0)
        for seq in itertools.product((0, 1), repeat=k):
            if any(count < need for count, need in zip(itertools.accumulate(seq), m)):
                total += p ** sum(seq) * (1 - p) ** (k - sum(seq))
        return total

    cuts = sorted({Fraction(0), *(cdf(m, t) for t in range(1, k + 1) for m in range(t + 1))})
    best = table(Fraction(0))
    for lo, hi in itertools.pairwise(cuts):
        m = table((lo + hi) / 2)
        if rejection(m) > alpha:
            break
        best = m
    return best


def protected_items(context, group: str | None) -> np.ndarray:
    """(items,) bool: the items of `group` (or of the only group) in the context's item groups."""
    space = context.item_groups
    if space is None:
        raise ConfigError("FAIR needs item groups (the protected group): Context(item_groups=...), --item-groups FILE")
    names = [str(x) for x in space.names.id_of(np.arange(space.n_aspects)).tolist()]
    if group is None:
        if len(names) != 1:
            shown = ", ".join(map(str, names[:8])) + (", …" if len(names) > 8 else "")
            raise ConfigError(f"FAIR: the item groups have {len(names)} groups ({shown}): name the protected one, "
                              "group=NAME")
        group = names[0]
    if group not in names:
        raise ConfigError(f"FAIR: no item group {group!r} (groups: {', '.join(map(str, names[:8]))})")
    column = space.indicator[:, names.index(group)]
    return np.asarray(column.todense()).ravel() > 0


def rejection_probability(m: np.ndarray, p: float) -> float:
    """P(some prefix t has fewer than m(t) protected items) when every position is protected with probability p
    independently: the distribution of the protected count is propagated prefix by prefix and the counts below
    m(t) are removed (they have failed)."""
    dist = np.zeros(len(m) + 1)
    dist[0] = 1.0
    for t, need in enumerate(m, start=1):
        dist[1 : t + 1] = dist[1 : t + 1] * (1.0 - p) + dist[:t] * p
        dist[0] *= 1.0 - p
        dist[:need] = 0.0
    return float(1.0 - dist.sum())


def minimum_table(k: int, p: float, alpha: float) -> np.ndarray:
    """m(t) = F⁻¹(α; t, p) for t = 1..k: the smallest count whose binomial CDF reaches α."""
    from scipy.stats import binom

    t = np.arange(1, k + 1)
    return np.clip(binom.ppf(alpha, t, p), 0, t).astype(np.int64)


def significance(k: int, p: float, alpha: float) -> float:
    """α_c: the largest significance whose table m(1..k) rejects a fair ranking with probability ≤ α (bisection to
    1e−12, keeping the lower end: the table is constant between the binomial CDF values and jumps right after
    each, so the lower end's table is the one at α_c and provably keeps the rejection probability ≤ α)."""
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if rejection_probability(minimum_table(k, p, mid), p) <= alpha:
            lo = mid
        else:
            hi = mid
    return lo


def minimum_protected(k: int, p: float, alpha: float, adjust: bool = True) -> np.ndarray:
    """FA*IR's table m(1..k), at the corrected significance α_c (`significance`) with `adjust`, else at α."""
    if k > MAX_K:
        raise ConfigError(f"FAIR reranks at most {MAX_K:,} positions, asked for {k:,}")
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    return minimum_table(k, p, significance(k, p, alpha) if adjust else alpha)
