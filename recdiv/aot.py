"""Ahead-of-time compiled serial kernels: commands that run them start without importing numba (low level).

Loading a numba kernel from numba's on-disk cache still costs about 0.7 s in a fresh process (importing numba,
then every lowering module of numba when the first cached kernel is loaded): more than `recdiv eval` with
α-nDCG and ERR-IA takes to read its files and compute. So the serial versions of the kernels such commands
run are also compiled into one C extension module with numba's own AOT compiler (`numba.pycc`), from the same
Python functions and with the same options as the JIT kernels (the exported entry only calls the numba
dispatcher, which numba compiles as always): one source, the same arithmetic, bit-identical results.

- declare: a kernel module lists its AOT kernels and their numba signatures in `AHEAD_OF_TIME`
  ({name: signature}); a name is a `numba.njit` kernel or a `recdiv.jit.per_user_kernel` (its serial version,
  called with the single block [0, n));
- build: `build(modules)` (run by `python -m recdiv.cli.warmup`, the install step) writes the extension and
  `_recdiv_aot.json` (sources hash, kernels, argument types) into `recdiv/__pycache__` (beside numba's cache,
  never committed);
- use: `recdiv.jit.kernel(module, name)` calls the AOT kernel when `load()` finds the module built from the
  current sources (hash of the kernel modules, this file, recdiv/jit.py, Python, NumPy and numba versions, host CPU),
  the call is serial and every argument has the compiled type; otherwise (stale, missing, parallel or other
  types) the numba kernel runs: same results, only slower to start. `RECDIV_AOT=0` in the environment turns the
  AOT kernels off (the warm-up runs its workload so, to reach every numba kernel).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Compiled", "Kernel", "build", "directory", "load", "sources_hash"]

NAME = "_recdiv_aot"  # the extension module's name (its PyInit function)
INDEX = NAME + ".json"
PACKAGE = Path(__file__).resolve().parent
_SCALARS = {"int64": (int, np.integer), "float64": (float, np.floating), "bool": (bool, np.bool_)}


def directory() -> Path:
    """Where the built module lives: recdiv/__pycache__ (gitignored, beside numba's cache of recdiv/*.py)."""
    return PACKAGE / "__pycache__"


def sources_hash(files: list[str]) -> str:
    """sha256 of the kernel sources (paths relative to the package), this module, recdiv/jit.py, the Python,
    NumPy and numba versions (numba's `_version.py`) and the host CPU (`host_cpu`): any change makes a built
    module stale."""
    from importlib.util import find_spec

    h = hashlib.sha256()
    for f in sorted({*files, "aot.py", "jit.py"}):
        h.update(f.encode() + b"\0" + (PACKAGE / f).read_bytes() + b"\0")
    numba = find_spec("numba")  # its _version.py names the release (importlib.metadata costs ~25 ms of start-up)
    h.update(Path(numba.origin).with_name("_version.py").read_bytes() if numba is not None else b"no numba")
    h.update(f"{sys.version}|{np.__version__}|{host_cpu()}".encode())
    return h.hexdigest()


def host_cpu() -> str:
    """This CPU's model and instruction-set flags (Linux: the first processor of /proc/cpuinfo; elsewhere the
    platform's names). The module is compiled for the host CPU, so a tree or venv copied to another machine must
    not run it (an instruction that CPU lacks would kill the process): there the numba kernels run."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            first = fh.read(1 << 16).split("\n\n", 1)[0]
    except OSError:
        return f"{platform.machine()}|{platform.processor()}"
    keep = ("model name", "flags", "Features", "CPU implementer", "CPU part")  # x86 and ARM spellings
    return "|".join(line for line in first.splitlines() if line.split(":", 1)[0].strip() in keep)


@dataclass(frozen=True)
class Kernel:
    """One AOT kernel: its compiled function, argument types ((dtype, ndim); ndim 0: a scalar), and for a per-user
    kernel the work from which its callers run the parallel (JIT) version instead."""

    function: types.BuiltinFunctionType
    args: tuple[tuple[str, int], ...]
    per_user: bool
    min_work: int

    def accepts(self, args: tuple) -> bool:
        """Whether `args` have exactly the compiled types (arrays: dtype, ndim, C-contiguous; scalars: kind). The
        compiled code does not check its arguments, so nothing else may reach it."""
        if len(args) != len(self.args):
            return False
        for a, (dtype, ndim) in zip(args, self.args):
            if ndim == 0:
                if not isinstance(a, _SCALARS[dtype]) or (dtype != "bool" and isinstance(a, (bool, np.bool_))):
                    return False
            elif not (isinstance(a, np.ndarray) and a.dtype == dtype and a.ndim == ndim and a.flags.c_contiguous):
                return False
        return True


@dataclass(frozen=True)
class Compiled:
    """The built extension module's kernels by (module, name)."""

    kernels: dict[tuple[str, str], Kernel]

    def get(self, module: str, name: str) -> Kernel | None:
        return self.kernels.get((module, name))


_loaded: dict[Path, Compiled | None] = {}


def load(where: Path | None = None) -> Compiled | None:
    """The built kernels if their module exists in `where` (default `directory()`) and is fresh, else None
    (loaded once per process and directory)."""
    if os.environ.get("RECDIV_AOT") == "0":
        return None
    where = directory() if where is None else where
    if where not in _loaded:
        _loaded[where] = _load(where)
    return _loaded[where]


def _load(where: Path) -> Compiled | None:
    try:
        index = json.loads((where / INDEX).read_text())
        if index["hash"] != sources_hash(index["sources"]):
            return None
        from importlib.machinery import ExtensionFileLoader
        from importlib.util import module_from_spec, spec_from_loader

        loader = ExtensionFileLoader(NAME, str(where / index["file"]))
        module = module_from_spec(spec_from_loader(NAME, loader))
        loader.exec_module(module)
    except (OSError, ImportError, ValueError, KeyError):  # missing, unreadable or from another build: JIT runs
        return None
    return Compiled({(k["module"], k["name"]): Kernel(getattr(module, k["export"]),
                                                      tuple((d, n) for d, n in k["args"]), k["per_user"],
                                                      k["min_work"]) for k in index["kernels"]})


def _arg_type(t) -> tuple[str, int]:
    """(dtype, ndim) of a numba argument type: C-contiguous arrays and int64 / float64 / boolean scalars only."""
    import numba

    if isinstance(t, numba.types.Array):
        if t.layout != "C":
            raise ValueError(f"AOT argument {t}: arrays must be C-contiguous (declare them [::1])")
        return str(np.dtype(str(t.dtype))), t.ndim
    names = {numba.int64: "int64", numba.float64: "float64", numba.boolean: "bool"}
    if t not in names:
        raise ValueError(f"AOT argument {t}: scalars must be int64, float64 or boolean")
    return names[t], 0


def _entry(dispatcher, n_args: int):
    """A function of exactly n_args arguments that calls `dispatcher` (pycc exports fixed-arity functions; the
    kernel itself stays the numba dispatcher, compiled with its own options)."""
    names = ", ".join(f"a{i}" for i in range(n_args))
    scope = {"kernel": dispatcher}
    exec(f"def entry({names}):\n    return kernel({names})\n", scope)  # generated text: argument names only
    return scope["entry"]


def build(modules: list[types.ModuleType], where: Path | None = None) -> Path:
    """Compile the `AHEAD_OF_TIME` kernels of `modules` into one extension module in `where` (default
    `directory()`); returns the index file. Replaces the previous build atomically (a concurrent reader sees
    the old or the new one)."""
    import tempfile
    import warnings

    with warnings.catch_warnings():  # pycc is "pending deprecation" (numba ≥ 0.57) with no replacement yet
        warnings.simplefilter("ignore")
        from numba.pycc import CC

    where = directory() if where is None else where
    where.mkdir(parents=True, exist_ok=True)
    sources = sorted({str(Path(m.__file__).resolve().relative_to(PACKAGE)) for m in modules})
    digest = sources_hash(sources)
    cc = CC(NAME)
    cc.verbose = False
    cc.target_cpu = "host"  # built where it runs (the install step), as numba's JIT: SIMD of this CPU, not generic
    kernels = []
    for m in modules:
        for name, signature in m.AHEAD_OF_TIME.items():
            obj = getattr(m, name)
            per_user = hasattr(obj, "serial")
            export = f"k{len(kernels)}"
            cc.export(export, signature)(_entry(obj.serial if per_user else obj, len(signature.args)))
            kernels.append({"module": m.__name__, "name": name, "export": export, "per_user": per_user,
                            "min_work": int(obj.min_work) if per_user else 0,
                            "args": [_arg_type(t) for t in signature.args]})
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        cc.output_dir = tmp
        cc.compile()
        (built,) = Path(tmp).glob(NAME + "*")
        target = where / f"{NAME}-{digest[:16]}{''.join(built.suffixes)}"
        os.replace(built, target)
        index = Path(tmp) / INDEX
        index.write_text(json.dumps({"hash": digest, "sources": sources, "file": target.name, "kernels": kernels},
                                    indent=1))
        os.replace(index, where / INDEX)
    for old in where.glob(NAME + "-*"):
        if old != target:
            old.unlink(missing_ok=True)
    _loaded.pop(where, None)
    return where / INDEX
