"""A SIGKILL at any moment leaves each output either as it was or complete: commands that write files are killed at
random moments (seeded) of their run, most of them near the end where the writes are, and every output they name
is then the old file (or absent) or exactly the file a complete run writes — never a part of one."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

RUN = "".join(f"u{u} Q0 i{i} {r} {100 - r} sys\n" for u in range(1, 40) for r, i in enumerate(range(u, u + 30), 1))
RUN2 = "".join(f"u{u} Q0 i{i} {r} {100 - r} two\n" for u in range(1, 40) for r, i in enumerate(range(60, 30, -1), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u * i) % 5}\n" for u in range(1, 40) for i in range(1, 70, 3))
ASPECTS = "".join(f"i{i}\tg{i % 7}\n" for i in range(1, 80))
TRAIN = "".join(f"u{u}\ti{i}\t{1 + (u + i) % 5}\n" for u in range(1, 40) for i in range(1, 80) if (u * i) % 4 == 0)

# (argv, the outputs it writes: files, and folders whose files are checked one by one)
COMMANDS = {
    "rerank": (["rerank", "a.run", "--method", "xQuAD", "--aspects", "aspects.tsv", "--train", "train.tsv", "-k", "20",
                "-o", "out/rerank.run"], ["out/rerank.run"], []),
    "recommend": (["recommend", "--train", "train.tsv", "--qrels", "t.qrels", "--algo", "pure-svd", "--param",
                   "factors=3", "-n", "30", "-o", "out/rec.run", "--factors-out", "out/factors.tsv"],
                  ["out/rec.run", "out/factors.tsv"], []),
    "compare": (["compare", "t.qrels", "a.run", "b.run", "-m", "P@5", "nDCG@10", "--format", "latex", "-o",
                 "out/cmp.tex"], ["out/cmp.tex"], []),
    "meta": (["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--analysis", "dp", "--samples", "200", "--html",
              "out/meta.html", "-o", "out/meta.txt", "--plots", "out/plots"], ["out/meta.html", "out/meta.txt"],
             ["out/plots"]),
    "export": (["data", "export", "synthetic:tiny", "--split", "holdout:0.2", "-o", "out/exp", "--force"], [],
               ["out/exp"]),
}


def _files(root: Path, outputs: list[str], folders: list[str]) -> dict[str, bytes | None]:
    """The bytes of every output (None: absent), and of every file of the output folders."""
    out = {f: (root / f).read_bytes() if (root / f).is_file() else None for f in outputs}
    for folder in folders:
        if (root / folder).is_dir():
            for p in sorted((root / folder).iterdir()):
                if p.is_file() and not (p.name.startswith(".") and p.name.endswith(".tmp")):
                    out[f"{folder}/{p.name}"] = p.read_bytes()
    return out


def _start(argv, cwd):
    return subprocess.Popen([sys.executable, "-m", "recdiv", *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_sigkill_leaves_each_output_old_or_complete(tmp_path, name):
    argv, outputs, folders = COMMANDS[name]
    for f, text in {"a.run": RUN, "b.run": RUN2, "t.qrels": QRELS, "aspects.tsv": ASPECTS,
                    "train.tsv": TRAIN}.items():
        (tmp_path / f).write_text(text, "utf-8")
    (tmp_path / "out").mkdir()
    t0 = time.perf_counter()
    assert _start(argv, tmp_path).wait(timeout=900) == 0
    took = time.perf_counter() - t0
    new = _files(tmp_path, outputs, folders)
    assert all(v is not None for v in new.values()) and len(new) >= len(outputs)
    old = {f: b"old contents\n" for f in new}
    rng = random.Random(name)
    for delay in sorted(rng.uniform(0.5, 1.0) * took for _ in range(3)):
        shutil.rmtree(tmp_path / "out")
        for f, data in old.items():  # a previous result in place of every output
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / f).write_bytes(data)
        proc = _start(argv, tmp_path)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
        got = _files(tmp_path, outputs, folders)
        assert set(got) == set(new), f"{name}: files other than the outputs after a kill at {delay:.2f} s"
        for f, data in got.items():
            assert data in (old[f], new[f]), (f"{name}: {f} is neither the old file nor the complete new one after a "
                                              f"kill at {delay:.2f} s")


def test_sigterm_removes_the_temporary_partitions(tmp_path):
    """A SIGTERM (`kill`, a scheduler's time limit) during a streamed evaluation ends it as Ctrl-C does: exit 143,
    one line, no traceback, its temporary partitions removed and no output left behind."""
    users, depth = 20000, 50
    lines = [f"u{u} Q0 i{(u * 7 + r * 13) % 5000} {r} {depth - r} s\n" for u in range(users) for r in range(1, depth)]
    (tmp_path / "big.run").write_text("".join(lines))
    (tmp_path / "t.qrels").write_text("".join(f"u{u} 0 i{(u * 7 + 13) % 5000} 5\n" for u in range(users)))
    work = tmp_path / "tmp"
    work.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "recdiv", "eval", "t.qrels", "big.run", "-m", "nDCG@10", "AP",
                             "--memory", "64M", "--per-user-out", "users.parquet"], cwd=tmp_path,
                            env={**os.environ, "TMPDIR": str(work)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not any(work.glob("recdiv-stream-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the evaluation ended before its partitions appeared: make the run larger"
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == "recdiv: terminated" and "Traceback" not in err, err
    assert not any(work.glob("recdiv-stream-*")) and not (tmp_path / "users.parquet").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # no half-written output
