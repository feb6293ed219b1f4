"""The core data model: Vocab, Interactions, Rankings (incl. the §0.5 tie rule), Qrels, textio."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from recdiv import DataError, outputs
from recdiv.data import Attribute, Dataset, Interactions, Qrels, Rankings, Split, Vocab, textio, top_k
from recdiv.data.qrels import lookup_csr


# Vocab -------------------------------------------------------------------------------------------------
def test_vocab_lookup_and_ids():
    v = Vocab([10, 2, 33])
    assert len(v) == 3 and 2 in v and 5 not in v
    np.testing.assert_array_equal(v.lookup([33, 10]), [2, 0])
    np.testing.assert_array_equal(v.lookup([33, 7], missing="-1"), [2, -1])
    with pytest.raises(KeyError):
        v.lookup([7])
    np.testing.assert_array_equal(v.id_of([1, 2]), [2, 33])


def test_vocab_from_values_sorted_and_duplicates_rejected():
    v = Vocab.from_values([3, 1], [2, 3])
    np.testing.assert_array_equal(v.ids, [1, 2, 3])
    with pytest.raises(ValueError, match="duplicate"):
        Vocab([1, 1])


def test_vocab_string_rank_is_string_order():
    v = Vocab([1, 2, 10])  # string order: "1" < "10" < "2"
    np.testing.assert_array_equal(v.string_rank, [0, 2, 1])


def test_vocab_extend_and_equality():
    v = Vocab(["a", "b"])
    w = v.extend(["c", "a"])
    np.testing.assert_array_equal(w.ids, ["a", "b", "c"])
    assert v.extend(["a"]) is v
    assert Vocab(["a", "b"]) == v and Vocab(["b", "a"]) != v


# Interactions ------------------------------------------------------------------------------------------
def _toy() -> Interactions:
    frame = pd.DataFrame({"user": ["u2", "u1", "u1", "u3"], "item": ["b", "c", "a", "a"],
                          "value": [3.0, 5.0, 4.0, 1.0], "timestamp": [30, 10, 20, 40]})
    return Interactions.from_frame(frame)


def test_interactions_from_frame_builds_sorted_csr():
    it = _toy()
    assert (it.n_users, it.n_items, it.nnz) == (3, 3, 4)
    dense = it.matrix.toarray()
    np.testing.assert_array_equal(dense, [[4, 0, 5], [0, 3, 0], [1, 0, 0]])
    # timestamps follow the CSR order: (u1,a)=20, (u1,c)=10, (u2,b)=30, (u3,a)=40
    np.testing.assert_array_equal(it.timestamps, [20, 10, 30, 40])
    np.testing.assert_array_equal(it.item_counts(), [2, 1, 1])
    np.testing.assert_array_equal(it.user_counts(), [2, 1, 1])


def test_interactions_duplicates_rejected_and_zero_kept():
    with pytest.raises(ValueError, match="duplicate"):
        Interactions.from_arrays(np.array([0, 0]), np.array([1, 1]), None, Vocab([1]), Vocab([1, 2]))
    it = Interactions.from_arrays(np.array([0]), np.array([0]), np.array([0.0]), Vocab([1]), Vocab([1]))
    assert it.nnz == 1 and it.values[0] == 0


def test_interactions_to_frame_select_with_values_roundtrip():
    it = _toy()
    f = it.to_frame()
    back = Interactions.from_frame(f, users=it.users, items=it.items)
    assert (back.matrix != it.matrix).nnz == 0
    sub = it.select(it.values >= 4)
    assert sub.nnz == 2 and sub.users is it.users
    np.testing.assert_array_equal(sub.timestamps, [20, 10])
    w = it.with_values(np.arange(4.0), kind="implicit")
    assert w.kind == "implicit" and w.values.tolist() == [0, 1, 2, 3]


def test_dataset_and_split_share_vocabularies():
    it = _toy()
    ds = Dataset("toy", it, {"g": Attribute(sp.csr_matrix(np.eye(3)), Vocab(["x", "y", "z"]))})
    assert ds.users is it.users and "g: 3" in repr(ds)
    Split(it.select(it.values > 3), it.select(it.values <= 3))
    other = Interactions.from_frame(pd.DataFrame({"user": ["zz"], "item": ["a"], "value": [1.0]}))
    with pytest.raises(ValueError, match="user vocabulary"):
        Split(it, other)


# top_k and Rankings -----------------------------------------------------------------------------------
def test_top_k_tie_rule_descending_string_id():
    """METRICS.md §0.5: ties by external id in descending string order (trec_eval ranked x, c, a)."""
    items = Vocab(["a", "c", "x", "b"])
    scores = np.array([[2.0, 2.0, 2.0, 1.0]])
    idx, val = top_k(scores, 4, items.string_rank)
    assert items.id_of(idx[0]).tolist() == ["x", "c", "a", "b"]
    np.testing.assert_array_equal(val[0], [2, 2, 2, 1])


def test_top_k_numeric_ids_tie_by_string_not_number():
    items = Vocab([1, 2, 10])
    idx, _ = top_k(np.zeros((1, 3)), 3, items.string_rank)
    assert items.id_of(idx[0]).tolist() == [2, 10, 1]  # "2" > "10" > "1"


def test_top_k_excludes_neg_inf_and_nan_and_pads():
    scores = np.array([[1.0, -np.inf, np.nan, 3.0], [-np.inf] * 4])
    idx, val = top_k(scores, 3)
    np.testing.assert_array_equal(idx, [[3, 0, -1], [-1, -1, -1]])
    assert np.isnan(val[0, 2]) and np.isnan(val[1]).all()


def test_top_k_matches_full_sort_on_random_data():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 5, size=(50, 40)).astype(float)  # many ties
    idx, _ = top_k(s, 10, chunk=7)
    for r in range(50):
        expect = sorted(range(40), key=lambda j: (-s[r, j], -j))[:10]
        assert idx[r].tolist() == expect


def test_rankings_from_frame_to_frame_roundtrip_and_check():
    uv, iv = Vocab(["u1", "u2"]), Vocab(["a", "b", "c"])
    frame = pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "c", "b"], "score": [1.0, 1.0, 0.5]})
    r = Rankings.from_frame(frame, uv, iv)
    assert r.items.tolist() == [[2, 0], [1, -1]]  # tie: "c" before "a"
    f = r.to_frame()
    assert f["rank"].tolist() == [1, 2, 1] and f["item"].tolist() == ["c", "a", "b"]
    assert r.lengths.tolist() == [2, 1] and r.truncate(1).k == 1
    bad = Rankings(np.array([0]), np.array([[1, 1]]), np.zeros((1, 2)), uv, iv)
    with pytest.raises(ValueError, match="twice"):
        bad.check()
    with pytest.raises(ValueError, match="padding"):
        Rankings(np.array([0]), np.array([[-1, 1]]), np.zeros((1, 2)), uv, iv).check()


def test_rankings_for_users_and_to_csr():
    uv, iv = Vocab(["u1", "u2", "u3"]), Vocab(["a", "b"])
    r = Rankings(np.array([2]), np.array([[1, 0]]), np.array([[0.9, 0.1]]), uv, iv)
    f = r.for_users(np.array([0, 2]))
    assert f.items.tolist() == [[-1, -1], [1, 0]]
    np.testing.assert_array_equal(r.to_csr().toarray(), [[0, 0], [0, 0], [2, 1]])


# Qrels -----------------------------------------------------------------------------------------------------
def test_qrels_lookup_relevant_population():
    uv, iv = Vocab(["u1", "u2", "u3"]), Vocab(["a", "b", "c"])
    q = Qrels.from_frame(pd.DataFrame({"user": ["u1", "u1", "u2"], "item": ["a", "c", "b"],
                                       "grade": [5.0, 3.0, 4.0]}), uv, iv)
    g = q.lookup(np.array([0, 1, 2]), np.array([[2, 0, -1], [1, 0, 2], [0, 1, 2]]))
    np.testing.assert_array_equal(np.isnan(g), [[False, False, True], [False, True, True], [True, True, True]])
    assert g[0, 0] == 3 and g[0, 1] == 5 and g[1, 0] == 4
    np.testing.assert_array_equal(q.n_relevant(4), [1, 1, 0])
    np.testing.assert_array_equal(q.population(4), [0, 1])
    np.testing.assert_array_equal(q.population(4, "judged"), [0, 1])
    assert q.relevant(5).nnz == 1


def test_lookup_csr_matches_dense_gather():
    rng = np.random.default_rng(0)
    dense = np.where(rng.random((20, 30)) < 0.2, rng.integers(1, 6, (20, 30)), 0).astype(float)
    m = sp.csr_matrix(dense)
    users = rng.permutation(20)[:10]
    items = rng.integers(-1, 30, size=(10, 8))
    got = lookup_csr(m, users, items)
    want = np.where((items >= 0) & (dense[users[:, None], np.maximum(items, 0)] > 0),
                    dense[users[:, None], np.maximum(items, 0)], np.nan)
    np.testing.assert_array_equal(got, want)


# textio --------------------------------------------------------------------------------------------------
def test_trec_run_roundtrip(tmp_path):
    frame = pd.DataFrame({"user": ["u1", "u1"], "item": ["i9", "i2"], "rank": [1, 2], "score": [0.75, 0.5]})
    textio.write_trec_run(frame, tmp_path / "run.txt", tag="sys")
    assert (tmp_path / "run.txt").read_text().splitlines()[0] == "u1 Q0 i9 1 0.75 sys"
    back = textio.read_trec_run(tmp_path / "run.txt")
    assert back["item"].tolist() == ["i9", "i2"] and back["score"].tolist() == [0.75, 0.5]


def test_trec_qrels_roundtrip_and_three_columns(tmp_path):
    frame = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"], "grade": [4.0, 2.5]})
    textio.write_trec_qrels(frame, tmp_path / "q.txt")
    assert (tmp_path / "q.txt").read_text() == "u1 0 a 4\nu2 0 b 2.5\n"
    assert textio.read_trec_qrels(tmp_path / "q.txt")["grade"].tolist() == [4.0, 2.5]
    (tmp_path / "q3.txt").write_text("# comment\nu1 a 3\n")
    q3 = textio.read_trec_qrels(tmp_path / "q3.txt")
    assert q3.iloc[0].tolist() == ["u1", "a", 3.0]


def test_interactions_and_aspects_tsv_roundtrip(tmp_path):
    frame = pd.DataFrame({"user": [1, 2], "item": [5, 6], "value": [4.0, 3.5], "timestamp": [100, 200]})
    textio.write_interactions_tsv(frame, tmp_path / "i.tsv")
    assert (tmp_path / "i.tsv").read_text() == "1\t5\t4\t100\n2\t6\t3.5\t200\n"
    back = textio.read_interactions_tsv(tmp_path / "i.tsv")
    assert back["value"].tolist() == [4.0, 3.5] and back["timestamp"].tolist() == [100, 200]
    asp = pd.DataFrame({"item": ["5", "5"], "aspect": ["Drama", "War"]})
    textio.write_item_aspects_tsv(asp, tmp_path / "a.tsv")
    assert textio.read_item_aspects_tsv(tmp_path / "a.tsv")["weight"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    ("reader", "text", "line", "problem"),
    [
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b 2\n", 2, "expected 6 columns"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\nu1 Q0 b x 0.4 t\n", 2, "rank must be an integer"),
        (textio.read_trec_run, "u1 Q0 a 1 0.5 t\n\nu1 Q0 a 2 0.4 t\n", 3, "duplicate item"),
        (textio.read_trec_qrels, "u1 0 a 1\nu1 0 b high\n", 2, "grade must be a number"),
        (textio.read_interactions_tsv, "1 2 3\n1 2 4\n", 2, "duplicate (user, item) pair"),
        (textio.read_interactions_tsv, "1 2 3 10\n1 3 4\n", 2, "like the first line"),
        (textio.read_item_aspects_tsv, "i1 Drama 1\ni2 War lots\n", 2, "weight must be a number"),
    ],
)
def test_textio_errors_name_file_and_line(tmp_path, reader, text, line, problem):
    p = tmp_path / "f.txt"
    p.write_text(text)
    with pytest.raises(DataError) as e:
        reader(p)
    assert e.value.line == line and problem in e.value.problem and e.value.path == str(p)
    assert str(e.value).startswith(f"{p}:{line}: ")


def test_textio_empty_missing_and_bad_encoding(tmp_path):
    (tmp_path / "empty.txt").write_text("# only a comment\n")
    with pytest.raises(DataError, match="empty"):
        textio.read_trec_run(tmp_path / "empty.txt")
    with pytest.raises(DataError, match="file not found"):
        textio.read_trec_qrels(tmp_path / "nope.txt")
    (tmp_path / "latin.txt").write_bytes("u1 0 a 1\nu\xe9 0 b 1\n".encode("latin-1"))
    with pytest.raises(DataError) as e:
        textio.read_trec_qrels(tmp_path / "latin.txt")
    assert e.value.line == 2 and "utf-8" in e.value.problem


def test_atomic_write_leaves_old_file_on_error(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    with pytest.raises(RuntimeError), outputs.atomic_write(p) as fh:
        fh.write("partial")
        raise RuntimeError("boom")
    assert p.read_text() == "old" and list(tmp_path.iterdir()) == [p]


def test_textio_frames_can_be_combined(tmp_path):
    """Line numbers live in attrs without breaking pandas (a bare array there made concat/merge raise)."""
    p = tmp_path / "q.txt"
    p.write_text("u1 0 a 1\nu1 0 b 2\n")
    a, b = textio.read_trec_qrels(p), textio.read_trec_qrels(p)
    assert pd.concat([a, b]).shape == (4, 3) and a.merge(b, on=["user", "item"]).shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(a.attrs["lineno"]), [1, 2])
