"""Runs in every format through every command that reads or writes one: `recdiv recommend -o`, `recdiv rerank RUN
-o`, `recdiv show RUN --baseline RUN --qrels QRELS` take TREC text, CSV, TSV, Parquet and Arrow by extension and
give the lists the TREC path gives; `write_rankings` writes Parquet in row groups of whole users."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from recdiv.data import formats as F
from recdiv.data.rankings import PAD, Rankings
from recdiv.data.vocab import Vocab

RECDIV = [sys.executable, "-m", "recdiv"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([*RECDIV, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A training file, test qrels and item aspects of 30 users and 40 items."""
    path = tmp_path_factory.mktemp("command-formats")
    rng = np.random.default_rng(5)
    train, qrels = [], []
    for u in range(1, 31):
        seen = rng.choice(40, 14, replace=False)
        train += [f"u{u}\ti{i}\t{rng.integers(1, 6)}\n" for i in seen[:10]]
        qrels += [f"u{u} 0 i{i} {rng.integers(1, 6)}\n" for i in seen[10:]]
    (path / "train.tsv").write_text("".join(train))
    (path / "test.qrels").write_text("".join(qrels))
    (path / "aspects.tsv").write_text("".join(f"i{i}\tg{g}\n" for i in range(40) for g in {i % 5, i % 3 + 5}))
    return path


def _lists(path) -> list[tuple[str, str, int, float]]:
    t = F.read_run(path)
    return list(zip(t["user"].values().tolist(), t["item"].values().tolist(), t["rank"].tolist(),
                    t["score"].tolist()))


def test_recommend_rerank_and_show_in_table_formats(folder, tmp_path):
    """The TREC chain and a chain through Parquet (recommend), Arrow (rerank) and CSV (show's qrels) agree."""
    side = ["--train", str(folder / "train.tsv"), "--qrels", str(folder / "test.qrels")]
    (tmp_path / "qrels.csv").write_text("user,item,grade\n" + "".join(
        ",".join(line.split()[i] for i in (0, 2, 3)) + "\n" for line in (folder / "test.qrels").open()))
    chains = {"trec": ("pop.run", "mmr.run", str(folder / "test.qrels")),
              "tables": ("pop.parquet", "mmr.arrow", "qrels.csv")}
    shown = {}
    for name, (pop, mmr, qrels) in chains.items():
        _cli("recommend", *side, "--algo", "item-knn", "-n", "15", "-o", str(tmp_path / pop))
        _cli("rerank", str(tmp_path / pop), "--method", "MMR", "--aspects", str(folder / "aspects.tsv"), "-k", "5",
             "-o", str(tmp_path / mmr))
        out = subprocess.run([*RECDIV, "show", mmr, "--user", "u3", "--baseline", pop, "--qrels", qrels, "-k", "5"],
                             capture_output=True, text=True, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        shown[name] = [line for line in out.stdout.splitlines() if "user u3:" not in line]
    trec, tables = chains["trec"], chains["tables"]
    for a, b, n in ((trec[0], tables[0], 15), (trec[1], tables[1], 5)):
        assert _lists(tmp_path / a) == _lists(tmp_path / b) and len(_lists(tmp_path / a)) == 30 * n
    assert shown["trec"] == shown["tables"] and any("✓" in line for line in shown["trec"])


def test_write_rankings_parquet_row_groups_hold_whole_users(tmp_path):
    items = np.array([[2, 0, 1], [1, PAD, PAD], [0, 2, PAD], [2, 1, 0]])
    scores = np.where(items >= 0, np.array([[3.0, 2.0, 1.0]]), np.nan)
    r = Rankings(np.array([3, 0, 2, 1]), items, scores, Vocab(["a", "b", "c", "d"]), Vocab([10, 20, 30]))
    from recdiv.data.formats_write import ranking_blocks, write_blocks

    path = tmp_path / "r.parquet"
    assert write_blocks(ranking_blocks(r, rows=6), path, "run", "parquet") == 9  # 2 users (6 cells) a block
    assert pq.ParquetFile(path).metadata.num_row_groups == 2
    assert F.write_rankings(r, tmp_path / "r.run", tag="t") == 9
    assert _lists(path) == _lists(tmp_path / "r.run") == [
        ("d", "30", 1, 3.0), ("d", "10", 2, 2.0), ("d", "20", 3, 1.0), ("a", "20", 1, 3.0), ("c", "10", 1, 3.0),
        ("c", "30", 2, 2.0), ("b", "30", 1, 3.0), ("b", "20", 2, 2.0), ("b", "10", 3, 1.0)]


def test_a_tsv_run_without_a_header_is_trec_text_as_recdiv_always_wrote_it(folder, tmp_path):
    """`recommend -o run.tsv` writes a TREC run (the README's first command; trec_eval reads it) and a TREC run named
    .tsv is read as TREC text; a .tsv with a header is a table."""
    _cli("recommend", "--train", str(folder / "train.tsv"), "--algo", "pop", "-n", "4", "-o", str(tmp_path / "run.tsv"))
    first = (tmp_path / "run.tsv").read_text().splitlines()[0].split()
    assert len(first) == 6 and first[1] == "Q0"
    assert F.input_format(tmp_path / "run.tsv") == "trec" and F.rankings_format(tmp_path / "run.tsv") == "trec"
    F.convert(tmp_path / "run.tsv", tmp_path / "table.tsv")
    assert (tmp_path / "table.tsv").read_text().splitlines()[0].split("\t")[:2] == ["user", "item"]
    assert F.input_format(tmp_path / "table.tsv") == "tsv"
    assert _lists(tmp_path / "run.tsv") == _lists(tmp_path / "table.tsv")
