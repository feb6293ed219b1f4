"""docs/tutorial-reranker.md: the reranker fits in under 30 lines and declares what it needs; used by `module:Class`
from its folder (the working folder is searched, also by the installed console script), the `recdiv` command names
the fix when the module is really missing and asks for --train when it is missing (the page's blocks themselves
run in tests/docs/test_docs_run.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from recdiv.cli import main
from recdiv.data.locate import REPO_ROOT
from tests.docs.blocks import parse

PAGE = REPO_ROOT / "docs" / "tutorial-reranker.md"


@pytest.fixture
def popmmr_folder(tmp_path, monkeypatch):
    (block,) = [b for b in parse(PAGE) if b.save_as == "popmmr.py"]
    (tmp_path / "popmmr.py").write_text(block.text, encoding="utf-8")
    (tmp_path / "run.tsv").write_text("u1 Q0 i1 1 2.0 r\nu1 Q0 i2 2 1.0 r\nu1 Q0 i3 3 0.5 r\n", encoding="utf-8")
    (tmp_path / "aspects.tsv").write_text("i1\tA\ni2\tA\ni3\tB\n", encoding="utf-8")
    (tmp_path / "train.tsv").write_text("u1\ti1\t4\nu2\ti2\t5\nu2\ti1\t3\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path, block


def test_the_reranker_is_short_and_declares_its_needs(popmmr_folder):
    _, block = popmmr_folder
    assert len([ln for ln in block.text.splitlines() if ln.strip()]) < 30
    assert 'NEEDS = ("train", "similarity")' in block.text


def test_module_class_from_its_folder(popmmr_folder, monkeypatch, capsys):
    folder, _ = popmmr_folder
    argv = ["rerank", "run.tsv", "--method", "popmmr:PopMMR", "--aspects", "aspects.tsv", "-k", "2", "-o", "out.run"]
    # the working folder is searched although it is not on the path (a console script's sys.path)
    monkeypatch.setattr("sys.path", [p for p in sys.path if p not in ("", ".", str(folder))])
    assert main(argv) == 2  # NEEDS says "train": the command asks for it instead of failing inside the reranker
    assert "PopMMR needs --train" in capsys.readouterr().err
    assert sys.path[0] == str(folder)  # put first, as python -m and uvicorn do, and only once
    assert main([*argv, "--train", "train.tsv"]) == 0
    assert sys.path.count(str(folder)) == 1
    assert [line.split()[2] for line in (folder / "out.run").read_text().splitlines()] == ["i1", "i3"]


MYMOD = """
from recdiv.diversifiers import GreedyReranker, RerankerConfig


class MyReranker(GreedyReranker):
    # f(i|S) = −score(i): the candidates in reverse order of score
    NAME, Config, NEEDS = "MyReranker", RerankerConfig, ()

    def init_state(self, block):
        return None

    def objective(self, state, block, remaining, t):
        return -block.scores
"""


def test_console_script_finds_the_module_in_its_working_folder(tmp_path):
    """The installed `recdiv` console script (whose sys.path holds its bin folder, not the working folder) imports
    `mymod:MyReranker` from the folder it runs in; a module that is really missing is one line naming the fixes."""
    script = Path(sys.executable).with_name("recdiv")
    assert script.exists(), f"the recdiv console script is not installed beside {sys.executable}"
    (tmp_path / "mymod.py").write_text(MYMOD, encoding="utf-8")
    (tmp_path / "run.tsv").write_text("u1 Q0 i1 1 3.0 r\nu1 Q0 i2 2 2.0 r\nu1 Q0 i3 3 1.0 r\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    common = dict(cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    done = subprocess.run([str(script), "rerank", "run.tsv", "--method", "mymod:MyReranker", "-k", "2",
                           "-o", "out.run"], **common)
    assert done.returncode == 0, done.stderr
    assert [line.split()[2] for line in (tmp_path / "out.run").read_text().splitlines()] == ["i3", "i2"]
    done = subprocess.run([str(script), "rerank", "run.tsv", "--method", "notmymod:MyReranker", "-k", "2",
                           "-o", "out2.run"], **common)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "cannot import reranker 'notmymod:MyReranker': no module 'notmymod' in the working folder" in done.stderr
    assert "PYTHONPATH" in done.stderr and "pip install -e" in done.stderr
    assert not (tmp_path / "out2.run").exists()


def test_import_errors_name_the_real_problem(tmp_path, monkeypatch):
    from recdiv.errors import ConfigError
    from recdiv.registry import load_object

    (tmp_path / "brokenmod.py").write_text("import no_such_dependency_xyz\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="No module named 'no_such_dependency_xyz'"):
        load_object("brokenmod:A", "reranker")
    with pytest.raises(ConfigError, match=r"no module 'elsewhere_xyz' in the working folder .* PYTHONPATH"):
        load_object("elsewhere_xyz:A", "reranker")


def test_notebook_02_uses_the_kit_and_module_class():
    """Notebook 02 tests its reranker with recdiv.testing and uses it as module:Class (never by editing recdiv)."""
    source = (REPO_ROOT / "notebooks" / "src" / "02-write-your-own-reranker.py").read_text(encoding="utf-8")
    assert "from recdiv.testing import" in source and "check_against_loop(" in source and "check_reranker(" in source
    assert "--method newgenre:NewGenre" in source and "PYTHONPATH=. recdiv" not in source
    assert "registry.py" not in source and "Register your class" not in source
    page = PAGE.read_text(encoding="utf-8")
    assert "from recdiv.testing import" in page and "tests." not in page.replace("tests/", "")
