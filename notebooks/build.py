"""Build the teaching notebooks (`notebooks/*.ipynb`) from their percent-format sources (`notebooks/src/*.py`) and
execute them, so that the committed notebooks carry their outputs and a class can read them without running
anything (`make notebooks`).

The sources are plain Python files that diff well; cells start with a line ``# %%`` (code) or
``# %% [markdown]`` (markdown, every line a comment ``# text``). Cell ids are deterministic. Executing runs every
notebook in a kernel pinned to this interpreter (reads the data from RECDIV_DATA or ../shared/data) and keeps the
outputs (figures as PNG at 80 dpi, so each notebook stays well under 1 MB); execution metadata (timings) is dropped.

    python notebooks/build.py --execute  # rebuild and execute every notebook (make notebooks)
    python notebooks/build.py            # rebuild the cells only, keeping no outputs
    python notebooks/build.py --check    # exit 1 if a notebook's cells are out of date or it lacks outputs
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


def cells_of(nb: nbformat.NotebookNode) -> list[tuple[str, str, str]]:
    """(id, type, source) of every cell: what must match the source file, outputs aside."""
    return [(c["id"], c.cell_type, c.source) for c in nb.cells]


MAX_BYTES = 1_000_000


def problems(source: Path, notebook: Path) -> list[str]:
    """Why the committed `notebook` is not the executed build of `source` (empty when it is)."""
    if not notebook.exists():
        return [f"{notebook.name} is missing"]
    text = notebook.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    out = []
    if cells_of(nb) != cells_of(build_notebook(source)):
        out.append(f"{notebook.name}: cells differ from {source.name}")
    if any(c.cell_type == "code" and c.get("execution_count") is None for c in nb.cells):
        out.append(f"{notebook.name}: not executed (a code cell has no execution count)")
    if any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", [])):
        out.append(f"{notebook.name}: a cell failed")
    if len(text.encode("utf-8")) > MAX_BYTES:
        out.append(f"{notebook.name}: {len(text.encode('utf-8'))} bytes (limit {MAX_BYTES})")
    return out


def execute(nb: nbformat.NotebookNode, kernel: str = "python3", timeout: int = 900) -> nbformat.NotebookNode:
    """Run every cell in a kernel named `kernel` (see `pinned_kernel`); figures at 80 dpi; timings dropped."""
    from nbclient import NotebookClient

    setup = nbformat.v4.new_code_cell("import matplotlib\nmatplotlib.rcParams['figure.dpi'] = 80")
    nb.cells.insert(0, setup)
    NotebookClient(nb, kernel_name=kernel, timeout=timeout, resources={"metadata": {"path": str(HERE)}}).execute()
    nb.cells.pop(0)
    for i, c in enumerate(c for c in nb.cells if c.cell_type == "code"):
        c["execution_count"] = i + 1
        c.metadata.pop("execution", None)
        for o in c.get("outputs", []):
            if "execution_count" in o:
                o["execution_count"] = i + 1
    return nb


def pinned_kernel(root: Path) -> dict[str, str]:
    """Environment that makes kernel "python3" run this interpreter (a kernelspec under `root`, first on
    JUPYTER_PATH), whatever kernels the machine has installed."""
    import json

    spec = root / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "recdiv kernel", "language": "python"}))
    return {"JUPYTER_PATH": str(root / "jupyter"), "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
            "IPYTHONDIR": str(root / "ipython"), "MPLCONFIGDIR": str(root / "mpl")}


def targets() -> dict[Path, Path]:
    """{source: notebook} for every source file."""
    return {src: HERE / f"{src.stem}.ipynb" for src in sorted(SRC.glob("*.py"))}


def main(argv: list[str] | None = None) -> int:
    import os
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the notebooks are built and executed")
    ap.add_argument("--execute", action="store_true", help="execute the notebooks and keep their outputs")
    ap.add_argument("names", nargs="*", help="only these notebooks (e.g. 03)")
    args = ap.parse_args(argv)
    chosen = {s: nb for s, nb in targets().items() if not args.names or any(s.name.startswith(n) for n in args.names)}
    if args.check:
        bad = [p for src, nb in chosen.items() for p in problems(src, nb)]
        for p in bad:
            print(p, file=sys.stderr)
        if bad:
            print("run `make notebooks` (python notebooks/build.py --execute)", file=sys.stderr)
        return 1 if bad else 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.execute:
            os.environ.update(pinned_kernel(Path(tmp)))
        for src, path in chosen.items():
            nb = build_notebook(src)
            if args.execute:
                nb = execute(nb)
            path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent)} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
