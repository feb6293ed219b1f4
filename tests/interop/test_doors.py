"""ranx and LensKit runs and qrels through the reader layer (`recdiv.data.doors`, `recdiv.data.formats`): the same
numbers through every door as through TREC files (bit for bit), and one clear error for bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from lenskit.data import ItemList, ItemListCollection
from ranx import Qrels as RanxQrels
from ranx import Run as RanxRun

from recdiv.cli import main
from recdiv.errors import ConfigError, DataError
from recdiv.eval.io import evaluate_files, load_inputs

from .test_ir_measures import write_case

MEASURES = ["nDCG@10", "P@5", "AP", "RR", "ERR@10", "ILD@10", "Gini@10"]


def _check_same(ref, got, runs=("run", "base")):
    for r in runs:
        for m in MEASURES:
            assert got.value(r, m) == ref.value(r, m), (r, m)
            if m != "Gini@10":
                assert got.user_values(r, m).tolist() == ref.user_values(r, m).tolist(), (r, m)
    assert [str(u) for u in got.users] == [str(u) for u in ref.users]


def _itemlists(frame: pd.DataFrame, field: str) -> ItemListCollection:
    """A TREC-like frame (user, item, rank, score / grade) as LensKit item lists keyed by user_id."""
    out = ItemListCollection(["user_id"])
    for u, part in frame.groupby("user", sort=False):
        if field == "rank":
            out.add(ItemList(part["item"].to_numpy(), scores=part["score"].to_numpy(), ordered=True), user_id=u)
        elif field == "score":
            out.add(ItemList(part["item"].to_numpy(), scores=part["score"].to_numpy()), user_id=u)
        else:
            out.add(ItemList(part["item"].to_numpy(), rating=part["grade"].to_numpy()), user_id=u)
    return out


@pytest.fixture
def case(tmp_path):
    paths = write_case(tmp_path, 51)
    opts = {"aspects": paths["aspects"], "threshold": 1.0}
    ref = evaluate_files(paths["qrels"], [paths["run"], paths["base"]], MEASURES, **opts)
    return paths, opts, ref


def test_ranx_objects_and_files(case, tmp_path):
    paths, opts, ref = case
    qrels = RanxQrels.from_file(str(paths["qrels"]), kind="trec")
    runs = {n: RanxRun.from_file(str(paths[n]), kind="trec") for n in ("run", "base")}
    _check_same(ref, evaluate_files(qrels, runs, MEASURES, **opts))
    for ext in ("json", "parquet"):
        qrels.save(str(tmp_path / f"qrels.{ext}"))
        for n, r in runs.items():
            r.save(str(tmp_path / f"{n}.{ext}"))
        files = {n: tmp_path / f"{n}.{ext}" for n in runs}
        _check_same(ref, evaluate_files(tmp_path / f"qrels.{ext}", files, MEASURES, **opts))
    # and back: recdiv convert writes ranx's JSON
    assert main(["convert", str(paths["run"]), str(tmp_path / "converted.json")]) == 0
    back = RanxRun.from_file(str(tmp_path / "converted.json"))
    assert back.to_dict() == runs["run"].to_dict()


@pytest.mark.parametrize("order", ["rank", "score"])
def test_lenskit_itemlists_objects_and_parquet(case, tmp_path, order, capsys):
    paths, opts, ref = case
    from recdiv.data.textio import read_trec_qrels, read_trec_run

    test = _itemlists(read_trec_qrels(paths["qrels"]), "grade")
    recs = {n: _itemlists(read_trec_run(paths[n]), order) for n in ("run", "base")}
    _check_same(ref, evaluate_files(test, recs, MEASURES, **opts))
    for layout in ("native", "flat"):
        test.save_parquet(tmp_path / f"test-{layout}.parquet", layout=layout)
        files = {}
        for n, ilc in recs.items():
            files[n] = tmp_path / f"{n}-{layout}.parquet"
            ilc.save_parquet(files[n], layout=layout)
        _check_same(ref, evaluate_files(tmp_path / f"test-{layout}.parquet", files, MEASURES, **opts))
    # the command line: compare on LensKit's files gives what it gives on the TREC files
    args = ["-m", "nDCG@10", "-m", "ILD@10", "--aspects", str(paths["aspects"]), "--rel-threshold", "1",
            "--format", "json"]
    assert main(["compare", str(paths["qrels"]), str(paths["run"]), str(paths["base"]), *args]) == 0
    trec = json.loads(capsys.readouterr().out)
    assert main(["compare", str(tmp_path / "test-native.parquet"), str(tmp_path / "run-native.parquet"),
                 str(tmp_path / "base-native.parquet"), *args]) == 0
    native = json.loads(capsys.readouterr().out)
    for a, b in zip(trec, native):
        a.pop("provenance"), b.pop("provenance")  # it names the command, which differs by design
        b["means"] = {k.removesuffix("-native"): v for k, v in b["means"].items()}
        b["ci"]["means"] = {k.removesuffix("-native"): v for k, v in b["ci"]["means"].items()}
        for p in b["pairs"]:
            p["a"], p["b"] = p["a"].removesuffix("-native"), p["b"].removesuffix("-native")
        assert a == b


def test_bad_input_through_the_new_doors(case, tmp_path):
    paths, _, _ = case
    qrels = RanxQrels.from_file(str(paths["qrels"]), kind="trec")
    nan = RanxRun.from_dict({"t1": {"d1": 1.0, "d2": float("nan")}})
    with pytest.raises(DataError, match="ranx Run: the score of query 't1', document 'd2' is nan"):
        load_inputs(qrels, {"nan": nan})
    with pytest.raises(ConfigError, match="a ranx Run where qrels are expected"):
        load_inputs(nan, {"x": nan})
    unordered = ItemListCollection(["user_id"])
    unordered.add(ItemList(["d1", "d2"]), user_id="t1")
    with pytest.raises(DataError, match=r"neither ranks \(ordered lists\) nor scores"):
        load_inputs(qrels, {"lists": unordered})
    unordered.save_parquet(tmp_path / "lists.parquet")
    with pytest.raises(DataError, match=r"lists\.parquet: the recommendation lists have neither ranks"):
        load_inputs(qrels, [tmp_path / "lists.parquet"])
    with pytest.raises(DataError, match="a run needs the column item"):
        load_inputs(qrels, {"frame": pd.DataFrame({"query_id": ["t1"], "score": [1.0]})})
    (tmp_path / "bad.json").write_text('{"t1": {"d1": "high"}}')
    with pytest.raises(DataError, match=r"bad\.json: query 't1', document 'd1': 'high' is not a number"):
        load_inputs(qrels, [tmp_path / "bad.json"])
