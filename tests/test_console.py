"""What commands print (recdiv.console): escape sequences from data files never reach the terminal, an ASCII-only
output encoding degrades symbols instead of crashing, a full disk or a closed pipe under standard output is one
line or a quiet end — never a traceback. Run as real processes: the streams are the interpreter's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

RUN = "".join(f"u{u} Q0 i{i} {r} {10 - r} sys\n" for u in range(1, 4) for r, i in enumerate(range(u, u + 5), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(1, 4) for i in range(1, 9))
EVIL = "\x1b[2J\x1b]0;pwned\x07\u202e"


def _recdiv(args, cwd, env=None, stdout=subprocess.PIPE):
    env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "recdiv", *args], cwd=cwd, env=env, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=120)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "t.qrels").write_text(QRELS, "utf-8")
    (tmp_path / f"{EVIL}.run").write_text(RUN, "utf-8")
    return tmp_path


def test_escape_sequences_in_a_run_name_are_shown_not_run(files):
    p = _recdiv(["eval", "t.qrels", f"{EVIL}.run", "-m", "P@5"], files)
    assert p.returncode == 0, p.stderr
    for stream in (p.stdout, p.stderr):
        assert b"\x1b" not in stream and "\u202e".encode() not in stream and b"\x07" not in stream
    assert b"\\u001b[2J" in p.stdout  # visible, so the user sees what the name holds


def test_errors_naming_a_hostile_file_are_escaped(files):
    p = _recdiv(["eval", "t.qrels", f"missing{EVIL}.run", "-m", "P@5"], files)
    assert p.returncode == 2
    assert b"\x1b" not in p.stderr and p.stderr.count(b"\n") == 1


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C"},
                                 {"PYTHONIOENCODING": "latin-1"}])
def test_an_ascii_only_encoding_degrades_symbols(files, env):
    (files / "é-τ.run").write_text(RUN, "utf-8")
    p = _recdiv(["eval", "t.qrels", "é-τ.run", "-m", "P@5", "alpha-nDCG@5", "--aspects", "t.qrels"], files, env)
    assert b"Traceback" not in p.stderr
    p = _recdiv(["eval", "t.qrels", "é-τ.run", "-m", "P@5"], files, env)
    assert p.returncode == 0, p.stderr
    assert b"Traceback" not in p.stderr
    if env.get("PYTHONIOENCODING") == "ascii":
        assert p.stdout.isascii() and p.stderr.isascii()
        assert b"e-tau" in p.stdout and b"grade >= 4" in p.stderr  # symbols spelled out, accents dropped
    p = _recdiv(["compare", "t.qrels", "é-τ.run", f"{EVIL}.run", "-m", "P@5"], files, env)
    assert p.returncode == 0 and b"Traceback" not in p.stderr, p.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="Linux's /dev/full")
def test_full_disk_on_stdout_is_one_line(files):
    with open("/dev/full", "wb") as full:
        p = _recdiv(["eval", "t.qrels", f"{EVIL}.run", "-m", "P@5", "-q"], files, stdout=full)
    assert p.returncode == 2
    assert p.stderr.decode().splitlines()[-1] == ("recdiv: error: cannot write to standard output: no space left on "
                                                  "the device")
    assert b"Traceback" not in p.stderr and b"Exception ignored" not in p.stderr


def test_closed_pipe_ends_quietly(files):
    big = "".join(f"u{u} Q0 i{i} {r} {1000 - r} sys\n" for u in range(1, 400) for r, i in enumerate(range(200), 1))
    (files / "big.run").write_text(big, "utf-8")
    qrels = "".join(f"u{u} 0 i{i} 5\n" for u in range(1, 400) for i in range(0, 40, 3))
    (files / "big.qrels").write_text(qrels, "utf-8")
    cmd = [sys.executable, "-m", "recdiv", "eval", "big.qrels", "big.run", "-m", "P@5", "nDCG@10", "-q"]
    producer = subprocess.Popen(cmd, cwd=files, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    producer.stdout.read(10)
    producer.stdout.close()  # the reader goes away, as `| head -1` does
    err = producer.stderr.read()
    producer.wait(timeout=120)
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
    assert producer.returncode in (0, 141)


def test_rich_tables_escape_data(tmp_path):
    """`recdiv data info` draws with rich: a folder name with markup or escape sequences is shown as text."""
    folder = tmp_path / "[bold red]x[blink]\x1b[2J"
    folder.mkdir()
    (folder / "interactions.tsv").write_text("u1\ti1\t5\nu2\ti1\t3\n", "utf-8")
    p = _recdiv(["data", "info", str(folder)], tmp_path)
    assert p.returncode == 0, p.stderr
    assert b"\x1b" not in p.stdout and b"red]x[blink]" in p.stdout  # markup shown as text
