"""docs/tutorial-reranker.md: its code blocks run as written, the new reranker fits in under 30 lines, and it is
usable by `module:Class` without editing recdiv (#16.9)."""

from __future__ import annotations

import re
import types

from recdiv.data.locate import REPO_ROOT
from recdiv.diversifiers import make_reranker
from tests.diversifiers.example_e import example_e, ids


def test_tutorial_code_runs(monkeypatch):
    text = (REPO_ROOT / "docs" / "tutorial-reranker.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 2
    code_lines = [ln for ln in blocks[0].splitlines() if ln.strip()]
    assert len(code_lines) < 30
    namespace: dict = {}
    exec(compile("\n".join(blocks), "tutorial-reranker.md", "exec"), namespace)
    module = types.ModuleType("tutorial_popmmr")
    module.PopMMR = namespace["PopMMR"]
    monkeypatch.setitem(__import__("sys").modules, "tutorial_popmmr", module)
    candidates, context = example_e()
    by_name = make_reranker("tutorial_popmmr:PopMMR", beta=0.2, gamma=0.5).rerank(candidates, 3, context)
    assert ids(by_name) == ("c1", "c3", "c2")
