"""The reference part of docs/diversifiers.md, generated from the registered reranker classes as docs/metrics.md is
from the measures: one row per reranker with its name, its parameters and defaults (from its typed `Config`), its
objective (`FORMULA`) and its source (`CITATION`); then the settings that keep the baseline order (`PURE_RELEVANCE`).

`python -m recdiv.diversifiers.docs` rewrites the table between the two markers of docs/diversifiers.md
(`tests/diversifiers/test_docs_table.py` fails when it is out of date).
"""

from __future__ import annotations

import sys
import typing
from pathlib import Path

from recdiv.diversifiers.registry import RERANKERS

BEGIN = "<!-- the reranker table: generated from the reranker classes by `python -m recdiv.diversifiers.docs` -->"
END = "<!-- end of the generated reranker table -->"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "diversifiers.md"


def _value(v) -> str:
    return f"{v:g}".replace("-", "−") if isinstance(v, float) else str(v)


def parameters(cls) -> str:
    """`name`=default for each parameter (the other allowed values after the default for a choice; its description
    when it has one)."""
    out = []
    for name, field in cls.Config.model_fields.items():
        choices = typing.get_args(field.annotation) if typing.get_origin(field.annotation) is typing.Literal else ()
        values = [field.default, *(c for c in choices if c != field.default)]
        note = f" ({field.description})" if field.description else ""
        out.append(f"`{field.alias or name}`=" + "\\|".join(_value(v) for v in values) + note)
    return ", ".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").strip()


def table() -> str:
    """The Markdown table of every registered reranker, in registration order."""
    lines = ["| name | parameters (defaults) | objective f(i \\| S) | source |", "|---|---|---|---|"]
    for entry in RERANKERS.entries():
        cls = entry.obj
        lines.append(f"| `{entry.name}` | {parameters(cls)} | {_cell(cls.FORMULA)} | {_cell(cls.CITATION)} |")
    return "\n".join(lines)


def pure_relevance() -> str:
    """The sentence naming each reranker's settings that keep the baseline order (its `PURE_RELEVANCE`)."""
    kept = []
    for entry in RERANKERS.entries():
        settings = [", ".join(f"`{k}`={_value(v)}" for k, v in setting.items()) for setting in entry.obj.PURE_RELEVANCE]
        if settings:
            kept.append(f"{entry.name} " + " or ".join(settings))
    return ("Pure-relevance settings keep the baseline order (`PURE_RELEVANCE`, checked by the conformance suite): "
            + "; ".join(kept) + ".")


def updated(text: str) -> str:
    """`text` (docs/diversifiers.md) with the generated table and the pure-relevance settings between its markers."""
    head, sep, rest = text.partition(BEGIN + "\n")
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{DOCS} has lost its markers {BEGIN!r} … {END!r}")
    return f"{head}{BEGIN}\n\n{table()}\n\n{pure_relevance()}\n\n{END}{tail}"


if __name__ == "__main__":
    DOCS.write_text(updated(DOCS.read_text(encoding="utf-8")), encoding="utf-8")
    sys.stdout.write(f"wrote {DOCS}\n")
