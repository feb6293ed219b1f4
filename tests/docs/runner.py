"""Running a document's blocks as tests/docs/blocks.py's rule says: in order, Python in one namespace, shell
commands in one folder laid out like a checkout (``examples/`` beside it, the data at ``../shared/data``)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from recdiv.data.locate import REPO_ROOT
from tests.docs.blocks import PYTHON, SHELL, Block, parse, parse_recdiv

BIN = Path(sys.executable).parent


@dataclass
class Outcome:
    """What running a document did: the blocks run, those reported as not run (with reasons), the failures,
    and each command's or Python block's output by block."""

    ran: list[str] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    outputs: dict[str, list[subprocess.CompletedProcess | str]] = field(default_factory=dict)


def workspace(root: Path, data: Path) -> Path:
    """A folder laid out like a checkout's: `examples/` beside it and the data at `../shared/data`."""
    work = root / "work"
    work.mkdir()
    (root / "shared").mkdir()
    (root / "shared" / "data").symlink_to(data, target_is_directory=True)
    (work / "examples").symlink_to(REPO_ROOT / "examples", target_is_directory=True)
    return work


def environment(data: Path) -> dict[str, str]:
    """The shell's environment: recdiv (this interpreter's) first on PATH, RECDIV_DATA, no colour."""
    env = dict(os.environ, RECDIV_DATA=str(data), NO_COLOR="1", COLUMNS="120", TERM="dumb")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def check_not_run(block: Block) -> str | None:
    """A block reported as not run is still checked: Python compiles; a recdiv command parses."""
    if block.lang in PYTHON:
        try:
            compile(block.text, block.where, "exec")
        except SyntaxError as e:
            return f"{block.where}: does not compile: {e}"
        return None
    from recdiv.cli import build_parser

    for command in block.commands():
        argv = parse_recdiv(command.replace("\\\n", " "))
        if argv is None:
            continue
        try:
            build_parser(argv[0] if argv else "").parse_args(argv)
        except Exception as e:
            return f"{block.where}: `{command}` does not parse: {e}"
        except SystemExit as e:
            if e.code not in (0, None):
                return f"{block.where}: `{command}` does not parse (exit {e.code})"
    return None


def run_python(block: Block, namespace: dict, out: Outcome, work: Path) -> None:
    if block.save_as:
        (work / block.save_as).write_text(block.text, encoding="utf-8")
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(block.text, block.where, "exec"), namespace)
    except BaseException as e:
        tb = "".join(traceback.format_exception(e)[-6:])
        out.failures.append(f"{block.where}: the python block fails:\n{tb}")
    out.outputs.setdefault(block.where, []).append(buffer.getvalue())


def run_shell(block: Block, work: Path, env: dict[str, str], out: Outcome, timeout: float) -> None:
    for command, shown in block.steps():
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=work, env=env,
                              capture_output=True, text=True, timeout=timeout)
        out.outputs.setdefault(block.where, []).append(proc)
        error = shown[0].strip() if shown and shown[0].startswith("recdiv: error:") else None
        if error is None and proc.returncode != 0:
            out.failures.append(f"{block.where}: `{command}` exits {proc.returncode}:\n{proc.stderr[-2000:]}")
            return
        if error is not None and (proc.returncode != 2 or error not in proc.stderr.splitlines()):
            out.failures.append(f"{block.where}: `{command}` should fail with `{error}` (exit 2); it exits "
                                f"{proc.returncode} with:\n{proc.stderr[-2000:]}")


def run_document(path: Path, root: Path, data: Path, timeout: float = 300) -> Outcome:
    """Every block of one document, in order (a failing block does not stop the next ones)."""
    out = Outcome()
    work = workspace(root, data)
    env = environment(data)
    namespace: dict = {"__name__": "__docs__"}
    cwd, saved_path = Path.cwd(), list(sys.path)
    os.chdir(work)
    sys.path.insert(0, str(work))
    modules = set(sys.modules)
    try:
        with _env(RECDIV_DATA=str(data)):
            for block in parse(path):
                if block.lang not in PYTHON | SHELL:
                    continue
                if block.skip_reason is not None:
                    out.not_run.append(f"{block.where}: {block.skip_reason}")
                    problem = check_not_run(block)
                    if problem:
                        out.failures.append(problem)
                    continue
                out.ran.append(block.where)
                if block.lang in PYTHON:
                    run_python(block, namespace, out, work)
                else:
                    run_shell(block, work, env, out, timeout)
    finally:
        os.chdir(cwd)
        sys.path[:] = saved_path
        for name in set(sys.modules) - modules:  # the document's own modules (popmmr.py, ...) go with its folder
            if getattr(sys.modules[name], "__file__", None) and str(work) in str(sys.modules[name].__file__):
                del sys.modules[name]
    return out


@contextlib.contextmanager
def _env(**values: str):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
