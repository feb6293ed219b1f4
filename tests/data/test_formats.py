"""The reader layer (`recdiv.data.formats`): every door — TREC text, CSV, TSV, Parquet, Arrow IPC, pandas and
polars frames (recdiv's, ir_measures' and LensKit's column names), pyarrow Tables — gives the same numbers
bit for bit; blocks hold whole users; bad input is one error naming the source, the row and the problem."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from recdiv.data import formats as F
from recdiv.errors import ConfigError, DataError
from recdiv.eval.io import evaluate_files

MEASURES = ["P@5", "Recall@10", "AP", "nDCG@10", "RR", "NumRet", "AggregateDiversity", "Gini(disc=log)"]


def _data(seed: int = 3, n_users: int = 40, n_items: int = 60, k: int = 12):
    """A run with tied scores (so the tie rule by item id in string order matters) and numeric-looking ids whose
    string order differs from their numeric order, and qrels with graded and negative labels."""
    rng = np.random.default_rng(seed)
    items = np.array([str(i) for i in rng.choice(np.arange(1, 400), n_items, replace=False)], dtype=object)
    run_rows, qrels_rows = [], []
    for u in range(1, n_users + 1):
        chosen = rng.choice(n_items, k, replace=False)
        scores = np.round(rng.random(k) * 4) / 4  # many ties
        for rank, (j, s) in enumerate(sorted(zip(chosen, scores), key=lambda t: -t[1]), 1):
            run_rows.append((str(u), items[j], rank, float(s)))
        for j in rng.choice(n_items, 8, replace=False):
            qrels_rows.append((str(u), items[j], int(rng.choice([-1, 0, 1, 2, 3, 4, 5]))))
    run = pd.DataFrame(run_rows, columns=["user", "item", "rank", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["user", "item", "grade"])
    return run, qrels


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("formats")
    run, qrels = _data()
    trec_run, trec_qrels = folder / "run.txt", folder / "qrels.txt"
    trec_run.write_text("".join(f"{u} Q0 {i} {r} {s!r} tag\n" for u, i, r, s in run.itertuples(index=False)))
    trec_qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in qrels.itertuples(index=False)))
    return folder, trec_run, trec_qrels, run, qrels


def _same(a, b) -> None:
    assert a.runs == b.runs and np.array_equal(a.users, b.users)
    for r in a.runs:
        assert a.values[r] == b.values[r]
        for m, v in a.per_user[r].items():
            assert np.array_equal(v, b.per_user[r][m], equal_nan=True), (r, m)


@pytest.mark.parametrize("fmt", ["parquet", "arrow", "csv", "tsv", "trec"])
def test_every_file_format_gives_the_trec_numbers(files, fmt):
    folder, trec_run, trec_qrels, _, _ = files
    ext = {"trec": "run", "arrow": "feather"}.get(fmt, fmt)
    run, qrels = folder / f"conv.{ext}", folder / f"conv-qrels.{ext}"
    assert F.convert(trec_run, run)[0] == "run" and F.convert(trec_qrels, qrels) == ("qrels", 320)
    base = evaluate_files(trec_qrels, {"r": trec_run}, MEASURES)
    _same(evaluate_files(qrels, {"r": run}, MEASURES), base)
    table = F.read_run(run)
    assert len(table) == 480 and table.columns["user"].labels.dtype == object


def test_every_frame_door_gives_the_trec_numbers(files):
    import polars as pl

    _, trec_run, trec_qrels, run, qrels = files
    base = evaluate_files(trec_qrels, {"r": trec_run}, MEASURES)
    irm_run = run.rename(columns={"user": "query_id", "item": "doc_id"}).drop(columns="rank")
    irm_qrels = qrels.rename(columns={"user": "query_id", "item": "doc_id", "grade": "relevance"})
    lk_run = run.rename(columns={"user": "user_id", "item": "item_id"})
    lk_qrels = qrels.rename(columns={"user": "user_id", "item": "item_id", "grade": "rating"})
    int_run = run.astype({"user": np.int64})  # integer ids are their decimal strings
    for r, q in [(run, qrels), (irm_run, irm_qrels), (lk_run, lk_qrels), (int_run, qrels),
                 (pl.from_pandas(run), pl.from_pandas(qrels)),
                 (pa.Table.from_pandas(run), pa.Table.from_pandas(qrels))]:
        _same(evaluate_files(q, {"r": r}, MEASURES), base)


def test_a_run_with_ranks_only_is_ordered_by_rank(files):
    _, trec_run, trec_qrels, run, _ = files
    ranked = run.sort_values(["user", "score", "item"], ascending=[True, False, False])
    # the TREC order: score descending, ties by item id in descending string order
    ranked = ranked.assign(rank=ranked.groupby("user").cumcount() + 1).drop(columns="score")
    table = F.read_run(ranked)
    assert np.array_equal(table["score"], -ranked["rank"].to_numpy(np.float64))
    a = evaluate_files(trec_qrels, {"r": ranked}, MEASURES[:5])
    b = evaluate_files(trec_qrels, {"r": trec_run}, MEASURES[:5])
    _same(a, b)


def test_blocks_hold_whole_users_and_add_up_to_the_whole(files):
    folder, trec_run, _, _, _ = files
    F.convert(trec_run, folder / "blocks.parquet")
    whole = F.read_run(trec_run)
    for source in (trec_run, folder / "blocks.parquet", whole.frame()):
        blocks = list(F.iter_run(source, rows=25))
        assert len(blocks) > 5
        users = [set(b["user"].values().tolist()) for b in blocks]
        assert sum(map(len, users)) == len(set().union(*users)) == 40  # no user in two blocks
        assert np.array_equal(np.concatenate([b["user"].values() for b in blocks]), whole["user"].values())
        assert np.array_equal(np.concatenate([b["score"] for b in blocks]), whole["score"])
        assert np.array_equal(np.concatenate([np.asarray(b.lineno) for b in blocks]), np.asarray(whole.lineno))


@pytest.mark.parametrize("ext", ["parquet", "arrow"])
def test_blocks_of_a_columnar_file_hold_memory_for_one_block_not_the_file(tmp_path, ext):
    """Reading a Parquet or Arrow file in blocks keeps Arrow's memory at about a block (the streamed evaluation's
    first pass; #28): Parquet's pre-buffering used to keep every row group read so far until the file was closed
    (32 MB here), and an Arrow file was mapped whole. 16 row groups of 100,000 rows, read 50,000 at a time."""
    import pyarrow.parquet as pq

    rows = 1_600_000
    ids = np.array([str(j) for j in range(50_000)], dtype=object)
    table = pa.table({"user": pa.DictionaryArray.from_arrays(np.repeat(np.arange(16_000, dtype=np.int32), 100),
                                                             ids[:16_000]),
                      "item": pa.DictionaryArray.from_arrays((np.arange(rows) * 7919 % 50_000).astype(np.int32), ids),
                      "score": np.random.default_rng(0).random(rows)})
    path = tmp_path / f"run.{ext}"
    if ext == "parquet":
        pq.write_table(table, path, row_group_size=100_000)
    else:
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=100_000)
    pa.default_memory_pool().release_unused()
    start, peak, n = pa.total_allocated_bytes(), 0, 0
    for block in F.iter_run(path, rows=50_000):
        peak = max(peak, pa.total_allocated_bytes() - start)
        n += len(block)
    assert n == rows
    assert peak < 16 << 20, f"{peak / 2**20:.1f} MB of Arrow memory held while reading blocks of 50,000 rows"


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"user": ["a"], "score": [1.0]}), "needs the column item (or doc_id / item_id); found user, score"),
    (pd.DataFrame({"user": ["a"], "item": ["x"]}), "a run needs the column a score or a rank; found user, item"),
    (pd.DataFrame({"user": ["a", "a"], "item": ["x", "y"], "score": [1.0, np.nan]}),
     "row 2: score is missing (null or NaN)"),
    (pd.DataFrame({"user": ["a", "a"], "item": ["x", "y"], "score": [1.0, np.inf]}),
     "row 2: score must be a finite number, got inf"),
    (pd.DataFrame({"user": ["a", "a"], "item": ["x", "y"], "rank": [1.0, 1.5]}),
     "row 2: rank must be an integer, got 1.5"),
    (pd.DataFrame({"user": ["a", "a", "b"], "item": ["x", "y", "x"], "score": [1.0, 2.0, 3.0],
                   "user_id": ["a", "a", "b"]}), "'user' and 'user_id' both name the user column"),
    (pd.DataFrame({"user": ["a", "a", "a"], "item": ["x", "y", "x"], "score": [3.0, 2.0, 1.0]}),
     "row 3: duplicate item in a user's ranking (user 'a', item 'x')"),
    (pd.DataFrame({"user": ["a", None], "item": ["x", "y"], "score": [1.0, 2.0]}), "row 2: user is missing (null)"),
    (pd.DataFrame({"user": [1.5], "item": ["x"], "score": [1.0]}), "the user column must hold text or integer ids"),
    (pd.DataFrame({"user": ["a", ""], "item": ["x", "y"], "score": [1.0, 2.0]}), "row 2: user is empty"),
    (pd.DataFrame({"user": ["a"], "item": ["x"], "score": ["high"]}), "the score column must hold numbers"),
])
def test_bad_run_frames_are_one_clear_error(frame, message):
    with pytest.raises(DataError) as e:
        F.read_run(frame)
    assert message in str(e.value)
    assert str(e.value).startswith("pandas run frame")


def test_bad_qrels_and_files_name_the_file_and_row(tmp_path):
    with pytest.raises(DataError, match=r"pandas qrels frame: row 2: grade must be between -127 and 127"):
        F.read_qrels(pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"], "grade": [1, 300]}))
    with pytest.raises(DataError, match="needs the column grade"):
        F.read_qrels(pd.DataFrame({"user": ["a"], "item": ["x"], "score": [1.0]}))
    path = tmp_path / "bad.parquet"
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"user": ["a", "a"], "item": ["x", "y"], "score": [1.0, float("inf")]}), path)
    with pytest.raises(DataError, match=rf"^{path}: row 2: score must be a finite number, got inf$"):
        F.read_run(path)
    csv = tmp_path / "bad.csv"
    csv.write_text("user,item,score\na,x,1\na,y,nan\n")
    with pytest.raises(DataError, match=rf"^{csv}:3: score must be a finite number, got nan$"):
        F.read_run(csv)
    csv.write_text("user,doc,score\na,x,1\n")
    with pytest.raises(DataError, match="needs the column item"):
        F.read_run(csv)
    (tmp_path / "x.parquet").write_text("not parquet")
    with pytest.raises(DataError, match="cannot read it as Parquet"):
        F.read_run(tmp_path / "x.parquet")
    with pytest.raises(ConfigError, match="unknown format 'xml'"):
        F.read_run(csv, format="xml")
    with pytest.raises(ConfigError, match="cannot read a run from dict"):
        F.read_run({"user": ["a"]})


def test_ids_are_quoted_in_csv_and_refused_where_a_format_cannot_hold_them(tmp_path):
    frame = pd.DataFrame({"user": ["a,b", 'say "x"', "c d"], "item": ["1", "2", "3"], "score": [3.0, 2.0, 1.0]})
    F.write_run(frame, tmp_path / "r.csv")
    assert F.read_run(tmp_path / "r.csv")["user"].values().tolist() == ["a,b", 'say "x"', "c d"]
    F.write_run(frame.iloc[2:], tmp_path / "r.tsv")
    assert F.read_run(tmp_path / "r.tsv")["user"].values().tolist() == ["c d"]
    with pytest.raises(DataError, match="cannot write user id 'say \"x\"'"):
        F.write_run(frame, tmp_path / "r.run")
    assert not (tmp_path / "r.run").exists()


def test_add_door_reads_another_librarys_objects():
    class Mine:
        def __init__(self, rows):
            self.rows = rows

    F.add_door("mine", lambda obj: isinstance(obj, Mine), lambda obj, kind: pd.DataFrame(obj.rows))
    try:
        table = F.read_run(Mine({"user": ["u"], "item": ["i"], "score": [0.5]}))
        assert table["item"].values().tolist() == ["i"]
        with pytest.raises(DataError, match=r"^mine run: a run needs the column"):
            F.read_run(Mine({"user": ["u"]}))
    finally:
        F._DOORS.pop(0)


def test_cli_convert_eval_and_per_user_out(files, tmp_path):
    _, trec_run, trec_qrels, _, _ = files
    recdiv = [sys.executable, "-m", "recdiv"]
    out = subprocess.run([*recdiv, "convert", str(trec_run), str(tmp_path / "run.parquet")], capture_output=True,
                         text=True, check=True)
    assert "480 run rows" in out.stderr
    subprocess.run([*recdiv, "convert", str(trec_qrels), str(tmp_path / "q.pq")], check=True, capture_output=True)
    (tmp_path / "r").write_bytes((tmp_path / "run.parquet").read_bytes())
    results = []
    for qrels, run, extra in [(trec_qrels, trec_run, []), (tmp_path / "q.pq", tmp_path / "run.parquet", []),
                              (tmp_path / "q.pq", tmp_path / "r", ["--input-format", "parquet"])]:
        per_user = tmp_path / f"users{len(results)}.parquet"
        res = subprocess.run([*recdiv, "eval", str(qrels), str(run), "-m", "AP", "nDCG@10", "--format", "json",
                              "--per-user-out", str(per_user), *extra], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        data = json.loads(res.stdout.replace('"r"', '"run"'))
        data.pop("provenance")  # it names the command, which differs (recdiv.provenance)
        results.append((data, pd.read_parquet(per_user)))
    assert results[0][0] == results[1][0] == results[2][0]
    frame = results[0][1]
    base = evaluate_files(trec_qrels, [trec_run], ["AP", "nDCG@10"])
    assert list(frame.columns) == ["run", "user", "measure", "value"] and len(frame) == 2 * len(base.users) == 76
    ap = frame[frame.measure == "AP"]
    assert np.array_equal(ap["value"].to_numpy(), base.per_user["run"]["AP"])
    assert ap["user"].astype(str).tolist() == [str(u) for u in base.users]
    bad = subprocess.run([*recdiv, "convert", str(trec_run), str(trec_run)], capture_output=True, text=True)
    assert bad.returncode == 2 and "is an input of this command" in bad.stderr and "Traceback" not in bad.stderr
    bad = subprocess.run([*recdiv, "eval", str(trec_qrels), str(trec_run), "--per-user-out", str(tmp_path / "u.xls")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "name the per-user output .parquet" in bad.stderr


@pytest.mark.parametrize("ext", ["csv", "tsv", "json", "arrow"])
def test_per_user_values_in_every_format(files, tmp_path, ext):
    from recdiv.eval.user_values import user_values_frame, write_user_values

    _, trec_run, trec_qrels, _, _ = files
    ev = evaluate_files(trec_qrels, [trec_run], ["AP", "Spearman"])  # Spearman skips users: NaN values
    path = tmp_path / f"u.{ext}"
    write_user_values(ev, path)
    frame = user_values_frame(ev)
    if ext == "json":
        import json

        data = json.loads(path.read_text())
        got = [data["run"][m][u] for m, u in zip(frame.measure, frame.user)]
        assert [np.nan if v is None else v for v in got] == pytest.approx(frame.value.tolist(), nan_ok=True, rel=0)
        return
    if ext == "arrow":
        back = pa.ipc.open_file(pa.memory_map(str(path))).read_all().to_pandas()
    else:
        back = pd.read_csv(path, sep="," if ext == "csv" else "\t", dtype={"user": str}, float_precision="round_trip")
    assert np.array_equal(back["value"].to_numpy(), frame["value"].to_numpy(), equal_nan=True)
    assert back["user"].astype(str).tolist() == frame["user"].tolist()
