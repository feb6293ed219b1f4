"""Option types of the command line: a value is checked where it enters (argparse), so a bad option is one line
`recdiv: error: argument --seed: must be a non-negative integer, got '-1'` before any file is read or any work
starts."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def seed(text: str) -> int:
    """A random seed: an integer ≥ 0 (NumPy's generators take no negative seeds)."""
    v = _int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return v


def positive_int(text: str) -> int:
    """A count or a length: an integer ≥ 1."""
    v = _int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return v


def at_most(limit: int, why: str = "") -> Callable[[str], int]:
    """A positive integer no larger than a stated limit of `recdiv.limits` (e.g. Monte Carlo samples)."""
    def check(text: str) -> int:
        v = positive_int(text)
        if v > limit:
            because = f"{why}; " if why else ""
            raise argparse.ArgumentTypeError(f"must be at most {limit:,}, got {text!r} ({because}see docs/limits.md)")
        return v

    return check


def finite_float(text: str) -> float:
    """A threshold or level: a finite number (`nan` would make every comparison false, every metric 0)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return v


class Paths:
    """Which arguments of a command name the files it reads and writes, for the one output guard
    (`recdiv.outputs.guard_outputs`), which `recdiv.cli.main` calls before the command does anything.

    `inputs`: argument names (dests) holding input paths (a path, a list of paths or None); `files`: dest → option
    of an output file; `folders`: dest → (option, glob patterns of the names written in that folder, or a function
    giving them); `extra`: a function of the parsed arguments giving more inputs (e.g. a dataset's folder found by
    name); `or_folder`: dest → glob patterns, for an output file option that may also name a folder (checked as a
    folder output writing those names when it is one: `rerank -o DIR` of sampled rankings)."""

    def __init__(self, inputs: Iterable[str] = (), files: Mapping[str, str] | None = None,
                 folders: Mapping[str, tuple[str, tuple[str, ...] | Callable[[], tuple[str, ...]]]] | None = None,
                 extra: Callable[[argparse.Namespace], Iterable[object]] | None = None,
                 or_folder: Mapping[str, tuple[str, ...]] | None = None):
        self.inputs, self.files, self.folders, self.extra = tuple(inputs), dict(files or {}), dict(folders or {}), extra
        self.or_folder = dict(or_folder or {})

    def check(self, args: argparse.Namespace) -> None:
        from recdiv.outputs import guard_outputs

        inputs: list = []
        for dest in self.inputs:
            value = getattr(args, dest, None)
            inputs += value if isinstance(value, list | tuple) else [value]
        inputs += getattr(args, "measures", None) or []  # -m values that name files are positionals (eval, compare)
        if self.extra is not None:
            inputs += list(self.extra(args))
        files = {dest: opt for dest, opt in self.files.items()}
        folders = {dest: (opt, pats() if callable(pats) else pats) for dest, (opt, pats) in self.folders.items()}
        for dest, pats in self.or_folder.items():
            value = getattr(args, dest, None)
            if dest in files and value is not None and Path(value).is_dir():
                folders[dest] = (files.pop(dest), pats)
        guard_outputs(inputs, files={opt: getattr(args, dest, None) for dest, opt in files.items()},
                      folders={opt: (getattr(args, dest, None), pats) for dest, (opt, pats) in folders.items()})


def dataset_folder(name: str | None, data_dir: str | None = None) -> list:
    """The folder of a dataset given by name or path (an input of the command), if there is one."""
    from recdiv.data.locate import dataset_path
    from recdiv.errors import RecdivError

    if not name or str(name).startswith("synthetic"):
        return []
    try:
        return [dataset_path(name, data_dir)]
    except RecdivError:  # not found: the command says so when it loads it
        return []
