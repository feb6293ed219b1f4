"""Property tests of EILD and ILD (METRICS.md §B.6, §G.6) against a naive per-user reference, and of the two
computation paths (signature kernels and `ItemSimilarity.sim` blocks)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recdiv.aspects.similarity import Jaccard, LatentCosine, SetCosine
from recdiv.eval.catalog import parse_measure
from recdiv.eval.context import EvalContext
from recdiv.eval.metrics import novelty as nd
from recdiv.models import novelty as novelty_models
from recdiv.models.discount import parse_discount
from tests.eval.test_novelty_properties import (
    DISCS,
    RELS,
    SETTINGS,
    ref_disc,
    ref_lists,
    ref_prel,
    with_cutoff,
    worlds,
)


def ref_relative(disc: str, prel: list[float], k: int, l: int) -> float:
    """disc(l | k): disc(max(1, l − k)); cascade: 1 for l < k, p0^(l−k−1) Π_{k<m<l} (1 − p_m) for l > k."""
    d = parse_discount(disc)
    if not d.uses_relevance:
        return float(d.at(max(1, l - k)))
    if l < k:
        return 1.0
    out = 1.0
    for m in range(k + 1, l):
        out *= d.p0 * (1 - prel[m])
    return out


def ref_eild(w, disc: str, rel: str, dist, undefined: str = "skip") -> np.ndarray:
    users, lists = ref_lists(w)
    out = []
    for u, lst in zip(users, lists):
        if not lst:
            out.append(0.0)
            continue
        prel = ref_prel(w, u, lst, rel)
        dw = ref_disc(disc, prel)
        total = 0.0
        for k in range(len(lst)):
            num = den = 0.0
            for l in range(len(lst)):
                if l == k:
                    continue
                d = dist(lst[k], lst[l])
                if math.isnan(d):
                    if undefined == "skip":
                        continue
                    d = 1.0
                wkl = ref_relative(disc, prel, k, l) * prel[l]
                num += wkl * d
                den += wkl
            total += dw[k] * prel[k] * (num / den if den > 0 else 0.0)
        out.append(total / sum(dw) if sum(dw) > 0 else 0.0)
    return np.array(out)


def ref_ild(w, dist) -> np.ndarray:
    _, lists = ref_lists(w)
    out = []
    for lst in lists:
        ds = [dist(a, b) for x, a in enumerate(lst) for b in lst[x + 1 :]]
        ds = [d for d in ds if not math.isnan(d)]
        out.append(sum(ds) / len(ds) if ds else 0.0)
    return np.array(out)


def distance_fn(sim):
    def d(i, j):
        return float(1.0 - sim.sim(np.array([i]), np.array([j]))[0, 0])

    return d


def eild_name(dist, disc, rel, undefined="skip"):
    ps = [f"dist={dist}"] if dist != "cosine" else []
    ps += [f"disc={disc}"] * (disc != "none") + [f"rel={rel}"] * (rel != "none")
    ps += [f"undefined={undefined}"] * (undefined != "skip")
    return "EILD" + (f"({','.join(ps)})" if ps else "")


@SETTINGS
@given(worlds(), st.sampled_from(DISCS), st.sampled_from(RELS), st.sampled_from(["cosine", "jaccard"]),
       st.sampled_from(["skip", "one"]))
def test_eild_matches_reference(w, disc, rel, dist, undefined):
    m = parse_measure(with_cutoff(eild_name(dist, disc, rel, undefined), w["K"]))
    got = m.per_user(w["run"], w["qrels"], w["ctx"])
    sim = SetCosine(w["aspects"]) if dist == "cosine" else Jaccard(w["aspects"])
    np.testing.assert_allclose(got, ref_eild(w, disc, rel, distance_fn(sim), undefined), atol=1e-12)
    assert np.all(got >= -1e-12) and np.all(got <= 1 + 1e-12)


@SETTINGS
@given(worlds(), st.sampled_from(["cosine", "jaccard"]))
def test_ild_matches_reference(w, dist):
    got = parse_measure(with_cutoff(f"ILD(dist={dist})", w["K"])).per_user(w["run"], w["qrels"], w["ctx"])
    sim = SetCosine(w["aspects"]) if dist == "cosine" else Jaccard(w["aspects"])
    np.testing.assert_allclose(got, ref_ild(w, distance_fn(sim)), atol=1e-12)


@SETTINGS
@given(worlds(all_aspects=True), st.sampled_from(["cosine", "jaccard"]))
def test_eild_without_rank_and_relevance_is_ild(w, dist):
    eild = parse_measure(with_cutoff(f"EILD(dist={dist})", w["K"])).per_user(w["run"], w["qrels"], w["ctx"])
    ild = parse_measure(with_cutoff(f"ILD(dist={dist})", w["K"])).per_user(w["run"], w["qrels"], w["ctx"])
    np.testing.assert_allclose(eild, ild, atol=1e-12)


@SETTINGS
@given(worlds(), st.sampled_from(DISCS), st.sampled_from(RELS), st.sampled_from(["skip", "one"]))
def test_signature_kernels_equal_similarity_blocks(w, disc, rel, undefined):
    """The compiled signature path and the fallback over `ItemSimilarity.sim` blocks agree (one block of users,
    and one user per block: EPD's blocks take only the pairs of their own lists and profiles)."""
    names = [with_cutoff(eild_name("jaccard", disc, rel, undefined), w["K"]),
             with_cutoff(f"ILD(undefined={undefined})", w["K"]),
             with_cutoff(f"EPD(disc={disc},rel={rel},undefined={undefined})", w["K"])]
    fast = [parse_measure(n).per_user(w["run"], w["qrels"], w["ctx"]) for n in names]
    for pairs in (novelty_models._PAIRS, 1):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(nd, "_signature_distances", lambda *a, **k: None)
            mp.setattr(novelty_models, "_PAIRS", pairs)
            ctx = EvalContext(train=w["train"], aspects=w["aspects"], previous=w["prev"], scale=(1, 5))
            slow = [parse_measure(n).per_user(w["run"], w["qrels"], ctx) for n in names]
        for n, a, b in zip(names, fast, slow):
            np.testing.assert_allclose(a, b, atol=1e-12, err_msg=f"{n} (pairs per block {pairs})")


@SETTINGS
@given(worlds(), st.sampled_from(["none", "log"]), st.sampled_from(["none", "binary"]))
def test_pearson_and_latent_distances(w, disc, rel):
    """dist=pearson (built from train) and latent-cosine (from context.similarity) against the reference."""
    from recdiv.aspects.similarity import RatingPearson

    ctx = w["ctx"]
    got = parse_measure(with_cutoff(eild_name("pearson", disc, rel), w["K"])).per_user(w["run"], w["qrels"], ctx)
    np.testing.assert_allclose(got, ref_eild(w, disc, rel, distance_fn(RatingPearson(w["train"]))), atol=1e-12)
    factors = w["rng"].normal(size=(len(w["train"].items), 3))
    factors[0] = 0.0  # an item without a factor vector: undefined
    lat = LatentCosine(factors)
    ctx2 = EvalContext(train=w["train"], similarity=lat)
    got = parse_measure(with_cutoff(eild_name("latent-cosine", disc, rel), w["K"])).per_user(w["run"], w["qrels"],
                                                                                              ctx2)
    np.testing.assert_allclose(got, ref_eild(w, disc, rel, distance_fn(lat)), atol=1e-12)
