"""`recdiv explore` from the shell: --help, the printed link and progress lines, a clear error for a port in use,
and Ctrl-C ending the server cleanly (exit 0, no traceback)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from recdiv.cli import main
from recdiv.explore.server import free_port

RECDIV = [sys.executable, "-m", "recdiv"]


def test_help(capsys):
    try:
        main(["explore", "--help"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    assert "--host" in out and "token" in out and "Ctrl-C" in out


def test_serve_then_ctrl_c(tmp_path):
    port = free_port()
    proc = subprocess.Popen([*RECDIV, "explore", "synthetic:tiny", "--no-browser", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        t0 = time.monotonic()
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/jobs", timeout=2) as r:
                    assert r.status == 200
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() - t0 < 60, proc.stderr.read()
                time.sleep(0.2)
        time.sleep(1.0)  # the first view is being prepared (dataset, baseline): Ctrl-C may come at any time
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"recdiv explore: http://127.0.0.1:{port}/?dataset=synthetic" in err
    assert "serving on this computer only" in err and "recdiv explore: stopped" in err
    assert "load dataset synthetic:tiny" in err  # progress of the first view's work
    assert "Traceback" not in err


def test_a_port_in_use_is_a_clear_error(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["explore", "synthetic:tiny", "--no-browser", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port} (in use: choose another with --port)" in capsys.readouterr().err


def test_an_unknown_target_is_a_clear_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("RECDIV_DATA", str(tmp_path))
    assert main(["explore", "no-such-dataset", "--no-browser"]) == 2
    assert "no dataset 'no-such-dataset'" in capsys.readouterr().err
    assert os.environ["RECDIV_DATA"] == str(tmp_path)


def test_the_server_process_runs_blas_on_one_thread():
    """`serve` (the command) sets BLAS to one thread for the libraries loaded before it and after it (SciPy's own
    OpenBLAS is loaded with the first dataset): its compute threads are the parallelism."""
    code = ("import numpy\nfrom recdiv.explore.server import one_native_thread\none_native_thread()\n"
            "import scipy.linalg\nfrom threadpoolctl import threadpool_info\n"
            "print(sorted({i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[1]"
