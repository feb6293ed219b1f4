"""The kinds of aspect spaces by name (`ASPECT_SPACES`), each a typed config (`recdiv.config.Config`) that
builds its space:

| kind | from | config |
|---|---|---|
| ``explicit`` | an item attribute (genres, tags) | `attribute`, `top`, `min_weight`, `drop_empty_aspects` |
| ``factors`` | a model's item factors Q (capability ``item-factors``) | `l` dominant factors per item, `abs` |
| ``topics`` | a topic model's p(z|u), p(i|z) (capability ``topics``) | `top` topics kept per item (all if None) |

Experiment files name them (`recdiv.experiment.spec.sections.AspectConfig`); in Python, build a config and call `build`.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from recdiv.aspects.build import space_from_attribute
from recdiv.aspects.latent import factor_space, plsa_space
from recdiv.aspects.space import AspectSpace
from recdiv.config import Config
from recdiv.data.interactions import Dataset
from recdiv.data.vocab import Vocab
from recdiv.registry import Registry

__all__ = ["ASPECT_SPACES", "ExplicitSpace", "FactorSpace", "TopicSpace"]


class ExplicitSpace(Config):
    """Explicit aspects: the values of an item attribute (`recdiv.aspects.build.space_from_attribute`)."""

    attribute: str = Field(min_length=1, description="dataset attribute: genres, tags, ...")
    top: int | None = Field(None, ge=1, description="keep the `top` values of largest weight per item")
    min_weight: float | None = Field(None, description="keep values of weight ≥ min_weight (Last.fm: tag users)")
    drop_empty_aspects: bool = Field(True, description="remove values no item keeps")

    def build(self, dataset: Dataset, name: str | None = None) -> AspectSpace:
        return space_from_attribute(dataset, self.attribute, top=self.top, min_weight=self.min_weight,
                                    drop_empty_aspects=self.drop_empty_aspects, name=name)


class FactorSpace(Config):
    """Latent aspects of matrix factorisation: A(i) = the `l` dominant factors of q_i (thesis §3.6.2)."""

    l: int = Field(ge=1, description="dominant factors per item")
    abs: bool = Field(False, description="dominant by |value| instead of signed value")

    def build(self, factors: np.ndarray, items: Vocab, name: str = "mf-factors") -> AspectSpace:
        return factor_space(factors, self.l, items, abs=self.abs, name=name)


class TopicSpace(Config):
    """Latent aspects of a topic model (pLSA, LDA): topics with weights p(z|i)."""

    top: int | None = Field(None, ge=1, description="topics kept per item (all if None)")

    def build(self, user_topics: np.ndarray, item_topics: np.ndarray, items: Vocab,
              name: str = "topics") -> AspectSpace:
        return plsa_space(user_topics, item_topics, items, top=self.top, name=name)


ASPECT_SPACES: Registry[type[Config]] = Registry("aspect space kind")
ASPECT_SPACES.add("explicit", ExplicitSpace, aliases=("attribute",))
ASPECT_SPACES.add("factors", FactorSpace, aliases=("mf-factors",))
ASPECT_SPACES.add("topics", TopicSpace)
