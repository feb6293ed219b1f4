"""The one output guard and the one atomic writer (recdiv.outputs): no command destroys one of its inputs — the same
path, through a symbolic link, a hard link, another spelling of the path, a folder output, stdout redirected into
it — and every refusal comes before any work, with the input's bytes untouched."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv import outputs
from recdiv.cli import main
from recdiv.errors import DataError

RUN = "".join(f"u{u} Q0 i{i} {r} {10 - r} sys\n" for u in range(1, 4) for r, i in enumerate(range(u, u + 5), 1))
RUN2 = "".join(f"u{u} Q0 i{i} {r} {10 - r} two\n" for u in range(1, 4) for r, i in enumerate(range(5, 0, -1), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(1, 4) for i in range(1, 9))
ASPECTS = "".join(f"i{i}\tg{i % 3}\n" for i in range(1, 12))
TRAIN = "".join(f"u{u}\ti{i}\t{1 + (u * i) % 5}\n" for u in range(1, 6) for i in range(1, 12) if (u + i) % 3)
FACTORS = "".join(f"i{i}\t{i / 10}\t{1 - i / 10}\n" for i in range(1, 12))
INPUTS = {"a.run": RUN, "b.run": RUN2, "t.qrels": QRELS, "aspects.tsv": ASPECTS, "train.tsv": TRAIN,
          "f.tsv": FACTORS}

# every command with the input files it reads and the options that name outputs: (argv, inputs, output options)
COMMANDS = {
    "rerank": (["rerank", "a.run", "--method", "xQuAD", "--aspects", "aspects.tsv", "--train", "train.tsv"],
               ["a.run", "aspects.tsv", "train.tsv"], ["-o"]),
    "rerank-factors": (["rerank", "a.run", "--method", "MMR", "--factors", "f.tsv"], ["a.run", "f.tsv"], ["-o"]),
    "recommend": (["recommend", "--train", "train.tsv", "--qrels", "t.qrels", "--aspects", "aspects.tsv", "--algo",
                   "pure-svd", "--param", "factors=2"], ["train.tsv", "t.qrels", "aspects.tsv"],
                  ["-o", "--factors-out"]),
    "compare": (["compare", "t.qrels", "a.run", "b.run", "-m", "P@5", "--aspects", "aspects.tsv"],
                ["t.qrels", "a.run", "b.run", "aspects.tsv"], ["-o"]),
    "compare-m-first": (["compare", "-m", "P@5", "t.qrels", "a.run", "b.run"], ["t.qrels", "a.run", "b.run"], ["-o"]),
    "meta": (["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--train", "train.tsv"],
             ["t.qrels", "a.run", "b.run", "train.tsv"], ["-o", "--html"]),
    "eval": (["eval", "t.qrels", "a.run", "-m", "P@5", "--train", "train.tsv"], ["t.qrels", "a.run", "train.tsv"],
             ["--per-user-out"]),
    "compare-per-user": (["compare", "t.qrels", "a.run", "b.run", "-m", "P@5"], ["t.qrels", "a.run", "b.run"],
                         ["--per-user-out"]),
    "convert": (["convert", "a.run"], ["a.run"], ["OUTPUT"]),
}
SPELLINGS = ("same", "dot", "parent", "absolute", "symlink", "hardlink")


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in INPUTS.items():
        (tmp_path / name).write_text(text, "utf-8")
    (tmp_path / "sub").mkdir()
    return tmp_path


def _spell(name: str, how: str, tmp: Path) -> str:
    """Another name for input `name`: itself, ./name, sub/../name, its absolute path, a symlink or a hard link."""
    if how == "same":
        return name
    if how == "dot":
        return f"./{name}"
    if how == "parent":
        return f"sub/../{name}"
    if how == "absolute":
        return str(tmp / name)
    link = tmp / f"{how}-{name}"
    if not link.exists():
        (os.symlink if how == "symlink" else os.link)(tmp / name, link)
    return link.name


def _snapshot(tmp: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in tmp.iterdir() if p.is_file() and not p.is_symlink()}


def _refused(argv, capsys) -> str:
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and err.startswith("recdiv: error: "), err
    return err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_command_writes_over_one_of_its_inputs(files, capsys, data):
    """Every command × every output option × every input × every spelling of that input: refused, input intact."""
    name = data.draw(st.sampled_from(sorted(COMMANDS)))
    argv, inputs, options = COMMANDS[name]
    option = data.draw(st.sampled_from(options))
    target = _spell(data.draw(st.sampled_from(inputs)), data.draw(st.sampled_from(SPELLINGS)), files)
    other = ["-o", "out.run"] if name.startswith("recommend") and option != "-o" else []
    before = _snapshot(files)
    err = _refused([*argv, *other, *([] if option == "OUTPUT" else [option]), target], capsys)
    assert f"{option} {Path(target)}: is an input of this command" in err
    assert _snapshot(files) == before


@pytest.mark.parametrize("how", SPELLINGS)
def test_two_outputs_of_one_command_are_different_files(files, capsys, how):
    (files / "out.tsv").write_text("old\n", "utf-8")
    twin = _spell("out.tsv", how, files)
    err = _refused(["recommend", "--train", "train.tsv", "--algo", "pure-svd", "-o", "out.tsv", "--factors-out", twin],
                   capsys)
    assert "are the same file" in err
    assert (files / "out.tsv").read_text("utf-8") == "old\n"
    err = _refused(["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--html", "out.tsv", "-o", twin], capsys)
    assert "are the same file" in err


def test_folder_outputs_do_not_write_over_inputs_or_other_outputs(files, capsys):
    (files / "plots").mkdir()
    (files / "plots" / "x.svg").write_text(RUN, "utf-8")  # an input that a --plots folder could overwrite
    err = _refused(["meta", "plots/x.svg", "a.run", "b.run", "-m", "P@5", "--plots", "plots"], capsys)
    assert "--plots plots: would write over the input plots/x.svg" in err
    err = _refused(["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--plots", "plots", "-o", "plots/dp.svg"], capsys)
    assert "-o plots/dp.svg: --plots plots writes that file too" in err
    # a name --plots never writes is not in the way
    assert outputs.guard_outputs(["plots/x.run"], folders={"--plots": ("plots", ("*.svg",))}) is None


def test_export_into_the_dataset_folder_is_refused(files, capsys):
    data = files / "mydata"
    data.mkdir()
    (data / "interactions.tsv").write_text(TRAIN, "utf-8")
    before = sorted(p.name for p in data.iterdir())
    err = _refused(["data", "export", "mydata", "--split", "holdout:0.2", "-o", "mydata"], capsys)
    assert "is inside the input folder mydata" in err
    err = _refused(["recommend", "--dataset", "mydata", "--split", "holdout:0.2", "--algo", "pop", "-o",
                    "mydata/interactions.tsv"], capsys)
    assert "-o mydata/interactions.tsv: is an input of this command" in err
    assert sorted(p.name for p in data.iterdir()) == before


def test_experiment_output_folder_does_not_hold_its_inputs(files, capsys):
    out = files / "res"
    out.mkdir()
    toml = out / "summary.md"  # the experiment file where the report will write summary.md
    toml.write_text('name = "x"\n[[datasets]]\nname = "synthetic:tiny"\n[[recommenders]]\nname = "pop"\n'
                    '[metrics]\nmeasures = ["P@5"]\n', "utf-8")
    err = _refused(["run", str(toml), "--out", str(out), "--force"], capsys)
    assert "would write over the input" in err
    assert toml.read_text("utf-8").startswith('name = "x"')


def test_stdout_redirected_into_an_input_is_refused(files, capsys, monkeypatch):
    with open(files / "a.run", "a", encoding="utf-8") as fh:
        monkeypatch.setattr(sys, "stdout", fh)
        rc = main(["eval", "t.qrels", "a.run", "-m", "P@5"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "standard output is redirected into the input a.run: writing it would corrupt it" in err
    assert (files / "a.run").read_text("utf-8") == RUN


def test_stdout_truncated_into_an_input_says_the_shell_emptied_it(files, capsys, monkeypatch):
    """`recdiv eval q a.run > a.run`: the shell has emptied a.run before recdiv starts; the error says so."""
    with open(files / "a.run", "w", encoding="utf-8") as fh:
        monkeypatch.setattr(sys, "stdout", fh)
        rc = main(["eval", "t.qrels", "a.run", "-m", "P@5"])
    assert rc == 2
    assert "the shell emptied that file before recdiv started" in capsys.readouterr().err


def test_guard_runs_before_any_work(files, capsys, monkeypatch):
    """The refusal comes before any file is parsed: the readers are never called."""
    import recdiv.data.textio as textio

    def boom(*a, **k):
        raise AssertionError("an input was read before the output guard")

    monkeypatch.setattr(textio, "parse_trec_run", boom)
    monkeypatch.setattr(textio, "parse_trec_qrels", boom)
    _refused(["rerank", "a.run", "--method", "MMR", "--aspects", "aspects.tsv", "-o", "a.run"], capsys)
    _refused(["compare", "t.qrels", "a.run", "b.run", "-m", "P@5", "-o", "b.run"], capsys)


# the atomic writer --------------------------------------------------------------------------------------------------
def test_atomic_write_keeps_the_old_file_until_the_new_one_is_complete(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("old\n", "utf-8")
    with pytest.raises(RuntimeError), outputs.atomic_write(p) as fh:
        fh.write("half")
        raise RuntimeError("killed")
    assert p.read_text("utf-8") == "old\n"
    assert [x.name for x in tmp_path.iterdir()] == ["f.txt"]  # no temporary file left behind
    outputs.write_text(p, "new\n")
    assert p.read_text("utf-8") == "new\n"


def test_atomic_write_flushes_to_disk_and_keeps_permissions(tmp_path, monkeypatch):
    p = tmp_path / "f.txt"
    p.write_text("old\n", "utf-8")
    p.chmod(0o640)
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    outputs.write_bytes(p, b"new\n")
    assert p.read_bytes() == b"new\n" and (p.stat().st_mode & 0o777) == 0o640
    assert len(synced) >= 1  # the file (and, where allowed, its folder)


def test_a_write_the_disk_refuses_is_one_clean_error(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(DataError, match="cannot write: no space left on the device"):
        outputs.write_text(tmp_path / "f.txt", "x")
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="Linux's /proc: no file can be created there, even by root")
def test_an_export_into_a_folder_that_takes_no_files_is_refused_before_work(files, capsys):
    err = _refused(["data", "export", "synthetic:tiny", "--split", "holdout:0.2", "-o", "/proc/recdiv-x"], capsys)
    assert "-o /proc/recdiv-x: cannot write there" in err
