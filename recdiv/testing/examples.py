"""Worked example for rerankers ("Example E"): one user, five candidates c1…c5, k = 3, small enough to work by hand.

The user u has rated p1 (5), p2 (4) and p3 (2); nine other users o1…o9 make the candidates' popularity. Aspects
(genres) and baseline scores:

| item | c1 | c2 | c3 | c4 | c5 | p1 | p2 | p3 |
|---|---|---|---|---|---|---|---|---|
| aspects | A | A | C | A, C | D | A | A, C | D |
| score | 0.9 | 0.8 | 0.7 | 0.6 | 0.5 | | | |
| training users | 8 | 6 | 3 | 2 | 1 | | | |

So p(a|u) by count is A 1/2, C 1/4, D 1/4 (A in p1 and p2, C in p2, D in p3), and the set cosine of c1 and c4 is
1/√2. One item group, "protected", holds c4 and c5 (FA*IR's protected items). `SELECTIONS` lists, for every
built-in reranker, the top 3 worked out by hand from its objective
(docs/diversifiers.md states each objective); `tests/diversifiers/test_example_e.py` also checks the objective
values of every step.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.models.context import Context

ASPECTS = {"c1": "A", "c2": "A", "c3": "C", "c4": "AC", "c5": "D", "p1": "A", "p2": "AC", "p3": "D"}
SCORES = [0.9, 0.8, 0.7, 0.6, 0.5]
POPULARITY = [8, 6, 3, 2, 1]  # |U_i| of c1..c5 among |U| = 10 training users

#: (reranker, parameters, its top 3 on Example E): the hand-worked selections of the built-in rerankers
SELECTIONS: list[tuple[str, dict, tuple[str, str, str]]] = [
    ("MMR", {"lambda": 0.5}, ("c1", "c3", "c5")),
    ("MMR", {"lambda": 0.8}, ("c1", "c2", "c3")),
    ("MMR", {"lambda": 0.5, "variant": "ranksys"}, ("c1", "c3", "c2")),
    ("Ziegler", {"theta_F": 0.5}, ("c1", "c3", "c2")),
    ("Ziegler", {"theta_F": 0.9}, ("c1", "c3", "c5")),
    ("IASelect", {}, ("c1", "c3", "c4")),
    ("xQuAD", {"lambda": 0.5, "norm": "minmax"}, ("c1", "c2", "c3")),
    ("xQuAD", {"lambda": 0.9, "norm": "minmax"}, ("c1", "c5", "c4")),
    ("xQuAD", {}, ("c1", "c5", "c4")),
    ("NGD", {"lambda": 0.5}, ("c1", "c5", "c3")),
    ("PM2", {"lambda": 0.9}, ("c1", "c3", "c5")),
    ("PM2", {"lambda": 0.5}, ("c5", "c4", "c1")),
    ("DPP", {"theta": None}, ("c1", "c3", "c5")),
    ("DPP", {"theta": 0.5}, ("c1", "c3", "c5")),
    ("DPP", {"theta": 0.7}, ("c1", "c3", "c5")),
    ("DPP", {"theta": 0.9}, ("c1", "c3", "c5")),
    ("Calibrated", {"lambda": 0.5, "norm": "none"}, ("c4", "c5", "c1")),
    ("Calibrated", {"lambda": 0.2, "norm": "none"}, ("c1", "c3", "c2")),
    ("Calibrated", {"lambda": 0.1, "norm": "none"}, ("c1", "c2", "c3")),
    ("Calibrated", {"lambda": 0.05, "norm": "none"}, ("c1", "c2", "c3")),
    ("Calibrated", {"lambda": 0.0, "norm": "none"}, ("c1", "c2", "c3")),
    ("Calibrated", {}, ("c1", "c5", "c3")),
    ("Random", {"seed": 42}, ("c5", "c3", "c4")),
    # MSD, λ = ½, ŝ = (1, ¾, ½, ¼, 0): c1; then ½ŝ + ½Σd: c3 0.25 + 0.5 = 0.75 beats c5 0.5; then c5 0 + ½·2 = 1
    ("MSD", {"lambda": 0.5}, ("c1", "c3", "c5")),
    # SSD, λ = ½, γ = 1, bias (K = cos + 1): c1; residuals² after c1: c2 0, c3 1.5, c4 0.543, c5 1.5 → c3
    # (0.25 + ½√1.5); after c3: c4 0.057, c5 1.333 → c5 (½√1.333 = 0.577 > c2's 0.375)
    ("SSD", {"lambda": 0.5}, ("c1", "c3", "c5")),
    # COVER, λ = 0.2, γ = ½, sum: gains at ∅ (c1, c2 one type): A 2.841, C 1.841, AC 3.523, D 1 → c1 0.2 + 0.16·2.841;
    # then c4 0.05 + 0.16·1.920 = 0.357 beats c2 0.338; then c2 0.15 + 0.16·0.925 = 0.298 beats c3 0.214, c5 0.16
    ("COVER", {}, ("c1", "c4", "c2")),
    # COVER, maximum coverage: after c1 only C and D are uncovered: c3 0.1 + 0.16 > c4 0.05 + 0.16·1.0; then c5
    ("COVER", {"coverage": "max"}, ("c1", "c3", "c5")),
    # Swap, threshold ½: c4 (ŝ = ¼) is below it: the top 3 stay; threshold 0: c4 adds 2(1 − 1/√2) < 1, the
    # contribution of c2 (tied with c1, the lower-ranked leaves); c5 adds 2 > 1: c2 out
    ("Swap", {}, ("c1", "c2", "c3")),
    ("Swap", {"threshold": 0.0}, ("c1", "c3", "c5")),
    # FA*IR, p = ½, α = 0.1: m(1..3) = 0, 0, 0 (P(X₃ = 0) = 1/8 > α): the baseline; p = 0.9: m = 0, 1, 2 (rejection
    # probability of that table 0.028 ≤ α, so α_c keeps it): c1, then the protected c4 and c5
    ("FAIR", {}, ("c1", "c2", "c3")),
    ("FAIR", {"p": 0.9}, ("c1", "c4", "c5")),
    ("PlackettLuce", {"seed": 42}, ("c1", "c3", "c2")),
]


def example_e() -> tuple[Rankings, Context]:
    """(candidates, context) of Example E: the user's five candidates by score, and a context holding the
    training ratings, the aspects (set cosine similarity) and seed 42."""
    items = Vocab(["c1", "c2", "c3", "c4", "c5", "p1", "p2", "p3"])
    users = Vocab(["u", *(f"o{j}" for j in range(1, 10))])
    rows = [("u", "p1", 5.0), ("u", "p2", 4.0), ("u", "p3", 2.0)]
    for c, pop in zip(["c1", "c2", "c3", "c4", "c5"], POPULARITY):
        rows += [(f"o{j}", c, 3.0) for j in range(1, pop + 1)]
    rows += [(f"o{j}", "p1", 3.0) for j in range(1, 10) if j > 8]  # o9 needs a training interaction
    frame = pd.DataFrame(rows, columns=["user", "item", "value"])
    train = Interactions.from_frame(frame, users=users, items=items)
    asp = pd.DataFrame([(i, a) for i, s in ASPECTS.items() for a in s], columns=["item", "aspect"])
    space = AspectSpace.from_frame(asp, items)
    cands = Rankings(np.array([0]), np.array([[0, 1, 2, 3, 4]]), np.array([SCORES]), users, items)
    groups = AspectSpace.from_frame(pd.DataFrame({"item": ["c4", "c5"], "aspect": "protected"}), items)
    return cands, Context(train=train, aspects=space, seed=42, item_groups=groups)


def ids(rankings: Rankings, row: int = 0) -> tuple[str, ...]:
    """The external item ids of one row of a ranking, in order (padding left out)."""
    items = rankings.items[row]
    return tuple(str(x) for x in rankings.item_vocab.id_of(items[items >= 0]))
