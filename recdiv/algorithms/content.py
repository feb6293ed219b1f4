"""Content-based baseline: cosine between an item's attribute vector and the user's profile vector (Vargas 2012)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from pydantic import Field

from recdiv.algorithms.base import Recommender, RecommenderConfig, binary
from recdiv.data.interactions import Attribute, Interactions
from recdiv.errors import ConfigError


class ContentConfig(RecommenderConfig):
    attribute: str = Field("genres", description="dataset attribute the CLI/experiments pass to fit (genres, tags)")
    weighting: Literal["rating", "binary"] = Field(
        "rating", description="profile weight of a training item: its value (rating/count) or 1"
    )


class ContentBased(Recommender):
    """Content-based recommender ("content"; Vargas 2012 §4.8, "CB"): items whose content matches the profile.

    With a_i the attribute vector of item i (a row of an `Attribute`, e.g. genre flags or tag counts) and the user
    profile p_u = Σ_{j ∈ I_u} w_uj · a_j (w = the training value, or 1 with weighting="binary"):
    score(u, i) = cos(a_i, p_u) = a_i·p_u / (‖a_i‖ ‖p_u‖), and 0 when either vector is zero (items without
    attributes rank last rather than disappear).

    Attributes are side data: pass them to `fit(train, attributes=dataset.attributes["genres"])` or call
    `set_attributes(attr)` before `fit(train)`; `config.attribute` names the dataset attribute that the CLI and the
    experiment runner pass. Reference: Lops, de Gemmis & Semeraro (2011) "Content-based recommender systems";
    Vargas (2012) thesis §4.8.
    """

    name = "content"
    purpose = "content baseline: genre/tag similarity to the profile (not a top-N competitor)"
    Config = ContentConfig
    needs_attributes = True

    def __init__(self, config: ContentConfig | None = None, **params: Any):
        super().__init__(config, **params)
        self.attributes: Attribute | None = None

    def set_attributes(self, attributes: Attribute) -> ContentBased:
        self.attributes = attributes
        return self

    def _fit(self, train: Interactions, attributes: Attribute | None = None, **side: Any) -> None:
        if attributes is not None:
            self.attributes = attributes
        if self.attributes is None:
            raise ConfigError("content recommender needs item attributes: fit(train, attributes=...) "
                              f"or set_attributes(...) (config attribute={self.config.attribute!r})")
        a = sp.csr_matrix(self.attributes.matrix, dtype=np.float64)
        if a.shape[0] != train.n_items:
            raise ConfigError(f"attribute matrix has {a.shape[0]} rows but the data has {train.n_items} items")
        norms = np.sqrt(np.asarray(a.multiply(a).sum(axis=1)).ravel())
        self.item_unit_ = sp.csr_matrix(sp.diags(np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)) @ a)
        w = binary(train.matrix) if self.config.weighting == "binary" else train.matrix.astype(np.float64)
        self.profiles_ = sp.csr_matrix(w @ a)  # users × attribute values

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        p = np.asarray(self.profiles_[users].todense())
        norms = np.linalg.norm(p, axis=1)
        p = p / np.where(norms > 0, norms, 1.0)[:, None]
        return np.asarray(self.item_unit_ @ p.T).T
