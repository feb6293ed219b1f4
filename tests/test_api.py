"""The top-level API (`import recdiv`): lazy, listed, and the README's Python example runs as written."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import recdiv
from recdiv.data.locate import REPO_ROOT


def test_import_recdiv_is_cheap_and_lazy():
    code = "import sys, recdiv; print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'numba') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_entry_points_are_listed_and_resolve():
    for name in ("load_dataset", "make_split", "Context", "evaluate", "evaluate_files", "make_recommender",
                 "make_reranker", "parse_measure", "Results", "Evaluation", "genre_space"):
        assert name in dir(recdiv) and name in recdiv.__all__
        assert getattr(recdiv, name) is not None
    with pytest.raises(AttributeError):
        recdiv.no_such_thing  # noqa: B018


@pytest.mark.realdata
def test_readme_python_example(data_root, monkeypatch, capsys):
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Python API.*?```python\n(.*?)```", text, flags=re.S)[1]
    block = block.replace('"../shared/data"', repr(str(data_root)))
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    res = namespace["res"]
    assert res.runs == ("user-knn", "xQuAD")
    assert res.value("xQuAD", "alpha-nDCG@50") > res.value("user-knn", "alpha-nDCG@50")
    assert "nDCG@50" in capsys.readouterr().out
