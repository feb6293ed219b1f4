"""The one Context of evaluation and reranking and its one explicit cache (recdiv/models/context.py)."""

from __future__ import annotations

import numpy as np

from recdiv.diversifiers import RerankContext, make_reranker
from recdiv.eval import EvalContext, parse_measure
from recdiv.eval.context import RunView
from recdiv.models.context import Cache, Context
from recdiv.testing.examples import example_e


def test_cache_keys_by_value_and_identity():
    c = Cache()
    a, b = np.zeros(3), np.zeros(3)
    assert c.get(("x", a, 1), lambda: "A") == "A"
    assert c.get(("x", a, 1), lambda: "other") == "A"  # computed once
    assert c.get(("x", b, 1), lambda: "B") == "B"  # an equal but different object is another key
    assert c.peek(("x", a, 2)) is None and len(c) == 2
    c.forget(a)
    assert c.peek(("x", a, 1)) is None and c.peek(("x", b, 1)) == "B"
    c.clear()
    assert len(c) == 0


def test_one_context_serves_reranking_and_evaluation():
    assert EvalContext is Context and RerankContext is Context
    candidates, ctx = example_e()
    top = make_reranker("xQuAD").rerank(candidates, 3, ctx)
    assert len(ctx.cache) > 0  # p(a|u) of the training users
    qrels = _qrels_of(candidates)
    value = parse_measure("alpha-nDCG@3").value(top, qrels, ctx)
    view = RunView.of(ctx, top, qrels)
    assert RunView.of(ctx, top, qrels) is view
    before = len(ctx.cache)
    ctx.cache.clear()  # really forgets everything: views, ideals, tables, distributions
    assert len(ctx.cache) == 0 < before
    assert RunView.of(ctx, top, qrels) is not view
    assert parse_measure("alpha-nDCG@3").value(top, qrels, ctx) == value


def test_reranker_and_measure_share_the_intent_models():
    """IA-Select and Miscalibration use the context's one p(a|i) (`Context.item_distribution`); xQuAD and
    ERR-IA its one p(a|u)."""
    candidates, ctx = example_e()
    qrels = _qrels_of(candidates)
    make_reranker("IASelect").rerank(candidates, 3, ctx)
    pai = ctx.item_distribution()
    parse_measure("Miscalibration(weighting=count)@3").value(candidates, qrels, ctx)
    assert ctx.item_distribution() is pai
    assert len([k for k in _keys(ctx) if "p(a|i)" in k]) == 1
    make_reranker("xQuAD").rerank(candidates, 3, ctx)
    parse_measure("ERR-IA@3").value(candidates, qrels, ctx)
    assert len([k for k in _keys(ctx) if "p(a|u)" in k]) == 1


def _keys(ctx):
    return list(ctx.cache._store)


def test_no_module_level_caches():
    """Derived values live in a context's cache only: two contexts share nothing."""
    candidates, ctx = example_e()
    qrels = _qrels_of(candidates)
    other = Context(train=ctx.train, aspects=ctx.aspects)
    parse_measure("alpha-nDCG@3").value(candidates, qrels, ctx)
    assert len(other.cache) == 0


def _qrels_of(candidates):
    from recdiv.data.qrels import Qrels

    rows = np.repeat(np.arange(len(candidates.users)), candidates.k)
    items = candidates.items.ravel()
    keep = items >= 0
    m = np.zeros((len(candidates.user_vocab), len(candidates.item_vocab)))
    m[candidates.users[rows[keep]], items[keep]] = 5.0
    import scipy.sparse as sp

    return Qrels(candidates.user_vocab, candidates.item_vocab, sp.csr_matrix(m))
