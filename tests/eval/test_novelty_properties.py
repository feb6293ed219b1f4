"""Property tests of the novelty metrics (METRICS.md §G.6) against a naive per-user reference written from the
formulas of §B.1–B.6, on random small worlds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.qrels import Qrels
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext, RunView
from recdiv.models.discount import parse_discount
from recdiv.models.novelty import free_discovery, inverse_user_frequency, popularity_complement
from recdiv.models.relevance import parse_relevance

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DISCS = ["none", "log", "exp0.85", "recip", "cascade", "cascade0.7"]
RELS = ["none", "binary", "graded", "graded_noneg", "background0.2"]


def random_lists(rng, users, n_items, max_len):
    lists = {}
    for u in users:
        if rng.random() < 0.15:
            continue  # user without a list
        length = int(rng.integers(0, max_len + 1))
        lists[u] = list(rng.permutation(n_items)[:length])
    return lists


def to_rankings(lists: dict, user_vocab: Vocab, item_vocab: Vocab) -> Rankings:
    users = np.array(sorted(lists), dtype=np.int64)
    k = max([len(v) for v in lists.values()] + [1])
    items = np.full((len(users), k), -1, dtype=np.int64)
    scores = np.full((len(users), k), np.nan)
    for r, u in enumerate(users):
        items[r, : len(lists[u])] = lists[u]
        scores[r, : len(lists[u])] = np.arange(len(lists[u]), 0, -1)
    return Rankings(users, items, scores, user_vocab, item_vocab)


@st.composite
def worlds(draw, all_aspects: bool = False):
    """A random small world: train, qrels (every user has a relevant item), aspects, run, previous run, K."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_users, n_items = draw(st.integers(1, 5)), draw(st.integers(3, 10))
    items = Vocab([f"i{j}" for j in range(n_items)])
    mask = rng.random((n_users + 2, n_items)) < 0.4  # two extra training-only users
    mask[0, 0] = True
    tu, ti = np.nonzero(mask)
    train_users = Vocab(range(n_users + 2))
    train = Interactions.from_arrays(tu, ti, rng.integers(1, 6, len(tu)).astype(float), train_users, items,
                                     scale=(1, 5))
    test_mask = rng.random((n_users, n_items)) < 0.5
    grades = rng.integers(1, 6, (n_users, n_items)).astype(float)
    for u in range(n_users):
        j = int(rng.integers(n_items))
        test_mask[u, j], grades[u, j] = True, float(rng.integers(4, 6))
    qu, qi = np.nonzero(test_mask)
    qrels = Qrels.from_interactions(Interactions.from_arrays(qu, qi, grades[qu, qi], train_users, items,
                                                             scale=(1, 5)))
    n_asp = int(rng.integers(1, 5))
    member = rng.random((n_items, n_asp)) < 0.5
    if all_aspects:
        member[np.arange(n_items), rng.integers(0, n_asp, n_items)] = True
    ai, aa = np.nonzero(member)
    aspects = AspectSpace.from_frame(pd.DataFrame({"item": items.id_of(ai), "aspect": aa}), items)
    run = to_rankings(random_lists(rng, range(n_users), n_items, n_items), train_users, items)
    prev = to_rankings(random_lists(rng, range(n_users), n_items, n_items), train_users, items)
    cutoff = draw(st.one_of(st.none(), st.integers(1, n_items + 2)))
    ctx = EvalContext(train=train, aspects=aspects, previous=prev, scale=(1, 5))
    return {"train": train, "qrels": qrels, "aspects": aspects, "run": run, "prev": prev, "K": cutoff, "ctx": ctx,
            "rng": rng}


def with_cutoff(name: str, K) -> str:
    return name if K is None else f"{name}@{K}"


# --- naive reference (one user at a time, straight from METRICS.md §B) ---------------------------------------


def ref_lists(w) -> tuple[np.ndarray, list[list[int]]]:
    """Evaluated users (all have a relevant item) and their cut lists."""
    view = RunView.of(w["ctx"], w["run"], w["qrels"])
    out = []
    for u in view.users:
        pos = np.flatnonzero(w["run"].users == u)
        lst = [] if not len(pos) else [int(i) for i in w["run"].items[pos[0]] if i >= 0]
        out.append(lst if w["K"] is None else lst[: w["K"]])
    return view.users, out


def ref_prel(w, u: int, lst, rel: str) -> list[float]:
    g = w["qrels"].lookup(np.array([u]), np.array([lst], dtype=np.int64).reshape(1, -1))[0]
    return list(parse_relevance(rel).probability(g, 4.0, 5.0))


def ref_disc(disc: str, prel: list[float]) -> list[float]:
    d = parse_discount(disc)
    if d.uses_relevance:
        out, reach = [], 1.0
        for k, p in enumerate(prel):
            out.append(reach * d.p0**k)
            reach *= 1 - p
        return out
    return [float(d.at(k + 1)) for k in range(len(prel))]


def ref_expected(disc_w, prel, nov) -> float:
    den = sum(disc_w)
    return sum(a * b * c for a, b, c in zip(disc_w, prel, nov)) / den if den > 0 else 0.0


def ref_popularity(w, name: str, disc: str, rel: str) -> np.ndarray:
    train = w["train"]
    counts = np.bincount(train.matrix.indices, minlength=train.n_items)
    n_users = int((np.diff(train.matrix.indptr) > 0).sum())
    total = counts.sum()
    seen_min = counts[counts > 0].min()

    def nov(i):
        c = counts[i]
        if name == "pc":
            return 1 - c / n_users
        if name == "iuf":
            return math.log2(n_users / (c if c else seen_min))
        return math.log2(total / (c if c else seen_min))

    users, lists = ref_lists(w)
    out = []
    for u, lst in zip(users, lists):
        prel = ref_prel(w, u, lst, rel) if lst else []
        out.append(ref_expected(ref_disc(disc, prel), prel, [nov(i) for i in lst]))
    return np.array(out)


def ref_epd(w, disc: str, rel: str, dist, profile_rel: str = "none") -> np.ndarray:
    train = w["train"]
    users, lists = ref_lists(w)
    out = []
    for u, lst in zip(users, lists):
        row = train.matrix[u]
        profile = list(row.indices)
        pw = parse_relevance(profile_rel).probability(row.data, 4.0, 5.0)
        prel = ref_prel(w, u, lst, rel) if lst else []
        nov = []
        for i in lst:
            pairs = [(dist(i, j), p) for j, p in zip(profile, pw)]
            pairs = [(x, p) for x, p in pairs if not math.isnan(x)]
            den = sum(p for _, p in pairs)
            nov.append(sum(x * p for x, p in pairs) / den if den > 0 else 0.0)
        out.append(ref_expected(ref_disc(disc, prel), prel, nov))
    return np.array(out)


def cosine(aspects: AspectSpace):
    sets = [set(aspects.membership[i].indices) for i in range(aspects.membership.shape[0])]

    def d(i, j):
        a, b = sets[i], sets[j]
        return math.nan if not a or not b else 1 - len(a & b) / math.sqrt(len(a) * len(b))

    return d


# --- properties ----------------------------------------------------------------------------------------------


@SETTINGS
@given(worlds(), st.sampled_from(["EPC", "EIP", "EFD"]), st.sampled_from(DISCS), st.sampled_from(RELS))
def test_popularity_metrics_match_reference(w, metric, disc, rel):
    ps = ",".join(p for p in (f"disc={disc}" * (disc != "none"), f"rel={rel}" * (rel != "none")) if p)
    m = parse_measure(with_cutoff(metric + (f"({ps})" if ps else ""), w["K"]))
    got = m.per_user(w["run"], w["qrels"], w["ctx"])
    np.testing.assert_allclose(got, ref_popularity(w, {"EPC": "pc", "EIP": "iuf", "EFD": "fd"}[metric], disc, rel),
                               atol=1e-12)


@SETTINGS
@given(worlds(), st.sampled_from(DISCS), st.sampled_from(RELS), st.sampled_from(["none", "binary", "graded_noneg"]))
def test_epd_matches_reference(w, disc, rel, profile_rel):
    ps = "".join(p for p in (f",disc={disc}" * (disc != "none"), f",rel={rel}" * (rel != "none")))
    m = parse_measure(with_cutoff(f"EPD(dist=cosine{ps},profile_rel={profile_rel})", w["K"]))
    got = m.per_user(w["run"], w["qrels"], w["ctx"])
    np.testing.assert_allclose(got, ref_epd(w, disc, rel, cosine(w["aspects"]), profile_rel), atol=1e-12)


@SETTINGS
@given(worlds())
def test_efd_minus_eip_is_log_t_over_u(w):
    K = w["K"]
    efd = parse_measure(with_cutoff("EFD", K)).per_user(w["run"], w["qrels"], w["ctx"])
    eip = parse_measure(with_cutoff("EIP", K)).per_user(w["run"], w["qrels"], w["ctx"])
    msi = parse_measure(with_cutoff("MSI", K)).per_user(w["run"], w["qrels"], w["ctx"])
    train = w["train"]
    shift = math.log2(train.nnz / int((train.user_counts() > 0).sum()))
    _, lists = ref_lists(w)
    nonempty = np.array([len(x) > 0 for x in lists])
    np.testing.assert_allclose((efd - eip)[nonempty], shift, atol=1e-12)
    np.testing.assert_allclose(efd[~nonempty], 0.0)
    np.testing.assert_allclose(msi, eip, atol=0)


@SETTINGS
@given(worlds())
def test_essd_none_is_ssd(w):
    got = parse_measure(with_cutoff("ESSD", w["K"])).per_user(w["run"], w["qrels"], w["ctx"])
    users, lists = ref_lists(w)
    prev = w["prev"]
    expected = []
    for u, lst in zip(users, lists):
        pos = np.flatnonzero(prev.users == u)
        pl = [] if not len(pos) else [int(i) for i in prev.items[pos[0]] if i >= 0]
        pl = pl if w["K"] is None else pl[: w["K"]]
        expected.append(len(set(lst) - set(pl)) / len(lst) if lst else 0.0)
    np.testing.assert_allclose(got, expected, atol=1e-12)


@SETTINGS
@given(worlds(), st.sampled_from(DISCS), st.sampled_from(RELS))
def test_ranges(w, disc, rel):
    ps = "".join(p for p in (f",disc={disc}" * (disc != "none"), f",rel={rel}" * (rel != "none")))
    for name, hi in (("EPC", 1.0), ("EPD(dist=jaccard", 1.0), ("ESSD", 1.0), ("EIP", np.inf), ("EFD", np.inf)):
        full = (name + ps + ")") if "(" in name else (name + (f"({ps[1:]})" if ps else ""))
        v = parse_measure(with_cutoff(full, w["K"])).per_user(w["run"], w["qrels"], w["ctx"])
        assert np.all(v >= -1e-12) and np.all(v <= hi + 1e-12), full


@SETTINGS
@given(worlds(), st.sampled_from(RELS))
def test_permutation_changes_only_rank_aware_variants(w, rel):
    """disc=none ⇒ invariant to permuting each (cut) list; a rank-aware variant may change."""
    run = w["run"]
    K = w["K"]
    k_eff = run.k if K is None else min(K, run.k)
    items = run.items.copy()
    for r in range(len(items)):
        n = int((items[r, :k_eff] >= 0).sum())
        items[r, :n] = w["rng"].permutation(items[r, :n])
    perm = Rankings(run.users, items, run.scores, run.user_vocab, run.item_vocab)
    rp = f"(rel={rel})" if rel != "none" else ""
    for name in (f"EPC{rp}", f"EIP{rp}", f"EFD{rp}", f"ESSD{rp}", "MSI",
                 f"EPD(dist=cosine{',rel=' + rel if rel != 'none' else ''})"):
        m = parse_measure(with_cutoff(name, K))
        a = m.per_user(run, w["qrels"], w["ctx"])
        b = m.per_user(perm, w["qrels"], w["ctx"])
        np.testing.assert_allclose(a, b, atol=1e-12, err_msg=name)


def test_rank_aware_variant_changes_under_permutation():
    items = Vocab(["a", "b"])
    users = Vocab([0, 1])
    train = Interactions.from_arrays(np.array([0, 1, 0]), np.array([0, 0, 1]), None, users, items)
    qrels = Qrels.from_interactions(Interactions.from_arrays(np.array([0]), np.array([0]), np.array([5.0]),
                                                             users, items))
    ctx = EvalContext(train=train)
    r1 = Rankings(np.array([0]), np.array([[0, 1]]), np.array([[2.0, 1.0]]), users, items)
    r2 = Rankings(np.array([0]), np.array([[1, 0]]), np.array([[2.0, 1.0]]), users, items)
    for name, changes in (("EPC", False), ("EPC(disc=log)", True), ("EPC(disc=exp0.5)", True)):
        m = parse_measure(name)
        assert (m.value(r1, qrels, ctx) != m.value(r2, qrels, ctx)) == changes, name


@SETTINGS
@given(worlds())
def test_rel_none_independent_of_test_set(w):
    """Replace every test grade (keeping each user relevant): rel=none metrics do not move."""
    q = w["qrels"]
    m2 = q.matrix.copy()
    m2.data = np.where(m2.data >= 4, 5.0, w["rng"].integers(1, 4, m2.nnz).astype(float))
    q2 = Qrels(q.users, q.items, m2, q.scale)
    for name in ("EPC(disc=log)", "EIP", "EFD(disc=exp0.85)", "MSI", "EPD", "ESSD(disc=recip)", "EILD(disc=log)",
                 "ILD"):
        m = parse_measure(with_cutoff(name, w["K"]))
        np.testing.assert_array_equal(m.per_user(w["run"], q, w["ctx"]), m.per_user(w["run"], q2, w["ctx"]))


def test_novelty_functions_on_a_small_matrix():
    users, items = Vocab(range(4)), Vocab(range(4))
    # |U_i| = (3, 1, 0, 2); |U| = 3 users with data (user 3 has none); T = 6
    train = Interactions.from_arrays(np.array([0, 1, 2, 0, 0, 1]), np.array([0, 0, 0, 1, 3, 3]), None, users, items)
    np.testing.assert_allclose(popularity_complement(train), [0, 2 / 3, 1, 1 / 3])
    np.testing.assert_allclose(inverse_user_frequency(train), [0, math.log2(3), math.log2(3), math.log2(1.5)])
    np.testing.assert_allclose(free_discovery(train), [1, math.log2(6), math.log2(6), math.log2(3)])


def test_users_without_a_list_and_empty_lists_score_zero():
    users, items = Vocab(range(3)), Vocab(["a", "b"])
    train = Interactions.from_arrays(np.array([0, 1]), np.array([0, 1]), None, users, items)
    qrels = Qrels.from_interactions(Interactions.from_arrays(np.array([0, 1, 2]), np.array([0, 0, 1]),
                                                             np.array([5.0, 5.0, 4.0]), users, items))
    run = Rankings(np.array([0, 1]), np.array([[1, 0], [-1, -1]]), np.array([[2.0, 1.0], [np.nan, np.nan]]),
                   users, items)
    v = parse_measure("EPC@5").per_user(run, qrels, EvalContext(train=train))
    np.testing.assert_allclose(v, [0.5, 0.0, 0.0])


@pytest.mark.parametrize("bad", ["EPC(disc=exp)", "EPC(disc=exp1.5)", "EPC(disc=zipf)", "EPC(rel=gradual)",
                                 "EPC(rel=background2)", "EILD(dist=euclid)", "EILD(undefined=zero)",
                                 "EPD(profile_rel=foo)", "Gini(disc=cascade)", "AggregateDiversity(rel=graded)"])
def test_bad_parameters_are_config_errors(bad):
    with pytest.raises(ConfigError):
        parse_measure(bad)


def test_canonical_names_round_trip():
    for s in ("EPC(disc=exp0.85,rel=graded)@50", "EILD(dist=jaccard,disc=log,rel=binary)@100", "ILD@10",
              "EPD(rel=background0.1,profile_rel=binary)", "ESSD(disc=cascade0.9)@20", "MSI@10",
              "Gini(disc=log)@10", "AggregateDiversity(rel=binary)@5"):
        assert str(parse_measure(s)) == s
    assert str(parse_measure("ILD(dist=cosine)@10")) == "ILD@10"


def test_missing_context_is_named():
    users, items = Vocab(range(1)), Vocab(["a"])
    qrels = Qrels.from_interactions(Interactions.from_arrays(np.array([0]), np.array([0]), np.array([5.0]),
                                                             users, items))
    run = Rankings(np.array([0]), np.array([[0]]), np.array([[1.0]]), users, items)
    with pytest.raises(ConfigError, match="train"):
        parse_measure("EPC").value(run, qrels, EvalContext())
    with pytest.raises(ConfigError, match="aspects"):
        parse_measure("ILD").value(run, qrels, EvalContext())
    with pytest.raises(ConfigError, match="previous"):
        parse_measure("ESSD").value(run, qrels, EvalContext())
    assert parse_measure("EILD(dist=pearson)").NEEDS == ("train",)
    assert parse_measure("EPD(dist=jaccard)").NEEDS == ("train", "aspects")


@SETTINGS
@given(worlds(), st.sampled_from(DISCS), st.sampled_from(RELS))
def test_essd_matches_reference(w, disc, rel):
    ps = ",".join(p for p in (f"disc={disc}" * (disc != "none"), f"rel={rel}" * (rel != "none")) if p)
    got = parse_measure(with_cutoff("ESSD" + (f"({ps})" if ps else ""), w["K"])).per_user(w["run"], w["qrels"],
                                                                                          w["ctx"])
    users, lists = ref_lists(w)
    prev = w["prev"]
    expected = []
    for u, lst in zip(users, lists):
        pos = np.flatnonzero(prev.users == u)
        pl = [] if not len(pos) else [int(i) for i in prev.items[pos[0]] if i >= 0]
        pl = pl if w["K"] is None else pl[: w["K"]]
        pdisc = ref_disc(disc, ref_prel(w, u, pl, rel) if pl else [])
        seen = {i: pdisc[x] for x, i in enumerate(pl)}
        prel = ref_prel(w, u, lst, rel) if lst else []
        expected.append(ref_expected(ref_disc(disc, prel), prel, [1 - seen.get(i, 0.0) for i in lst]))
    np.testing.assert_allclose(got, expected, atol=1e-12)
