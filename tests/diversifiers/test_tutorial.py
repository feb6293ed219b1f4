"""docs/tutorial-reranker.md: the reranker fits in under 30 lines and declares what it needs; used by `module:Class`
from its folder, the `recdiv` command names the fix when the folder is not on the path and asks for --train when it
is missing (the page's blocks themselves run in tests/docs/test_docs_run.py)."""

from __future__ import annotations

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
    # a console script does not search the working folder: the error says so and names both fixes
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".", str(folder))])
    assert main([*argv, "--train", "train.tsv"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "popmmr.py is in the working folder" in err
    assert "PYTHONPATH=. recdiv" in err and "python -m recdiv" in err
    monkeypatch.syspath_prepend(str(folder))
    assert main(argv) == 2  # NEEDS says "train": the command asks for it instead of failing inside the reranker
    assert "PopMMR needs --train" in capsys.readouterr().err
    assert main([*argv, "--train", "train.tsv"]) == 0
    assert [line.split()[2] for line in (folder / "out.run").read_text().splitlines()] == ["i1", "i3"]


def test_import_errors_name_the_real_problem(tmp_path, monkeypatch):
    from recdiv.errors import ConfigError
    from recdiv.registry import load_object

    (tmp_path / "brokenmod.py").write_text("import no_such_dependency_xyz\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="No module named 'no_such_dependency_xyz'"):
        load_object("brokenmod:A", "reranker")
    with pytest.raises(ConfigError, match=r"no module 'elsewhere_xyz' on the path: install .*PYTHONPATH"):
        load_object("elsewhere_xyz:A", "reranker")


def test_notebook_02_uses_the_kit_and_module_class():
    """Notebook 02 tests its reranker with recdiv.testing and uses it as module:Class (never by editing recdiv)."""
    source = (REPO_ROOT / "notebooks" / "src" / "02-write-your-own-reranker.py").read_text(encoding="utf-8")
    assert "from recdiv.testing import" in source and "check_against_loop(" in source and "check_reranker(" in source
    assert "--method newgenre:NewGenre" in source and "PYTHONPATH=. recdiv" in source
    assert "registry.py" not in source and "Register your class" not in source
    page = PAGE.read_text(encoding="utf-8")
    assert "from recdiv.testing import" in page and "tests." not in page.replace("tests/", "")
