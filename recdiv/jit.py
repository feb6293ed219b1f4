"""The one serial/parallel dispatcher of recdiv's per-user numba kernels (low level: anyone may import it).

A per-user kernel is written over blocks of rows, so that a block can keep its own scratch arrays:

    @per_user_kernel(min_work=50_000, error_model="numpy")
    def _gains(bounds, items, ..., out):
        for b in numba.prange(len(bounds) - 1):
            scratch = np.zeros(...)
            for r in range(bounds[b], bounds[b + 1]):
                ...  # row r only: its arithmetic does not depend on the block it falls in

It is compiled twice and cached on disk under two names: a serial version (prange runs as range) called with
the single block [0, n), and a parallel one called with 8 blocks per thread. `_gains(n, items, ..., out,
work=W)` takes the parallel version when the work W (default n) reaches the kernel's `min_work` — below it
the thread pool's start-up costs more than it saves — or as `parallel=True/False` says (tests). Every row is
computed by the same operations either way, so both versions give bit-identical results.

Array arguments are made C-contiguous (one compiled specialisation per dtype, not per memory layout); pass
output arrays freshly allocated (contiguous), so that the kernel writes into them and not into a copy.

Readable modules obtain a kernel with `kernel(module, name)`: the ahead-of-time compiled serial version when
there is a fresh one (`recdiv.aot`; numba is then not even imported), else the numba kernel. This module
imports numba only where it compiles.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable

import numpy as np

__all__ = ["PARALLEL_WORK", "block_bounds", "kernel", "per_user_kernel"]

#: default work (inner steps) from which a kernel runs in parallel
PARALLEL_WORK = 1_000_000


def block_bounds(n: int, parallel: bool) -> np.ndarray:
    """Block boundaries over n rows: one block (serial), or 8 blocks per thread (load balance), ≥ 1 row each."""
    if not parallel:
        return np.array([0, n], dtype=np.int64)
    import numba

    nb = max(1, min(n, 8 * numba.get_num_threads()))
    return np.linspace(0, n, nb + 1).astype(np.int64)


#: True in the processes `recdiv.eval.stream` forks to evaluate groups side by side: there every kernel takes its
#: serial version (the processes are the parallelism, and an OpenMP pool started before a fork hangs after it)
SERIAL_ONLY = False


def runs_parallel(n: int, work: int | None, parallel: bool | None, min_work: int) -> bool:
    """Whether a per-user kernel over n rows takes its parallel version (see the module doc)."""
    if SERIAL_ONLY:
        return False
    return (n if work is None else work) >= min_work if parallel is None else bool(parallel)


def _contiguous(args: tuple) -> tuple:
    return tuple(np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args)


def per_user_kernel(fn: Callable | None = None, *, min_work: int = PARALLEL_WORK, **options) -> Callable:
    """Decorator: `fn(bounds, *args)` becomes `kernel(n, *args, work=None, parallel=None)` (see the module doc).
    `options` go to `numba.njit` (e.g. error_model="numpy")."""

    import numba

    def wrap(fn: Callable) -> Callable:
        serial = numba.njit(cache=True, nogil=True, **options)(fn)
        twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_parallel", fn.__defaults__,
                                  fn.__closure__)
        twin.__qualname__ = fn.__qualname__ + "_parallel"
        compiled_parallel = numba.njit(cache=True, parallel=True, **options)(twin)

        def run(n: int, *args, work: int | None = None, parallel: bool | None = None):
            par = runs_parallel(n, work, parallel, min_work)
            return (compiled_parallel if par else serial)(block_bounds(int(n), par), *_contiguous(args))

        run.__doc__, run.__name__, run.__qualname__ = fn.__doc__, fn.__name__, fn.__qualname__
        run.serial, run.parallel, run.min_work = serial, compiled_parallel, min_work
        return run

    return wrap(fn) if fn is not None else wrap


def kernel(module: str, name: str) -> Callable:
    """Kernel `name` of the numba kernel module `module`, called as the module's own object is called.

    When `recdiv.aot` holds a fresh ahead-of-time build of it, calls whose arguments have the compiled types
    run it (for a per-user kernel: serial calls), without importing numba; any other call (or no build)
    imports the module and runs its numba kernel — the same function, so the same results.
    """
    from recdiv import aot

    def jitted() -> Callable:
        return getattr(importlib.import_module(module), name)

    compiled = aot.load()
    aot_kernel = compiled.get(module, name) if compiled is not None else None
    if aot_kernel is None:
        return jitted()
    if not aot_kernel.per_user:
        def run_plain(*args):
            return aot_kernel.function(*args) if aot_kernel.accepts(args) else jitted()(*args)

        return run_plain

    def run(n: int, *args, work: int | None = None, parallel: bool | None = None):
        args = _contiguous(args)
        if not runs_parallel(n, work, parallel, aot_kernel.min_work):
            serial_args = (block_bounds(int(n), False), *args)
            if aot_kernel.accepts(serial_args):
                return aot_kernel.function(*serial_args)
        return jitted()(n, *args, work=work, parallel=parallel)

    return run
