"""`Results.from_frame`: statistics on per-user values made by any tool (long or wide frames, LensKit's
`MeasurementCollector.list_metrics()`), paired by user id; the round trip through `Results.to_frame`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lenskit.data import ItemList
from lenskit.metrics import NDCG, MeasurementCollector, RecipRank

from recdiv.errors import ConfigError
from recdiv.eval.results import Results


def _results() -> Results:
    rng = np.random.default_rng(3)
    return Results({s: {"nDCG@10": rng.random(40), "RR": rng.random(40)} for s in ("pop", "knn", "mmr")},
                   users=np.array([f"u{i:02d}" for i in range(40)]))


def test_long_round_trip_keeps_every_statistic():
    res = _results()
    back = Results.from_frame(res.to_frame().sort_values("user", ascending=False, kind="stable"))  # any user order
    assert back.systems == res.systems and back.measures == res.measures
    assert back.users.tolist() == res.users.tolist()
    for s in res.systems:
        for m in res.measures:
            assert back.per_user(s, m).tolist() == res.per_user(s, m).tolist()
    opts = {"baseline": "pop", "test": "bootstrap", "n_samples": 500, "ci": "bootstrap", "seed": 2}
    assert back.compare(**opts).to_dict() == res.compare(**opts).to_dict()


def test_wide_frames_and_lenskit_list_metrics():
    """Two systems measured by LensKit's own MeasurementCollector; their list_metrics() frames, with a system
    column, give the paired tests LensKit leaves to its users (lkpy #784)."""
    rng = np.random.default_rng(4)
    items = np.arange(50)
    frames = []
    for system in ("a", "b"):
        collector = MeasurementCollector()
        collector.add_metric(NDCG(n=10))
        collector.add_metric(RecipRank())
        for u in range(30):
            test = ItemList(rng.choice(items, 5, replace=False))
            recs = ItemList(rng.choice(items, 10, replace=False), ordered=True)
            collector.measure_list(recs, test, user_id=u)
        frames.append(collector.list_metrics().assign(system=system))
    res = Results.from_frame(pd.concat(frames), user="user_id")
    assert res.systems == ["a", "b"] and res.measures == ["NDCG@10", "RecipRank"]
    assert res.users.tolist() == list(range(30))
    a = frames[0]["NDCG@10"].to_numpy()
    assert res.per_user("a", "NDCG@10").tolist() == a.tolist()
    cmp = res.compare(test="t", correction="holm")
    assert [(pc.a, pc.b, pc.measure) for pc in cmp.pairs] == [("a", "b", "NDCG@10"), ("a", "b", "RecipRank")]


def test_unpaired_or_malformed_frames_are_one_clear_error():
    frame = _results().to_frame()
    with pytest.raises(ConfigError, match="no column 'system'"):
        Results.from_frame(frame.drop(columns="system"))
    dropped = frame.drop(index=frame[(frame["system"] == "knn") & (frame["user"] == "u07")].index)
    with pytest.raises(ConfigError, match="system 'knn' has no value for user 'u07'"):
        Results.from_frame(dropped)
    with pytest.raises(ConfigError, match="user 'u01' has several values"):
        Results.from_frame(pd.concat([frame, frame[frame["user"] == "u01"]]))
    with pytest.raises(ConfigError, match="no measure columns"):
        Results.from_frame(pd.DataFrame({"system": ["a"], "user": ["u"]}))
