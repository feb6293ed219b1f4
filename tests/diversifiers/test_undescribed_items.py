"""A candidate that the context does not describe (no aspects, no training interactions, no factor vector) is an item
without features in Python as on the command line (issue #24's follow-up): `Reranker.rerank` extends the context
over it (`Context.with_items`) instead of refusing it, and gives the lists `recdiv rerank` gives on the same files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recdiv.aspects.similarity import LatentCosine, RatingPearson
from recdiv.aspects.space import AspectSpace
from recdiv.cli import main
from recdiv.data.interactions import Interactions
from recdiv.data.rankings import Rankings
from recdiv.data.textio import read_trec_run
from recdiv.data.vocab import Vocab
from recdiv.diversifiers.registry import make_reranker
from recdiv.models.context import Context

# user u: c9 and c8 are candidates that no aspect or training row describes
RUN = [("u", "c1", .9), ("u", "c9", .85), ("u", "c2", .8), ("u", "c3", .7), ("u", "c8", .65), ("u", "c4", .6),
       ("v", "c9", .9), ("v", "c2", .8), ("v", "c5", .7)]
ASPECTS = [("c1", "A"), ("c2", "A"), ("c3", "C"), ("c4", "A"), ("c4", "C"), ("c5", "D"), ("p1", "A"), ("p2", "C")]
TRAIN = [("u", "p1", 5.0), ("u", "p2", 4.0), ("u", "c1", 3.0), ("v", "p1", 3.0), ("v", "c5", 4.0)]


def _python(method: str, **params):
    items = Vocab.from_values([i for i, _ in ASPECTS], [i for _, i, _ in TRAIN])  # described items only
    users = Vocab.from_values([u for u, _, _ in TRAIN])
    space = AspectSpace.from_frame(pd.DataFrame(ASPECTS, columns=["item", "aspect"]), items)
    train = Interactions.from_frame(pd.DataFrame(TRAIN, columns=["user", "item", "value"]), users=users, items=items)
    run = pd.DataFrame(RUN, columns=["user", "item", "score"])
    cands = Rankings.from_frame(run, Vocab.from_values(run["user"]), Vocab.from_values(run["item"]))
    ctx = Context(train=train, aspects=space)
    out = make_reranker(method, **params).rerank(cands, 4, ctx)
    frame = out.to_frame()
    return {str(u): g.sort_values("rank")["item"].astype(str).tolist() for u, g in frame.groupby("user")}, ctx, cands


def _cli(tmp_path, method: str, **params) -> dict:
    (tmp_path / "c.run").write_text("".join(f"{u} Q0 {i} {r} {s} x\n" for r, (u, i, s) in enumerate(RUN, 1)))
    (tmp_path / "a.tsv").write_text("".join(f"{i}\t{a}\n" for i, a in ASPECTS))
    (tmp_path / "t.tsv").write_text("".join(f"{u}\t{i}\t{v:g}\n" for u, i, v in TRAIN))
    argv = ["rerank", str(tmp_path / "c.run"), "--method", method, "--aspects", str(tmp_path / "a.tsv"),
            "--train", str(tmp_path / "t.tsv"), "-k", "4", "-o", str(tmp_path / "o.run")]
    assert main(argv + [a for k, v in params.items() for a in ("--param", f"{k}={v}")]) == 0
    frame = read_trec_run(tmp_path / "o.run")
    return {u: g.sort_values("rank")["item"].tolist() for u, g in frame.groupby("user")}


@pytest.mark.parametrize(("method", "params"), [("MMR", {"lambda": 0.5}), ("xQuAD", {"lambda": 0.7}),
                                                ("IASelect", {}), ("PM2", {}), ("NGD", {}), ("DPP", {})])
def test_undescribed_candidates_as_on_the_command_line(tmp_path, method, params):
    lists, _, _ = _python(method, **params)
    assert lists == _cli(tmp_path, method, **params)
    assert "c9" in lists["u"] + lists["v"]  # kept as a candidate, not dropped


def test_mmr_by_hand():
    """MMR (thesis variant, λ = 0.5, ŝ min-max per user, set cosine; docs/diversifiers.md: after the first pick an
    item without features has no defined objective and is skipped while another candidate has one).
    u's candidates c1 .9, c9 .85, c2 .8, c3 .7, c8 .65, c4 .6 → ŝ = 1, .8333, .6667, .3333, .1667, 0.
    Step 1: c1. Step 2: c3 0.5·.3333 − 0 = .1667 beats c2 0.5·.6667 − 0.5·1 = −.1667 and c4 0 − 0.5/√2 = −.3536
    (c9, c8: undefined). Step 3: c2 −.1667 beats c4 −.3536. Step 4: c4. v: c9 first (step 1 takes the best score),
    then c2 and c5 (both 0 similarity to c9: undefined, skipped by the max): c2 (.5·.5 − 0) before c5 (0)."""
    lists, _, _ = _python("MMR", **{"lambda": 0.5, "norm": "minmax"})
    assert lists == {"u": ["c1", "c3", "c2", "c4"], "v": ["c9", "c2", "c5"]}


def test_context_with_items_keeps_every_part_aligned():
    _, ctx, cands = _python("MMR")
    wider = ctx.with_items(ctx.items.extend(cands.item_vocab.ids))
    n_old, n_new = len(ctx.items), len(wider.items)
    assert n_new == n_old + 2 and sorted(wider.items.ids[n_old:]) == ["c8", "c9"]
    assert wider.aspects.has_aspects.tolist() == [*ctx.aspects.has_aspects.tolist(), False, False]
    assert wider.train.matrix.shape == (ctx.train.matrix.shape[0], n_new)
    assert (wider.train.matrix[:, :n_old] != ctx.train.matrix).nnz == 0
    factors = np.arange(1.0, 1.0 + 2 * n_old).reshape(n_old, 2)
    latent = LatentCosine(factors).with_items(n_new)
    assert np.isnan(latent.sim(np.array([n_old]), np.array([0]))).all()
    assert latent.sim(np.array([0]), np.array([1])) == LatentCosine(factors).sim(np.array([0]), np.array([1]))
    pearson = RatingPearson(ctx.train).with_items(n_new)
    assert np.isnan(pearson.sim(np.array([n_new - 1]), np.array([0]))).all()
    with pytest.raises(ValueError, match="extends"):
        ctx.aspects.with_items(Vocab.from_values(["zz"]))
