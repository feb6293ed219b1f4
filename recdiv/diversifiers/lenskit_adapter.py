"""Any recdiv reranker as a LensKit (2025) pipeline component.

    from recdiv.diversifiers.lenskit_adapter import DiversifierComponent
    rr = DiversifierComponent(method="xQuAD", params={"lambda": 0.5}, aspects=space)
    pipe.add_component("reranker", rr, items=ranked, query=lookup, n=n)   # then pipe.train(dataset)

Training (`train(data)`) takes the training interactions from the LensKit `Dataset` (profiles and popularity for
p(a|u) and novelty) and re-indexes the aspect space onto the dataset's items. At call time the component reranks
the ordered `ItemList` it receives (scores as the baseline scores; without scores, rank order) for the query's user
(unknown or missing user: no profile) and returns an ordered `ItemList` of length n (call argument, else `config.n`,
else the input length).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from lenskit.data import ItemList, RecQuery
from lenskit.pipeline import Component
from lenskit.training import Trainable, TrainingOptions
from pydantic import BaseModel, JsonValue

from recdiv.aspects.space import AspectSpace
from recdiv.data.lenskit_io import interactions_from_lenskit
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers.base import RerankContext
from recdiv.diversifiers.registry import make_reranker
from recdiv.errors import DataError


class DiversifierComponentConfig(BaseModel, extra="forbid"):
    method: str = "MMR"
    params: dict[str, JsonValue] = {}
    n: int | None = None
    seed: int = 0


def reindex_space(space: AspectSpace, items: Vocab) -> AspectSpace:
    """The same aspects over another item vocabulary (items absent from `space` get no aspects)."""
    m = space.membership.tocoo()
    frame = pd.DataFrame({"item": space.items.id_of(m.row), "aspect": space.names.id_of(m.col), "weight": m.data})
    out = AspectSpace.from_frame(frame, items, space.name, unknown="drop")
    if out.names != space.names:  # keep the original aspect order (PM-2 ties, reports)
        idx = space.names.lookup(out.names.ids)
        perm = sp.csr_matrix((np.ones(len(idx)), (np.arange(len(idx)), idx)), shape=(len(idx), len(space.names)))
        out = AspectSpace(items, space.names, sp.csr_matrix(out.membership @ perm), space.name)
    return out


class DiversifierComponent(Component[ItemList], Trainable):
    """LensKit component wrapping a recdiv reranker (`config.method`, `config.params`); see the module doc."""

    config: DiversifierComponentConfig

    def __init__(self, config: DiversifierComponentConfig | None = None, *, aspects: AspectSpace | None = None,
                 context: RerankContext | None = None, **kwargs):
        super().__init__(config, **kwargs)
        self.reranker = make_reranker(self.config.method, **self.config.params)
        self.aspects = aspects
        self.context = context

    def train(self, data, options: TrainingOptions | None = None) -> None:
        train = interactions_from_lenskit(data)
        aspects = None if self.aspects is None else reindex_space(self.aspects, train.items)
        self.context = RerankContext(train=train, aspects=aspects, seed=self.config.seed)

    def is_trained(self) -> bool:
        return self.context is not None

    def __call__(self, items: ItemList, query: RecQuery | None = None, n: int | None = None) -> ItemList:
        ctx = self.context if self.context is not None else RerankContext(aspects=self.aspects,
                                                                          seed=self.config.seed)
        ids = np.asarray(items.ids())
        k = n if n is not None else (self.config.n if self.config.n is not None else len(ids))
        if len(ids) == 0 or k <= 0:
            return ItemList(ordered=True)
        vocab = ctx.items if ctx.items is not None else Vocab(ids)
        idx = vocab.lookup(ids, missing="-1")
        if (idx < 0).any():
            raise DataError(f"candidate item {ids[idx < 0][0]!r} is unknown to the reranker's training data")
        scores = items.scores()
        scores = -np.arange(len(ids), dtype=np.float64) if scores is None else np.asarray(scores, np.float64)
        user = None if query is None else query.user_id
        # one-user vocabulary; the reranker maps it onto the training users by external id (unknown ⇒ no profile)
        uvocab, uidx = Vocab(["__no_user__" if user is None else user]), 0
        cands = Rankings(np.array([uidx]), idx[None, :], scores[None, :], uvocab, vocab)
        out = self.reranker.rerank(cands, k, ctx)
        keep = out.items[0] >= 0
        return ItemList(vocab.id_of(out.items[0][keep]), scores=out.scores[0][keep], ordered=True)
