"""What a command prints: standard output and error made safe for the terminal, any encoding and any disk.

`recdiv.cli.main` runs every command inside `streams()`, which puts `SafeStream`s in place of ``sys.stdout`` and
``sys.stderr``:

- every string written goes through `recdiv.escape.terminal` — a run name holding ``ESC[2J`` prints as
  ``\\u001b[2J`` instead of clearing the screen, a bidirectional override is shown instead of reordering the line;
- a stream whose encoding cannot hold recdiv's symbols (``PYTHONIOENCODING=ascii``, an ASCII terminal) gets the
  ``recdiv-ascii`` error handler: τ prints as ``tau``, ≥ as ``>=``, ▲ as ``^``, é as ``e``, and what has no
  spelling as ``\\uXXXX`` — never an encoding error;
- an operating-system refusal to write (a full disk under ``> file``, a closed terminal) becomes one
  `OutputError` naming the stream (the command's one-line error, exit status 2); a closed pipe (``| head``) ends
  the command quietly. Either way the stream is then pointed at the null device, so that Python's final flush
  has nothing left to fail on.

Code that draws on the terminal itself (progress bars, rich tables) writes to `raw(sys.stderr)` and escapes the
data it shows with `recdiv.escape.terminal`.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import sys
from collections.abc import Iterator

from recdiv.errors import RecdivError
from recdiv.escape import terminal

#: ASCII spellings of the symbols recdiv prints (others: their decomposition without accents, else \uXXXX)
ASCII = {"τ": "tau", "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "eps", "θ": "theta",
         "λ": "lambda", "μ": "mu", "π": "pi", "ρ": "rho", "σ": "sigma", "φ": "phi", "Δ": "Delta", "Σ": "Sum",
         "≥": ">=", "≤": "<=", "≠": "!=", "≈": "~", "±": "+/-", "×": "x", "·": "*", "−": "-", "–": "-", "—": "--",
         "…": "...", "→": "->", "←": "<-", "⇔": "<=>", "⇒": "=>", "↑": "^", "↓": "v", "▲": "^", "▼": "v",
         "●": "*", "○": "o", "★": "*", "✓": "v", "✗": "x", "∞": "inf", "√": "sqrt", "²": "^2", "∈": " in ",
         "∪": "|", "∩": "&", "“": '"', "”": '"', "‘": "'", "’": "'", "«": '"', "»": '"', "\u00a0": " ",
         "│": "|", "─": "-", "┃": "|", "━": "-", "┏": "+", "┓": "+", "┗": "+", "┛": "+", "┌": "+", "┐": "+",
         "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+", "╭": "+", "╮": "+", "╰": "+",
         "╯": "+", "█": "#", "░": ".", "▏": "|"}


def _ascii(ch: str) -> str:
    if ch in ASCII:
        return ASCII[ch]
    import unicodedata  # deferred: only a stream that cannot encode a character needs it

    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return plain if plain and plain.isprintable() else f"\\u{ord(ch):04x}"


def _degrade(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return "".join(_ascii(ch) for ch in err.object[err.start:err.end]), err.end


codecs.register_error("recdiv-ascii", _degrade)


class OutputError(RecdivError):
    """A command's standard output or error could not be written (full disk, closed terminal)."""


class PipeClosed(Exception):
    """The reader of a pipe went away (``recdiv eval ... | head``): the command ends quietly."""


class SafeStream:
    """A text stream whose writes are escaped for the terminal and whose write errors are clean (module docstring)."""

    def __init__(self, stream, name: str):
        self._stream = stream
        self._name = name
        self._dead = False

    @property
    def raw_stream(self):
        return self._stream

    def _fail(self, e: OSError):
        self._dead = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, self._stream.fileno())  # Python's final flush then writes to the null device
            os.close(fd)
        if e.errno == errno.EPIPE:
            raise PipeClosed() from None
        from recdiv.outputs import reason

        raise OutputError(f"cannot write to standard {self._name}: {reason(e)}") from None

    def write(self, text: str) -> int:
        if self._dead:
            return len(text)
        try:
            self._stream.write(terminal(text))
        except OSError as e:
            self._fail(e)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._dead:
            return
        try:
            self._stream.flush()
        except OSError as e:
            self._fail(e)
        except ValueError:  # closed
            pass

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name):  # fileno, encoding, errors, buffer, ...
        return getattr(self._stream, name)


def raw(stream):
    """The stream under a `SafeStream` (itself otherwise): for code that writes terminal control sequences."""
    return getattr(stream, "raw_stream", stream)


def _degrading(stream) -> None:
    """Give `stream` the recdiv-ascii error handler when its encoding cannot hold recdiv's symbols."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "τ≥▲●→é".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="recdiv-ascii")


@contextlib.contextmanager
def streams() -> Iterator[None]:
    """Standard output and error as `SafeStream`s for the duration of a command (module docstring)."""
    saved = sys.stdout, sys.stderr
    for s in saved:
        _degrading(s)
    sys.stdout, sys.stderr = SafeStream(saved[0], "output"), SafeStream(saved[1], "error")
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
