"""What made an output: recdiv's version and commit, the versions of Python and of the numeric and recommender
libraries, and the command or configuration — recorded in every output that can hold it, so that a table in a paper
can say exactly what computed it.

No wall-clock time and nothing else that changes between two runs is recorded: the same command on the same inputs
writes the same bytes. Where an output holds it:

- JSON (`recdiv compare|eval|meta|axioms --format json`, an experiment's manifest.json): a ``"provenance"`` object;
- LaTeX, Markdown and HTML: comment lines (``% recdiv provenance: …``, ``<!-- recdiv provenance: … -->``), and in
  HTML pages also a visible footer line;
- Parquet (an experiment's per-user scores): the file's key-value metadata ``recdiv.provenance`` (JSON);
- plain text for people (`recdiv data export`'s README.txt): the same lines.

CSV and TREC run files have no comment syntax that every reader skips (pandas, spreadsheets and trec_eval would
read a comment as data), so they carry none: the manifest or the command's own output records them.
Every text line starts, after its comment leader, with ``recdiv provenance:`` or ``recdiv command:``, so a
comparison of outputs can leave them out (bench/golden.py: ``--ignore-line 'recdiv (provenance|command):'``
and ``--ignore-json-key provenance``).
"""

from __future__ import annotations

import platform
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from recdiv import escape

#: the libraries whose versions are recorded (distribution names), in this order
LIBRARIES = ("numpy", "scipy", "numba", "pandas", "pyarrow", "scikit-learn", "implicit", "lenskit", "torch")
_ROOT = Path(__file__).resolve().parents[1]


@cache
def versions() -> dict[str, str]:
    """{name: version} of recdiv, Python and the installed `LIBRARIES` (read from the installed metadata, without
    importing them)."""
    from importlib.metadata import PackageNotFoundError, version

    from recdiv import __version__

    out = {"recdiv": __version__, "python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


@cache
def commit() -> str | None:
    """The git commit of the checkout recdiv runs from (``+dirty`` when tracked files differ from it), or None for
    an installed copy (no checkout around it) or when git is not available."""
    if not ((_ROOT / ".git").exists() and (_ROOT / "pyproject.toml").is_file()):
        return None
    try:
        head = subprocess.run(["git", "-C", str(_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(_ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def record(command: Sequence[str] | None = None, configuration: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance of an output: versions, commit (when run from a checkout), and the command (an argument
    list, e.g. ``["recdiv", "compare", ...]``) or configuration that made it."""
    v = versions()
    out: dict[str, Any] = {"recdiv": v["recdiv"], "commit": commit(), "python": v["python"],
                           "libraries": {k: x for k, x in v.items() if k not in ("recdiv", "python")}}
    if command is not None:
        out["command"] = _one_line(shlex.join(command))
    if configuration is not None:
        out["configuration"] = dict(configuration)
    return out


def lines(rec: Mapping[str, Any]) -> list[str]:
    """The record as text lines: ``recdiv provenance: recdiv 0.1.0 (commit …), Python …, numpy …, …`` and, when
    known, ``recdiv command: …``."""
    at = f" (commit {rec['commit']})" if rec.get("commit") else ""
    libs = ", ".join(f"{k} {v}" for k, v in rec["libraries"].items())
    out = [f"recdiv provenance: recdiv {rec['recdiv']}{at}, Python {rec['python']}, {libs}"]
    if rec.get("command"):
        out.append(f"recdiv command: {rec['command']}")
    if rec.get("configuration"):
        conf = ", ".join(f"{k} {v}" for k, v in rec["configuration"].items())
        out.append(f"recdiv provenance: configuration {conf}")
    return out


def comment(rec: Mapping[str, Any], leader: str) -> str:
    """The record as comment lines, each starting with `leader` (``%`` for LaTeX, ``#`` for text)."""
    return "".join(f"{leader} {line}\n" for line in lines(rec))


def markdown_comment(rec: Mapping[str, Any]) -> str:
    """The record as Markdown (HTML) comments, one line each: invisible when the Markdown is rendered."""
    return "".join(f"<!-- {_no_comment_end(line)} -->\n" for line in lines(rec))


def html_footer(rec: Mapping[str, Any]) -> str:
    """The record as a visible footer of an HTML page, on a line of its own."""
    body = "<br>".join(escape.html(line) for line in lines(rec))
    return f"\n<footer class='provenance'>{body}</footer>\n"


def _one_line(text: str) -> str:
    """Control characters (a newline in a file name) as ``\\uXXXX``: a comment line stays one line."""
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 32 or c == "\x7f" else c for c in text)


def _no_comment_end(text: str) -> str:
    """Text inside an HTML comment: ``& < >`` as entities (`recdiv.escape.html`), so that neither ``-->`` nor
    ``--!>`` can end the comment and no markup from a file name appears in the file."""
    return escape.html(text)


def of_command(args) -> dict[str, Any]:
    """The record of a `recdiv` command (its parsed arguments carry the command line: `recdiv.cli.main`)."""
    return record(getattr(args, "command_line", None))
