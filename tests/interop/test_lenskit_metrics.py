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
    for m, message in [("Gini@10", "system-level"), ("FCP", "pools"), ("EPC@10", "needs `train`"),
                       ("lexirecall@10", r"needs the other system's list, which a LensKit list metric cannot reach "
                        r"\(LensKit calls measure_list\(output, test\) without the user's key\): evaluate the "
                        r"collections with recdiv.evaluate_files\(test, \{\"a\": recs, \"b\": other\}, "
                        r"\['lexirecall@10'\], baseline=\"b\"\)"),
                       ("RBO@10", r"needs the user's base list.*\['RBO@10'\], previous=base\)"),
                       ("ESSD@10", r"needs the user's base list"),
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


def test_reference_and_pairwise_measures_on_collections():
    """What a list metric cannot reach, whole collections give: RBO and LIP of reranked lists against their base
    lists (`previous=`, an ItemListCollection) equal LensKit's own `rank_biased_overlap` (norm=weights, the same
    geometric weights) and `least_item_promoted` (+1: LensKit counts positions from 0) per user; lexirecall against
    another collection (`baseline=`) equals recdiv's preference of the two runs."""
    from lenskit.metrics import GeometricRankWeight
    from lenskit.metrics.reranking import least_item_promoted, rank_biased_overlap

    from recdiv.eval.evaluate import preference_per_user
    from recdiv.eval.io import evaluate_files, load_inputs

    rng = np.random.default_rng(5)
    items = np.array([f"i{j:03d}" for j in range(80)], dtype=object)
    base, reranked, test = (ItemListCollection(["user_id"]) for _ in range(3))
    for u in range(30):
        b = rng.choice(items, 25, replace=False)
        top = np.concatenate([b[:3], rng.choice(b[3:], 7, replace=False)])  # some items promoted from deep
        base.add(ItemList(b, ordered=True), user_id=f"u{u}")
        reranked.add(ItemList(top, ordered=True), user_id=f"u{u}")
        test.add(ItemList(rng.choice(items, 8, replace=False)), user_id=f"u{u}")
    ev = evaluate_files(test, {"mmr": reranked, "knn": base}, ["RBO@10", "LIP@10", "lexirecall@10"], previous=base,
                        baseline="knn", threshold=1, population="judged")
    users = [str(u) for u in ev.users]
    rbo = [rank_biased_overlap(base.lookup(user_id=u), reranked.lookup(user_id=u), GeometricRankWeight(0.9), n=10)
           for u in users]
    lip = [least_item_promoted(base.lookup(user_id=u), reranked.lookup(user_id=u), n=10) for u in users]
    np.testing.assert_allclose(ev.user_values("mmr", "RBO@10"), rbo, rtol=1e-14, atol=0)
    mine = ev.user_values("mmr", "LIP@10")
    np.testing.assert_array_equal(np.maximum(mine - 1, 0), lip)
    assert mine.max() > 1 and (ev.user_values("knn", "RBO@10") == 1).all()
    assert set(np.unique(ev.user_values("mmr", "lexirecall@10"))) <= {-1.0, 0.0, 1.0}
    np.testing.assert_array_equal(ev.user_values("knn", "lexirecall@10"), 0)
    inputs = load_inputs(test, {"mmr": reranked, "knn": base}, threshold=1, population="judged")
    np.testing.assert_array_equal(ev.user_values("mmr", "lexirecall@10"), preference_per_user(
        "lexirecall@10", inputs.runs["mmr"], inputs.runs["knn"], inputs.qrels, inputs.context))
