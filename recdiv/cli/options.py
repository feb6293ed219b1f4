"""Option types of the command line: a value is checked where it enters (argparse), so a bad option is one line
`recdiv: error: argument --seed: must be a non-negative integer, got '-1'` before any file is read or any work
starts."""

from __future__ import annotations

import argparse
import math


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


def finite_float(text: str) -> float:
    """A threshold or level: a finite number (`nan` would make every comparison false, every metric 0)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return v
