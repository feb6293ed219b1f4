"""Progress of long commands on stderr: a bar, the elapsed time and an ETA from the work done so far.

A command opens `Progress(description, total)` around its work, in units that are proportional to the time they
take (Monte Carlo samples × pairs for a randomisation test, users for a recommender's scoring, ...), so that the
ETA — remaining units at the rate observed so far — is truthful. Inner loops do not need the object: `tick(n)`
advances the innermost open progress (a no-op when none is open), so library code reports its work without
knowing who is watching. `stage(text, total)` starts a new part of the work with its own total (e.g. fitting a
model, then scoring users); a part of unknown size shows only its elapsed time ("ETA ?").

`TaskEstimate` is the ETA of a list of tasks of different kinds (`recdiv run`): each kind's mean duration is
learned from the finished tasks of that kind; kinds not seen yet are estimated from prior relative weights scaled
by the observed seconds per unit of weight; the remaining time is the sum over the pending tasks divided by the
number of workers.

Bars are drawn only when stderr is a terminal (rich), so pipes, files and tests stay clean. A bar draws on the
terminal itself (`recdiv.console.raw`); its descriptions, which may name runs or systems from data files, are
escaped for the terminal and for rich's markup.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping

_STACK: list[Progress] = []
_LOCK = threading.Lock()


def tick(work: float = 1.0) -> None:
    """Advance the innermost open `Progress` by `work` units (thread-safe; nothing happens when none is open)."""
    if _STACK:
        _STACK[-1].advance(work)


def fmt_seconds(s: float | None) -> str:
    if s is None or s != s or s < 0:
        return "?"
    s = round(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _shown(text: str) -> str:
    """A description as the bar shows it: terminal controls visible, rich markup escaped."""
    from rich.markup import escape

    from recdiv.escape import terminal

    return escape(terminal(text))


class Progress:
    """A progress bar on stderr (no-op when `enabled` is False; default: stderr is a terminal)."""

    def __init__(self, description: str, total: float | None = None, *, enabled: bool | None = None):
        self.description = description
        self.total = total
        self.done = 0.0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar = None
        self._task = None
        self._start = time.perf_counter()

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            from recdiv.console import raw

            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"), transient=True,
                                     console=Console(file=raw(sys.stderr)))
            self._bar.start()
            self._task = self._bar.add_task(_shown(self.description), total=self.total, eta="?")
        _STACK.append(self)
        return self

    def __exit__(self, *exc) -> None:
        if _STACK and _STACK[-1] is self:
            _STACK.pop()
        if self._bar is not None:
            self._bar.stop()

    def eta(self) -> float | None:
        """Seconds left at the rate observed since the stage started (None before any work or without a total)."""
        if not self.total or self.done <= 0:
            return None
        elapsed = time.perf_counter() - self._start
        return elapsed * (self.total - self.done) / self.done

    def advance(self, work: float = 1.0, description: str | None = None) -> None:
        with _LOCK:
            self.done += work
            if self._bar is not None:
                self._bar.update(self._task, completed=self.done, eta=fmt_seconds(self.eta()),
                                 **({"description": _shown(description)} if description else {}))

    def stage(self, description: str, total: float | None = None) -> None:
        """Start a new part of the work: its own description, total and rate."""
        with _LOCK:
            self.description, self.total, self.done = description, total, 0.0
            self._start = time.perf_counter()
            if self._bar is not None:
                self._bar.reset(self._task, total=total, description=_shown(description), eta="?")


class TaskEstimate:
    """ETA of tasks of several kinds (module docstring). priors: relative cost of each kind (unknown kinds: 1)."""

    def __init__(self, pending: Counter, priors: Mapping[str, float], workers: int = 1):
        self.pending = Counter(pending)
        self.priors = dict(priors)
        self.workers = max(1, workers)
        self.seconds: dict[str, list[float]] = {}

    def finished(self, kind: str, seconds: float) -> None:
        self.pending[kind] -= 1
        self.seconds.setdefault(kind, []).append(seconds)

    def per_task(self, kind: str) -> float | None:
        seen = self.seconds.get(kind)
        if seen:
            return sum(seen) / len(seen)
        units = sum(self.priors.get(k, 1.0) * len(v) for k, v in self.seconds.items())
        if units <= 0:
            return None
        return self.priors.get(kind, 1.0) * sum(sum(v) for v in self.seconds.values()) / units

    def remaining(self) -> float | None:
        total = 0.0
        for kind, n in self.pending.items():
            if n <= 0:
                continue
            each = self.per_task(kind)
            if each is None:
                return None
            total += each * n
        return total / self.workers
