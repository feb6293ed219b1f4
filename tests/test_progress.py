"""Progress reporting: ETAs from the work done (weighted by kind), `tick` from library loops, Ctrl-C on `recdiv
run` says how to resume."""

from __future__ import annotations

from collections import Counter

import pytest

from recdiv import progress
from recdiv.progress import Progress, TaskEstimate, fmt_seconds, tick


def test_tick_without_progress_is_a_no_op():
    tick(5)


def test_progress_counts_ticks_and_estimates_linearly(monkeypatch):
    clock = iter([0.0, 10.0, 10.0])
    monkeypatch.setattr(progress.time, "perf_counter", lambda: next(clock))
    with Progress("work", total=100, enabled=False) as bar:
        tick(25)  # inner code reports to the innermost open progress
        assert bar.done == 25
        assert bar.eta() == pytest.approx(30.0)  # 25 units in 10 s: 75 left take 30 s
        bar.stage("second part", None)
        assert bar.eta() is None and bar.done == 0
    tick(1)  # closed: nothing to advance
    assert fmt_seconds(3725) == "1:02:05" and fmt_seconds(None) == "?"


def test_task_estimate_learns_each_kind():
    """A fit takes 30 s and a score 1 s: after one of each the ETA of 3 fits and 20 scores is 110 s, not the
    (3 + 20) × mean-task-time an unweighted bar would show."""
    est = TaskEstimate(Counter({"fit:wrmf": 4, "score": 21}), {"fit:wrmf": 8.0, "score": 1.0})
    assert est.remaining() is None  # nothing finished: no honest estimate
    est.finished("score", 1.0)
    # only scores seen: a fit is estimated from its prior weight (8 score-units)
    assert est.remaining() == pytest.approx(4 * 8.0 + 20 * 1.0)
    est.finished("fit:wrmf", 30.0)
    assert est.remaining() == pytest.approx(3 * 30.0 + 20 * 1.0)
    two = TaskEstimate(Counter({"score": 10}), {"score": 1.0}, workers=2)
    two.finished("score", 2.0)
    assert two.remaining() == pytest.approx(9 * 2.0 / 2)


def test_ctrl_c_on_run_says_how_to_resume(tmp_path, monkeypatch, capsys):
    """Ctrl-C (KeyboardInterrupt in the main thread) during the run: exit 130 and the command that resumes it."""
    from recdiv.cli import main
    from recdiv.experiment.run import runner
    from tests.experiment.conftest import TINY_TOML

    toml = tmp_path / "tiny.toml"
    toml.write_text(TINY_TOML, "utf-8")
    out = tmp_path / "out"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_experiment", interrupted)
    assert main(["run", str(toml), "--out", str(out), "--quiet"]) == 130
    err = capsys.readouterr().err
    assert f"recdiv run {toml} --out {out} --resume" in err and f"{out}/cache" in err
    monkeypatch.setattr("recdiv.experiment.run.demo.run_demo", interrupted)
    assert main(["demo", "--out", str(out)]) == 130
    assert f"recdiv demo --out {out} --resume" in capsys.readouterr().err
