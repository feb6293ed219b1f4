"""The eight axioms of Parapar & Radlinski (RecSys 2021, §4, Table 1) as checkable predicates (METRICS.md §F.8).

A `Case` is one user's ranked list (`Item`s with a rating — None = unjudged, 0 = known non-relevant — and
an aspect set), the user's other judged items (`pool`, the rest of the ground truth) and the user's aspect
interest, given as *counts* of single-aspect training items per aspect (so count-based and rating-weighted
profiles both give w(u,a) = count_a / Σ counts). A metric is a function `Q(case) -> float`;
`measure_metric("ab-nDCG@10")` adapts any registered measure.

Each axiom is an implication. The predicate functions (`pri`, `deep`, …) take Q and an instance, return
None when the premise does not hold and otherwise whether the conclusion does. `check_axioms(Q)` draws
random premise-satisfying instances (universal axioms) or searches sizes up to 50 (existential axioms:
NonPriSatAsp, TopHeav, TopHeavComp) and reports which axioms hold, with a counterexample or witness;
`table1()` prints P&R's Table 1 next to what recdiv measures.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext

AXIOMS = ("Pri", "Deep", "NonPriSatAsp", "TopHeav", "TopHeavComp", "AspRel", "MoreAsp", "MissOverNon")

#: what each axiom asks of a metric Q, in words (the legend of `table_markdown`; the predicates below are exact)
AXIOM_MEANINGS = {
    "Pri": "priority: moving a more relevant item above a less relevant one of the same aspect raises Q",
    "Deep": "deepness: that swap raises Q more near the top than deeper down",
    "NonPriSatAsp": "non-priority of saturated aspects: once an aspect is saturated, a less relevant item of "
                    "another aspect is worth more than a more relevant one of the saturated aspect (some prefix)",
    "TopHeav": "top-heaviness: one relevant item at rank 1 beats n relevant items after n non-relevant ones "
               "(some n)",
    "TopHeavComp": "top-heaviness vs completeness: m relevant items of m distinct aspects after m non-relevant "
                   "ones beat one relevant item at rank 1 (some m)",
    "AspRel": "aspect relevance: of two equally rated items, the one of the aspect the user cares more about "
              "goes first",
    "MoreAsp": "more aspects: of two equally rated items, the one covering more remaining interest goes first",
    "MissOverNon": "missing over non-relevant: an unjudged item of an unsaturated aspect goes above a known "
                   "non-relevant item",
}

#: P&R Table 1 (● = satisfied) for the metrics recdiv implements
PAPER_TABLE1 = {
    "alpha-nDCG": {"Pri", "Deep", "NonPriSatAsp", "TopHeav", "TopHeavComp"},
    "NRBP": {"Pri", "Deep", "NonPriSatAsp", "TopHeav", "TopHeavComp"},
    "S-recall": set(),
    "S-RR": set(),
    "EU": set(AXIOMS) - {"MissOverNon"},
    "RBU": set(AXIOMS) - {"MissOverNon"},
    "ab-nDCG": set(AXIOMS),
}


@dataclass(frozen=True)
class Item:
    name: str
    rating: float | None  # None = unjudged; 0 = judged non-relevant
    aspects: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Case:
    """One user: `ranking` (best first), other judged items `pool`, interest counts per aspect `weights`."""

    ranking: tuple[Item, ...]
    weights: tuple[int, ...]
    pool: tuple[Item, ...] = ()
    r_max: float = 5.0

    def swap(self, p: int, q: int) -> Case:
        """The case with (0-based) positions p and q exchanged."""
        r = list(self.ranking)
        r[p], r[q] = r[q], r[p]
        return replace(self, ranking=tuple(r))

    @property
    def w(self) -> np.ndarray:
        c = np.asarray(self.weights, dtype=np.float64)
        return c / c.sum()


Metric = Callable[[Case], float]


def measure_metric(name: str, threshold: float = 4.0) -> Metric:
    """Q(case) for a registered measure: builds qrels (ranked and pool items with a rating), the run,
    the aspect space and a training profile realising the interest counts; population = judged users."""
    import pandas as pd


    measure = parse_measure(name)

    def q(case: Case) -> float:
        train = [(f"t{a}_{j}", a) for a, c in enumerate(case.weights) for j in range(c)]
        every = list(case.ranking) + list(case.pool)
        items = Vocab([it.name for it in every] + [t for t, _ in train])
        users = Vocab(["u"])
        rows = [(it.name, f"a{a}") for it in every for a in sorted(it.aspects)] + [(t, f"a{a}") for t, a in train]
        space = AspectSpace.from_frame(pd.DataFrame(rows, columns=["item", "aspect"]), items)
        judged = [it for it in every if it.rating is not None]
        qrels = Qrels(users, items, Qrels.from_frame(
            pd.DataFrame({"user": "u", "item": [it.name for it in judged],
                          "grade": [float(it.rating) for it in judged]}), users, items).matrix,
            scale=(0.0, case.r_max))
        n = len(case.ranking)
        run = Rankings(np.array([0]), items.lookup([it.name for it in case.ranking])[None, :],
                       np.arange(n, 0, -1, dtype=np.float64)[None, :], users, items)
        tr = Interactions.from_frame(pd.DataFrame({"user": "u", "item": [t for t, _ in train], "value": 1.0}),
                                     users=users, items=items)
        ctx = EvalContext(threshold=threshold, population="judged", train=tr, aspects=space,
                          scale=(0.0, case.r_max))
        return float(measure.per_user(run, qrels, ctx)[0])

    q.__name__ = str(measure)
    return q


# --------------------------------------------------------------------------------------------------
# premise helpers
# --------------------------------------------------------------------------------------------------
def _single(it: Item) -> int | None:
    return next(iter(it.aspects)) if len(it.aspects) == 1 else None


def interest_taken(case: Case, upto: int) -> np.ndarray:
    """w(ι,a): eq. 9 (rating-weighted) over the first `upto` ranked items; 0 for an empty prefix."""
    mass = np.zeros(len(case.weights))
    for it in case.ranking[:upto]:
        for a in it.aspects:
            mass[a] += it.rating or 0.0
    return mass / mass.sum() if mass.sum() > 0 else mass


def satisfaction(case: Case, upto: int, a: int, alpha: float = 0.005, beta: float = 0.5) -> float:
    """s(ι[1..upto], a) = 1 − Π_j (1 − P(a|u,i_j)) with αβ-nDCG's P (eq. 5–6)."""
    keep = 1.0
    for it in case.ranking[:upto]:
        if a in it.aspects:
            keep *= 1.0 - (alpha if it.rating is None else beta * it.rating / case.r_max)
    return 1.0 - keep


# --------------------------------------------------------------------------------------------------
# the eight predicates: None = premise false; True/False = conclusion
# --------------------------------------------------------------------------------------------------
def pri(q: Metric, case: Case, p: int, k: int) -> bool | None:
    """Pri: i_p, i_{p+k} single-aspect of the same a, r(i_{p+k}) > r(i_p) ⇒ Q(ι_{p↔p+k}) > Q(ι)."""
    a, b = case.ranking[p], case.ranking[p + k]
    if _single(a) is None or _single(a) != _single(b) or a.rating is None or b.rating is None:
        return None
    if not b.rating > a.rating:
        return None
    return q(case.swap(p, p + k)) > q(case)


def deep(q: Metric, case: Case, p: int, qq: int) -> bool | None:
    """Deep: p+1 < q, i_p, i_{p+1}, i_q, i_{q+1} single-aspect of a, r_p = r_q < r_{p+1} = r_{q+1} ⇒
    Q(ι_{p↔p+1}) > Q(ι_{q↔q+1})."""
    r = case.ranking
    four = [r[p], r[p + 1], r[qq], r[qq + 1]]
    if not p + 1 < qq or len({_single(x) for x in four}) != 1 or _single(four[0]) is None:
        return None
    if any(x.rating is None for x in four):
        return None
    if not (r[p].rating == r[qq].rating < r[p + 1].rating == r[qq + 1].rating):
        return None
    return q(case.swap(p, p + 1)) > q(case.swap(qq, qq + 1))


def asp_rel(q: Metric, case: Case, p: int, qq: int) -> bool | None:
    """AspRel: j=i_p above j'=i_q, r(j) = r(j') > 0, A(j) = {a_n}, A(j') = {a_n'}, neither aspect in the items
    above j' (other than j), w(u,a_n) > w(u,a_n') ⇒ Q(ι_{j↔j'}) < Q(ι)."""
    j, j2 = case.ranking[p], case.ranking[qq]
    an, an2 = _single(j), _single(j2)
    if an is None or an2 is None or an == an2 or j.rating is None or j.rating != j2.rating or not j.rating > 0:
        return None
    if any(x.aspects & {an, an2} for i, x in enumerate(case.ranking[:qq]) if i != p):
        return None
    if not case.w[an] > case.w[an2]:
        return None
    return q(case.swap(p, qq)) < q(case)


MOREASP_READINGS = (("prefix", False), ("prefix", True), ("list", False), ("list", True))


def remaining_interest(case: Case, p: int, reading: str = "prefix", clip: bool = False) -> np.ndarray:
    """Remaining interest ρ(a) = w(u,a) − w(ι,a) seen from position p (0-based) of the ranking.

    `reading="prefix"`: w(ι,a) over the items ranked above p (what the user has seen on reaching p);
    `reading="list"`: over the whole ranking (P&R §4: “the weight of aspect a in the list items ι”; the same
    for ι and any swap of it). `clip` takes max(0, ρ): over-served aspects count 0 instead of negatively.
    """
    upto = p if reading == "prefix" else len(case.ranking)
    rho = case.w - interest_taken(case, upto)
    return np.maximum(rho, 0.0) if clip else rho


def more_asp_premise(case: Case, p: int, alpha: float = 0.005, beta: float = 0.5) -> bool:
    """Premise of MoreAsp for j = i_p above j' = i_{p+1} (METRICS.md §F.8 item 7, prose reading of eq. 23).

    Both items judged with the same rating r > 0, both show aspects, every aspect they show is of interest
    (w(u,a) > 0) and not saturated above j (s(ι[1..p], a) < 1 with αβ-nDCG's P, eq. 5–6), and j's remaining
    interest Σ_{a∈A(j)} ρ(a) exceeds j''s under *every* reading of ρ in `MOREASP_READINGS` (w(ι,a) over the
    prefix above j or over the whole list; clipped at 0 or not). P&R do not fix the reading; requiring all
    four means a counterexample is one whichever reading is meant.
    """
    j, j2 = case.ranking[p], case.ranking[p + 1]
    if j.rating is None or j2.rating is None or j.rating != j2.rating or not j.rating > 0:
        return False
    if not j.aspects or not j2.aspects:
        return False
    w = case.w
    if any(not w[a] > 0 or not satisfaction(case, p, a, alpha, beta) < 1 for a in j.aspects | j2.aspects):
        return False
    for reading, clip in MOREASP_READINGS:
        rho = remaining_interest(case, p, reading, clip)
        if not sum(rho[a] for a in j.aspects) > sum(rho[a] for a in j2.aspects) + 1e-12:
            return False
    return True


def more_asp(q: Metric, case: Case, p: int) -> bool | None:
    """MoreAsp (prose reading of eq. 23): j = i_p above j' = i_{p+1}, equally rated, both showing non-saturated
    aspects of interest, j with the higher remaining interest (`more_asp_premise`) ⇒ Q(ι_{j↔j'}) < Q(ι)."""
    if not more_asp_premise(case, p):
        return None
    return q(case.swap(p, p + 1)) < q(case)


def miss_over_non(q: Metric, case: Case, p: int) -> bool | None:
    """MissOverNon: j=i_p with r(j) = 0 above j'=i_{p+1} unjudged with an aspect a, s(a) < 1 ⇒
    Q(ι_{j↔j'}) > Q(ι)."""
    j, j2 = case.ranking[p], case.ranking[p + 1]
    if j.rating != 0 or j2.rating is not None or not j2.aspects:
        return None
    if not any(satisfaction(case, p, a) < 1 for a in j2.aspects):
        return None
    return q(case.swap(p, p + 1)) > q(case)


def _filler(n: int, tag: str) -> list[Item]:
    return [Item(f"{tag}{i:03d}", None) for i in range(n)]  # unjudged, featureless: non-relevant


def top_heav(q: Metric, n: int, r: float = 5.0, r_max: float = 5.0) -> bool:
    """TopHeav instance of size n: Q(rel, 2n−1 non-rel) > Q(n non-rel, n rel); relevant items share one aspect."""
    rel = [Item(f"r{i:03d}", r, frozenset({0})) for i in range(n)]
    top = Case(tuple(rel[:1] + _filler(2 * n - 1, "n")), (1,), tuple(rel[1:]), r_max)
    bottom = Case(tuple(_filler(n, "n") + rel), (1,), (), r_max)
    return q(top) > q(bottom)


def top_heav_comp(q: Metric, m: int, r: float = 5.0, r_max: float = 5.0) -> bool:
    """TopHeavComp instance of size m: Q(rel, 2m−1 non-rel) < Q(m non-rel, m rel); the m relevant items have
    distinct aspects and the user's interest is uniform over them (METRICS.md §F.8 construction)."""
    rel = [Item(f"r{i:03d}", r, frozenset({i})) for i in range(m)]
    w = (1,) * m
    top = Case(tuple(rel[:1] + _filler(2 * m - 1, "n")), w, tuple(rel[1:]), r_max)
    bottom = Case(tuple(_filler(m, "n") + rel), w, (), r_max)
    return q(top) < q(bottom)


def non_pri_sat_asp(q: Metric, prefix: int, r: float = 3.0, r_delta: float = 1.0,
                    r_max: float = 5.0) -> bool:
    """NonPriSatAsp instance: `prefix` items saturate aspect 1 (rated r_max), then i_p (aspect 0, rating r) and
    i_{p+1} (aspect 1, rating r + r_Δ); uniform interest. Holds if Q(ι_{p↔p+1}) < Q(ι)."""
    sat = [Item(f"s{i:03d}", r_max, frozenset({1})) for i in range(prefix)]
    ip = Item("ip", r, frozenset({0}))
    ipk = Item("ipk", r + r_delta, frozenset({1}))
    case = Case(tuple([*sat, ip, ipk]), (1, 1), (), r_max)
    return q(case.swap(prefix, prefix + 1)) < q(case)


# --------------------------------------------------------------------------------------------------
# random instances and the checker
# --------------------------------------------------------------------------------------------------
def random_case(rng: np.random.Generator, length: int | None = None, n_aspects: int | None = None,
                r_max: float = 5.0) -> Case:
    """A random case: ratings in {None, 0..r_max} (integers), 0–2 aspects per item, interest counts 1..4, and
    1–2 judged pool items with positive ratings (so the ground truth has something to find)."""
    n_asp = n_aspects or int(rng.integers(2, 5))
    length = length or int(rng.integers(4, 10))
    items = []
    for i in range(length):
        rating = None if rng.random() < 0.3 else float(rng.integers(0, int(r_max) + 1))
        asp = frozenset(int(a) for a in rng.choice(n_asp, size=int(rng.integers(0, 3)), replace=False))
        items.append(Item(f"i{i:03d}", rating, asp))
    pool = tuple(Item(f"g{i:03d}", float(rng.integers(1, int(r_max) + 1)),
                      frozenset({int(rng.integers(n_asp))})) for i in range(int(rng.integers(1, 3))))
    return Case(tuple(items), tuple(int(c) for c in rng.integers(1, 5, size=n_asp)), pool, r_max)


def _set(case: Case, pos: int, rating, aspects) -> Case:
    r = list(case.ranking)
    r[pos] = Item(r[pos].name, rating, frozenset(aspects))
    return replace(case, ranking=tuple(r))


MOREASP_FAMILIES = ("nested", "any", "mixed")


def instance(axiom: str, rng: np.random.Generator, top: bool = False,
             family: str = "mixed") -> tuple[Case, tuple]:
    """A random instance (case, predicate arguments) whose premise holds, for a universal axiom.

    MoreAsp only: `top=True` places the compared pair at ranks 1–2; `family` draws the aspect sets —
    "nested" (A(j) = A(j') ∪ E, both non-empty: j shows everything j' shows and more), "any" (two random
    non-empty sets, oriented so that j has the higher remaining interest) or "mixed" (either, 50/50).
    """
    r_max = 5.0
    case = random_case(rng, r_max=r_max)
    n, n_asp = len(case.ranking), len(case.weights)
    a = int(rng.integers(n_asp))
    if axiom == "Pri":
        p = int(rng.integers(0, n - 1))
        k = int(rng.integers(1, n - p))
        lo, hi = sorted(rng.choice(np.arange(1, 6), size=2, replace=False))
        case = _set(_set(case, p, float(lo), {a}), p + k, float(hi), {a})
        return case, (p, k)
    if axiom == "Deep":
        case = random_case(rng, length=int(rng.integers(6, 10)), n_aspects=n_asp, r_max=r_max)
        n = len(case.ranking)
        p = int(rng.integers(0, n - 4))
        qq = int(rng.integers(p + 2, n - 1))
        lo, hi = sorted(rng.choice(np.arange(1, 6), size=2, replace=False))
        for pos, r in ((p, lo), (p + 1, hi), (qq, lo), (qq + 1, hi)):
            case = _set(case, pos, float(r), {a})
        return case, (p, qq)
    if axiom == "AspRel":
        an, an2 = rng.choice(n_asp, size=2, replace=False)
        w = list(case.weights)
        if w[an] <= w[an2]:
            w[an], w[an2] = w[an2] + 1, w[an]
        p = int(rng.integers(0, n - 1))
        qq = int(rng.integers(p + 1, n))
        r = float(rng.integers(1, 6))
        case = replace(case, weights=tuple(w))
        for i in range(qq):  # neither aspect above j'
            it = case.ranking[i]
            case = _set(case, i, it.rating, it.aspects - {int(an), int(an2)})
        case = _set(_set(case, p, r, {int(an)}), qq, r, {int(an2)})
        return case, (p, qq)
    if axiom == "MoreAsp":
        if family not in MOREASP_FAMILIES:
            raise ValueError(f"unknown MoreAsp family {family!r}; expected one of {MOREASP_FAMILIES}")
        for _ in range(200):
            c = random_case(rng, r_max=r_max)
            nasp, p = len(c.weights), 0 if top else int(rng.integers(0, len(c.ranking) - 1))
            perm = [int(x) for x in rng.permutation(nasp)]
            r = float(rng.integers(1, 6))
            nested = family == "nested" or (family == "mixed" and rng.random() < 0.5)
            if nested:
                cut = int(rng.integers(1, nasp))  # |A(j')| ≥ 1 and at least one extra aspect for j
                a_j2 = set(perm[:cut])
                a_j = a_j2 | set(perm[cut : cut + int(rng.integers(1, nasp - cut + 1))])
            else:
                a_j = set(perm[: int(rng.integers(1, min(3, nasp) + 1))])
                a_j2 = {int(x) for x in rng.choice(nasp, size=int(rng.integers(1, min(3, nasp) + 1)), replace=False)}
                if a_j == a_j2:
                    continue
            c = _set(_set(c, p, r, a_j), p + 1, r, a_j2)
            if not nested and not more_asp_premise(c, p):
                c = _set(_set(c, p, r, a_j2), p + 1, r, a_j)  # the other orientation
            if more_asp_premise(c, p):
                return c, (p,)
        raise RuntimeError("could not draw a MoreAsp instance")
    if axiom == "MissOverNon":
        p = int(rng.integers(0, n - 1))
        case = _set(_set(case, p, 0.0, case.ranking[p].aspects), p + 1, None, {a})
        return case, (p,)
    raise ValueError(f"{axiom} is not a universal axiom")


_PREDICATES = {"Pri": pri, "Deep": deep, "AspRel": asp_rel, "MoreAsp": more_asp, "MissOverNon": miss_over_non}


@dataclass
class AxiomResult:
    axiom: str
    holds: bool
    checked: int
    example: object = field(default=None, repr=False)  # counterexample (universal) or witness (existential)


def check_axioms(q: Metric, n_cases: int = 50, seed: int = 0, max_size: int = 50,
                 axioms: tuple[str, ...] = AXIOMS, top: bool = False,
                 family: str = "mixed") -> dict[str, AxiomResult]:
    """Which of P&R's axioms metric `q` satisfies on generated instances.

    Universal axioms (Pri, Deep, AspRel, MoreAsp, MissOverNon): `n_cases` random instances; holds = no
    counterexample (the first one is kept); `top=True` draws MoreAsp pairs at ranks 1–2 only and `family`
    chooses their aspect sets (see `instance`).
    Existential axioms (NonPriSatAsp, TopHeav, TopHeavComp): search
    sizes 1..`max_size` (and a few rating gaps); holds = a witness was found (kept as `example`).
    """
    rng = np.random.default_rng(seed)
    out = {}
    for ax in axioms:
        if ax in _PREDICATES:
            bad, checked = None, 0
            for _ in range(n_cases):
                case, args = instance(ax, rng, top, family)
                res = _PREDICATES[ax](q, case, *args)
                if res is None:
                    continue
                checked += 1
                if not res:
                    bad = (case, args)
                    break
            out[ax] = AxiomResult(ax, bad is None and checked > 0, checked, bad)
        else:
            witness, checked = None, 0
            for size in range(1, max_size + 1):
                if ax == "NonPriSatAsp":
                    trials = [(size, r, d) for r, d in ((3.0, 1.0), (2.0, 1.0), (4.0, 1.0))]
                    for t in trials:
                        checked += 1
                        if non_pri_sat_asp(q, *t):
                            witness = t
                            break
                else:
                    checked += 1
                    if (top_heav if ax == "TopHeav" else top_heav_comp)(q, size):
                        witness = size
                if witness is not None:
                    break
            out[ax] = AxiomResult(ax, witness is not None, checked, witness)
    return out


def table1(metrics: dict[str, Metric] | None = None, n_cases: int = 30, seed: int = 0, max_size: int = 20) -> str:
    """Markdown table: for each metric, ● (holds) / ○ (fails) per axiom as measured, with P&R's Table 1
    value in brackets where it differs. Default metrics: αβ-nDCG@10, α-nDCG@10, NRBP, S-recall@10, S-RR@10,
    EU@10, RBU@10 with their default parameters, relevance threshold 1 (every rated item is relevant, rating 0 =
    known non-relevant, as in P&R's axioms) and graded α-nDCG (binary α-nDCG cannot see rating differences)."""
    if metrics is None:
        metrics = {n.split("@")[0]: measure_metric(n, threshold=1.0) for n in
                   ["ab-nDCG@10", "alpha-nDCG(gain=graded)@10", "NRBP", "S-recall@10", "S-RR@10", "EU@10", "RBU@10"]}
    results = {name: check_axioms(q, n_cases=n_cases, seed=seed, max_size=max_size) for name, q in metrics.items()}
    return table_markdown(results)


def paper_marks(measure: str) -> set[str] | None:
    """The axioms P&R's Table 1 marks as satisfied for `measure` (parameters and cutoff ignored), else None."""
    base = re.split(r"[(@]", measure, maxsplit=1)[0]
    return PAPER_TABLE1.get(base)


def table_markdown(results: dict[str, dict[str, AxiomResult]], short_names: bool = False) -> str:
    """Table 1 layout (● holds, ○ fails; the paper's mark in brackets where it differs) and its legend (the marks
    and each axiom in words); `short_names` drops the cutoffs from the row names."""
    lines = ["| metric | " + " | ".join(AXIOMS) + " |", "|---|" + "---|" * len(AXIOMS)]
    for m, res in results.items():
        paper = paper_marks(m)
        cells = []
        for ax in AXIOMS:
            mark = "●" if res[ax].holds else "○"
            if paper is not None and (ax in paper) != res[ax].holds:
                mark += f" (P&R {'●' if ax in paper else '○'})"
            cells.append(mark)
        lines.append(f"| {m.split('@')[0] if short_names else m} | " + " | ".join(cells) + " |")
    lines += ["", "● holds, ○ fails on the generated instances; (P&R ●) or (P&R ○): the mark of Parapar & "
              "Radlinski's Table 1 (RecSys 2021) where it differs. The axioms:", ""]
    lines += [f"- {ax} — {AXIOM_MEANINGS[ax]}" for ax in AXIOMS]
    return "\n".join(lines)
