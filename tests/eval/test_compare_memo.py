"""`Results.compare(keys=..., memo=...)`: the parts of a table (bootstrap counts, intervals, p-values) kept per
system and reused by the next table that shares systems (the explorer's population view) give every value of a
table computed alone, for every test; only the new systems' parts are computed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from recdiv.errors import ConfigError
from recdiv.eval.results import Results

MEASURES = ("x", "y")


class Counting:
    """A dict memo that counts its builds."""

    def __init__(self):
        self.values: dict = {}
        self.builds = 0

    def __call__(self, key, build):
        if key not in self.values:
            self.builds += 1
            self.values[key] = build()
        return self.values[key]


def _systems(n_users: int = 120) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(5)
    out = {}
    for s in ("base", "a1", "a2", "b1", "b2"):
        # ties and zero differences (Wilcoxon's and the sign test's special cases) as real measures have them
        out[s] = {m: np.round(rng.random(n_users), 1) for m in MEASURES}
    out["a2"]["x"] = out["base"]["x"].copy()
    return out


def _table(cmp) -> tuple:
    pairs = [dataclasses.astuple(pc) for pc in cmp.pairs]
    return cmp.means, cmp.mean_ci, pairs


@pytest.mark.parametrize("test,correction", [("t", "holm"), ("wilcoxon", "holm"), ("sign", "bh"),
                                             ("permutation", "holm"), ("bootstrap", "bonferroni"),
                                             ("tukey", "none"), ("tukey-anova", "none")])
def test_tables_with_a_memo_equal_tables_computed_alone(test, correction):
    values = _systems()
    memo = Counting()
    opts = {"test": test, "correction": correction, "ci": "bootstrap", "ci_samples": 200, "seed": 2,
            "n_samples": 300 if test in ("permutation", "bootstrap", "tukey") else None}
    for a, b in [("a1", "b1"), ("a2", "b1"), ("a1", "b2"), ("a1", "b1")]:  # the explorer's λ moves
        res = Results({s: values[s] for s in ("base", a, b)})
        base = {"base": None, a: "base", b: "base"}
        alone = res.compare(baseline=base, **opts)
        kept = res.compare(baseline=base, keys={s: ("sys", s) for s in res.systems}, memo=memo, **opts)
        assert _table(kept) == _table(alone)
    assert len(alone.pairs) == 4


def test_only_the_new_systems_parts_are_computed():
    values = _systems()
    memo = Counting()

    def table(a: str, b: str) -> None:
        res = Results({s: values[s] for s in ("base", a, b)})
        res.compare(baseline={"base": None, a: "base", b: "base"}, test="wilcoxon", ci="bootstrap", ci_samples=100,
                    keys={s: s for s in res.systems}, memo=memo)

    table("a1", "b1")
    # per measure: 3 means' intervals, 2 differences' intervals, 2 p-values; the counts once
    assert memo.builds == 1 + 2 * (3 + 2 + 2)
    before = memo.builds
    table("a2", "b1")  # only a2 is new: its mean's and difference's interval and p-value, per measure
    assert memo.builds - before == 2 * 3
    before = memo.builds
    table("a2", "b1")
    assert memo.builds == before


def test_keys_and_memo_go_together():
    res = Results(_systems())
    with pytest.raises(ConfigError, match="keys"):
        res.compare(memo=Counting())
    with pytest.raises(ConfigError, match="keys"):
        res.compare(keys={"base": 1}, memo=Counting())
