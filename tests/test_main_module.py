"""`python -m recdiv` is the same command line as the `recdiv` script."""

import subprocess
import sys


def test_python_m_recdiv_lists_the_commands():
    out = subprocess.run([sys.executable, "-m", "recdiv", "--help"], capture_output=True, text=True, check=True)
    for command in ("recommend", "rerank", "eval", "compare", "run", "demo"):
        assert command in out.stdout


def test_python_m_recdiv_bad_input_exits_2(tmp_path):
    missing = tmp_path / "missing.run"
    out = subprocess.run([sys.executable, "-m", "recdiv", "eval", str(missing), str(missing), "-m", "P@10"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "missing.run" in out.stderr
