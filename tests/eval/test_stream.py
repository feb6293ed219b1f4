"""Streamed evaluation (`recdiv.eval.stream`) equals the in-memory evaluation bit for bit: every measure family
(accuracy, rating, novelty, diversity, popularity, intent-aware with aspects, unified, fairness with item groups,
system-level, pairwise) on inputs split into many partitions, runs sorted by user or not, every door."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.errors import ConfigError
from recdiv.eval.io import evaluate_files
from recdiv.eval.measure import MEASURES
from recdiv.eval.stream import evaluate_stream


def every_measure() -> list[str]:
    """Every registered measure at its defaults (@5 where a cutoff is required), some without and some with a
    deeper cutoff, and discount variants of the exposure measures."""
    out = []
    for name in MEASURES.names():
        cls = MEASURES.get(name)
        if name == "GroupExposure":  # the group is required
            out += ["GroupExposure(group=G0)@5", "GroupExposure(group=G1)"]
        elif cls.CUTOFF == "required":
            out += [f"{name}@5", f"{name}@12"]
        elif cls.CUTOFF == "optional":
            out += [name, f"{name}@5"]
        else:
            out.append(name)
    return [*out, "Gini(disc=log)@10", "Entropy(disc=recip)", "Coverage(users=run)", "Gini(users=run,disc=log)"]


def _write(folder, seed: int, n_users: int, n_items: int, k: int, shuffle: bool):
    rng = np.random.default_rng(seed)
    items = np.array([f"i{j}" for j in rng.choice(10 * n_items, n_items, replace=False)], dtype=object)
    users = [str(u) for u in rng.choice(10 * n_users, n_users, replace=False)]
    run_rows, base_rows, qrels_rows, train_rows = [], [], [], []
    for u in users:
        for rows in (run_rows, base_rows):
            n = int(rng.integers(0, k + 1))  # lists of every length, some empty: widths differ between blocks
            chosen = rng.choice(n_items, n, replace=False)
            scores = np.round(rng.random(n) * 3) / 3
            rows += [(u, items[j], r + 1, float(s)) for r, (j, s) in enumerate(zip(chosen, scores))]
        for j in rng.choice(n_items, int(rng.integers(0, 12)), replace=False):
            qrels_rows.append((u, items[j], int(rng.choice([-1, 0, 1, 2, 3, 4, 5]))))
        for j in rng.choice(n_items, int(rng.integers(1, 15)), replace=False):
            train_rows.append((u, items[j], int(rng.integers(1, 6))))
    for j in rng.choice(n_items, 3, replace=False):  # judged items no run has
        qrels_rows.append((users[0], f"only{j}", 4))
    run = pd.DataFrame(run_rows, columns=["user", "item", "rank", "score"])
    if shuffle:
        run = run.sample(frac=1.0, random_state=seed)
    paths = {name: folder / name for name in ("run.txt", "base.txt", "qrels.txt", "train.tsv", "aspects.tsv",
                                              "groups.tsv")}
    paths["groups.tsv"].write_text("".join(f"{i}\tG{int(rng.integers(0, 2))}\n" for i in items[: n_items * 2 // 3]))
    paths["run.txt"].write_text("".join(f"{u} Q0 {i} {r} {s!r} t\n" for u, i, r, s in run.itertuples(index=False)))
    paths["base.txt"].write_text("".join(f"{u} Q0 {i} {r} {s!r} t\n" for u, i, r, s in base_rows))
    paths["qrels.txt"].write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in qrels_rows))
    paths["train.tsv"].write_text("".join(f"{u}\t{i}\t{v}\n" for u, i, v in train_rows))
    paths["aspects.tsv"].write_text("".join(f"{i}\tg{a}\n" for i in items for a in rng.choice(6, int(rng.integers(
        1, 4)), replace=False)))
    return paths


def _same(a, b) -> None:
    assert a.runs == b.runs and a.measures == b.measures
    assert np.array_equal(a.users, b.users)
    for r in a.runs:
        for m in a.values[r]:
            x, y = a.values[r][m], b.values[r][m]
            assert x == y or (np.isnan(x) and np.isnan(y)), (r, m, x, y)
        assert a.per_user[r].keys() == b.per_user[r].keys()
        for m, v in a.per_user[r].items():
            assert np.array_equal(v, b.per_user[r][m], equal_nan=True), (r, m)


def _both(paths, measures, parts, **kw):
    runs = {"run": paths["run.txt"], "base": paths["base.txt"]}
    common = dict(train=paths["train.tsv"], aspects=paths["aspects.tsv"], previous=paths["base.txt"],
                  item_groups=paths["groups.tsv"], baseline="base", **kw)
    memory = evaluate_files(paths["qrels.txt"], runs, measures, **common)
    streamed = evaluate_stream(paths["qrels.txt"], runs, measures, partitions=parts, **common)
    return memory, streamed


@pytest.mark.parametrize("shuffle", [False, True])
def test_every_measure_streamed_in_many_partitions_equals_in_memory(tmp_path, shuffle):
    paths = _write(tmp_path, 7, n_users=60, n_items=40, k=15, shuffle=shuffle)
    memory, streamed = _both(paths, every_measure(), parts=9)
    assert streamed.n_parts == 9 and streamed.n_groups == 9
    _same(streamed.evaluation, memory)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), parts=st.integers(1, 12), threshold=st.sampled_from([1.0, 3.0, 4.0]),
       population=st.sampled_from(["relevant", "judged"]))
def test_streamed_equals_in_memory_property(tmp_path_factory, seed, parts, threshold, population):
    paths = _write(tmp_path_factory.mktemp("p"), seed, n_users=25, n_items=20, k=9, shuffle=seed % 2 == 0)
    measures = ["P@5", "AP", "nDCG", "nDCG@3", "RR", "ERR", "alpha-nDCG", "ERR-IA@5", "ab-nDCG@5", "EILD", "EPC",
                "ILD@5", "Gini(disc=log)", "AggregateDiversity", "HLU_breese", "lexirecall@5", "Spearman", "FCP"]
    memory, streamed = _both(paths, measures, parts, threshold=threshold, population=population)
    _same(streamed.evaluation, memory)


def _cli(argv, capsys):
    from recdiv.cli import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def without_provenance(stdout: str):
    """eval's or compare's JSON without its provenance record (it names the command, whose options differ)."""
    import json

    data = json.loads(stdout)
    for one in data if isinstance(data, list) else [data]:
        assert one.pop("provenance")["command"].startswith("recdiv ")
    return data


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_cli_streams_when_the_runs_exceed_the_budget_and_prints_the_same(tmp_path, capsys, monkeypatch, command):
    import recdiv.eval.ingest as ingest

    paths = _write(tmp_path, 11, n_users=50, n_items=30, k=12, shuffle=True)
    files = [str(paths["qrels.txt"]), str(paths["run.txt"]), str(paths["base.txt"])]
    extra = ["--train", str(paths["train.tsv"]), "--aspects", str(paths["aspects.tsv"]), "-m", "nDCG@10", "AP",
             "ERR", "alpha-nDCG(gain=graded)@5", "EPC", "--per-user-out", str(tmp_path / "u.parquet")]
    extra += ["--format", "json"] if command == "eval" else ["--format", "json", "--test", "t"]
    memory = _cli([command, *files, *extra], capsys)
    in_memory_users = pd.read_parquet(tmp_path / "u.parquet")
    calls = []
    real = ingest.partitions_for
    monkeypatch.setattr(ingest, "IN_MEMORY_BYTES_PER_LINE", 1 << 30)  # anything is too large to hold at once
    monkeypatch.setattr("recdiv.eval.stream.partitions_for", lambda lines, memory: calls.append(lines) or 5)
    streamed = _cli([command, *files, *extra, "--memory", "200M", "--workdir", str(tmp_path / "work")], capsys)
    assert calls and real(10**9, 1 << 30) > 1
    assert streamed[0] == memory[0] == 0 and streamed[2] == memory[2]
    assert without_provenance(streamed[1]) == without_provenance(memory[1])
    assert "r_max = 5" in memory[2] and "lists for 50 users" not in memory[2]
    assert pd.read_parquet(tmp_path / "u.parquet").equals(in_memory_users)
    assert list((tmp_path / "work").iterdir()) == []  # the temporary partitions are gone


def test_streamed_inputs_through_every_door(tmp_path):
    from recdiv.data.formats import convert, read_run

    paths = _write(tmp_path, 5, n_users=30, n_items=25, k=8, shuffle=True)
    measures = ["P@5", "nDCG", "alpha-nDCG@5", "Gini(disc=log)", "EILD"]
    ctx = dict(train=paths["train.tsv"], aspects=paths["aspects.tsv"])
    base = evaluate_files(paths["qrels.txt"], {"run": paths["run.txt"]}, measures, **ctx)
    convert(paths["run.txt"], tmp_path / "run.parquet")
    convert(paths["qrels.txt"], tmp_path / "qrels.parquet")
    frame = read_run(paths["run.txt"]).frame().rename(columns={"user": "user_id", "item": "item_id"})
    for qrels, run in [(tmp_path / "qrels.parquet", tmp_path / "run.parquet"), (paths["qrels.txt"], frame)]:
        _same(evaluate_stream(qrels, {"run": run}, measures, partitions=4, **ctx).evaluation, base)


def test_budget_parsing_and_errors(tmp_path):
    from recdiv.eval.ingest import parse_memory

    assert parse_memory("1G") == 1 << 30 and parse_memory("512M") == 512 << 20 and parse_memory("1.5GiB") == 3 << 29
    for bad in ("", "lots", "10", "-1G", "1e3G"):
        with pytest.raises(ConfigError, match="--memory"):
            parse_memory(bad)
    paths = _write(tmp_path, 1, n_users=5, n_items=20, k=3, shuffle=False)
    with pytest.raises(ConfigError, match="compares two runs"):
        evaluate_stream(paths["qrels.txt"], [paths["run.txt"]], ["lexirecall"], partitions=2)
    with pytest.raises(ConfigError, match="unknown backend 'spark'"):
        evaluate_stream(paths["qrels.txt"], [paths["run.txt"]], ["AP"], backend="spark")


def _predictions(folder, seed: int, n_users: int = 40, n_items: int = 30):
    """Qrels with ratings, rating predictions with users in several places of the file (a shuffled file) and some
    test ratings unpredicted, and a run."""
    rng = np.random.default_rng(seed)
    q, p, r = [], [], []
    for u in range(n_users):
        for i in rng.choice(n_items, int(rng.integers(1, 10)), replace=False):
            g = int(rng.integers(1, 6))
            q.append((f"u{u}", f"i{i}", g))
            if rng.random() < 0.8:
                p.append((f"u{u}", f"i{i}", round(g + rng.normal(0, 1), 3)))
        p += [(f"u{u}", f"x{j}", 3.0) for j in range(int(rng.integers(0, 3)))]  # items outside the test set
        r += [(f"u{u}", f"i{i}", k + 1, float(-k)) for k, i in enumerate(rng.choice(n_items, 6, replace=False))]
    order = rng.permutation(len(p))
    paths = {name: folder / name for name in ("qrels.txt", "model.pred", "run.txt")}
    paths["qrels.txt"].write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in q))
    paths["model.pred"].write_text("".join("{}\t{}\t{!r}\n".format(*p[j]) for j in order))
    paths["run.txt"].write_text("".join(f"{u} Q0 {i} {k} {s!r} t\n" for u, i, k, s in r))
    return paths


@pytest.mark.parametrize("population", ["judged", "relevant"])
def test_predictions_streamed_in_many_partitions_equal_in_memory(tmp_path, monkeypatch, population):
    """Rating predictions (`--predictions`) go through the first pass like a run (read in blocks, partitioned by
    user): RMSE, MAE and the rank measures over them equal `evaluate_files`' bit for bit, named as there."""
    paths = _predictions(tmp_path, 3)
    measures = ["RMSE", "MAE", "nDCG@5", "P@3", "Spearman", "FCP", "AggregateDiversity"]
    monkeypatch.setattr("recdiv.eval.stream.block_rows", lambda memory: 7)  # many blocks, users cut between them
    for runs in ([paths["run.txt"]], {"mine": paths["run.txt"]}):
        memory = evaluate_files(paths["qrels.txt"], runs, measures, predictions=[paths["model.pred"]],
                                population=population)
        streamed = evaluate_stream(paths["qrels.txt"], runs, measures, predictions=[paths["model.pred"]],
                                   population=population, partitions=6)
        assert streamed.evaluation.runs == (*(runs if isinstance(runs, dict) else ["run"]), "model")
        _same(streamed.evaluation, memory)
        assert streamed.predicted["model"][1] < streamed.predicted["model"][0]  # some test ratings unpredicted
    with pytest.raises(ConfigError, match="model: the same run is given twice"):
        evaluate_stream(paths["qrels.txt"], {"model": paths["run.txt"]}, measures, predictions=[paths["model.pred"]])


def test_cli_streams_predictions_and_says_the_same(tmp_path, capsys, monkeypatch):
    import recdiv.eval.ingest as ingest

    paths = _predictions(tmp_path, 4)
    argv = ["eval", str(paths["qrels.txt"]), "--predictions", str(paths["model.pred"]), "-m", "RMSE", "MAE",
            "nDCG@5", "--format", "json"]
    memory = _cli(argv, capsys)
    monkeypatch.setattr(ingest, "IN_MEMORY_BYTES_PER_LINE", 1 << 30)  # anything is too large to hold at once
    monkeypatch.setattr("recdiv.eval.stream.partitions_for", lambda lines, memory: 5)
    streamed = _cli([*argv, "--memory", "200M"], capsys)
    assert streamed[0] == memory[0] == 0 and without_provenance(streamed[1]) == without_provenance(memory[1])
    assert streamed[2] == memory[2] and "evaluated test ratings have none" in memory[2]
    bad = tmp_path / "bad.pred"
    bad.write_text("u1\ti1\t3.5\nu2\ti1\t4\nu1\ti1\t4\n")  # u1 twice, apart
    assert _cli(["eval", str(paths["qrels.txt"]), "--predictions", str(bad), "-m", "RMSE", "--memory", "200M"],
                capsys)[2] == (f"recdiv: error: {bad}: duplicate prediction (user 'u1', item 'i1'), in two "
                              "places of the file\n")


def test_subtopic_runs_over_the_budget_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    """Subtopic qrels make each topic's documents items of their own: such runs are evaluated in memory only, and
    a run over the budget is refused with one line naming the budget that holds it (docs/scale.md)."""
    import recdiv.eval.ingest as ingest

    (tmp_path / "sub.qrels").write_text("1 1 d1 1\n1 2 d2 1\n2 1 d1 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d1 1 1.0 a\n")
    argv = ["eval", "--subtopics", str(tmp_path / "sub.qrels"), str(tmp_path / "a.run"), "-m", "alpha-nDCG@5"]
    assert _cli(argv, capsys)[0] == 0
    monkeypatch.setattr(ingest, "IN_MEMORY_BYTES_PER_LINE", 1 << 30)
    code, out, err = _cli([*argv, "--memory", "1G"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("recdiv: error: --subtopics: the runs hold about 3 lines, more than --memory 1G holds at "
                          "once, and runs judged by subtopics are evaluated in memory only") and "--memory 4G" in err


def test_first_pass_in_small_blocks_equals_in_memory(tmp_path, monkeypatch):
    """Blocks of 7 rows (users cut between blocks; Parquet batches sharing their row group's dictionary, whose
    labels are then reused unchecked), the partitions' files written after every block, the reader a block ahead
    in its own thread: the same values; a bad line of a late block is still named by its number."""
    import recdiv.eval.ingest as ingest
    import recdiv.eval.stream as stream
    from recdiv.data.formats import convert
    from recdiv.errors import DataError

    paths = _write(tmp_path, 3, n_users=40, n_items=25, k=10, shuffle=False)
    convert(paths["run.txt"], tmp_path / "run.parquet")
    convert(paths["qrels.txt"], tmp_path / "qrels.parquet")
    measures = ["P@5", "nDCG", "RR", "Gini(disc=log)", "AggregateDiversity"]
    monkeypatch.setattr(ingest, "FLUSH_BYTES", 1)
    monkeypatch.setattr(stream, "block_rows", lambda memory: 7)
    for qrels, run in [(tmp_path / "qrels.parquet", tmp_path / "run.parquet"), (paths["qrels.txt"], paths["run.txt"])]:
        base = evaluate_files(qrels, {"run": run}, measures)
        _same(evaluate_stream(qrels, {"run": run}, measures, partitions=4).evaluation, base)
    lines = paths["run.txt"].read_text().splitlines(keepends=True)
    bad = len(lines) - 3
    lines[bad] = lines[bad - 1]  # the line before, again: a duplicate item in a user's ranking
    paths["run.txt"].write_text("".join(lines))
    with pytest.raises(DataError, match=rf"run\.txt:{bad + 1}: duplicate item"):
        evaluate_stream(paths["qrels.txt"], {"run": paths["run.txt"]}, measures, partitions=4)
    assert not any(t.name == "recdiv-reader" for t in __import__("threading").enumerate())


def test_groups_evaluated_by_forked_processes_and_a_killed_one(tmp_path, monkeypatch):
    """Groups go to two forked processes (the default on Linux) with the values of one process; a process killed
    mid-evaluation (as the system's out-of-memory killer does) ends the evaluation with one error, no partial
    result, and the temporary folder is removed."""
    import os
    import signal

    import recdiv.eval.stream as stream
    from recdiv.errors import RecdivError

    paths = _write(tmp_path, 9, n_users=40, n_items=25, k=10, shuffle=True)
    measures = ["P@5", "nDCG", "Gini(disc=log)", "EPC"]
    runs = {"run": paths["run.txt"]}
    ctx = dict(train=paths["train.tsv"])
    forked = evaluate_stream(paths["qrels.txt"], runs, measures, partitions=5, **ctx)
    monkeypatch.setattr(stream, "PROCESSES", 1)
    _same(forked.evaluation, evaluate_stream(paths["qrels.txt"], runs, measures, partitions=5, **ctx).evaluation)
    _same(forked.evaluation, evaluate_files(paths["qrels.txt"], runs, measures, **ctx))
    monkeypatch.setattr(stream, "PROCESSES", 2)
    parent, real = os.getpid(), stream.Worker.evaluate

    def dies(self, parts):
        if os.getpid() != parent and parts == [3]:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, parts)

    monkeypatch.setattr(stream.Worker, "evaluate", dies)
    with pytest.raises(RecdivError, match="ended abruptly"):
        evaluate_stream(paths["qrels.txt"], runs, measures, partitions=5, workdir=tmp_path / "work", **ctx)
    assert list((tmp_path / "work").iterdir()) == []


def test_measures_over_aspects_are_evaluated_in_one_process(tmp_path, monkeypatch):
    """Measures that read the aspects (intent-aware, diversity over aspects) keep their groups in this process, one
    at a time: their per-user tables are not in the budget's per-line cost; the others use two processes."""
    import recdiv.eval.stream as stream

    paths = _write(tmp_path, 4, n_users=30, n_items=25, k=8, shuffle=False)
    seen, real = [], stream._evaluate_here

    def spy(ing, groups, processes):
        seen.append(processes)
        return real(ing, groups, processes)

    monkeypatch.setattr(stream, "_evaluate_here", spy)
    monkeypatch.setattr(stream, "PROCESSES", 2)
    runs = {"run": paths["run.txt"]}
    ia = evaluate_stream(paths["qrels.txt"], runs, ["P@5", "alpha-nDCG@5"], partitions=3, aspects=paths["aspects.tsv"])
    evaluate_stream(paths["qrels.txt"], runs, ["P@5", "nDCG"], partitions=3, aspects=paths["aspects.tsv"])
    assert seen == [1, 2]
    in_memory = evaluate_files(paths["qrels.txt"], runs, ["P@5", "alpha-nDCG@5"], aspects=paths["aspects.tsv"])
    _same(ia.evaluation, in_memory)


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), OSError("6000 requested and 1328 written")])
def test_a_full_disk_is_one_line_and_the_partitions_are_removed(tmp_path, capsys, monkeypatch, error):
    import recdiv.eval.ingest as ingest

    paths = _write(tmp_path, 2, n_users=10, n_items=20, k=4, shuffle=False)

    def full(self):
        raise error

    monkeypatch.setattr(ingest, "IN_MEMORY_BYTES_PER_LINE", 1 << 30)
    monkeypatch.setattr(ingest.Folder, "flush", full)
    code, out, err = _cli(["eval", str(paths["qrels.txt"]), str(paths["run.txt"]), "-m", "AP", "--workdir",
                           str(tmp_path / "work")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"recdiv: error: {tmp_path / 'work'}: the temporary partitions could not be written (")
    assert list((tmp_path / "work").iterdir()) == []


def test_too_little_temporary_space_is_one_error_and_no_folder_left(tmp_path, monkeypatch):
    import recdiv.eval.stream as stream

    paths = _write(tmp_path, 3, n_users=10, n_items=20, k=4, shuffle=False)
    monkeypatch.setattr(stream, "free_space", lambda path: 0)
    with pytest.raises(ConfigError, match="temporary files are needed"):
        evaluate_stream(paths["qrels.txt"], {"run": paths["run.txt"]}, ["P@5"], partitions=2, workdir=tmp_path / "w")
    assert list((tmp_path / "w").iterdir()) == []
