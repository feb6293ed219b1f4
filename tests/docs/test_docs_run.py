"""Docs that run: every Python block and shell example of README.md and docs/*.md, run in document order (the rule
is tests/docs/blocks.py's docstring; docs/architecture.md, "Docs that run", states it for authors).

Blocks marked `# not run by the docs test: REASON` are listed with their reasons in a warning of every run (and
still compiled or parsed); docs/walkthrough.md is run by tests/test_walkthrough.py through the same runner, with
checks of its own on the files it writes.
"""

from __future__ import annotations

import warnings

import pytest

from recdiv.data.locate import REPO_ROOT
from tests.docs.blocks import PYTHON, SHELL, DocError, documents, layout_problems, parse
from tests.docs.runner import run_document

RUN_ELSEWHERE = {"walkthrough.md": "tests/test_walkthrough.py"}
DOCS = [p for p in documents() if p.name not in RUN_ELSEWHERE]


def _id(path) -> str:
    return str(path.relative_to(REPO_ROOT))


@pytest.fixture
def registries_as_they_were():
    """The pages register example components (docs/architecture.md's DHits measure) in this process: the tests
    that run after them in the same worker see the registries as they were (tests/eval/test_measure.py lists and
    registers measures)."""
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.registry import RERANKERS
    from recdiv.eval.measure import MEASURES

    kept = [(r, dict(r._entries), dict(r._keys)) for r in (MEASURES, RERANKERS, RECOMMENDERS)]
    yield
    for r, entries, keys in kept:
        r._entries, r._keys = entries, keys


def test_every_page_reads_as_the_rule_says():
    """Closed fences, whole tables, and no command outside a tagged fence (it would never run)."""
    problems = []
    for path in documents():
        try:
            parse(path)
        except DocError as e:
            problems.append(str(e))
        problems += layout_problems(path)
    assert problems == []


def test_the_docs_have_code_to_run():
    blocks = [b for p in documents() for b in parse(p)]
    assert sum(b.lang in PYTHON and b.runs for b in blocks) >= 28
    assert sum(b.lang in SHELL and b.runs for b in blocks) >= 15
    assert all(b.skip_reason for b in blocks if b.lang in PYTHON | SHELL and not b.runs)


@pytest.mark.realdata
@pytest.mark.parametrize("path", DOCS, ids=_id)
def test_page_runs_in_order(path, tmp_path, data_root, registries_as_they_were):
    outcome = run_document(path, tmp_path, data_root)
    if outcome.not_run:
        warnings.warn(f"{_id(path)}: blocks not run (compiled or parsed only): " + "; ".join(outcome.not_run),
                      stacklevel=1)
    assert outcome.failures == [], "\n\n".join(outcome.failures)


def test_a_failing_block_is_reported_with_its_place(tmp_path, data_root):
    page = REPO_ROOT / "docs" / "_harness_probe.md"
    try:
        page.write_text("```python\nx = 1\n```\n\n```python\nprint(y)\n```\n\n```sh\n$ recdiv eval --nope\n```\n\n"
                        "```sh\n$ recdiv data info no-such-folder/\nrecdiv: error: something else\n```\n\n"
                        "```sh\n# not run by the docs test: a probe\n$ recdiv rerank --no-such-option\n```\n",
                        encoding="utf-8")
        outcome = run_document(page, tmp_path, data_root)
    finally:
        page.unlink()
    assert [f.split(":")[1] for f in outcome.failures] == ["5", "9", "13", "18"]
    assert "NameError: name 'y' is not defined" in outcome.failures[0]
    assert "should fail with `recdiv: error: something else`" in outcome.failures[2]
    assert "does not parse" in outcome.failures[3] and outcome.not_run == ["docs/_harness_probe.md:18: a probe"]
