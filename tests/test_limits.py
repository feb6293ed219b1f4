"""Every value that sizes work is checked before work (recdiv.limits): one bad value is a one-line error naming the
stated limit, never terabytes of allocation, a run until killed or a RecursionError."""

from __future__ import annotations

import math

import pytest

from recdiv import limits
from recdiv.cli import main
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure

RUN = "".join(f"u{u} Q0 i{i} {r} {10 - r} sys\n" for u in range(1, 4) for r, i in enumerate(range(u, u + 5), 1))
RUN2 = "".join(f"u{u} Q0 i{i} {r} {10 - r} two\n" for u in range(1, 4) for r, i in enumerate(range(5, 0, -1), 1))
QRELS = "".join(f"u{u} 0 i{i} {1 + (u + i) % 5}\n" for u in range(1, 4) for i in range(1, 9))
TOML = '''name = "x"
[[datasets]]
name = "synthetic:tiny"
{recs}
[metrics]
measures = ["P@5"]
'''


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in {"a.run": RUN, "b.run": RUN2, "t.qrels": QRELS}.items():
        (tmp_path / name).write_text(text, "utf-8")
    return tmp_path


def _refused(argv, capsys) -> str:
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1 and "see docs/limits.md" in err, err
    return err


@pytest.mark.parametrize("argv", [
    ["eval", "t.qrels", "a.run", "-m", "alpha-nDCG@1000000000000"],
    ["eval", "t.qrels", "a.run", "-m", "P@10000001"],
    ["compare", "t.qrels", "a.run", "b.run", "-m", "P@5", "--samples", "1000000000000"],
    ["compare", "t.qrels", "a.run", "b.run", "-m", "P@5", "--test", "permutation", "--samples", "10000001"],
    ["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--samples", "1000000000000"],
    ["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--asl-samples", "1000000000000"],
    ["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--robustness-samples", "100000000"],
    ["meta", "t.qrels", "a.run", "b.run", "-m", "P@5", "--sparsity-levels", ",".join(["0.5"] * 20_000)],
    ["axioms", "--max-size", "1000000"],
    ["axioms", "--cases", "1000000000"],
])
def test_values_beyond_the_stated_limits_are_refused_before_work(files, capsys, argv):
    _refused(argv, capsys)


def test_cutoff_limit_is_checked_where_measures_are_parsed():
    assert parse_measure(f"nDCG@{limits.MAX_CUTOFF}").cutoff == limits.MAX_CUTOFF
    with pytest.raises(ConfigError, match="cutoff of nDCG = 10,000,001: at most 10,000,000"):
        parse_measure(f"nDCG@{limits.MAX_CUTOFF + 1}")


def test_experiment_grid_is_counted_before_it_is_expanded(files, capsys):
    huge = "\n".join(["[[recommenders]]", 'name = "user-knn"', "[recommenders.grid]",
                      *(f"{k} = [{', '.join(map(str, range(1, 41)))}]" for k in ("k", "shrink", "alpha", "min_sim"))])
    (files / "grid.toml").write_text(TOML.format(recs=huge), "utf-8")  # 40⁴ = 2,560,000 systems
    err = _refused(["run", "grid.toml"], capsys)
    assert "recommenders[0]: grid points = 2,560,000: at most 10,000" in err
    many = "\n".join(f'[[recommenders]]\nname = "pop"\nlabel = "p{i}"' for i in range(3))
    divs = "\n".join(["[[diversifiers]]", 'name = "MMR"', "[diversifiers.grid]",
                      f"lambda = [{', '.join(str(i / 10_000) for i in range(5000))}]"])
    (files / "divs.toml").write_text(TOML.format(recs=many + "\n" + divs), "utf-8")  # 3 + 5000 × 3 systems
    err = _refused(["run", "divs.toml"], capsys)
    assert "systems of the experiment = 15,003: at most 10,000" in err
    assert not (files / "results").exists()


@pytest.mark.parametrize("nest", ["x = " + "[" * 100_000 + "]" * 100_000,
                                  "a" + ".a" * 100_000 + " = 1",
                                  "[" + ".".join(["a"] * 100_000) + "]\nx = 1",
                                  "x = " + "{a = " * 5_000 + "1" + "}" * 5_000])
def test_deeply_nested_experiment_files_are_refused_before_parsing(files, capsys, nest):
    (files / "deep.toml").write_text(nest + "\n", "utf-8")
    err = _refused(["run", "deep.toml"], capsys)
    assert "deep.toml: nesting depth" in err and "at most 64" in err


def test_nesting_depth_reads_strings_and_comments_as_text():
    text = 'a = "[[[[{{"  # [[[[\nb = \'\'\'\n[[[\n\'\'\'\nc.d.e = [1, [2, [3]]]\n[t]\nf = {g.h = 1}\n'
    assert limits.nesting_depth(text) == 3


def test_an_item_with_too_many_aspects_is_refused(files, capsys):
    many = "".join(f"i1\ttag{j}\n" for j in range(limits.MAX_ASPECTS_PER_ITEM + 1)) + "".join(
        f"i{i}\tg\n" for i in range(2, 10))
    (files / "many.tsv").write_text(many, "utf-8")
    err = _refused(["eval", "t.qrels", "a.run", "-m", "alpha-nDCG@5", "--aspects", "many.tsv"], capsys)
    assert "aspects of item 'i1' (aspects) = 10,001: at most 10,000" in err
    err = _refused(["rerank", "a.run", "--method", "MMR", "--aspects", "many.tsv", "-o", "x.run"], capsys)
    assert "aspects of item 'i1'" in err and not (files / "x.run").exists()


def test_dense_arrays_from_the_data_are_bounded_before_allocation(files, capsys):
    """30,000 items with an aspect each: a dense items × aspects indicator (MMR's set cosine) would hold 9·10⁸ cells;
    nDCG-IA, which works on each chunk of users' own aspects, needs none and runs."""
    wide = "".join(f"i{i}\tg{i}\n" for i in range(1, 30_001))
    (files / "wide.tsv").write_text(wide, "utf-8")
    err = _refused(["rerank", "a.run", "--method", "MMR", "--aspects", "wide.tsv", "-o", "x.run"], capsys)
    assert "30,000 × 30,000 cells" in err and not (files / "x.run").exists()
    assert main(["eval", "t.qrels", "a.run", "-m", "nDCG-IA(weights=uniform)@5", "--aspects", "wide.tsv"]) == 0
    # one aspect per item: nDCG(u|a) = 1/log2(1 + rank of the item having a), averaged over u's relevant items
    want = sum(sum(1 / math.log2(list(range(u, u + 5)).index(i) + 2) if i in range(u, u + 5) else 0 for i in rel)
               / len(rel) for u in range(1, 4) for rel in [[i for i in range(1, 9) if 1 + (u + i) % 5 >= 4]]) / 3
    assert capsys.readouterr().out.split()[-1] == f"{want:.6f}" == "0.313224"


@pytest.mark.parametrize(("param", "message"), [("factors=1000000000", "cells = "),
                                                ("iterations=1000000000", "iterations of WRMF = 1,000,000,000")])
def test_model_sizes_are_checked_against_the_data_before_training(files, capsys, param, message):
    train = "".join(f"u{u}\ti{i}\t{1 + (u + i) % 5}\n" for u in range(1, 6) for i in range(1, 12) if (u + i) % 3)
    (files / "train.tsv").write_text(train, "utf-8")
    err = _refused(["recommend", "--train", "train.tsv", "--algo", "wrmf", "--param", param, "-o", "x.run"], capsys)
    assert message in err and not (files / "x.run").exists()
