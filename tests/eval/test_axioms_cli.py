"""`recdiv axioms`: P&R Table 1 as measured, with the paper's marks (recdiv.cli.axioms)."""

from __future__ import annotations

import json

import pytest

from recdiv.cli import COMMANDS, main
from recdiv.eval.meta.axioms import AXIOMS, PAPER_TABLE1, paper_marks, table1


def test_registered():
    assert COMMANDS["axioms"].module == "recdiv.cli.axioms"


def test_default_markdown_is_table1(capsys):
    assert main(["axioms", "--cases", "2", "--max-size", "3"]) == 0
    out = capsys.readouterr().out.strip()
    table, made_by = out.split("\n<!-- recdiv provenance: ")  # the table, then what made it (recdiv.provenance)
    assert table.rstrip() == table1(n_cases=2, seed=0, max_size=3)
    assert made_by.endswith("<!-- recdiv command: recdiv axioms --cases 2 --max-size 3 -->")
    lines = table.splitlines()
    assert lines[0] == "| metric | " + " | ".join(AXIOMS) + " |"
    assert sum(line.startswith("|") for line in lines) == 2 + 7
    # the legend: what the marks mean, then every axiom in words, one line each
    legend = lines[2 + 7:]
    assert legend[1].startswith("● holds, ○ fails on the generated instances; (P&R ●) or (P&R ○)")
    assert [line.split(" — ")[0] for line in legend[3:]] == [f"- {a}" for a in AXIOMS]
    assert "- AspRel — aspect relevance: of two equally rated items, the one of the aspect the user cares more" \
        in table
    # αβ-nDCG: seven axioms hold as in P&R Table 1; MoreAsp is violated only by some instances (about 1 in 25
    # generated ones, docs/intent-aware.md), so 2 cases per axiom need not meet one — see the JSON test
    cells = [c.strip() for c in lines[2].strip("| ").split(" | ")]
    assert cells[0] == "ab-nDCG"
    assert [c for a, c in zip(AXIOMS, cells[1:]) if a != "MoreAsp"] == ["●"] * 7


def test_json_measures_and_paper_marks(capsys):
    # seed 5: the first generated MoreAsp instance is already a violation for αβ-nDCG
    rc = main(["axioms", "-m", "ab-nDCG@10", "-m", "nDCG@10", "--cases", "5", "--seed", "5", "--max-size", "5",
               "--format", "json"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == 5 and data["seed"] == 5 and data["axioms"] == list(AXIOMS)
    ab, ndcg = data["metrics"]
    assert ab["metric"] == "ab-nDCG@10" and ab["paper"] == list(AXIOMS)
    assert all(v["holds"] and v["paper"] for a, v in ab["axioms"].items() if a != "MoreAsp")
    assert ab["axioms"]["MoreAsp"] == {"holds": False, "checked": 1, "paper": True}
    assert ab["axioms"]["Pri"]["checked"] == 5
    # plain nDCG is not in P&R's table; it is blind to aspects: fails AspRel, satisfies Pri and TopHeav
    assert ndcg["paper"] is None
    assert ndcg["axioms"]["AspRel"] == {"holds": False, "checked": 1, "paper": None}
    assert ndcg["axioms"]["Pri"]["holds"] and ndcg["axioms"]["TopHeav"]["holds"]


def test_markdown_brackets_disagreements_only(capsys):
    assert main(["axioms", "-m", "S-recall@10", "-m", "ERR-IA@10", "--cases", "2", "--max-size", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    srecall = lines[2].split(" | ")
    assert srecall[0] == "| S-recall@10"
    # S-recall: P&R mark nothing; every measured ● carries the paper's ○
    for cell in srecall[1:]:
        cell = cell.rstrip(" |")
        assert cell == "○" or cell == "● (P&R ○)"
    assert "(P&R" not in lines[3]  # ERR-IA is not in Table 1


def test_output_file(tmp_path, capsys):
    out = tmp_path / "t1.md"
    assert main(["axioms", "-m", "ab-nDCG@10", "--cases", "2", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text().startswith("| metric | Pri |")


def test_paper_marks_lookup():
    assert paper_marks("alpha-nDCG(gain=graded)@10") == PAPER_TABLE1["alpha-nDCG"]
    assert paper_marks("EU@100") == PAPER_TABLE1["EU"]
    assert paper_marks("NRBP") == PAPER_TABLE1["NRBP"]
    assert paper_marks("nDCG@10") is None


@pytest.mark.parametrize("argv", [["-m", "bogus@3"], ["--cases", "0"], ["--max-size", "0"]])
def test_errors_exit_2(argv, capsys):
    assert main(["axioms", *argv, "--cases", "1"] if "--cases" not in argv else ["axioms", *argv]) == 2
    assert "recdiv: error:" in capsys.readouterr().err
