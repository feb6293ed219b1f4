"""Errors raised where bad input enters recdiv (loaders, parsers, config validation)."""

from __future__ import annotations

from pathlib import Path


class RecdivError(Exception):
    """Base class of recdiv's user-facing errors: the CLI prints the message (no traceback) and exits 2."""


class DataError(RecdivError):
    """Bad input data: names the file, the line (1-based) and the problem.

    >>> str(DataError("bad rating 'x'", path="u.data", line=3))
    "u.data:3: bad rating 'x'"
    """

    def __init__(self, problem: str, path: str | Path | None = None, line: int | None = None):
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path if line is None else f"{self.path}:{line}"
            where += ": "
        super().__init__(where + problem)


class ConfigError(RecdivError):
    """Bad configuration or parameter (an unknown measure name, a bad key in an experiment file, ...)."""
