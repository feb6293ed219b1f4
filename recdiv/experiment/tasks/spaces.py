"""Aspect spaces of an experiment: built from a dataset attribute (explicit) or a fitted model (latent), stored as
NPZ artefacts and read back, with the item similarity that distance-based rerankers and metrics use over them."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from recdiv.aspects.similarity import similarity_from_name
from recdiv.aspects.space import AspectSpace
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError
from recdiv.experiment.spec.components import latent_kind, space_config
from recdiv.experiment.spec.sections import AspectConfig
from recdiv.experiment.storage.cache import Store


def build_explicit_space(cfg: AspectConfig, dataset):
    """An explicit aspect space from a dataset attribute (`recdiv.aspects.build.space_from_attribute`)."""
    return space_config(cfg, "explicit", f"aspect space {cfg.name!r}").build(dataset, name=cfg.name)


def build_latent_space(cfg: AspectConfig, model, split, params: dict[str, Any], seed: int):
    """(space, item features) from a fitted model (thesis §3.6.2; `recdiv.aspects.kinds`), by what the model
    declares it provides (`CAPABILITIES`): topics (pLSA, LDA) — aspects are topics with weights p(z|i) (`l` =
    topics kept per item, default all), features = p(z|i); item-factors (MF) — A(i) = the `l` dominant factors of
    q_i, features = Q (for latent cosine)."""
    kind = latent_kind(getattr(type(model), "CAPABILITIES", ()))
    where = f"aspect space {cfg.name!r}"
    items = split.train.items
    if kind == "topics":
        space = space_config(cfg, kind, where).build(model.user_topics, model.item_topics, items, name=cfg.name)
        return space, np.asarray(space.membership.todense(), dtype=np.float64)
    if kind == "factors":
        if cfg.l is None:
            raise ConfigError(f"{where}: MF factor aspects need `l` (dominant factors per item)")
        q = np.asarray(model.item_factors, dtype=np.float64)
        return space_config(cfg, kind, where).build(q, items, name=cfg.name), q
    raise ConfigError(f"{where}: recommender {model.name!r} declares no item factors or topics")


def save_space(store: Store, key: str, space, factors: np.ndarray | None) -> None:
    m = sp.csr_matrix(space.membership)
    m.sort_indices()
    arrays = {"indptr": m.indptr, "indices": m.indices, "data": m.data, "shape": np.asarray(m.shape),
              "names": np.asarray(space.names.index.astype(str), dtype=str)}
    if factors is not None:
        arrays["factors"] = np.asarray(factors, dtype=np.float64)
    store.save_arrays("aspects", key, arrays)


def load_space(store: Store, key: str, items, name: str):
    """(AspectSpace, factors or None) from the store; None if absent."""
    a = store.load_arrays("aspects", key)
    if a is None:
        return None
    m = sp.csr_matrix((a["data"], a["indices"], a["indptr"]), shape=tuple(a["shape"]))
    return AspectSpace(items, Vocab(a["names"].tolist()), m, name), a.get("factors")


def similarity_for(kind: str | None, space, factors, train, default_kind: str):
    """The item similarity `kind` over a space (default: latent cosine over a latent space's factors, else cosine)."""
    name = kind or ("latent-cosine" if default_kind == "latent" and factors is not None else "cosine")
    try:
        return similarity_from_name(name, space, factors=factors, train=train)
    except (ValueError, KeyError) as e:
        raise ConfigError(f"similarity {name!r}: {e}") from None
