"""Options and misuse of every command: one line `recdiv: error: ...` naming the option or the file, exit status 2,
no traceback, nothing written — and before any work. Genuine bugs are not hidden by the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from recdiv.cli import main

RUN = "".join(f"u{u} Q0 i{i} {r} {10 - r} sys\n" for u in range(1, 4) for r, i in enumerate(range(u, u + 5), 1))
RUN2 = "".join(f"u{u} Q0 i{i} {r} {10 - r} two\n" for u in range(1, 4) for r, i in enumerate(range(5, 0, -1), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(1, 4) for i in range(1, 9))
ASPECTS = "".join(f"i{i} g{i % 3}\n" for i in range(1, 12))


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in {"a.run": RUN, "b.run": RUN2, "t.qrels": QRELS, "aspects.tsv": ASPECTS}.items():
        (tmp_path / name).write_text(text, "utf-8")
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x", "utf-8")
    return tmp_path


def _error(argv: list[str], capsys) -> str:
    rc = main(argv)  # argparse's errors too: returned, not raised as SystemExit
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and err.startswith("recdiv: error: "), err
    return err


REC = ["recommend", "--dataset", "synthetic:tiny", "--split", "holdout:0.2", "--algo", "pop"]
RR = ["rerank", "a.run", "--method", "MMR", "--aspects", "aspects.tsv"]
CMP = ["compare", "t.qrels", "a.run", "b.run", "-m", "P@5"]
META = ["meta", "t.qrels", "a.run", "b.run", "-m", "P@5"]


@pytest.mark.parametrize(("argv", "names"), [
    ([*REC, "-o", "adir"], "-o adir: is a folder"),
    ([*REC, "-o", "afile/x.run"], "-o afile/x.run: cannot write there: afile is not a folder"),
    ([*REC, "-o", "/dev/null"], "-o /dev/null: not a regular file"),
    ([*REC, "-o", "x.run", "--seed", "-1"], "argument --seed: must be a non-negative integer"),
    ([*REC, "-o", "x.run", "-n", "0"], "argument -n: must be a positive integer"),
    (["recommend", "--dataset", "synthetic:tiny", "--split", "holdout:0.2", "--algo", "wrmf", "-o", "x.run",
      "--param", "alpha=NaN"], "alpha: Input should be a finite number"),
    (["recommend", "--dataset", "synthetic:tiny", "--split", "holdout:0.2", "--algo", "item-knn", "-o", "x.run",
      "--param", "min_sim=-Infinity"], "min_sim: Input should be a finite number"),
    ([*REC], "the following arguments are required: -o/--output"),
    ([*RR, "-o", "adir"], "-o adir: is a folder"),
    ([*RR, "-o", "r.run", "--seed", "-1"], "argument --seed: must be a non-negative integer"),
    ([*RR, "-o", "r.run", "-k", "0"], "argument -k: must be a positive integer"),
    ([*RR, "-o", "r.run", "--param", "lambda=Infinity"], "lambda: Input should be a finite number"),
    ([*RR, "-o", "r.run", "--param", "lambda=NaN"], "lambda: Input should be a finite number"),
    ([*RR, "-o", "r.run", "--param", "lambda=nan"], "lambda: Input should be a valid number"),
    ([*CMP, "--seed", "-1"], "argument --seed: must be a non-negative integer"),
    ([*CMP, "--samples", "0"], "argument --samples: must be a positive integer"),
    ([*CMP, "--rel-threshold", "nan"], "argument --rel-threshold: must be a finite number"),
    ([*CMP, "--alpha", "nan"], "argument --alpha: must be a finite number"),
    ([*CMP, "-o", "adir"], "-o adir: is a folder"),
    (["eval", "t.qrels", "a.run", "--rel-threshold", "nan"], "argument --rel-threshold: must be a finite number"),
    (["eval", "t.qrels", "a.run", "--rel-threshold=-inf"], "argument --rel-threshold: must be a finite number"),
    (["axioms", "-m", "P@5", "--seed", "-1"], "argument --seed: must be a non-negative integer"),
    (["axioms", "-m", "P@5", "--cases", "0"], "argument --cases: must be a positive integer"),
    (["axioms", "-m", "P@5", "--rel-threshold", "nan"], "argument --rel-threshold: must be a finite number"),
    (["axioms", "-m", "P@5", "--cases", "1", "-o", "adir"], "-o adir: is a folder"),
    ([*META, "--seed", "-1"], "argument --seed: must be a non-negative integer"),
    ([*META, "--rel-threshold", "nan"], "argument --rel-threshold: must be a finite number"),
    ([*META, "--samples", "0"], "argument --samples: must be a positive integer"),
    ([*META, "-o", "adir"], "-o adir: is a folder"),
    ([*META, "--html", "adir"], "--html adir: is a folder"),
    ([*META, "--plots", "afile"], "--plots afile: not a folder"),
    (["run", "x.toml", "--jobs", "0"], "argument --jobs: must be a positive integer"),
    (["demo", "--jobs", "0"], "argument --jobs: must be a positive integer"),
    (["demo", "--out", "afile"], "--out afile: not a folder"),
    (["report", "afile"], "afile: not a folder"),
    (["report", "adir"], "adir: not an experiment output folder"),
    (["data", "fetch", "ml-1m", "--sha256", "xyz"], "--sha256 must be 64 hexadecimal digits"),
    (["data", "fetch", "ml-100k", "--dir", "afile"], "--dir afile: not a folder"),
])
def test_misuse_is_one_clean_line(files, capsys, argv, names):
    before = sorted(p.name for p in files.iterdir())
    assert names in _error(argv, capsys)
    assert sorted(p.name for p in files.iterdir()) == before  # nothing written


def test_outputs_are_checked_before_any_work(files, capsys, monkeypatch):
    """A bad -o is reported before the data is loaded and the model fitted."""
    from recdiv.workflows import recommend

    monkeypatch.setattr(recommend, "recommend_files", lambda *a, **k: pytest.fail("work started before -o was checked"))
    _error([*REC, "-o", "adir"], capsys)


@pytest.mark.parametrize("argv", [[*REC, "-o", "locked/x.run"], [*CMP, "-o", "locked/sub/x.txt"],
                                  ["run", "x.toml", "--out", "locked"], ["demo", "--out", "locked/demo"]])
def test_an_unwritable_output_is_refused_before_any_work(files, capsys, monkeypatch, argv):
    """A folder where no file can be created (a read-only file system: what the permission bits do not show, and
    what root meets too) is refused when the options are checked, naming the option and the folder."""
    import errno
    import tempfile

    from recdiv.workflows import recommend

    (files / "locked").mkdir()
    (files / "x.toml").write_text('name = "x"\n[[datasets]]\nname = "synthetic:tiny"\n[[recommenders]]\n'
                                  'name = "pop"\n[metrics]\nmeasures = ["P@5"]\n', "utf-8")
    real = tempfile.TemporaryFile

    def read_only(*args, dir=None, **kw):
        if dir is not None and Path(dir).resolve() == (files / "locked").resolve():
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*args, dir=dir, **kw)

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    monkeypatch.setattr(recommend, "recommend_files", lambda *a, **k: pytest.fail("work started before -o was checked"))
    err = _error(argv, capsys)
    assert f"cannot create files in {Path('locked')} (read-only file system)" in err
    assert [p.name for p in (files / "locked").iterdir()] == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="Linux's /proc")
def test_an_output_in_a_virtual_file_system_is_refused_before_any_work(files, capsys, monkeypatch):
    """/proc lets root pass every permission check, yet no file can be created there."""
    from recdiv.workflows import recommend

    monkeypatch.setattr(recommend, "recommend_files", lambda *a, **k: pytest.fail("work started before -o was checked"))
    assert "-o /proc/recdiv-x.run: cannot write there: cannot create files in /proc" in _error(
        [*REC, "-o", "/proc/recdiv-x.run"], capsys)


def test_a_failed_write_is_a_clean_error(files, capsys, monkeypatch):
    """The disk fills up while the output is written: a clean error naming the file, and no file left."""
    import errno
    import os

    real = os.replace

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    err = _error([*CMP, "-o", "out.txt"], capsys)
    assert "out.txt: cannot write: no space left on the device" in err
    monkeypatch.setattr(os, "replace", real)
    assert not [p for p in files.iterdir() if p.name.startswith((".out.txt", "out.txt"))]


@pytest.mark.parametrize("where", ["user", "item"])
@pytest.mark.parametrize("command", ["eval", "compare", "rerank"])
def test_a_nul_byte_in_an_id_never_gives_a_traceback(files, capsys, where, command):
    bad = RUN.replace("u1 Q0 i1", "u\x001 Q0 i1") if where == "user" else RUN.replace("Q0 i2 ", "Q0 i\x002 ")
    (files / "nul.run").write_text(bad, "utf-8")
    argv = {"eval": ["eval", "t.qrels", "nul.run", "-m", "P@5"], "compare": ["compare", "t.qrels", "nul.run", "b.run",
                                                                             "-m", "P@5"],
            "rerank": ["rerank", "nul.run", "--method", "MMR", "--aspects", "aspects.tsv", "-o", "r.run"]}[command]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc in (0, 2)
    if rc == 2:
        assert err.count("\n") == 1 and err.startswith("recdiv: error: nul.run"), err


def test_genuine_bugs_are_not_hidden(files, monkeypatch):
    """Only recdiv's own errors become one line; a bug in a command still raises (a traceback to report)."""
    from recdiv.cli import eval as eval_cli

    def bug(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(eval_cli, "main", bug)
    with pytest.raises(ZeroDivisionError):
        main(["eval", "t.qrels", "a.run"])
