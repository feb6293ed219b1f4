"""MMR's fused kernel compiled ahead of time (`recdiv.aot`, issue 15): the same lists as the numba kernel, and
`recdiv rerank --method MMR` over aspects then runs without importing numba, SciPy or pandas."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from recdiv import aot
from recdiv.aspects.similarity import Jaccard
from recdiv.diversifiers import greedy_kernels, make_reranker
from recdiv.eval.metrics import intents_kernels
from tests.diversifiers.test_fused import tied_instance

KERNEL = ("recdiv.diversifiers.greedy_kernels", "mmr_greedy")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    where = tmp_path_factory.mktemp("aot")
    aot.build([greedy_kernels], where)
    return where


@pytest.mark.parametrize("lam", [0.0, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("jaccard", [False, True])
def test_mmr_aot_equals_numba(built, monkeypatch, lam, jaccard):
    monkeypatch.setattr(aot, "directory", lambda: built)
    checks = []
    accepts = aot.Kernel.accepts
    monkeypatch.setattr(aot.Kernel, "accepts", lambda self, args: checks.append(accepts(self, args)) or checks[-1])
    for seed in range(4):
        cands, ctx = tied_instance(seed)
        if jaccard:
            ctx.similarity = Jaccard(ctx.aspects)
        monkeypatch.delenv("RECDIV_AOT", raising=False)
        checks.clear()
        ahead = make_reranker("MMR", **{"lambda": lam}).rerank(cands, 12, ctx)
        assert checks and all(checks)  # the compiled kernel ran, with its argument types
        monkeypatch.setenv("RECDIV_AOT", "0")
        numba = make_reranker("MMR", **{"lambda": lam}).rerank(cands, 12, ctx)
        np.testing.assert_array_equal(ahead.items, numba.items)


RERANK = """
import sys
from recdiv.cli import main
code = main({argv!r})
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & {{"numba", "llvmlite", "scipy", "pandas"}})
print("HEAVY", heavy, file=sys.stderr)
sys.exit(code)
"""


def test_rerank_mmr_imports_no_numba_scipy_pandas(tmp_path):
    """The command of the issue's rerank target loads neither numba nor SciPy nor pandas (AOT build of the
    install step; built here if missing or stale) and writes what the numba kernel writes."""
    built = aot.load()
    if built is None or built.get(*KERNEL) is None:
        aot.build([intents_kernels, greedy_kernels])
    rng = np.random.default_rng(5)
    (tmp_path / "r").write_text("".join(f"u{u} Q0 i{i} {k + 1} {100 - k} s\n" for u in range(40)
                                        for k, i in enumerate(rng.choice(90, 50, replace=False))))
    (tmp_path / "a").write_text("".join(f"i{i}\tg{g}\n" for i in range(90) for g in {i % 5, i % 7}))
    outputs = []
    for env in ({}, {"RECDIV_AOT": "0"}):
        out = tmp_path / f"out{len(outputs)}"
        argv = ["rerank", str(tmp_path / "r"), "--method", "MMR", "--aspects", str(tmp_path / "a"), "-k", "20",
                "-o", str(out)]
        done = subprocess.run([sys.executable, "-c", RERANK.format(argv=argv)], capture_output=True, text=True,
                              env={**os.environ, **env})
        assert done.returncode == 0, done.stderr
        outputs.append((done.stderr, out.read_text()))
    assert "HEAVY []" in outputs[0][0], outputs[0][0]
    assert "HEAVY ['llvmlite', 'numba'" in outputs[1][0], outputs[1][0]
    assert outputs[0][1] == outputs[1][1] and outputs[0][1].count("\n") == 40 * 20
