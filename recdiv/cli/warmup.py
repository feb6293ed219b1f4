"""Compile and cache every numba kernel once, so that no command pays compilation when it first runs.

    python -m recdiv.cli.warmup          (the Makefile's install step runs it)

numba caches compiled kernels on disk (`cache=True`, in `__pycache__` beside the sources) and reuses them while
the source and the argument types are unchanged. This runs the work that calls the kernels — every recommender,
every reranker, every measure with each choice of its parameters, and `recdiv eval` / `recdiv rerank` from files
— on the tiny synthetic dataset, then compiles the parallel twin of each serial per-user kernel (and the reverse)
for the same argument types: small inputs only take the serial version. It prints the kernels it compiled or
loaded and those no workload reached. Last, it compiles the kernels that modules declare in `AHEAD_OF_TIME`
into one extension module (`recdiv.aot`), so that the commands running them need not load numba.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import sys
import tempfile
import time
import types
from pathlib import Path


def _measures():
    """Every registered measure with its defaults, and once with each choice of each parameter that has choices."""
    from recdiv.errors import ConfigError
    from recdiv.eval.catalog import list_measures

    for cls in list_measures():
        cutoff = None if cls.CUTOFF == "none" else 5
        try:
            default = cls(cutoff)
        except ConfigError:  # a measure with a parameter to name (GroupExposure's group): no kernel of its own
            continue
        yield default
        if cls.CUTOFF == "optional":  # no cutoff: whole lists (e.g. nNRBP's complete greedy ideal)
            yield cls(None)
        for p in cls.PARAMS:
            for choice in p.choices or ():
                if choice != p.default:
                    with contextlib.suppress(Exception):  # some combinations are refused by validation: skip them
                        yield cls(cutoff, **{p.name: choice})


def _workload(folder: Path) -> None:
    import numpy as np
    import scipy.sparse as sp

    from recdiv.algorithms.registry import RECOMMENDERS, make_recommender
    from recdiv.aspects.build import genre_space
    from recdiv.aspects.space import AspectSpace
    from recdiv.cli import main
    from recdiv.data.load import load_dataset
    from recdiv.data.qrels import Qrels
    from recdiv.data.splits import make_split
    from recdiv.data.textio import write_interactions_tsv, write_item_aspects_tsv, write_rankings, write_trec_qrels
    from recdiv.data.vocab import Vocab
    from recdiv.diversifiers.base import RerankContext
    from recdiv.diversifiers.registry import RERANKERS, make_reranker
    from recdiv.errors import ConfigError
    from recdiv.eval.context import EvalContext
    from recdiv.eval.measure import PairwiseMeasure

    ds = load_dataset("synthetic:tiny")
    split = make_split(ds, "holdout:0.2")
    qrels = Qrels.from_interactions(split.test)
    users = qrels.population()
    space = genre_space(ds)
    runs = {}
    for entry in RECOMMENDERS.entries():
        model = make_recommender(entry.name)
        side = {"attributes": ds.attributes["genres"]} if getattr(model, "needs_attributes", False) else {}
        runs[entry.name] = model.fit(split.train, **side).recommend(users, 30)
    # item-kNN's sparse similarity matrix (catalogs of more than ~5,800 items, or few neighbours kept per item)
    make_recommender("item-knn", save_nbrs=1).fit(split.train).recommend(users, 30)
    cands = runs["pop"] if "pop" in runs else next(iter(runs.values()))
    odd = (np.arange(len(space.items)) % 2).astype(np.float64)  # one item group (FA*IR's protected group)
    groups = AspectSpace(space.items, Vocab(["odd"]), sp.csr_matrix(odd[:, None]), name="item groups")
    ctx = RerankContext(train=split.train, aspects=space, seed=0, item_groups=groups)
    reranked = [make_reranker(e.name).rerank(cands, 10, ctx) for e in RERANKERS.entries()]
    make_reranker("COVER").trace(cands, 10, ctx)  # the NumPy template beside COVER's compiled loop
    ectx = EvalContext(train=split.train, aspects=space, previous=reranked[0])
    names = []
    for m in _measures():
        if isinstance(m, PairwiseMeasure):
            continue
        try:
            for run in (cands, reranked[1]):
                m.value(run, qrels, ectx)
        except ConfigError:  # needs context this workload does not have (e.g. latent-factor similarity)
            continue
        names.append(str(m))
    # αβ-nDCG's gains of given lists (the library's `gains`, e.g. on an ideal ordering)
    from recdiv.eval.context import RunView
    from recdiv.eval.metrics.unified import AlphaBetaNDCG, gamma_weights

    view = RunView.of(ectx, cands, qrels)
    AlphaBetaNDCG(5).gains(view, view.items, view.grades, gamma_weights(view, "train"))
    # Pearson over catalogs larger than synthetic:tiny's: the pair kernel
    from recdiv.aspects.similarity import RatingPearson

    RatingPearson(split.train).paired(cands.items[:2, :3], cands.items[:2, :4])
    # the command-line path: files read into compact arrays (other argument types than the in-memory path)
    write_rankings(cands, folder / "run")
    write_trec_qrels(qrels.to_frame(), folder / "qrels")
    write_item_aspects_tsv(_space_frame(space), folder / "aspects.tsv")
    write_item_aspects_tsv(_space_frame(groups), folder / "groups.tsv")
    write_interactions_tsv(split.train.to_frame(), folder / "train.tsv")
    common = [str(folder / "qrels"), str(folder / "run"), "--train", str(folder / "train.tsv"), "--aspects",
              str(folder / "aspects.tsv"), "--previous", str(folder / "run")]
    with contextlib.redirect_stdout(io.StringIO()):
        for lo in range(0, len(names), 20):
            main(["eval", *common, "-m", *names[lo:lo + 20]])
        for e in RERANKERS.entries():
            main(["rerank", str(folder / "run"), "--method", e.name, "--aspects", str(folder / "aspects.tsv"),
                  "--train", str(folder / "train.tsv"), "--item-groups", str(folder / "groups.tsv"), "-k", "10",
                  "-o", str(folder / "out.run")])
        # more than 63 aspects (no bit masks): the similarity's sparse dot, padded (ELL) and CSR (an item with
        # more than 64 aspects) layouts
        top = cands.item_vocab.ids[cands.items[0, 0]]  # a candidate of the first user
        for name, wide in (("ell.tsv", ()), ("csr.tsv", (top,))):
            _wide_aspects(space.items.ids, wide, folder / name)
            for method in ("MMR", "COVER"):  # COVER's compiled loop over any similarity
                main(["rerank", str(folder / "run"), "--method", method, "--aspects", str(folder / name), "-k",
                      "10", "-o", str(folder / "out.run")])


def _wide_aspects(items, wide, path: Path, n_aspects: int = 70) -> None:
    """An item-aspect file over `n_aspects` aspects: one per item, every one for the item ids in `wide`."""
    import pandas as pd

    from recdiv.data.textio import write_item_aspects_tsv

    rows = [(item, f"a{a}") for j, item in enumerate(items)
            for a in (range(n_aspects) if item in wide else (j % n_aspects,))]
    write_item_aspects_tsv(pd.DataFrame(rows, columns=["item", "aspect"]), path)


def _space_frame(space):
    import pandas as pd

    m = space.membership.tocoo()
    return pd.DataFrame({"item": space.items.id_of(m.row), "aspect": space.names.id_of(m.col), "weight": m.data})


def _kernels() -> tuple[list, list]:
    """(numba dispatchers, per-user kernels) of every loaded recdiv module."""
    import numba.core.registry

    dispatchers, per_user = [], []
    for name, module in list(sys.modules.items()):
        if not name.startswith("recdiv") or not isinstance(module, types.ModuleType):
            continue
        for obj in vars(module).values():
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj not in dispatchers \
                    and obj.targetoptions.get("inline") != "always":  # inlined helpers have no code of their own
                dispatchers.append(obj)
            elif hasattr(obj, "serial") and hasattr(obj, "parallel") and obj not in per_user:
                per_user.append(obj)
    return dispatchers, per_user


def _twins(per_user: list) -> int:
    """Compile each per-user kernel's other version (serial / parallel) for the argument types seen."""
    n = 0
    for k in per_user:
        for a, b in ((k.serial, k.parallel), (k.parallel, k.serial)):
            for sig in list(a.signatures):
                if sig not in b.signatures:
                    b.compile(sig)
                    n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    t0 = time.perf_counter()
    import warnings

    warnings.simplefilter("ignore")
    from recdiv import aot

    before = os.environ.get("RECDIV_AOT")
    os.environ["RECDIV_AOT"] = "0"  # the workload reaches the numba kernels, not a previous AOT build of them
    try:
        with tempfile.TemporaryDirectory() as tmp:
            _workload(Path(tmp))
    finally:
        os.environ.pop("RECDIV_AOT") if before is None else os.environ.update(RECDIV_AOT=before)
    aot_modules = [m for name, m in sorted(sys.modules.items())
                   if name.startswith("recdiv") and hasattr(m, "AHEAD_OF_TIME")]
    t1 = time.perf_counter()
    try:  # before the twins: it compiles the serial kernels for the declared types
        aot.build(aot_modules)
        aot_note = f"{sum(len(m.AHEAD_OF_TIME) for m in aot_modules)} kernels compiled ahead of time into " \
                   f"{aot.directory()} ({time.perf_counter() - t1:.0f} s)"
    except Exception as e:  # no C compiler, unwritable package: the commands load the numba kernels instead
        aot_note = f"ahead-of-time build failed ({type(e).__name__}: {e}); commands use the numba kernels"
    dispatchers, per_user = _kernels()
    twins = _twins(per_user)
    kernels = dispatchers + [k.serial for k in per_user] + [k.parallel for k in per_user]
    # a kernel without a compiled version is cold unless another kernel calls it (then its code is in theirs)
    # (a serial kernel and its parallel twin share one source: neither counts as calling the other)
    sources = {d: inspect.getsource(d.py_func) for d in kernels}
    cold = sorted({f"{d.py_func.__module__}.{d.py_func.__name__}" for d in kernels if not d.signatures
                   and not any(f"{d.py_func.__name__}(" in src for o, src in sources.items()
                               if o.py_func.__code__ is not d.py_func.__code__)})
    ready = sum(1 for d in kernels if d.signatures)
    print(f"recdiv warm-up: {ready} numba kernels compiled or loaded from the cache ({twins} twin versions), "
          f"{time.perf_counter() - t0:.0f} s")
    print(f"recdiv warm-up: {aot_note}")
    if cold:
        print(f"not reached by the warm-up (compiled when first used): {', '.join(cold)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
