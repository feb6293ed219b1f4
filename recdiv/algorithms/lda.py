"""Latent Dirichlet allocation as a topic-model recommender (Blei, Ng & Jordan 2003; scikit-learn)."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from recdiv.algorithms.base import Recommender, RecommenderConfig
from recdiv.aspects.latent import fit_lda
from recdiv.data.interactions import Interactions


class LDAConfig(RecommenderConfig):
    n_topics: int = Field(20, ge=1, description="latent topics z")
    max_iter: int = Field(20, ge=1, description="batch variational EM iterations")
    binary: bool = Field(True, description="count each interaction once (else its value)")
    seed: int = 0


class LDA(Recommender):
    """LDA topic model ("lda"): users are documents, items are words; p(i | u) = Σ_z p(z | u) p(i | z).

    scikit-learn's `LatentDirichletAllocation` (batch learning) on the users × items training matrix; p(z|u) =
    the fitted document-topic distributions, p(i|z) = the normalised topic-word weights (`fit_lda`). Exposes
    `user_topics` and `item_topics` like pLSA, so it serves as a latent aspect space (thesis §3.6.2).
    """

    name = "lda"
    purpose = "topic model: its topics are latent aspects; also ranks items"
    Config = LDAConfig
    CAPABILITIES = ("topics",)
    fresh_blocks = True

    def _fit(self, train: Interactions, **side: Any) -> None:
        c = self.config
        self.user_topics, self.item_topics = fit_lda(train, c.n_topics, seed=c.seed, max_iter=c.max_iter,
                                                     binary=c.binary)

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        return self.user_topics[users] @ self.item_topics
