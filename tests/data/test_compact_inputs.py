"""Evaluation inputs as compact arrays (issue 15.3): the NumPy `Vocab` agrees with pandas' Index semantics,
`load_inputs` builds the same qrels and runs as the DataFrame route, and `recdiv eval` does not import pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recdiv.data import textio
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.eval.io import load_inputs

ids = st.one_of(st.integers(-50, 50), st.text("abcé1 ", min_size=1, max_size=3))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(ids, max_size=15), min_size=1, max_size=3), st.lists(ids, max_size=10))
def test_vocab_matches_pandas_index(columns, queries):
    homogeneous = [c for c in columns if len({type(x) for x in c}) <= 1]
    if not homogeneous or len({type(x) for c in homogeneous for x in c}) > 1:
        return  # one id type per vocabulary, as in every file recdiv reads
    v = Vocab.from_values(*homogeneous)
    want = pd.Index(pd.concat([pd.Series(c, dtype=object) for c in homogeneous]).unique())
    want = want.sort_values() if len(want) else want
    assert v.ids.tolist() == want.tolist()
    got = v.lookup(np.asarray(queries, dtype=object), missing="-1") if queries else np.zeros(0)
    assert got.tolist() == want.get_indexer(pd.Index(queries, dtype=object)).tolist()
    assert v.string_rank.tolist() == np.argsort(np.argsort(want.astype(str).to_numpy(), kind="stable"),
                                                kind="stable").tolist()


def test_vocab_types_and_errors():
    assert Vocab([3, 1, 2]).ids.dtype == np.int64 and Vocab(["a"]).ids.dtype == object
    assert Vocab(np.array([1, 2], dtype=object)).ids.dtype == np.int64  # like pandas' inference
    assert Vocab([3, 1, 2]).lookup([1, 2.0, 7], missing="-1").tolist() == [1, 2, -1]
    assert Vocab([1, 2]).lookup(["1"], missing="-1").tolist() == [-1]  # text never equals a number
    with pytest.raises(KeyError, match="unknown id 'z'"):
        Vocab(["a"]).lookup(["z"])
    with pytest.raises(ValueError, match="duplicate id in vocabulary: 'a'"):
        Vocab(["a", "b", "a"])
    assert Vocab([]).lookup([1], missing="-1").tolist() == [-1]


def test_load_inputs_equals_dataframe_route(tmp_path):
    (tmp_path / "q").write_text("u2 0 i1 4\nu1 0 i3 5\nu1 0 i9 1\nu3 0 i2 3\n")
    (tmp_path / "r").write_text("u1 Q0 i3 1 0.5 t\nu1 Q0 i7 2 0.5 t\nu2 Q0 i9 1 2 t\nu2 Q0 i1 2 1 t\n")
    inputs = load_inputs(tmp_path / "q", [tmp_path / "r"])
    qf, rf = textio.read_trec_qrels(tmp_path / "q"), textio.read_trec_run(tmp_path / "r")
    users = Vocab.from_values(qf["user"], rf["user"])
    items = Vocab.from_values(qf["item"], rf["item"])
    assert inputs.qrels.users == users and inputs.qrels.items == items
    assert (inputs.qrels.matrix != Qrels.from_frame(qf, users, items).matrix).nnz == 0
    run, want = inputs.runs["r"], Rankings.from_frame(rf, users, items)
    np.testing.assert_array_equal(run.items, want.items)
    np.testing.assert_array_equal(run.scores, want.scores)
    assert items.id_of(run.items[0]).tolist() == ["i7", "i3"]  # score tie: item id in descending string order


def test_recdiv_eval_of_accuracy_measures_imports_no_pandas_scipy_or_numba(tmp_path):
    (tmp_path / "q").write_text("u1 0 a 4\nu2 0 b 5\n")
    (tmp_path / "r").write_text("u1 Q0 a 1 0.5 t\nu2 Q0 c 1 0.5 t\n")
    code = ("import sys; from recdiv.cli import main; "
            f"rc = main(['eval', {str(tmp_path / 'q')!r}, {str(tmp_path / 'r')!r}, '-m', 'P@1', 'nDCG@2', 'AP', "
            "'RR']); "
            "assert rc == 0; heavy = sorted(m for m in ('pandas', 'scipy', 'numba') if m in sys.modules); "
            "assert not heavy, heavy")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "0.500000" in out.stdout


def test_recdiv_rerank_imports_no_pandas(tmp_path):
    """`recdiv rerank` reads, reranks and writes without pandas (the writers build pyarrow arrays from buffers:
    pa.array would import it)."""
    (tmp_path / "r").write_text("u1 Q0 a 1 0.5 t\nu1 Q0 b 2 0.4 t\nu2 Q0 b 1 0.5 t\n")
    (tmp_path / "asp").write_text("a\tx\nb\ty\nb\tx\n")
    code = ("import sys; from recdiv.cli import main; "
            f"rc = main(['rerank', {str(tmp_path / 'r')!r}, '--method', 'MMR', '--aspects', {str(tmp_path / 'asp')!r}, "
            f"'-k', '2', '-o', {str(tmp_path / 'out')!r}]); assert rc == 0; assert 'pandas' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out").read_text() == "u1 Q0 a 1 2 MMR\nu1 Q0 b 2 1 MMR\nu2 Q0 b 1 2 MMR\n"


def test_write_rankings_equals_frame_writer(tmp_path):
    scores = np.array([[0.1, 1 / 3, np.nan], [2.5, 1e-300, 7.0]])
    items = np.array([[2, 0, -1], [1, 2, 0]])
    r = Rankings(np.array([0, 2]), items, scores, Vocab(["u1", "u2", "u3"]), Vocab(["x", "y", 10]))
    textio.write_rankings(r, tmp_path / "a", tag="sys")
    textio.write_trec_run(r.to_frame(), tmp_path / "b", tag="sys")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert (tmp_path / "a").read_text().splitlines()[0] == "u1 Q0 10 1 0.10000000000000001 sys"


def test_rerank_takes_a_candidate_missing_from_the_aspect_file_as_featureless(tmp_path, capsys):
    from recdiv.cli import main

    (tmp_path / "run").write_text("u1 Q0 a 1 0.9 s\n# note\nu1 Q0 zz 2 0.8 s\n")
    (tmp_path / "asp").write_text("a\tx\n")
    rc = main(["rerank", str(tmp_path / "run"), "--method", "MMR", "--aspects", str(tmp_path / "asp"), "-o",
               str(tmp_path / "out")])
    assert rc == 0
    assert "1 candidate item not in the aspect file: without features" in capsys.readouterr().err
    assert [line.split()[2] for line in (tmp_path / "out").read_text().splitlines()] == ["a", "zz"]
