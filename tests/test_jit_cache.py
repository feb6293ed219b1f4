"""No numba compilation at run time (issue 15.2): a command run a second time loads every kernel from numba's
on-disk cache (argument types are stable, so the cached versions are hit). Counted with numba's compile events,
in fresh processes."""

from __future__ import annotations

import subprocess
import sys

COUNT = """import sys
import numba.core.event as ev
compiled = []
class Listener(ev.Listener):
    def on_start(self, event):
        pass
    def on_end(self, event):
        compiled.append(event.data["dispatcher"].py_func.__qualname__)
ev.register("numba:compile", Listener())
from recdiv.cli import main
for argv in {commands!r}:
    assert main(argv) == 0, argv
print("COMPILED", sorted(set(compiled)))
"""


def test_second_run_compiles_nothing(tmp_path):
    (tmp_path / "q").write_text("".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(30) for i in range(0, 40, 3)))
    (tmp_path / "r").write_text("".join(f"u{u} Q0 i{i} {i + 1} {1 / (i + 1)} s\n" for u in range(30)
                                        for i in range(40)))
    (tmp_path / "a").write_text("".join(f"i{i}\tg{g}\n" for i in range(40) for g in {i % 4, i % 7 % 4}))
    (tmp_path / "t").write_text("".join(f"u{u}\ti{(u * 7 + j) % 40}\t3\n" for u in range(30) for j in range(3)))
    q, r, a, t = (str(tmp_path / x) for x in "qrat")
    commands = [
        ["eval", q, r, "--aspects", a, "--train", t, "-m", "alpha-nDCG@10", "ERR-IA(variant=ndeval)@10",
         "EILD@10", "EPC@10", "ab-nDCG@10", "nDCG@10"],
        ["rerank", r, "--method", "MMR", "--aspects", a, "-k", "10", "-o", str(tmp_path / "mmr")],
        ["rerank", r, "--method", "xQuAD", "--aspects", a, "--train", t, "-k", "10", "-o", str(tmp_path / "xq")],
    ]
    code = COUNT.format(commands=commands)
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert "COMPILED []" in second.stdout, second.stdout


def test_warmup_reaches_every_kernel():
    """`python -m recdiv.cli.warmup` (the install step) compiles every kernel: a kernel no workload reaches would be
    compiled when a command first uses it, so it fails here."""
    done = subprocess.run([sys.executable, "-m", "recdiv.cli.warmup"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "recdiv warm-up:" in done.stdout, done.stdout
    assert "not reached" not in done.stdout, done.stdout
