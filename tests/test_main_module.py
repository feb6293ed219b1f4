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


def _modules_after(*argv: str) -> set[str]:
    """Modules imported by the command line for `recdiv ARGV` (run in a fresh interpreter)."""
    code = (f"import sys\nfrom recdiv.cli import main\ntry:\n    main({list(argv)!r})\nexcept SystemExit:\n    pass\n"
            "print('\\n'.join(sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stderr.split())


def test_help_imports_nothing_heavy():
    """`recdiv --help` and `recdiv COMMAND --help` start at once: no numpy, pandas, scipy, numba or torch
    (issue #15.2; timings in bench/README.md)."""
    heavy = {"numpy", "pandas", "scipy", "numba", "torch", "sklearn", "lenskit", "matplotlib"}
    for argv in (["--help"], ["eval", "--help"], ["axioms", "--help"], ["run", "--help"], ["data", "--help"]):
        loaded = _modules_after(*argv)
        assert not heavy & loaded, (argv, sorted(heavy & loaded))


def test_the_console_script_help_imports_no_more_than_it_needs():
    """The console script's `recdiv --help` (argv from sys.argv) imports neither `signal` (the SIGTERM handler is set
    once the arguments are parsed) nor `unicodedata` (needed only to spell an accent or an unencodable character):
    it starts as fast as before issue 26 (bench/README.md, bench/bench_imports.py)."""
    code = ("import sys\nsys.argv = ['recdiv', '--help']\nfrom recdiv.cli import main\ntry:\n    main()\n"
            "except SystemExit:\n    pass\nprint('\\n'.join(sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stderr.split())
    assert "rerank" in out.stdout and "recdiv.console" in loaded
    assert not {"signal", "unicodedata"} & loaded, sorted({"signal", "unicodedata"} & loaded)


def test_unknown_command_suggests():
    out = subprocess.run([sys.executable, "-m", "recdiv", "evl"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "did you mean 'eval'" in out.stderr
