"""Where a command's text output goes: a file (written atomically) or standard output."""

from __future__ import annotations

import sys
from pathlib import Path


def emit(text: str, path: str | Path | None) -> None:
    """Write `text` to `path` atomically (`recdiv.outputs.write_text`), or print it when `path` is None."""
    if path:
        from recdiv.outputs import write_text

        write_text(path, text)
    else:
        sys.stdout.write(text)
