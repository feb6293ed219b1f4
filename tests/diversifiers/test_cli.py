"""`recdiv rerank` end to end on Example E files, and its explicit errors."""

from __future__ import annotations

import pytest

from recdiv.cli import main
from recdiv.data.textio import read_trec_run


def _files(tmp_path, extra_run_line=""):
    run = tmp_path / "cands.run"
    run.write_text("".join(f"u Q0 c{j} {j} {s} base\n" for j, s in zip(range(1, 6), [.9, .8, .7, .6, .5]))
                   + extra_run_line)
    asp = tmp_path / "aspects.tsv"
    asp.write_text("c1\tA\nc2\tA\nc3\tC\nc4\tA\nc4\tC\nc5\tD\np1\tA\np2\tA\np2\tC\np3\tD\n")
    train = tmp_path / "train.tsv"
    train.write_text("u\tp1\t5\nu\tp2\t4\nu\tp3\t2\n")
    return run, asp, train


def test_rerank_xquad_and_ia_select(tmp_path):
    run, asp, train = _files(tmp_path)
    out = tmp_path / "out.run"
    rc = main(["rerank", str(run), "--method", "IASelect", "--aspects", str(asp), "--train", str(train),
               "-k", "3", "-o", str(out)])
    assert rc == 0
    assert read_trec_run(out)["item"].tolist() == ["c1", "c3", "c4"]
    for spelling in ("IA-Select", "ia-select", "iaselect"):  # one spelling rule (#16.3)
        other = tmp_path / f"{spelling}.run"
        assert main(["rerank", str(run), "--method", spelling, "--aspects", str(asp), "--train", str(train),
                     "-k", "3", "-o", str(other)]) == 0
        assert other.read_text() == out.read_text()
    rc = main(["rerank", str(run), "--method", "xQuAD", "--param", "lambda=0.9", "--param", "norm=minmax",
               "--aspects", str(asp), "--train", str(train), "-k", "3", "-o", str(out)])
    assert rc == 0 and read_trec_run(out)["item"].tolist() == ["c1", "c5", "c4"]
    rc = main(["rerank", str(run), "--method", "Random", "--seed", "42", "--aspects", str(asp), "-k", "3",
               "-o", str(out)])
    assert rc == 0 and read_trec_run(out)["item"].tolist() == ["c5", "c3", "c4"]


@pytest.mark.parametrize(("args", "message"), [
    (["--method", "Nope"], "unknown reranker 'Nope'"),
    (["--method", "ia-selekt"], "did you mean 'IASelect'"),
    (["--method", "MMR", "--param", "lambda=2"], "lambda"),
    (["--method", "MMR", "--param", "oops"], "NAME=VALUE"),
    (["--method", "xQuAD", "--no-train"], "needs --train"),
])
def test_rerank_errors(tmp_path, capsys, args, message):
    run, asp, train = _files(tmp_path)
    base = ["rerank", str(run), "--aspects", str(asp), "-o", str(tmp_path / "o.run")]
    if "--no-train" in args:
        args = [a for a in args if a != "--no-train"]
    else:
        base += ["--train", str(train)]
    assert main(base + args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("method", ["MMR", "xQuAD", "IASelect"])
def test_a_candidate_no_file_describes_is_an_item_without_features(tmp_path, capsys, method):
    """A candidate missing from the aspect (and training) file is an item with an empty feature set, as RankSys takes
    it, for every reranker: the same lists as when the training file lists it (known, without aspects)."""
    run, asp, train = _files(tmp_path, "u Q0 zz 6 0.95 base\n")
    knows = tmp_path / "train-knows-zz.tsv"
    knows.write_text(train.read_text() + "v\tzz\t3\n")
    outs = []
    for t in (train, knows):
        outs.append(tmp_path / f"{t.stem}.run")
        assert main(["rerank", str(run), "--method", method, "--aspects", str(asp), "--train", str(t),
                     "-k", "6", "-o", str(outs[-1])]) == 0
    assert outs[0].read_text() == outs[1].read_text()
    assert "1 candidate item in none of the aspect file, the training file: without features" in \
        capsys.readouterr().err
    listed = read_trec_run(outs[0])["item"].tolist()
    assert sorted(listed) == ["c1", "c2", "c3", "c4", "c5", "zz"]
    if method == "MMR":  # the best score goes first; after it a featureless item has no defined objective: last
        assert listed[0] == "zz" and listed[-1] != "zz"


def test_mmr_over_aspects_alone_takes_an_undescribed_candidate(tmp_path, capsys):
    run, asp, _ = _files(tmp_path, "u Q0 zz 6 0.4 base\n")
    out = tmp_path / "o.run"
    assert main(["rerank", str(run), "--method", "MMR", "--aspects", str(asp), "-k", "6", "-o", str(out)]) == 0
    assert "1 candidate item not in the aspect file: without features" in capsys.readouterr().err
    assert read_trec_run(out)["item"].tolist()[-1] == "zz"


def test_a_factor_file_that_describes_no_candidate_is_refused(tmp_path, capsys):
    run, _, _ = _files(tmp_path)
    fac = tmp_path / "factors.tsv"
    fac.write_text("x1\t0.1\t0.2\nx2\t0.3\t0.1\n")
    assert main(["rerank", str(run), "--method", "MMR", "--factors", str(fac), "-o", str(tmp_path / "o.run")]) == 2
    assert "no candidate item of" in capsys.readouterr().err
    assert not (tmp_path / "o.run").exists()


def test_rerank_similarity_jaccard(tmp_path):
    """--similarity jaccard (RankSys's distance of its MMR example) gives the lists of the Python reranker with a
    `Jaccard` similarity, and they differ from set cosine's on this instance."""
    import numpy as np
    import pandas as pd

    from recdiv.aspects.similarity import Jaccard
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.rankings import Rankings
    from recdiv.data.vocab import Vocab
    from recdiv.diversifiers import RerankContext, make_reranker

    rng = np.random.default_rng(3)
    items = Vocab([f"i{j:02d}" for j in range(40)])
    rows = [(items.ids[j], f"a{a}") for j in range(40) for a in rng.choice(6, size=rng.integers(1, 4), replace=False)]
    (tmp_path / "aspects.tsv").write_text("".join(f"{i}\t{a}\n" for i, a in rows))
    lines = [(f"u{u}", items.ids[j], 100.0 - k) for u in range(20) for k, j in enumerate(rng.permutation(40)[:25])]
    (tmp_path / "cands.run").write_text("".join(f"{u} Q0 {i} {k + 1} {s} b\n" for k, (u, i, s) in enumerate(lines)))
    outs = {}
    for sim in ("cosine", "jaccard"):
        outs[sim] = tmp_path / f"{sim}.run"
        assert main(["rerank", str(tmp_path / "cands.run"), "--method", "MMR", "--param", "variant=ranksys",
                     "--similarity", sim, "--aspects", str(tmp_path / "aspects.tsv"), "-k", "10",
                     "-o", str(outs[sim])]) == 0
    users = Vocab.from_values([u for u, _, _ in lines])
    space = AspectSpace.from_frame(pd.DataFrame(rows, columns=["item", "aspect"]), items)
    cands = Rankings.from_frame(pd.DataFrame(lines, columns=["user", "item", "score"]), users, items)
    want = make_reranker("MMR", variant="ranksys").rerank(cands, 10, RerankContext(aspects=space,
                                                                                   similarity=Jaccard(space)))
    got = read_trec_run(outs["jaccard"])
    assert got["item"].tolist() == list(want.to_frame()["item"])
    assert got["item"].tolist() != read_trec_run(outs["cosine"])["item"].tolist()
