"""recdiv's measures as LensKit 2025.8 list metrics (`recdiv.lenskit.RecdivMetric`), in LensKit's own
`MeasurementCollector` beside its metrics.

Oracles: LensKit's NDCG, RecipRank, Hit and RBP where they define the same measure — every test item relevant
(threshold 0), binary gains, LensKit's log discount clipping ranks 1 and 2 (recdiv's disc=jk, b = 2), RBP with
patience 0.85 — equal to 1e-15; recdiv's own evaluation of the same lists as one run (`inputs_from_itemlists`,
graded ratings, threshold 4, item aspects): equal per user to 1e-14 (not bit for bit: a list evaluated alone
sums its ideal list over fewer padded columns than the whole collection, which NumPy's pairwise summation may
round differently).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lenskit.data import ItemList, ItemListCollection
from lenskit.metrics import NDCG, RBP, Hit, MeasurementCollector, RecipRank

from recdiv.errors import ConfigError
from recdiv.eval.evaluate import evaluate
from recdiv.eval.io import inputs_from_itemlists
from recdiv.lenskit import RecdivMetric

SAME = [(NDCG(n=10), "nDCG(gain=binary,disc=jk)@10"), (NDCG(), "nDCG(gain=binary,disc=jk)"), (RecipRank(), "RR"),
        (Hit(n=5), "HitRate@5"), (RBP(n=10), "RBP(p=0.85)@10")]


def lists(seed: int, n_users: int = 60, rated: bool = False, unordered: bool = False):
    """(user, recommendations, test items); with `unordered`, every third list has scores (with ties) only."""
    rng = np.random.default_rng(seed)
    items = np.array([f"i{j:03d}" for j in range(300)], dtype=object)  # ids as text, as every door of recdiv reads
    out = []
    for u in range(n_users):
        test = rng.choice(items, rng.integers(1, 12), replace=False)
        extra = {"rating": rng.integers(1, 6, len(test)).astype(np.float64)} if rated else {}
        recs = rng.choice(np.unique(np.concatenate([test, rng.choice(items, 30)])), 20, replace=False)
        ordered = not unordered or u % 3 != 0  # LensKit's top-n metrics need ordered lists
        scores = np.round(rng.random(20), 1)  # ties where unordered: broken by item id
        out.append((u, ItemList(recs, scores=scores, ordered=ordered), ItemList(test, **extra)))
    return out


def test_equal_to_lenskit_metrics():
    collector = MeasurementCollector()
    for theirs, ours in SAME:
        collector.add_metric(theirs)
        collector.add_metric(RecdivMetric(ours))
    for u, recs, test in lists(1):
        collector.measure_list(recs, test, user_id=u)
    frame = collector.list_metrics()
    for theirs, ours in SAME:
        np.testing.assert_allclose(frame[ours], frame[theirs.label].astype(float), rtol=0, atol=1e-15, err_msg=ours)
    assert frame["RR"].gt(0).sum() > 10  # not all zero
    summary = collector.summary_metrics()
    assert summary["RR.mean"] == pytest.approx(summary["RecipRank.mean"], rel=1e-15)


def test_equal_to_recdiv_on_whole_collections():
    """The list metric (one list at a time) = recdiv's evaluation of the collections as one run."""
    data = lists(2, rated=True, unordered=True)
    rng = np.random.default_rng(3)
    aspects = pd.DataFrame({"item": np.repeat([f"i{j:03d}" for j in range(300)], 2),
                            "aspect": [f"g{g}" for g in rng.integers(0, 9, 600)]}).drop_duplicates()
    measures = ["nDCG@10", "P@5", "ERR@10", "alpha-nDCG@10", "S-RR@10", "ILD@10", "nDCG-IA(weights=uniform)@10"]
    collector = MeasurementCollector()
    for m in measures:
        collector.add_metric(RecdivMetric(m, threshold=4, aspects=aspects, scale=(1, 5)))
    recs_ilc, test_ilc = ItemListCollection(["user_id"]), ItemListCollection(["user_id"])
    for u, recs, test in data:
        collector.measure_list(recs, test, user_id=u)
        recs_ilc.add(recs, user_id=u)
        test_ilc.add(test, user_id=u)
    frame = collector.list_metrics()
    run, qrels = inputs_from_itemlists(recs_ilc, test_ilc)
    from recdiv.aspects.space import AspectSpace
    from recdiv.data.csr import csr_arrays
    from recdiv.data.vocab import Vocab
    from recdiv.eval.context import EvalContext

    items = qrels.items
    names = Vocab.from_values(aspects["aspect"])
    known = aspects[aspects["item"].isin(set(map(str, items.ids)))]
    m, _ = csr_arrays(items.lookup(known["item"].to_numpy()),
                      names.lookup(known["aspect"].to_numpy()), np.ones(len(known)), (len(items), len(names)))
    ctx = EvalContext(threshold=4, population="judged", scale=(1, 5), aspects=AspectSpace(items, names, m))
    ev = evaluate({"recs": run}, qrels, measures, ctx)
    users = list(ev.users)
    for m in measures:  # a few ulps: one list alone sums its ideal over fewer padded columns than the collection
        np.testing.assert_allclose(frame.loc[users, m], ev.user_values("recs", m), rtol=1e-14, atol=0, err_msg=m)


def test_refused_measures_and_bad_lists():
    for m, message in [("Gini@10", "system-level"), ("lexirecall@10", "compares two runs"), ("FCP", "pools"),
                       ("EPC@10", "needs `train`"), ("RBO@10", "needs `previous`"),
                       ("ILD@10", r"needs item aspects: RecdivMetric\('ILD@10', aspects=")]:
        with pytest.raises(ConfigError, match=message):
            RecdivMetric(m)
    with pytest.raises(ConfigError, match="no column 'aspect'"):
        RecdivMetric("ILD@10", aspects=pd.DataFrame({"item": ["1"]}))
    metric = RecdivMetric("RR")
    with pytest.raises(ConfigError, match=r"neither ordered \(ranks\) nor scored"):
        metric.measure_list(ItemList([1, 2]), ItemList([1]))
    with pytest.raises(ConfigError, match="holds item '2' twice"):
        metric.measure_list(ItemList([1, 2, 2], ordered=True), ItemList([1]))
    assert np.isnan(metric.measure_list(ItemList([1, 2], ordered=True), ItemList([])))
    assert metric.label == "RR" and RecdivMetric("RR", label="mrr").label == "mrr"
