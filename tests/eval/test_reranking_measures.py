"""RBO and LIP, the reference-run measures (a list against its base list, `Context.previous`): a hand-worked
example, LensKit 2025.8's `rank_biased_overlap` / `least_item_promoted` as oracle on random lists (RBO equal to
1e-12 with norm=weights and LensKit's p; LensKit's LIP = max(0, LIP − 1), see the LIP docstring), properties, and
the command line (`recdiv eval --previous`, `recdiv compare --previous`)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from lenskit.data import ItemList
from lenskit.metrics import GeometricRankWeight
from lenskit.metrics.reranking import least_item_promoted, rank_biased_overlap

from recdiv.cli import main
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.eval import parse_measure
from recdiv.eval.context import EvalContext


def case(runs: list[list[str]], bases: list[list[str] | None]):
    """(run, qrels judging one item per user, context with the base lists); None = no base list."""
    users = Vocab.from_values([f"u{u:02d}" for u in range(len(runs))])
    items = Vocab.from_values(sorted({i for r in runs for i in r} | {i for b in bases if b for i in b} | {"x"}))

    def rankings(lists):
        rows = [(f"u{u:02d}", it, float(len(lst) - k)) for u, lst in enumerate(lists) if lst
                for k, it in enumerate(lst)]
        return Rankings.from_frame(pd.DataFrame(rows, columns=["user", "item", "score"]), users, items)

    qrels = Qrels.from_frame(pd.DataFrame({"user": list(users.ids), "item": "x", "grade": 1.0}), users, items)
    return rankings(runs), qrels, EvalContext(threshold=1, previous=rankings(bases))


def values(measure: str, runs, bases) -> np.ndarray:
    run, qrels, ctx = case(runs, bases)
    return parse_measure(measure).per_user(run, qrels, ctx)


def test_hand_worked_example():
    """B = (a, b, c, d, e), R = (c, a, f). Agreements A_1..3 = 0, 1/2, 2/3; p = 0.5: Σ w_d A_d = 1/4 + 1/6 = 5/12,
    Σ w_d = 7/4, so RBO = 5/21 (weights) and 5/24 (geometric). LIP@2: c comes from position 3, 3 − 2 = 1; LIP@3:
    every item of the top 3 was in B's top 3 or not in B (f): 0."""
    runs, bases = [["c", "a", "f"]], [["a", "b", "c", "d", "e"]]
    assert values("RBO(p=0.5)@3", runs, bases)[0] == pytest.approx(5 / 21, rel=1e-15)
    assert values("RBO(p=0.5,norm=geometric)@3", runs, bases)[0] == pytest.approx(5 / 24, rel=1e-15)
    assert values("LIP@2", runs, bases).tolist() == [1.0]
    assert values("LIP@3", runs, bases).tolist() == [0.0]
    assert values("LIP@1", runs, bases).tolist() == [2.0]  # c from position 3 into the top 1


@pytest.mark.parametrize("seed", [0, 1])
def test_equal_to_lenskit(seed):
    rng = np.random.default_rng(seed)
    pool = [f"i{j:02d}" for j in range(40)]
    runs, bases = [], []
    for _ in range(60):
        base = list(rng.choice(pool, size=rng.integers(1, 30), replace=False))
        fresh = [i for i in pool if i not in base]
        runs.append((list(rng.permutation(base)[: rng.integers(1, 12)])
                     + list(rng.choice(fresh, size=rng.integers(0, 3), replace=False)))[:12])
        bases.append(base)
    for k in (1, 5, 10, 20):
        for p in (0.5, 0.85, 0.98):
            got = values(f"RBO(p={p})@{k}", runs, bases)
            want = [rank_biased_overlap(ItemList(b, ordered=True), ItemList(r, ordered=True), GeometricRankWeight(p),
                                        n=k) for r, b in zip(runs, bases)]
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        lip = values(f"LIP@{k}", runs, bases)
        want = [least_item_promoted(ItemList(b, ordered=True), ItemList(r, ordered=True), n=k)
                for r, b in zip(runs, bases)]
        assert np.maximum(lip - 1, 0).tolist() == want
        assert (lip > 0).any() and (lip == 0).any()


def test_properties():
    lists = [["a", "b", "c", "d", "e", "f"], ["d", "c", "b", "a", "e", "f"], ["e", "f", "a", "b", "c", "d"]]
    for k in (1, 3, 6):
        assert values(f"RBO@{k}", lists, lists).tolist() == pytest.approx([1.0] * 3, rel=1e-15)
        assert values(f"RBO(norm=geometric,p=0.8)@{k}", lists, lists).tolist() == \
            pytest.approx([1 - 0.8 ** k] * 3, rel=1e-14)
        assert values(f"LIP@{k}", lists, lists).tolist() == [0.0] * 3
    # identical lists shorter than K: the agreement falls as n/d beyond their length n (as LensKit's)
    assert values("RBO(p=0.5)@3", [["a"]], [["a"]])[0] == pytest.approx((1 + 0.5 / 2 + 0.25 / 3) / 1.75, rel=1e-15)
    assert values("RBO@4", [["a", "b"]], [["c", "d"]]).tolist() == [0.0]  # disjoint
    assert values("RBO@4", [["a", "b"]], [None]).tolist() == [0.0]  # no base list: 0 on both
    assert values("LIP@4", [["a", "b"]], [None]).tolist() == [0.0]
    # a reranked prefix only permuted inside the top K keeps LIP 0 and RBO@K at the last depth 1
    assert values("LIP@3", [["c", "a", "b"]], [["a", "b", "c", "d"]]).tolist() == [0.0]
    with pytest.raises(ConfigError, match="RBO needs a cutoff"):
        parse_measure("RBO")
    run, qrels, _ = case([["a"]], [["a"]])
    with pytest.raises(ConfigError, match="needs `previous`"):
        parse_measure("LIP@10").per_user(run, qrels, EvalContext())


def test_command_line(tmp_path, capsys):
    (tmp_path / "qrels").write_text("u1 0 a 5\nu1 0 c 4\nu2 0 b 4\n")
    (tmp_path / "base.run").write_text("u1 Q0 a 1 3 b\nu1 Q0 b 2 2 b\nu1 Q0 c 3 1 b\nu2 Q0 b 1 2 b\nu2 Q0 d 2 1 b\n")
    (tmp_path / "div.run").write_text("u1 Q0 c 1 3 d\nu1 Q0 a 2 2 d\nu2 Q0 d 1 2 d\nu2 Q0 b 2 1 d\n")
    run, base = str(tmp_path / "div.run"), str(tmp_path / "base.run")
    assert main(["eval", str(tmp_path / "qrels"), run, "--previous", base, "-m", "RBO(p=0.5)@2", "-m", "LIP@1",
                 "--per-user", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # u1: (c, a) against (a, b, c): A = 0, 1/2 → (0.5·0.5)/1.5; u2: (d, b) against (b, d): A = 0, 1 → 0.5/1.5
    assert out["per_user"]["div"]["RBO(p=0.5)@2"] == pytest.approx({"u1": 1 / 6, "u2": 1 / 3}, rel=1e-15)
    assert out["per_user"]["div"]["LIP@1"] == {"u1": 2.0, "u2": 1.0}
    assert main(["compare", str(tmp_path / "qrels"), run, base, "--previous", base, "-m", "RBO(p=0.5)@2",
                 "--format", "json"]) == 0
    cmp = json.loads(capsys.readouterr().out)
    assert cmp["means"] == pytest.approx({"div": 0.25, "base": 1.0}, rel=1e-15)
    assert main(["eval", str(tmp_path / "qrels"), run, "-m", "LIP@1"]) == 2
    assert "needs `previous`" in capsys.readouterr().err
