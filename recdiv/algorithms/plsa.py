"""Probabilistic latent semantic analysis for implicit data (Hofmann 2004), fitted as KL-divergence NMF."""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
from pydantic import Field

from recdiv.algorithms.base import Recommender, RecommenderConfig
from recdiv.algorithms.implicit_mf import confidence_values
from recdiv.data.interactions import Interactions


class PLSAConfig(RecommenderConfig):
    topics: int = Field(20, ge=1, description="latent aspects z")
    values: Literal["binary", "log1p", "raw"] = Field("binary", description="co-occurrence counts n(u, i) used")
    max_iter: int = Field(200, ge=1)
    tol: float = Field(1e-4, ge=0)
    seed: int = 0


class PLSA(Recommender):
    """pLSA aspect model ("plsa"; Hofmann 2004, ACM TOIS 22(1)): p(i | u) = Σ_z p(z | u) p(i | z).

    Maximising the pLSA likelihood Σ n(u,i) log Σ_z p(z|u) p(i|z) is equivalent to non-negative matrix
    factorisation N ≈ W H under the generalised Kullback-Leibler divergence (Gaussier & Goutte 2005, SIGIR), which
    scikit-learn fits with multiplicative updates (`NMF(beta_loss="kullback-leibler", solver="mu")`, the EM
    fixed point). Normalising gives p(i|z) = H_zi / Σ_i H_zi and p(z|u) ∝ W_uz Σ_i H_zi. Score: p(i|u).
    Exposes `user_topics` p(z|u) (n_users × Z, rows sum to 1; zero rows for users without data) and
    `item_topics` p(i|z) (Z × n_items, rows sum to 1), reusable as a latent aspect space.
    Defaults: 20 aspects, binary n(u,i), 200 iterations; random initialisation from `seed`.
    """

    name = "plsa"
    purpose = "top-N candidates; its topics are latent aspects"
    CAPABILITIES = ("topics",)
    Config = PLSAConfig
    fresh_blocks = True

    def _fit(self, train: Interactions, **side: Any) -> None:
        from sklearn.decomposition import NMF
        from sklearn.exceptions import ConvergenceWarning

        c = self.config
        n = confidence_values(train.matrix, c.values).astype(np.float64)
        nmf = NMF(n_components=c.topics, beta_loss="kullback-leibler", solver="mu", init="random",
                  max_iter=c.max_iter, tol=c.tol, random_state=c.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            w = nmf.fit_transform(n)
        h = nmf.components_
        mass = h.sum(axis=1)
        self.item_topics = np.divide(h, mass[:, None], out=np.zeros_like(h), where=mass[:, None] > 0)
        uz = w * mass[None, :]
        tot = uz.sum(axis=1)
        self.user_topics = np.divide(uz, tot[:, None], out=np.zeros_like(uz), where=tot[:, None] > 0)
        self.n_iter_ = nmf.n_iter_

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        return self.user_topics[users] @ self.item_topics
