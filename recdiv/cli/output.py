"""Where a command's text output goes: a file (written atomically) or standard output."""

from __future__ import annotations

from pathlib import Path


def emit(text: str, path: str | Path | None) -> None:
    """Write `text` to `path` atomically, or print it when `path` is None."""
    if path:
        from recdiv.data.textio import atomic_write

        with atomic_write(path) as fh:
            fh.write(text)
    else:
        print(text, end="")
