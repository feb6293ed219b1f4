"""docs/walkthrough.md, run as documented: its ```sh blocks through the docs runner (tests/docs/runner.py: `recdiv`
on PATH, in a fresh folder, the data at ../shared/data), then checks of what the commands wrote and printed (the
lines are read from the page, so page and test cannot drift)."""

from __future__ import annotations

import shlex

import pytest

from recdiv.data.locate import REPO_ROOT
from recdiv.data.textio import read_trec_run
from tests.docs.blocks import parse
from tests.docs.runner import run_document

PAGE = REPO_ROOT / "docs" / "walkthrough.md"


def commands() -> list[list[str]]:
    """The argument lists of the page's `$ recdiv ...` commands, in page order."""
    out = [shlex.split(c) for b in parse(PAGE) if b.runs for c in b.commands()]
    assert all(c[0] == "recdiv" for c in out), "the walkthrough runs recdiv commands only"
    return [c[1:] for c in out]


def test_page_has_the_whole_chain():
    steps = [c[0] for c in commands()]
    assert steps[0] == "data" and {"recommend", "rerank", "eval", "compare"} <= set(steps)


@pytest.mark.realdata
@pytest.mark.slow
def test_walkthrough_runs_as_documented(tmp_path, data_root):
    outcome = run_document(PAGE, tmp_path, data_root)
    assert outcome.failures == [], "\n\n".join(outcome.failures)
    assert outcome.not_run == []
    procs = [p for ps in outcome.outputs.values() for p in ps]
    outputs: dict[str, list] = {}
    for argv, proc in zip(commands(), procs, strict=True):
        outputs.setdefault(argv[0], []).append(proc)
    u1 = tmp_path / "work" / "u1"
    for name in ("train.tsv", "test.qrels", "aspects.tsv", "README.txt", "wrmf.run", "wrmf.factors.tsv",
                 "xquad.run", "mmr.run", "mmr-latent.run", "report.md"):
        assert (u1 / name).is_file(), name
    assert read_trec_run(u1 / "wrmf.run").groupby("user").size().eq(500).all()
    for name in ("xquad.run", "mmr.run", "mmr-latent.run"):
        run = read_trec_run(u1 / name)
        assert run["user"].nunique() == 459 and run.groupby("user").size().eq(20).all(), name
    assert {line.split()[-1] for line in open(u1 / "mmr-latent.run")} == {"mmr-latent"}
    # every rerank prints one summary line; eval states its threshold and population with the numbers
    assert all(len(o.stderr.strip().splitlines()) == 1 for o in outputs["rerank"])
    ev = outputs["eval"][0]
    assert "relevant ⇔ grade ≥ 4" in ev.stderr and "mean over 456 users" in ev.stderr
    table = ev.stdout.splitlines()
    assert table[0].split()[1:] == ["nDCG@20", "alpha-nDCG@20", "ILD@20", "P@5", "P@10", "P@20"]
    values = {row.split()[0]: [float(x) for x in row.split()[1:]] for row in table[1:]}
    assert set(values) == {"wrmf", "xquad", "mmr", "mmr-latent"}
    assert values["mmr"][2] > values["wrmf"][2]  # MMR over genres spreads the list over the genres
    assert values["xquad"][1] > values["wrmf"][1]  # xQuAD covers the profile's genres
    assert "| " in (u1 / "report.md").read_text(encoding="utf-8")
