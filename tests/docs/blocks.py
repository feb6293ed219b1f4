"""The code blocks of README.md and docs/*.md, and how each is run (the rule of tests/docs/test_docs_run.py).

The rule, stated once (docs/architecture.md, "Docs that run", repeats it for authors):

- a fenced block tagged ``python`` is Python: the blocks of one document run in order in one namespace, in the
  document's folder (which is on ``sys.path``, as for ``python`` started there); a block whose first line is
  ``# file: NAME.py`` is also saved as that file first, so that later blocks and commands can import it;
- a fenced block tagged ``sh``, ``console``, ``bash`` or ``shell`` is a shell example: each line starting with
  ``$ `` is a command (a line ending in ``\\`` continues on the next), every other line is shown output and is
  not run; the commands of one document run in order in one folder, with ``recdiv`` on PATH and the data at
  ``../shared/data``, and must succeed — except a command whose shown output starts with ``recdiv: error:``,
  which must fail with exit status 2 and print that very line (documented errors are checked);
- a block (either kind) whose first line is the comment ``# not run by the docs test: REASON`` is reported with
  its reason and checked without being run: Python is compiled, a ``recdiv`` command is parsed by recdiv's own
  argument parser (so a renamed option still fails);
- every other fence (``toml``, ``text``, untagged: file contents, synopses, diagrams, output) is not code;
  indented (4-space) code blocks are not allowed outside lists: a command must be fenced and tagged to be run.

A fence must be closed, and a table must start after a blank line with a delimiter row under its header (a
paragraph between two parts of a table breaks it): both are checked.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from recdiv.data.locate import REPO_ROOT

PYTHON = {"python", "py"}
SHELL = {"sh", "console", "bash", "shell"}
SAVE_AS = re.compile(r"^#\s*file:\s*(?P<name>[\w.-]+\.py)\s*$")
NOT_RUN = re.compile(r"^\s*#\s*not run by the docs test:\s*(?P<reason>\S.*)$")
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<info>[^`]*)$")
_COMMAND = re.compile(r"^(\$ |recdiv |make |python|pip |\.venv/)")
_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def documents() -> list[Path]:
    """README.md and every docs/*.md, in a fixed order."""
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


@dataclass
class Block:
    """One fenced block: where it starts (1-based line of its opening fence), its tag and its dedented text."""

    path: Path
    line: int
    lang: str
    text: str
    skip_reason: str | None = field(default=None)
    save_as: str | None = field(default=None)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO_ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in PYTHON | SHELL and self.skip_reason is None

    def steps(self) -> list[tuple[str, list[str]]]:
        """A shell block's (command, shown output lines): each `$ ` line joined with its `\\` continuation lines,
        and the lines after it up to the next command."""
        out: list[tuple[str, list[str]]] = []
        current: str | None = None
        for line in self.text.splitlines():
            if current is not None:
                current += "\n" + line
            elif line.startswith("$ "):
                current = line[2:]
            else:
                if out and not line.lstrip().startswith("#"):
                    out[-1][1].append(line)
                continue
            if not current.endswith("\\"):
                out.append((current, []))
                current = None
        if current is not None:
            out.append((current, []))
        return out

    def commands(self) -> list[str]:
        return [command for command, _ in self.steps()]


class DocError(ValueError):
    """A document that cannot be read as the rule says (an unclosed fence, a broken table, ...)."""


def parse(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, in order; DocError on an unclosed fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m["indent"]), m["fence"], m["info"].strip()
        body, j = [], i + 1
        while j < len(lines) and not re.match(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j].lstrip())
            j += 1
        if j == len(lines):
            raise DocError(f"{path.relative_to(REPO_ROOT)}:{i + 1}: unclosed ``` fence (it swallows the rest of "
                           "the page)")
        lang = info.split()[0].lower() if info else ""
        text = "\n".join(body) + "\n"
        first = next((b for b in body if b.strip()), "")
        skip = NOT_RUN.match(first)
        save = SAVE_AS.match(first.strip()) if lang in PYTHON else None
        blocks.append(Block(path, i + 1, lang, text, skip["reason"].strip() if skip else None,
                            save["name"] if save else None))
        i = j + 1
    return blocks


def layout_problems(path: Path) -> list[str]:
    """Broken tables and indented code blocks outside fences (each `file:line: problem`)."""
    rel = path.relative_to(REPO_ROOT)
    lines = path.read_text(encoding="utf-8").splitlines()
    problems, in_fence, fence = [], False, ""
    prev = ""
    in_list = False
    for n, line in enumerate(lines, 1):
        m = _FENCE.match(line)
        if in_fence:
            if re.match(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}\s*$", line):
                in_fence = False
            prev = ""
            continue
        if m:
            in_fence, fence, prev = True, m["fence"], ""
            body = next((ln.strip() for ln in lines[n:] if ln.strip()), "")
            if not m["info"].strip() and _COMMAND.match(body):
                problems.append(f"{rel}:{n}: a command in an untagged fence is not run: tag it ```sh and put `$ ` "
                                "before each command (```text for a synopsis)")
            continue
        stripped = line.strip()
        if re.match(r"^\s*([-*+]|\d+[.)])\s", line):
            in_list = True
        elif not stripped:
            pass
        elif not line.startswith(" "):
            in_list = False
        if _is_row(stripped) and not _is_row(prev.strip()):
            nxt = lines[n] if n < len(lines) else ""
            if prev.strip():
                problems.append(f"{rel}:{n}: table row right after a paragraph (a table needs a blank line before "
                                "it, and a paragraph inside a table breaks it in two)")
            elif not _DELIMITER.match(nxt):
                problems.append(f"{rel}:{n}: table without a delimiter row (|---|) under its header")
        if line.startswith("    ") and not prev.strip() and not in_list and _COMMAND.match(stripped):
            problems.append(f"{rel}:{n}: a command in an indented block is not run: fence it as ```sh with `$ ` "
                            "before each command (```text for a synopsis)")
        prev = line
    return problems


def _is_row(line: str) -> bool:
    return len(line) > 1 and line.startswith("|") and line.endswith("|")


def parse_recdiv(command: str) -> list[str] | None:
    """The argument list of a `recdiv ...` command line (None for another program)."""
    words = shlex.split(command, comments=True)
    return words[1:] if words and words[0] == "recdiv" else None
