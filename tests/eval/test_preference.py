"""Preference-based evaluation (METRICS.md §D): worked example D.6, a straightforward reference
implementation of lexirecall / lexiprecision, invariants G.6 and the system-level summary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.data import Interactions, Qrels, Rankings, Vocab
from recdiv.errors import ConfigError
from recdiv.eval import EvalContext, parse_measure
from recdiv.eval.evaluate import preference_per_user, preference_summary
from recdiv.eval.metrics.preference import lexiprecision, lexirecall

N_C = 1000
ITEMS = Vocab(["r1", "r2", "r3"] + [f"n{i:03d}" for i in range(N_C - 3)])


def _run(users_relpos: dict[str, tuple[int, ...]], length=10):
    rows = []
    for u, relpos in users_relpos.items():
        rel, non = iter(["r1", "r2", "r3"]), iter(f"n{i:03d}" for i in range(N_C))
        for k in range(1, length + 1):
            rows.append((u, next(rel) if k in relpos else next(non), float(length - k)))
    users = Vocab(sorted(users_relpos))
    return Rankings.from_frame(pd.DataFrame(rows, columns=["user", "item", "score"]), users, ITEMS)


def d6():
    users = Vocab(["u"])
    q = Qrels.from_frame(pd.DataFrame({"user": "u", "item": ["r1", "r2", "r3"], "grade": 1.0}), users, ITEMS)
    runs = {n: _run({"u": p}) for n, p in {"A": (2, 7, 9), "B": (1, 3, 9), "C": (1, 2)}.items()}
    return runs, q, EvalContext(threshold=1)


@pytest.mark.parametrize("pair,lr,lp", [(("A", "B"), -1, -1), (("A", "C"), 1, -1), (("B", "C"), 1, -1)])
def test_worked_example_d6(pair, lr, lp):
    runs, q, ctx = d6()
    x, y = runs[pair[0]], runs[pair[1]]
    assert preference_per_user("lexirecall", x, y, q, ctx).tolist() == [lr]
    assert preference_per_user("lexiprecision", x, y, q, ctx).tolist() == [lp]
    assert preference_per_user("lexirecall", y, x, q, ctx).tolist() == [-lr]
    assert parse_measure("lexirecall").compare(x, y, q, ctx).tolist() == [lr]


def test_tse_d6():
    runs, q, ctx = d6()
    tse = {n: parse_measure("TSE").per_user(r, q, ctx)[0] for n, r in runs.items()}
    assert tse == pytest.approx({"A": 1 / 9, "B": 1 / 9, "C": 1 / N_C})
    assert parse_measure("TSE(base=ndcg)").per_user(runs["C"], q, ctx)[0] == pytest.approx(1 / np.log2(N_C + 1))
    assert parse_measure("TSE(base=rbp,p=0.5)").per_user(runs["A"], q, ctx)[0] == pytest.approx(0.5 * 0.5**8)
    # n_c = catalog minus training items: one training item for u
    train = Interactions.from_frame(pd.DataFrame({"user": ["u"], "item": ["n996"], "value": [1.0]}),
                                    users=q.users, items=ITEMS)
    ctx2 = EvalContext(threshold=1, train=train)
    assert parse_measure("TSE").per_user(runs["C"], q, ctx2)[0] == pytest.approx(1 / (N_C - 1))
    # a cutoff imputes what falls below it
    assert parse_measure("TSE@8").per_user(runs["A"], q, ctx)[0] == pytest.approx(1 / N_C)


def test_system_summary_d6():
    s = preference_summary(np.array([1, 1, 0, -1, 1]))
    assert (s.mean, s.wins, s.ties, s.losses, s.win_rate) == (0.4, 3, 1, 1, 0.75)
    assert s.p_value == pytest.approx(0.625)
    runs, q, ctx = d6()
    s2 = preference_summary("lexirecall", runs["A"], runs["C"], q, ctx)
    assert (s2.wins, s2.losses, s2.n) == (1, 0, 1)
    none = preference_summary(np.zeros(3, dtype=int))
    assert np.isnan(none.win_rate) and none.p_value == 1.0


def test_pairwise_measure_rejects_single_run_and_per_run_measures_work():
    runs, q, ctx = d6()
    with pytest.raises(ConfigError, match="compares two runs"):
        parse_measure("lexirecall").per_user(runs["A"], q, ctx)
    # any per-user measure gives sign preferences
    assert preference_per_user("TSE", runs["A"], runs["C"], q, ctx).tolist() == [1]
    assert preference_per_user("TSE", runs["A"], runs["B"], q, ctx).tolist() == [0]


# -- reference implementation (METRICS.md §D, written from the text, one user at a time) --------------
def ref_positions(ranked_rel: list[bool], m: int, n_c: int) -> list[int]:
    pos = [k + 1 for k, r in enumerate(ranked_rel) if r]
    missing = m - len(pos)
    return pos + list(range(n_c - missing + 1, n_c + 1))


def ref_lexirecall(x: list[bool], y: list[bool], m: int, n_c: int) -> int:
    px, py = ref_positions(x, m, n_c), ref_positions(y, m, n_c)
    for j in reversed(range(m)):  # leximin: from the lowest relevant item upward
        if px[j] != py[j]:
            return 1 if px[j] < py[j] else -1
    return 0


def ref_lexiprecision(x: list[bool], y: list[bool], m: int) -> int:
    px = [k + 1 for k, r in enumerate(x) if r]
    py = [k + 1 for k, r in enumerate(y) if r]
    for j in range(m):
        a = px[j] if j < len(px) else None
        b = py[j] if j < len(py) else None
        if a is None and b is None:
            continue
        if a is None:
            return -1
        if b is None:
            return 1
        if a != b:
            return 1 if a < b else -1
    return 0


rel_lists = st.lists(st.booleans(), min_size=0, max_size=15)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(rel_lists, rel_lists, st.integers(0, 6)), min_size=1, max_size=8))
def test_lexirecall_and_lexiprecision_match_reference(rows):
    n_c = 100
    width = 15
    rx = np.zeros((len(rows), width), bool)
    ry = np.zeros((len(rows), width), bool)
    want_lr, want_lp = [], []
    for u, (x, y, extra) in enumerate(rows):
        rx[u, : len(x)], ry[u, : len(y)] = x, y
        m = max(sum(x), sum(y)) + extra  # relevant items, some possibly retrieved by neither run
        if m == 0:
            m = 1
        want_lr.append(ref_lexirecall(x, y, m, n_c))
        want_lp.append(ref_lexiprecision(x, y, m))
    assert lexirecall(rx, ry).tolist() == want_lr
    assert lexiprecision(rx, ry).tolist() == want_lp
    # antisymmetry (G.6)
    assert (lexirecall(ry, rx) == -lexirecall(rx, ry)).all()
    assert (lexiprecision(ry, rx) == -lexiprecision(rx, ry)).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sets(st.integers(1, 12), max_size=4), st.sets(st.integers(1, 12), max_size=4),
                          st.integers(0, 3)), min_size=1, max_size=5))
def test_measures_on_runs_agree_with_reference_and_tse(rows):
    """End to end through Rankings/Qrels; LR(X,Y) = sign(TSE(X) − TSE(Y)) whenever the TSE values differ."""
    users = Vocab([f"u{i}" for i in range(len(rows))])
    items = Vocab([f"r{i}" for i in range(10)] + [f"n{i:02d}" for i in range(30)])
    q_rows, x_rows, y_rows, want = [], [], [], []
    for u, (px, py, extra) in enumerate(rows):
        m = max(len(px), len(py)) + extra or 1
        rel = [f"r{i}" for i in range(m)]
        q_rows += [(f"u{u}", r, 1.0) for r in rel]
        for relpos, out in ((sorted(px), x_rows), (sorted(py), y_rows)):
            it_rel, it_non = iter(rel), iter(f"n{i:02d}" for i in range(30))
            for k in range(1, 13):
                out.append((f"u{u}", next(it_rel) if k in relpos else next(it_non), float(20 - k)))
        bx = [k in px for k in range(1, 13)]
        by = [k in py for k in range(1, 13)]
        want.append(ref_lexirecall(bx, by, m, len(items)))
    q = Qrels.from_frame(pd.DataFrame(q_rows, columns=["user", "item", "grade"]), users, items)
    run_x = Rankings.from_frame(pd.DataFrame(x_rows, columns=["user", "item", "score"]), users, items)
    run_y = Rankings.from_frame(pd.DataFrame(y_rows, columns=["user", "item", "score"]), users, items)
    ctx = EvalContext(threshold=1)
    got = preference_per_user("lexirecall", run_x, run_y, q, ctx)
    assert got.tolist() == want
    tx, ty = (parse_measure("TSE").per_user(r, q, ctx) for r in (run_x, run_y))
    differ = np.round(tx - ty, 12) != 0
    assert (np.sign(tx - ty)[differ] == got[differ]).all()
