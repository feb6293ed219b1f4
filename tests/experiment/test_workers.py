"""Worker processes die with their parent: `recdiv run --jobs 2` killed with a real SIGKILL leaves no process and no
temporary folder (multiprocessing's ``pymp-*``) behind. Linux: processes are found through /proc."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from tests.experiment.test_interrupt import SMALL_TOML

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                                                   reason="finds processes through Linux's /proc")]

ROOT = Path(__file__).resolve().parents[2]


def _marked(mark: str) -> list[int]:
    """Pids of the processes whose environment holds `mark` (the run and everything it started)."""
    needle = f"RECDIV_TEST_MARK={mark}".encode()
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if needle in (p / "environ").read_bytes().split(b"\0"):
                    pids.append(int(p.name))
            except OSError:  # gone, or a zombie
                continue
    return pids


def _wait_for(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {seconds} s waiting for {what}"
        time.sleep(0.05)


def _kill_and_check(proc: subprocess.Popen, mark: str, tmp: Path) -> None:
    """SIGKILL the main process; then every process it started ends and `tmp` (its TMPDIR) is left empty."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    _wait_for(lambda: not _marked(mark), 30, "the workers, forkserver and resource tracker to end")
    assert not list(tmp.iterdir()), f"temporary files left behind: {list(tmp.iterdir())}"


def _clean_up(proc: subprocess.Popen, mark: str, tmp: Path) -> None:
    """Never leave processes or folders behind, even when the test fails."""
    shutil.rmtree(tmp, ignore_errors=True)
    for pid in _marked(mark):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_sigkill_of_the_main_process_leaves_no_worker_and_no_temporary_folder(tmp_path):
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL_TOML, "utf-8")
    tmp = Path(tempfile.mkdtemp(prefix="rd-", dir="/tmp"))  # short: the forkserver's socket path must fit 107 bytes
    mark = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "RECDIV_TEST_MARK": mark}
    cmd = [sys.executable, "-m", "recdiv", "run", str(toml), "--out", str(tmp_path / "out"), "--jobs", "2", "--quiet"]
    log = tmp_path / "run.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # the forkserver and both workers are up (the resource tracker may be too) and the workers are busy
        _wait_for(lambda: proc.poll() is not None or
                  (len(set(_marked(mark)) - {proc.pid}) >= 3 and any((tmp_path / "out" / "cache").rglob("*.npz"))),
                  120, "the worker processes")
        assert proc.poll() is None, f"the run ended before it could be killed: {log.read_text(errors='replace')}"
        assert list(tmp.glob("pymp-*")), "multiprocessing's temporary folder is where the test looks for it"
        _kill_and_check(proc, mark, tmp)
    finally:
        _clean_up(proc, mark, tmp)


IDLE_POOL = """
import time
from recdiv.experiment.execution.executors import make_executor
pool = make_executor(2, "local")  # the forkserver is up; no worker has started yet
print("ready", flush=True)
time.sleep(600)
"""


def test_sigkill_before_any_worker_started_leaves_no_temporary_folder(tmp_path):
    """The forkserver (and its ``pymp-*`` folder) starts before the first task; a SIGKILL then, with no worker to
    notice it, must not leave the folder behind (`recdiv.experiment.execution.janitor`)."""
    tmp = Path(tempfile.mkdtemp(prefix="rd-", dir="/tmp"))
    mark = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp), "RECDIV_TEST_MARK": mark}
    proc = subprocess.Popen([sys.executable, "-c", IDLE_POOL], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert proc.stdout.readline() == b"ready\n"
        assert list(tmp.glob("pymp-*")), "multiprocessing's temporary folder is where the test looks for it"
        _kill_and_check(proc, mark, tmp)
    finally:
        _clean_up(proc, mark, tmp)
        proc.stdout.close()


def test_only_the_forkserver_acts_on_the_janitor_variable(tmp_path, monkeypatch):
    """The main process that set the variable does not act on it; the forkserver does, removes it from its
    environment (so the workers it forks, and their subprocesses, never see it) and removes pymp-* folders only."""
    import importlib

    from recdiv.experiment.execution import janitor

    folder = tmp_path / "pymp-keep"
    folder.mkdir()
    registered = []
    monkeypatch.setattr("atexit.register", lambda *a: registered.append(a))
    monkeypatch.setenv(janitor.TEMPDIR_ENV, f"{os.getpid()}:{folder}")  # the main process itself
    importlib.reload(janitor)
    assert registered == [] and os.environ[janitor.TEMPDIR_ENV]
    monkeypatch.setenv(janitor.TEMPDIR_ENV, f"{os.getppid()}:{folder}")  # as the forkserver sees it
    importlib.reload(janitor)
    assert [a[1] for a in registered] == [str(folder)] and janitor.TEMPDIR_ENV not in os.environ
    registered.clear()
    monkeypatch.setenv(janitor.TEMPDIR_ENV, f"{os.getppid()}:{tmp_path}")  # never a folder but pymp-*
    importlib.reload(janitor)
    assert registered == []
    assert folder.exists()


def test_worker_processes_that_cannot_start_are_a_clean_error(tmp_path):
    """A TMPDIR too long for the forkserver's socket (107 bytes on Linux): one line, nothing written."""
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL_TOML, "utf-8")
    tmp = tmp_path / ("x" * 100)
    tmp.mkdir()
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
    proc = subprocess.run([sys.executable, "-m", "recdiv", "run", str(toml), "--out", str(out), "--jobs", "2"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.startswith("recdiv: error: --jobs 2: cannot start the worker processes (AF_UNIX path too long")
    assert proc.stderr.count("\n") == 1 and not out.exists()
