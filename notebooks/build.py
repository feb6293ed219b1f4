"""Build the teaching notebooks (`notebooks/*.ipynb`) from their percent-format sources (`notebooks/src/*.py`).

The sources are plain Python files that diff well; cells start with a line ``# %%`` (code) or
``# %% [markdown]`` (markdown, every line a comment ``# text``). The notebooks are written without outputs and
with deterministic cell ids, so rebuilding an unchanged source gives the same bytes.

    python notebooks/build.py            # rebuild every notebook
    python notebooks/build.py --check    # exit 1 if a notebook is out of date with its source
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
_MARKER = re.compile(r"^# %%(?:\s+\[(?P<kind>markdown|md)\])?\s*$")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def _strip_comment(line: str) -> str:
    if line.startswith("# "):
        return line[2:]
    if line.rstrip() == "#":
        return ""
    raise ValueError(f"markdown line is not a comment: {line!r}")


def parse_percent(text: str) -> list[tuple[str, str]]:
    """[(kind, source)] cells of a percent-format file; text before the first marker is ignored (module docs)."""
    cells: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        m = _MARKER.match(line)
        if m:
            cells.append(("markdown" if m.group("kind") else "code", []))
        elif cells:
            cells[-1][1].append(line)
    out = []
    for kind, lines in cells:
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if kind == "markdown":
            lines = [_strip_comment(x) for x in lines]
        if lines:
            out.append((kind, "\n".join(lines)))
    return out


def build_notebook(source: Path) -> nbformat.NotebookNode:
    cells = []
    for n, (kind, text) in enumerate(parse_percent(source.read_text(encoding="utf-8"))):
        cell = new_markdown_cell(text) if kind == "markdown" else new_code_cell(text)
        cell["id"] = f"{source.stem[:2]}-{n:03d}"
        cells.append(cell)
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["recdiv"] = {"source": f"notebooks/src/{source.name}", "generated_by": "notebooks/build.py"}
    nbformat.validate(nb)
    return nb


def render(source: Path) -> str:
    return nbformat.writes(build_notebook(source)) + "\n"


def targets() -> dict[Path, Path]:
    """{source: notebook} for every source file."""
    return {src: HERE / f"{src.stem}.ipynb" for src in sorted(SRC.glob("*.py"))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the notebooks are up to date")
    args = ap.parse_args(argv)
    stale = []
    for src, nb in targets().items():
        text = render(src)
        current = nb.read_text(encoding="utf-8") if nb.exists() else None
        if current == text:
            continue
        stale.append(nb.name)
        if not args.check:
            nb.write_text(text, encoding="utf-8")
            print(f"wrote {nb.relative_to(HERE.parent)}")
    if args.check and stale:
        print(f"out of date (run python notebooks/build.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
