"""A cutoff beyond what the data holds costs what the data holds (recdiv.limits, `Measure.at_depth`): the value at
K beyond the data's depth (longest list, most judged items of a user, longest previous list) is the value at that
depth for every measure that says so (`depth_bound`), and the measures with K in their formula (P@K divides by K)
keep their arrays within the lists — so every measure at the largest cutoff runs in little memory."""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import RunView
from recdiv.eval.io import load_inputs
from recdiv.eval.measure import MEASURES, PairwiseMeasure, PerUserMeasure
from recdiv.limits import MAX_CUTOFF
from recdiv.models.context import Context


def _write(folder):
    rnd = random.Random(3)
    n_users, n_items = 15, 50
    with open(folder / "q.qrels", "w") as q, open(folder / "a.run", "w") as r, open(folder / "p.run", "w") as p, \
            open(folder / "asp.tsv", "w") as a, open(folder / "train.tsv", "w") as t:
        for u in range(n_users):
            for i in rnd.sample(range(n_items), rnd.randint(2, 14)):
                q.write(f"u{u} 0 i{i} {rnd.randint(0, 5)}\n")
            for rank, i in enumerate(rnd.sample(range(n_items), rnd.randint(3, 9)), 1):
                r.write(f"u{u} Q0 i{i} {rank} {20 - rank} s\n")
            for rank, i in enumerate(rnd.sample(range(n_items), 6), 1):
                p.write(f"u{u} Q0 i{i} {rank} {20 - rank} s\n")
            for i in rnd.sample(range(n_items), 15):
                t.write(f"u{u}\ti{i}\t{rnd.randint(1, 5)}\n")
        for i in range(n_items):
            for g in rnd.sample(range(6), rnd.randint(1, 3)):
                a.write(f"i{i}\tg{g}\n")


def _specs():
    """Every registered measure that takes a cutoff, with each value of each of its parameters with choices."""
    out = []
    for name in sorted({e.name for e in MEASURES.entries()}):
        cls = MEASURES.entry(name).obj
        if (cls.CUTOFF == "none" or issubclass(cls, PairwiseMeasure) or not cls.__module__.startswith("recdiv.")
                or getattr(cls, "STOCHASTIC", False)):
            continue  # plugins of other tests do not exist in the subprocess; stochastic (exposure) measures need
            # sampled rankings and item groups, which these inputs do not have
        out.append(name)
        out += [f"{name}({p.name}={c})" for p in cls.PARAMS for c in (p.choices or ()) if c != p.default]
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("depth")
    _write(folder)
    inp = load_inputs(folder / "q.qrels", [folder / "a.run"], train=folder / "train.tsv", aspects=folder / "asp.tsv",
                      previous=folder / "p.run", threshold=3.0, scale="0:5")
    return inp, folder


def _context(inp) -> Context:
    """Everything a measure may need: training data, aspects, previous lists, a latent similarity."""
    from recdiv.aspects.similarity import similarity_from_name

    factors = np.random.default_rng(0).normal(size=(len(inp.qrels.items), 4))
    return Context(threshold=3.0, scale=(0.0, 5.0), train=inp.context.train, aspects=inp.context.aspects,
                   previous=inp.context.previous, similarity=similarity_from_name("latent-cosine", factors=factors))


def _values(spec, k, inp):
    m = parse_measure(f"{spec}@{k}")
    ctx = _context(inp)
    run = inp.runs["a"]
    return m, np.atleast_1d(m.per_user(run, inp.qrels, ctx) if isinstance(m, PerUserMeasure)
                            else m.value(run, inp.qrels, ctx))


def test_the_depth_is_the_deepest_list(inputs):
    inp, _ = inputs
    view = RunView.of(inp.context, inp.runs["a"], inp.qrels)
    assert view.depth == 14  # 9 ranked at most, 14 judged at most, 6 previous


@pytest.mark.parametrize("spec", _specs())
def test_depth_bound_measures_have_the_same_value_beyond_the_depth(inputs, spec):
    """The declaration is checked against the computation: a depth-bound measure at depth + 1 and depth + 57
    (computed over padded arrays, without the bound) equals the measure at the depth."""
    inp, _ = inputs
    depth = RunView.of(inp.context, inp.runs["a"], inp.qrels).depth
    _, at = _values(spec, depth, inp)
    for k in (depth + 1, depth + 57):
        beyond = parse_measure(f"{spec}@{k}")
        view = RunView.of(_context(inp), inp.runs["a"], inp.qrels)
        if beyond.depth_bound():
            assert beyond.at_depth(view).cutoff == depth
            unbounded = beyond.compute(beyond.run_view(inp.runs["a"], inp.qrels, view.context)) \
                if isinstance(beyond, PerUserMeasure) else None
            if unbounded is not None:
                np.testing.assert_allclose(unbounded, at, rtol=1e-12, atol=1e-15)
        else:
            assert beyond.at_depth(view) is beyond


def test_every_measure_at_the_largest_cutoff_runs_in_little_memory(inputs):
    """Each measure at @10,000,000 on 15 users, in a process whose address space is capped at 2.5 GB (a users ×
    K array would need 1.2 GB each): no MemoryError, and resident memory well under 2 GB."""
    _, folder = inputs
    script = textwrap.dedent(f"""
        import resource, sys
        import numpy as np
        from recdiv.aspects.similarity import similarity_from_name
        from recdiv.eval.catalog import parse_measure
        from recdiv.eval.io import load_inputs
        from recdiv.eval.measure import PerUserMeasure
        from recdiv.models.context import Context
        inp = load_inputs("q.qrels", ["a.run"], train="train.tsv", aspects="asp.tsv", previous="p.run",
                          threshold=3.0, scale="0:5")
        for spec in {_specs()!r}:
            m = parse_measure(spec + "@{MAX_CUTOFF}")
            factors = np.random.default_rng(0).normal(size=(len(inp.qrels.items), 4))
            ctx = Context(threshold=3.0, scale=(0.0, 5.0), train=inp.context.train, aspects=inp.context.aspects,
                          previous=inp.context.previous,
                          similarity=similarity_from_name("latent-cosine", factors=factors))
            try:
                (m.per_user if isinstance(m, PerUserMeasure) else m.value)(inp.runs["a"], inp.qrels, ctx)
            except MemoryError:
                sys.exit("MemoryError: " + spec)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    """)

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (2_500 << 20, 2_500 << 20))

    p = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, timeout=600,
                       preexec_fn=cap)
    assert p.returncode == 0, p.stderr[-2000:]
    assert int(p.stdout.split()[-1]) < 2_000
