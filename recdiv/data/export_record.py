"""The record of a `recdiv data export` folder (``export.json``) as the evaluation commands read it: the relevance
threshold its qrels need. Kept apart from `recdiv.data.export` (which needs pandas) so that `recdiv eval` of a
plain qrels file imports no heavy library."""

from __future__ import annotations

import json
import os
from pathlib import Path

RECORD = "export.json"


def recorded_threshold(qrels: str | Path) -> tuple[float, Path] | None:
    """(τ, the record) when `qrels` is the qrels file of a `recdiv data export` folder whose export.json records the
    threshold it needs; None otherwise (or when the record is not one, or `qrels` is a table, not a file)."""
    if not isinstance(qrels, str | os.PathLike):
        return None
    path = Path(qrels)
    record = path.parent / RECORD
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        if data.get("qrels") != path.name or not path.parent.samefile(record.parent):
            return None
        tau = data["threshold"]
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return None
    if isinstance(tau, bool) or not isinstance(tau, int | float) or tau != tau or abs(tau) == float("inf"):
        return None
    return float(tau), record
