"""docs/tutorial-reranker.md: its code blocks run as written and the new reranker fits in under 30 lines."""

from __future__ import annotations

import re

from recdiv.data.locate import REPO_ROOT


def test_tutorial_code_runs():
    text = (REPO_ROOT / "docs" / "tutorial-reranker.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 2
    code_lines = [ln for ln in blocks[0].splitlines() if ln.strip()]
    assert len(code_lines) < 30
    namespace: dict = {}
    exec(compile("\n".join(blocks), "tutorial-reranker.md", "exec"), namespace)
