"""Citable from the first minute: CITATION.cff and LICENSE agree with pyproject.toml, and every reference in
user-facing text — README, docs, examples, notebooks, `recdiv eval --list`, every command's --help, the docstrings
of the components users name (measures, rerankers, recommenders) and of the top-level API — resolves to a document
inside the repository (the implementer's notes outside it, METRICS.md and friends, are not cited)."""

from __future__ import annotations

import inspect
import re
import tomllib

import pytest

import recdiv
from recdiv.cli import COMMANDS, build_parser
from recdiv.data.locate import REPO_ROOT

OUTSIDE = re.compile(r"METRICS\.md|DESIGN\.md|STYLE\.md|shared/papers|shared/tools/README")


def test_citation_and_licence_agree_with_the_package():
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    cff = (REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M)
    assert re.search(rf"^version: {re.escape(project['version'])}$", cff, re.M)
    assert re.search(rf"^license: {project['license']}$", cff, re.M) and project["license"] == "MIT"
    assert re.search(r"^title: .+", cff, re.M) and re.search(r"^authors:\n  - name: .+", cff, re.M)
    licence = (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Permission is hereby granted, free of charge" in licence


def _files():
    yield from [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    yield from sorted((REPO_ROOT / "examples").iterdir())
    yield from sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
    yield from sorted((REPO_ROOT / "notebooks" / "src").glob("*.py"))


@pytest.mark.parametrize("path", list(_files()), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_pages_cite_only_what_the_repository_holds(path):
    hits = [f"{path.name}:{n}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if OUTSIDE.search(line)]
    assert hits == []


def _help(parser) -> list[str]:
    out = [parser.format_help()]
    for action in parser._actions:
        choices = getattr(action, "choices", None)
        for sub in (choices.values() if isinstance(choices, dict) else ()):
            if hasattr(sub, "format_help"):
                out += _help(sub)
    return out


def test_command_line_texts():
    from recdiv.cli.eval import list_text

    texts = [list_text(), *(t for name in COMMANDS for t in _help(build_parser(name)))]
    assert [t.splitlines()[0] for t in texts if OUTSIDE.search(t)] == []


def test_docstrings_users_read():
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.registry import RERANKERS
    from recdiv.eval.catalog import list_measures

    objects = [*list_measures(), *(RERANKERS.get(n) for n in RERANKERS), *(RECOMMENDERS.get(n) for n in RECOMMENDERS)]
    objects += [getattr(recdiv, name) for name in recdiv.__all__]
    bad = [getattr(o, "__qualname__", repr(o)) for o in objects if OUTSIDE.search(inspect.getdoc(o) or "")]
    assert bad == []
