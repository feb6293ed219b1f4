"""The artefact store: content-hash keys, safe formats, atomic writes, stale artefacts of earlier runs."""

from __future__ import annotations

import hashlib
import os
import time

import numpy as np
import pandas as pd
import pytest

from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.experiment.storage.cache import ArrayHasher, Store, hash_config


def test_hash_config_is_canonical():
    assert hash_config("x", {"a": 1, "b": [1.0, 2]}) == hash_config("x", {"b": [1, 2.0], "a": 1.0})
    assert hash_config("x", {"a": 1}) != hash_config("x", {"a": 2})
    assert hash_config("x", {"a": 1}) != hash_config("y", {"a": 1})
    assert len(hash_config()) == 64


def test_array_hasher_sees_dtype_shape_and_values():
    a = np.arange(6)
    base = ArrayHasher(a).hexdigest()
    assert ArrayHasher(a.copy()).hexdigest() == base
    assert ArrayHasher(a.reshape(2, 3)).hexdigest() != base
    assert ArrayHasher(a.astype(np.int32)).hexdigest() != base
    b = a.copy()
    b[5] = 7
    assert ArrayHasher(b).hexdigest() != base
    assert ArrayHasher(Vocab([1, 2])).hexdigest() != ArrayHasher(Vocab([1, 3])).hexdigest()


def _rankings() -> Rankings:
    users, items = Vocab(["u1", "u2", "u3"]), Vocab(list("abcdef"))
    return Rankings(np.array([0, 2]), np.array([[3, 1, -1], [0, 5, 2]]), np.array([[0.9, 0.3, np.nan],
                                                                                   [2.0, 1.0, 1.0]]), users, items)


def test_rankings_round_trip_without_pickle(tmp_path):
    store = Store(tmp_path)
    r = _rankings()
    store.save_rankings("candidates", "ab" * 32, r)
    path = store.path("candidates", "ab" * 32, "npz")
    assert path.parent.name == "ab" and path.is_file()
    with np.load(path, allow_pickle=False) as z:  # plain arrays only
        assert sorted(z.files) == ["items", "scores", "users"]
    back = store.load_rankings("candidates", "ab" * 32, r.user_vocab, r.item_vocab)
    np.testing.assert_array_equal(back.items, r.items)
    np.testing.assert_array_equal(back.scores, r.scores)
    np.testing.assert_array_equal(back.users, r.users)
    assert store.load_rankings("candidates", "cd" * 32, r.user_vocab, r.item_vocab) is None


def test_fresh_run_ignores_artefacts_of_earlier_runs(tmp_path):
    old = Store(tmp_path)
    old.save_frame("scores", "k" * 64, pd.DataFrame({"measure": ["P@5"], "user": ["1"], "value": [0.5]}))
    time.sleep(0.01)
    fresh = Store(tmp_path, resume=False)
    assert not fresh.has("scores", "k" * 64, "parquet") and fresh.load_frame("scores", "k" * 64) is None
    assert Store(tmp_path, resume=True).load_frame("scores", "k" * 64) is not None
    fresh.save_frame("scores", "k" * 64, pd.DataFrame({"measure": ["P@5"], "user": ["1"], "value": [0.25]}))
    assert fresh.load_frame("scores", "k" * 64)["value"].tolist() == [0.25]


def test_failed_write_leaves_no_file(tmp_path):
    store = Store(tmp_path)
    bad = pd.DataFrame({"x": [object()]})  # not serialisable to Parquet
    with pytest.raises(Exception):  # noqa: B017 - whatever pyarrow raises
        store.save_frame("scores", "e" * 64, bad)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_remove_partial_deletes_only_temporary_files(tmp_path):
    store = Store(tmp_path)
    store.save_json("meta", "f" * 64, {"a": 1})
    leftover = store.path("meta", "f" * 64, "json").parent / f".{'f' * 64}.json.abc123.tmp"
    leftover.write_text("half", "utf-8")
    assert store.remove_partial() == 1
    assert not leftover.exists()
    assert store.load_json("meta", "f" * 64) == {"a": 1}


def test_corrupt_artefact_counts_as_missing(tmp_path):
    store = Store(tmp_path)
    p = store.path("rerank", "0" * 64, "npz")
    p.parent.mkdir(parents=True)
    p.write_bytes(b"not a zip file")
    os.utime(p)
    assert store.load_arrays("rerank", "0" * 64) is None


@pytest.mark.parametrize("damage", ["flip", "truncate", "record", "no-record"])
def test_damaged_artefact_is_detected_by_its_checksum(tmp_path, damage):
    """A damaged artefact counts as absent (it is recomputed) and is listed in `damaged`. A flipped byte inside an
    NPZ member used to surface as zipfile.BadZipFile (a traceback during --resume)."""
    store = Store(tmp_path)
    r = _rankings()
    store.save_rankings("candidates", "ab" * 32, r)
    p = store.path("candidates", "ab" * 32, "npz")
    record = p.with_name(p.name + ".sha256")
    assert record.read_text("ascii").strip() == hashlib.sha256(p.read_bytes()).hexdigest()
    data = bytearray(p.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
        p.write_bytes(bytes(data))
    elif damage == "truncate":
        p.write_bytes(bytes(data[:100]))
    elif damage == "record":
        record.write_text("0" * 64 + "\n", "ascii")
    else:
        record.unlink()
    fresh = Store(tmp_path)
    assert not fresh.has("candidates", "ab" * 32, "npz")
    assert fresh.load_rankings("candidates", "ab" * 32, r.user_vocab, r.item_vocab) is None
    assert fresh.damaged and fresh.damaged[0].startswith(f"candidates/ab/{'ab' * 32}.npz (")
    fresh.save_rankings("candidates", "ab" * 32, r)  # recomputed: readable again
    assert Store(tmp_path).load_rankings("candidates", "ab" * 32, r.user_vocab, r.item_vocab) is not None
