"""Any recdiv reranker as a LensKit (2025) pipeline component, giving the lists of `recdiv rerank`.

    from recdiv.diversifiers.lenskit_adapter import DiversifierComponent, RecPipelineBuilder
    builder = RecPipelineBuilder()            # LensKit's builder, wiring a diversifier the way it needs
    builder.scorer(ImplicitMFScorer)
    builder.reranker(DiversifierComponent(method="xQuAD", candidates=500, aspects=space))
    pipe = builder.build(); pipe.train(dataset); recommend(pipe, user, n=20)

A diversifier needs two things a plain LensKit reranker does not: the user (profiles p(a|u), known items) and the
full candidate list (N = `config.candidates`, e.g. 500, not the n items asked for). LensKit's
`RecPipelineBuilder` wires a reranker with `items` and `n` only, and passes `n` to the ranker too, so the reranker
would see n anonymous candidates. recdiv's `RecPipelineBuilder` (a subclass with the same API) and
`wire_diversifier(pipe)` (for any built pipeline) wire the component's `query` to the user's history lookup and let
the ranker rank every candidate; the component keeps the `config.candidates` best and returns n.

Everything the component needs lives in its config (`method`, `params`, `candidates`, `n`, `seed` and the aspect
space: `aspects_file`, an item-aspect TSV, or `aspect_pairs`, which `aspects=space` fills), so `pipe.clone()` and
pipelines saved as configuration rebuild it. Training (`train(data)`) takes the training interactions from the
LensKit `Dataset` (profiles and popularity) and lays the aspect space over the dataset's items.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from lenskit.data import ItemList, RecQuery
from lenskit.pipeline import Component, Pipeline
from lenskit.pipeline import RecPipelineBuilder as _LensKitRecPipelineBuilder
from lenskit.pipeline.config import hash_config
from lenskit.training import Trainable, TrainingOptions
from pydantic import BaseModel, Field, JsonValue

from recdiv.aspects.space import AspectSpace
from recdiv.data.lenskit_io import interactions_from_lenskit
from recdiv.data.rankings import Rankings
from recdiv.data.vocab import Vocab
from recdiv.diversifiers.registry import make_reranker
from recdiv.errors import ConfigError, DataError
from recdiv.models.context import Context

__all__ = ["DiversifierComponent", "DiversifierComponentConfig", "RecPipelineBuilder", "reindex_space",
           "wire_diversifier"]


class DiversifierComponentConfig(BaseModel, extra="forbid"):
    """method, params: the reranker (`make_reranker`); candidates: the depth N of the candidate list it reranks (the
    first N items it is given; None = all); n: the output length when the call gives none (None = N); seed: for
    randomised rerankers; aspects_file: an item-aspect TSV (item aspect [weight]); aspect_pairs: (item, aspect,
    weight) triples, set from the component's `aspects=` argument."""

    method: str = "MMR"
    params: dict[str, JsonValue] = {}
    candidates: int | None = Field(500, ge=1)
    n: int | None = Field(None, ge=1)
    seed: int = 0
    aspects_file: str | None = None
    aspect_pairs: list[tuple[JsonValue, str, float]] | None = None


def reindex_space(space: AspectSpace, items: Vocab) -> AspectSpace:
    """The same aspects over another item vocabulary (items absent from `space` get no aspects). Ids are matched
    as they are, or by their text when none match so (an aspect file's "100" is LensKit's integer item 100); a
    space that names none of `items` is a DataError — the reranker would silently return its input order."""
    m = space.membership.tocoo()
    frame = pd.DataFrame({"item": space.items.id_of(m.row), "aspect": space.names.id_of(m.col), "weight": m.data})
    if len(frame) and not (items.lookup(frame["item"].to_numpy(), missing="-1") >= 0).any():
        by_text = {str(x): x for x in items.ids}
        frame["item"] = [by_text.get(str(x), x) for x in frame["item"]]
        if not any(str(x) in by_text for x in frame["item"]):
            raise DataError(f"the aspect space names none of the training items (its items, e.g. "
                            f"{frame['item'].iloc[0]!r}; the training items, e.g. {items.ids[0]!r}): every item "
                            "would have no aspect")
    out = AspectSpace.from_frame(frame, items, space.name, unknown="drop")
    if out.names != space.names:  # keep the original aspect order (PM-2 ties, reports)
        idx = space.names.lookup(out.names.ids)
        perm = sp.csr_matrix((np.ones(len(idx)), (np.arange(len(idx)), idx)), shape=(len(idx), len(space.names)))
        out = AspectSpace(items, space.names, sp.csr_matrix(out.membership @ perm), space.name)
    return out


def _pairs(space: AspectSpace) -> list[tuple[Any, str, float]]:
    frame = space.to_frame()
    ids = [x.item() if isinstance(x, np.generic) else x for x in frame["item"]]
    return [(i, str(a), float(w)) for i, a, w in zip(ids, frame["aspect"], frame["weight"])]


class DiversifierComponent(Component[ItemList], Trainable):
    """LensKit component wrapping a recdiv reranker (`config.method`, `config.params`); see the module doc."""

    config: DiversifierComponentConfig

    def __init__(self, config: DiversifierComponentConfig | None = None, *, aspects: AspectSpace | None = None,
                 context: Context | None = None, **kwargs):
        if aspects is not None:
            if config is not None or "aspect_pairs" in kwargs or "aspects_file" in kwargs:
                raise ConfigError("give the aspect space once: aspects=, aspects_file or aspect_pairs")
            kwargs["aspect_pairs"] = _pairs(aspects)
        super().__init__(config, **kwargs)
        self.reranker = make_reranker(self.config.method, **self.config.params)
        self.context = context

    def aspect_space(self) -> AspectSpace | None:
        """The aspect space of the config (over its own item vocabulary), or None."""
        c = self.config
        if c.aspects_file is not None:
            from recdiv.data.textio import read_item_aspects_tsv

            frame = read_item_aspects_tsv(c.aspects_file)
        elif c.aspect_pairs is not None:
            frame = pd.DataFrame(c.aspect_pairs, columns=["item", "aspect", "weight"])
        else:
            return None
        return AspectSpace.from_frame(frame, Vocab.from_values(frame["item"]), "aspects")

    def train(self, data, options: TrainingOptions | None = None) -> None:
        train = interactions_from_lenskit(data)
        space = self.aspect_space()
        aspects = None if space is None else reindex_space(space, train.items)
        self.context = Context(train=train, aspects=aspects, seed=self.config.seed)

    def is_trained(self) -> bool:
        return self.context is not None

    def __call__(self, items: ItemList, query: RecQuery | None = None, n: int | None = None) -> ItemList:
        ctx = self.context if self.context is not None else Context(aspects=self.aspect_space(),
                                                                    seed=self.config.seed)
        depth = self.config.candidates
        ids = np.asarray(items.ids())[:depth]
        k = n if n is not None else (self.config.n if self.config.n is not None else len(ids))
        if len(ids) == 0 or k <= 0:
            return ItemList(ordered=True)
        vocab = ctx.items if ctx.items is not None else Vocab(ids)
        idx = vocab.lookup(ids, missing="-1")
        if (idx < 0).any():
            raise DataError(f"candidate item {ids[idx < 0][0]!r} is unknown to the reranker's training data")
        scores = items.scores()
        scores = (-np.arange(len(ids), dtype=np.float64) if scores is None
                  else np.asarray(scores, np.float64)[:depth])
        user = None if query is None else query.user_id
        # one-user vocabulary; the reranker maps it onto the training users by external id (unknown ⇒ no profile)
        uvocab, uidx = Vocab(["__no_user__" if user is None else user]), 0
        cands = Rankings(np.array([uidx]), idx[None, :], scores[None, :], uvocab, vocab)
        out = self.reranker.rerank(cands, k, ctx)
        keep = out.items[0] >= 0
        return ItemList(vocab.id_of(out.items[0][keep]), scores=out.scores[0][keep], ordered=True)


def wire_diversifier(pipe: Pipeline, node: str = "reranker") -> Pipeline:
    """An untrained copy of `pipe` in which the diversifier at `node` gets the query (the `history-lookup`
    component's output if there is one, else the pipeline's `query` input) and the component feeding it `items`
    no longer receives `n` (so it ranks every candidate; the diversifier keeps its `config.candidates` best)."""
    cfg = pipe.config.model_copy(deep=True)
    comp = cfg.components.get(node)
    if comp is None:
        raise ConfigError(f"the pipeline has no component {node!r}")
    comp.inputs["query"] = "history-lookup" if "history-lookup" in cfg.components else "query"
    ranker = cfg.aliases.get(comp.inputs.get("items", ""), comp.inputs.get("items", ""))
    if ranker in cfg.components:
        cfg.components[ranker].inputs.pop("n", None)
    cfg.meta.hash = None
    cfg.meta.hash = hash_config(cfg)
    return Pipeline.from_config(cfg)


class RecPipelineBuilder(_LensKitRecPipelineBuilder):
    """LensKit's `RecPipelineBuilder`; when the reranker is a `DiversifierComponent`, `build` wires it with the
    user and the full candidate list (`wire_diversifier`). Other rerankers are wired as LensKit does."""

    def build(self, name: str | None = None) -> Pipeline:
        pipe = super().build(name)
        rec = self._reranker
        comp = None if rec is None else rec.component
        if isinstance(comp, DiversifierComponent) or (isinstance(comp, type) and
                                                      issubclass(comp, DiversifierComponent)):
            return wire_diversifier(pipe)
        return pipe
