"""Ahead-of-time compiled kernels (`recdiv.aot`, issue 15): the AOT build gives the numba kernels' results bit for
bit, is used only when fresh and for the compiled argument types, and `recdiv eval` with α-nDCG and
ERR-IA(variant=ndeval) then runs without importing numba, SciPy or pandas."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from recdiv import aot, jit
from recdiv.aspects.space import AspectSpace
from recdiv.data.csr import csr_arrays
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.eval.context import EvalContext, RunView
from recdiv.eval.metrics import intents as ia
from recdiv.eval.metrics import intents_kernels
from tests.eval.test_intent_kernels import _view, cases

KERNELS = "recdiv.eval.metrics.intents_kernels"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A fresh AOT build of the intent-aware kernels in a temporary directory."""
    where = tmp_path_factory.mktemp("aot")
    aot.build([intents_kernels], where)
    return where


@pytest.fixture
def use_build(built, monkeypatch):
    """Make `recdiv.jit.kernel` find the temporary build; record every AOT type check (all must pass)."""
    monkeypatch.setattr(aot, "directory", lambda: built)
    checks = []
    accepts = aot.Kernel.accepts

    def spy(self, args):
        ok = accepts(self, args)
        checks.append(ok)
        return ok

    monkeypatch.setattr(aot.Kernel, "accepts", spy)
    return checks


def same_bits(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def everything(view) -> list[np.ndarray]:
    """Every intent-aware kernel through the readable functions: run gains (binary, graded, weighted), greedy
    ideals (cut and whole: ideal_widths), their gains recomputed (alpha_gains), A_u^rel and |A_u^rel|."""
    out = [ia.alpha_run_gains(view, 20, 0.5), ia.alpha_run_gains(view, 7, 0.25, graded=True)]
    out.append(ia.relevant_aspects(view))
    out.append(ia.relevant_aspects(view, judged=True))
    out.append(ia.n_relevant_aspects(view))
    w = ia.intent_weights(view, "uniform")
    out.append(ia.alpha_run_gains(view, 10, 0.5, weights=w))
    for graded, steps in ((False, 20), (True, None)):
        items, gains = ia.alpha_ideal_lists(view, 0.5, graded, "max_id", steps)
        out += [items, gains]
        g = (items >= 0).astype(np.float64)
        out.append(ia.alpha_gains(view, items, g, 0.5, weights=None, graded=False))
    view.context.cache.clear()
    out.append(ia.n_relevant_aspects(view))  # without the ideal's by-product: the counting kernel
    return out


def bench_like_view(seed: int = 0, n_users: int = 1500, n_items: int = 900, n_aspects: int = 18) -> RunView:
    """ML-1M-shaped inputs (as bench/_files.py): integer grades 1–5, top-100 runs, 1–6 genres per item, some
    items without genres, some users without a list."""
    rng = np.random.default_rng(seed)
    users, items = Vocab([f"u{u}" for u in range(n_users)]), Vocab([f"i{i}" for i in range(n_items)])
    q_u, q_i = [], []
    for u in range(n_users):
        judged = rng.choice(n_items, rng.integers(1, 60), replace=False)
        q_u += [u] * len(judged)
        q_i += judged.tolist()
    qrels = Qrels.from_arrays(np.array(q_u), np.array(q_i), rng.integers(1, 6, len(q_u)).astype(float), users,
                              items)
    r_u, r_i = [], []
    for u in rng.choice(n_users, n_users - n_users // 30, replace=False):
        r_u += [u] * 100
        r_i += rng.choice(n_items, 100, replace=False).tolist()
    run = Rankings.from_arrays(np.array(r_u), np.array(r_i), rng.random(len(r_u)), users, items)
    a_i, a_a = [], []
    for i in range(n_items - n_items // 30):
        g = rng.choice(n_aspects, rng.integers(1, 7), replace=False)
        a_i += [i] * len(g)
        a_a += g.tolist()
    m, _ = csr_arrays(np.array(a_i), np.array(a_a), np.ones(len(a_i)), (n_items, n_aspects))
    space = AspectSpace(items, Vocab([f"g{a:02d}" for a in range(n_aspects)]), m)
    return RunView.of(EvalContext(threshold=4.0, aspects=space, scale=(1.0, 5.0)), run, qrels)


def test_aot_equals_jit_on_bench_like_inputs(use_build, monkeypatch):
    aot_values = everything(bench_like_view())
    assert aot_values and all(use_build) and len(use_build) >= 10, use_build  # the AOT kernels ran, every time
    monkeypatch.setenv("RECDIV_AOT", "0")
    use_build.clear()
    jit_values = everything(bench_like_view())
    assert not use_build  # numba only
    for a, b in zip(aot_values, jit_values, strict=True):
        same_bits(a, b)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(cases())
def test_aot_equals_jit_on_random_inputs(use_build, monkeypatch, case):
    """Ties, users without relevant items or without a list, items without aspects, half-integer grades."""
    monkeypatch.delenv("RECDIV_AOT", raising=False)
    use_build.clear()
    aot_values = everything(_view(case))
    assert use_build and all(use_build)
    monkeypatch.setenv("RECDIV_AOT", "0")
    for a, b in zip(aot_values, everything(_view(case)), strict=True):
        same_bits(a, b)


def test_stale_or_missing_build_falls_back_to_numba(built, tmp_path, monkeypatch):
    monkeypatch.setattr(aot, "_loaded", {})  # this test's loads are forgotten after it
    assert aot.load(built) is not None
    monkeypatch.setattr(aot, "directory", lambda: built)
    assert jit.kernel(KERNELS, "relevant_aspect_counts") is not intents_kernels.relevant_aspect_counts
    # a kernel source edited after the build: its hash no longer matches
    stale = tmp_path / "stale"
    stale.mkdir()
    index = json.loads((built / aot.INDEX).read_text())
    (stale / index["file"]).write_bytes((built / index["file"]).read_bytes())
    (stale / aot.INDEX).write_text(json.dumps({**index, "hash": "0" * 64}))
    assert aot.load(stale) is None
    monkeypatch.setattr(aot, "directory", lambda: stale)
    assert jit.kernel(KERNELS, "relevant_aspect_counts") is intents_kernels.relevant_aspect_counts
    monkeypatch.setattr(aot, "sources_hash", lambda files: "edited")
    aot._loaded.clear()
    assert aot.load(built) is None
    assert aot.load(tmp_path / "nothing-built-here") is None


def test_build_from_another_cpu_is_stale(built, monkeypatch):
    """The module is compiled for the host CPU: copied to a machine with another CPU, the numba kernels run."""
    monkeypatch.setattr(aot, "_loaded", {})
    here = aot.host_cpu()
    assert "flags" in here or "Features" in here or "|" in here  # the instruction sets are part of it
    assert aot.load(built) is not None
    monkeypatch.setattr(aot, "host_cpu", lambda: here.replace("avx", "no-avx") + "|another machine")
    aot._loaded.clear()
    assert aot.load(built) is None


def test_other_argument_types_run_the_numba_kernel(use_build, monkeypatch):
    """The compiled code does not check its arguments: other dtypes, layouts or scalar kinds must not reach it."""
    monkeypatch.delenv("RECDIV_AOT", raising=False)
    view = bench_like_view(n_users=40, n_items=150)
    args = (view.users.astype(np.int64), *ia.qrels_csr(view), 4.0, ia.aspect_table(view), 18)
    counts = jit.kernel(KERNELS, "relevant_aspect_counts")
    want = intents_kernels.relevant_aspect_counts(*args)
    same_bits(counts(*args), want)
    assert use_build == [True]
    wide = np.repeat(args[5], 2, axis=1)[:, ::2]  # same values, not C-contiguous
    for bad in ((args[0].astype(np.int32), *args[1:]), (*args[:4], 4, *args[5:]), (*args[:5], wide, 18)):
        use_build.clear()
        same_bits(counts(*bad), intents_kernels.relevant_aspect_counts(*bad))
        assert use_build == [False]
    compiled = aot.load().get(KERNELS, "relevant_aspect_counts")
    assert compiled.accepts((*args[:6], np.int32(18)))  # any integer converts exactly
    assert not compiled.accepts((*args[:6], 18.0)) and not compiled.accepts((*args[:6], True))
    assert not compiled.accepts(args[:6])
    use_build.clear()
    big = jit.kernel(KERNELS, "run_gains_blocks")  # a parallel call is numba's: accepts is not even asked
    out = np.zeros((len(view.users), 5))
    big(len(view.users), np.ascontiguousarray(view.rankings.items), ia.run_rows(view), view.users.astype(np.int64),
        *ia.qrels_csr(view), ia.aspect_table(view), 18, 4.0, 0.5, False, 5.0, ia._NO_WEIGHTS, False,
        ia._powers(0.5, 5), out, parallel=True)
    assert use_build == [] and out.any()


EVAL = """import sys
from recdiv.cli import main
code = main({argv!r})
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & {{"numba", "llvmlite", "scipy", "pandas"}})
print("HEAVY", heavy, file=sys.stderr)
sys.exit(code)
"""


def test_eval_alpha_ndcg_err_ia_imports_no_numba_scipy_pandas(tmp_path):
    """The command of the issue's ndeval target loads neither numba nor SciPy nor pandas (AOT build of the
    install step; built here if missing or stale), and prints what numba's kernels print."""
    if aot.load() is None:
        aot.build([intents_kernels])
    rng = np.random.default_rng(3)
    (tmp_path / "q").write_text("".join(f"u{u} 0 i{i} {rng.integers(1, 6)}\n" for u in range(60)
                                        for i in rng.choice(80, 15, replace=False)))
    (tmp_path / "r").write_text("".join(f"u{u} Q0 i{i} {k + 1} {100 - k} s\n" for u in range(60)
                                        for k, i in enumerate(rng.choice(80, 30, replace=False))))
    (tmp_path / "a").write_text("".join(f"i{i}\tg{g}\n" for i in range(75) for g in {i % 5, i % 3}))
    q, r, a = (str(tmp_path / x) for x in "qra")
    argv = ["eval", q, r, "--aspects", a, "-m", "alpha-nDCG@20", "ERR-IA(variant=ndeval)@20", "alpha-nDCG@5"]
    runs = []
    for env in ({}, {"RECDIV_AOT": "0"}):
        done = subprocess.run([sys.executable, "-c", EVAL.format(argv=argv)], capture_output=True, text=True,
                              env={**os.environ, **env})
        assert done.returncode == 0, done.stderr
        runs.append(done)
    assert "HEAVY []" in runs[0].stderr, runs[0].stderr
    assert "HEAVY ['llvmlite', 'numba'" in runs[1].stderr, runs[1].stderr
    assert runs[0].stdout == runs[1].stdout and "alpha-nDCG@20" in runs[0].stdout
