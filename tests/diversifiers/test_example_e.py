"""Hand-worked greedy selections of Example E (recdiv.testing.examples), with the objective values of each step."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from recdiv.diversifiers import make_reranker
from recdiv.diversifiers.blocks import aspect_probabilities
from recdiv.diversifiers.normalize import nonnegative
from recdiv.testing.examples import SELECTIONS, example_e, ids

CASES = SELECTIONS


@pytest.mark.parametrize(("name", "params", "expected"), CASES, ids=[f"{c[0]}{c[1]}" for c in CASES])
def test_example_e_selection(name, params, expected):
    cands, ctx = example_e()
    out = make_reranker(name, **params).rerank(cands, 3, ctx)
    assert ids(out) == expected
    assert out.scores[0].tolist() == [3.0, 2.0, 1.0]


def _steps(name, params):
    """Objective values at each step (remaining candidates), recorded through the greedy template."""
    cands, ctx = example_e()
    rr = make_reranker(name, **params)
    seen = []
    orig = rr.objective

    def spy(state, block, remaining, t):
        f = orig(state, block, remaining, t)
        seen.append(np.where(remaining, f, np.nan)[0].copy())
        return f

    rr.objective = spy
    rr.rerank(cands, 3, ctx)
    return seen


def test_mmr_thesis_step_values():
    s = _steps("MMR", {"lambda": 0.5})
    np.testing.assert_allclose(s[1][1:], [-0.125, 0.25, -0.228553, 0.0], atol=1e-4)
    np.testing.assert_allclose(s[2][[1, 3, 4]], [-0.125, -0.228553, 0.0], atol=1e-4)


def test_ia_select_step_values():
    s = _steps("IASelect", {})
    np.testing.assert_allclose(s[0], [0.5, 0.375, 0.125, 0.09375, 0.0], atol=1e-12)
    np.testing.assert_allclose(s[1][[2, 3]], [0.125, 0.03125], atol=1e-12)
    np.testing.assert_allclose(s[2][3], 0.015625, atol=1e-12)


def test_xquad_step_values():
    s = _steps("xQuAD", {"lambda": 0.5, "norm": "minmax"})
    np.testing.assert_allclose(s[0], [0.5978, 0.4620, 0.3173, 0.2479, 0.125], atol=1e-4)
    s = _steps("xQuAD", {"lambda": 0.9, "norm": "minmax"})
    np.testing.assert_allclose(s[0], [0.2761, 0.2315, 0.1712, 0.2462, 0.225], atol=1e-4)
    np.testing.assert_allclose(s[1][1:], [0.1703, 0.1712, 0.2003, 0.225], atol=1e-4)


def test_xquad_default_step_values():
    # Santos et al.'s form (norm=sum): P(i|u) = s/Σs = (.9, .8, .7, .6, .5)/3.5 and P(i|u,a) as in §E.4. Step 1:
    # f(c1) = .5·.2571 + .5·(.5·.3913) = .2264; c4 = .5·.1714 + .5·(.5·.2609 + .25·.4615) = .2086; c5 = .0714 + .125.
    # After c1, U_A = 1 − .3913: c5 (.1964) beats c4 (.1831); after c5, U_D = 0 and c4 (.1831) beats c3 (.1673).
    s = _steps("xQuAD", {})
    np.testing.assert_allclose(s[0], [0.226398, 0.201242, 0.167308, 0.208624, 0.196429], atol=1e-6)
    np.testing.assert_allclose(s[1][1:], [0.167216, 0.167308, 0.183104, 0.196429], atol=1e-6)
    np.testing.assert_allclose(s[2][1:4], [0.167216, 0.167308, 0.183104], atol=1e-6)


def test_calibrated_default_step_values():
    # min–max scores (1, .75, .5, .25, 0), λ = .5, p(g|u) = (A .5, C 1/6, D 1/3), α = .01: the objective of S ∪ {i},
    # .5·Σŝ − .5·KL(p, q̃); step 1 c1 −.4793 (KL of {c1} alone: .5·ln(.5/.505) + (1/6)·ln(100) + (1/3)·ln(100))
    s = _steps("Calibrated", {})
    np.testing.assert_allclose(s[0], [-0.4793, -0.6043, -1.5202, -0.5515, -1.3531], atol=1e-4)
    np.testing.assert_allclose(s[1][1:], [-0.1043, 0.0735, -0.0085, 0.1833], atol=1e-4)
    np.testing.assert_allclose(s[2][1:4], [0.5625, 0.7072, 0.625], atol=1e-4)


def test_ngd_values():
    s = _steps("NGD", {"lambda": 0.5})
    np.testing.assert_allclose(s[0], [0.0674, -0.0771, 0.0203, -0.0540, 0.0434], atol=1e-4)


def test_pm2_values():
    s = _steps("PM2", {"lambda": 0.9})
    picked = [0, 2, 4]
    np.testing.assert_allclose([s[t][p] for t, p in enumerate(picked)], [0.5283, 0.3635, 0.675], atol=1e-4)


def test_ziegler_weights():
    s = _steps("Ziegler", {"theta_F": 0.5})
    np.testing.assert_allclose(-s[1][1:], [3, 2, 3.5, 3.5])
    np.testing.assert_allclose(-s[2][[1, 3, 4]], [2, 3.5, 3])


def test_aspect_probabilities():
    cands, ctx = example_e()
    from recdiv.diversifiers.base import CandidateBlock

    block = CandidateBlock(cands.items, cands.scores, cands.items >= 0, np.array([0]), ctx)
    p = aspect_probabilities(block, nonnegative(block.scores, block.valid)).matrix.toarray()  # 5 × 3 (A, C, D)
    expected = [[0.3913, 0, 0], [0.3478, 0, 0], [0, 0.5385, 0], [0.2609, 0.4615, 0], [0, 0, 1]]
    np.testing.assert_allclose(p, expected, atol=1e-4)


def test_dpp_plain_step_values_and_brute_force():
    s = _steps("DPP", {"theta": None})
    np.testing.assert_allclose(s[0], [0.81, 0.64, 0.49, 0.36, 0.25])
    np.testing.assert_allclose(s[1][1:], [0.0, 0.49, 0.18, 0.25], atol=1e-12)
    # brute force: argmax log det L_Y over all 3-subsets, L = diag(q) S diag(q)
    feats = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], float)
    f = feats / np.linalg.norm(feats, axis=1, keepdims=True)
    for q in (np.array([0.9, 0.8, 0.7, 0.6, 0.5]), *(np.exp(th / (2 * (1 - th)) * np.array([1, .75, .5, .25, 0]))
                                                       for th in (0.5, 0.7, 0.9))):
        L = q[:, None] * (f @ f.T) * q[None, :]
        best = max(itertools.combinations(range(5), 3), key=lambda y: np.linalg.slogdet(L[np.ix_(y, y)])[1]
                   if np.linalg.slogdet(L[np.ix_(y, y)])[0] > 0 else -np.inf)
        assert set(best) == {0, 2, 4}


def test_calibrated_kl_values():
    """λ = .5 reaches KL 0 (q = p); λ ≤ .1 returns the baseline with KL 1.2778."""
    _cands, ctx = example_e()
    p = np.array([0.5, 1 / 6, 1 / 3])
    np.testing.assert_allclose(ctx.user_distribution("fractional")[0], p)

    def kl(items):
        pg = {"c1": [1, 0, 0], "c2": [1, 0, 0], "c3": [0, 1, 0], "c4": [.5, .5, 0], "c5": [0, 0, 1]}
        q = np.mean([pg[i] for i in items], axis=0)
        q = 0.99 * q + 0.01 * p
        return float(np.sum(p * np.log(p / q)))

    assert kl(("c1", "c2", "c3")) == pytest.approx(1.2778, abs=1e-4)
    assert kl(("c4", "c5", "c1")) == pytest.approx(0.0, abs=1e-12)


def _with_featureless_candidate() -> tuple:
    """Example E plus a sixth candidate c6 (score 0.4) that has no aspects."""
    import pandas as pd

    from recdiv.aspects.space import AspectSpace
    from recdiv.data.rankings import Rankings
    from recdiv.data.vocab import Vocab
    from recdiv.diversifiers.base import RerankContext
    from recdiv.testing.examples import ASPECTS, SCORES

    cands, ctx = example_e()
    items = Vocab([*cands.item_vocab.id_of(np.arange(len(cands.item_vocab))), "c6"])
    asp = pd.DataFrame([(i, a) for i, s in ASPECTS.items() for a in s], columns=["item", "aspect"])
    space = AspectSpace.from_frame(asp, items)
    c6 = items.lookup(np.array(["c6"]))[0]
    six = Rankings(np.array([0]), np.array([[0, 1, 2, 3, 4, c6]]), np.array([[*SCORES, 0.4]]), cands.user_vocab, items)
    train = ctx.train
    train = type(train).from_frame(train.to_frame(), users=train.users, items=items)
    return six, RerankContext(train=train, aspects=space, seed=42)


def test_mmr_ranksys_featureless_candidate_is_skipped_alone():
    """RankSys 0.4.3 rule (§E.1): c6 (no aspects) has NaN distances, so its own objective is NaN and it is skipped;
    `Stats` ignores NaN, so the other candidates' z-scores are computed without it — but the relevance z-scores
    include c6's score. By hand, λ = .5:
    step 1: every average is 0 ⇒ sd 0 ⇒ all NaN ⇒ the first candidate, c1;
    step 2: avg dist to {c1}: c2 0, c3 1, c4 1 − 1/√2, c5 1, c6 NaN; z(score) over c2..c6 (mean .6, sd .158114):
      c2 1.2649, c3 .6325, c4 0, c5 −.6325; z(avg) over c2..c5 (mean .57322, sd .50710): c2 −1.1304, c3 .8416,
      c4 −.5528, c5 .8416 ⇒ f = c2 .0672, c3 .7370, c4 −.2764, c5 .1046 ⇒ c3;
    step 3: running means c2 .5, c4 1 − 1/√2, c5 1; z(score) over c2, c4, c5, c6; z(avg) over c2, c4, c5
      ⇒ f = c2 .5245, c4 −.3460, c5 .3339 ⇒ c2.
    So (c1, c3, c2): the list without c6. The former all-NaN rule gave the baseline (c1, c2, c3).
    """
    import warnings

    cands, ctx = _with_featureless_candidate()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rule is RankSys's: nothing to warn about
        out = make_reranker("MMR", **{"lambda": 0.5, "variant": "ranksys"}).rerank(cands, 3, ctx)
    assert ids(out) == ("c1", "c3", "c2")
    assert _reference_ids(cands, ctx, 3) == ("c1", "c3", "c2")
    thesis = make_reranker("MMR", **{"lambda": 0.5}).rerank(cands, 3, ctx)
    assert ids(thesis) == ("c1", "c3", "c5")


def test_mmr_ranksys_featureless_first_pick_gives_baseline_order():
    """When the featureless item is the first pick (all objectives are NaN at step 1, so the first candidate is
    taken) every later average is NaN: the rest follows the baseline order (RankSys)."""
    from recdiv.data.rankings import Rankings

    cands, ctx = _with_featureless_candidate()
    items, scores = cands.items[:, [5, 0, 1, 2, 3, 4]], np.array([[1.0, *cands.scores[0, :5]]])
    first = Rankings(cands.users, items, scores, cands.user_vocab, cands.item_vocab)
    out = make_reranker("MMR", **{"lambda": 0.5, "variant": "ranksys"}).rerank(first, 4, ctx)
    assert ids(out) == ("c6", "c1", "c2", "c3")
    assert _reference_ids(first, ctx, 4) == ("c6", "c1", "c2", "c3")


def _reference_ids(cands, ctx, k: int) -> tuple:
    """The readable per-user reference (recdiv.diversifiers.reference) of MMR(variant=ranksys, λ = .5)."""
    from recdiv.diversifiers.base import RerankContext
    from recdiv.diversifiers.reference import reference_rerank, user_environments

    rctx = RerankContext(train=ctx.train, aspects=ctx.aspects)
    env = user_environments(cands, rctx)[0]
    row = cands.items[0]
    pos = reference_rerank("MMR", {"lambda": 0.5, "variant": "ranksys"}, row.tolist(), cands.scores[0].tolist(), k,
                           env)
    return tuple(cands.item_vocab.id_of(row[pos]))
