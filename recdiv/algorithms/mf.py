"""Matrix factorisation for explicit ratings: biased MF by ALS (LensKit) and PureSVD (Cremonesi et al. 2010)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from recdiv.algorithms._lenskit import to_lenskit
from recdiv.algorithms.base import Recommender, RecommenderConfig, binary
from recdiv.data.interactions import Interactions


class BiasedMFConfig(RecommenderConfig):
    factors: int = Field(50, ge=1, description="latent factors (Vargas 2012: 50)")
    epochs: int = Field(10, ge=1)
    regularization: float = Field(0.1, gt=0)
    damping: float = Field(5.0, ge=0, description="damping of the user/item bias model")
    seed: int = 0


class BiasedMF(Recommender):
    """Biased matrix factorisation trained by alternating least squares ("mf-als"), via LensKit `BiasedMFScorer`.

    r̂(u, i) = μ + b_u + b_i + p_u · q_i, where the (damped) biases are fitted first and the factors P, Q minimise
    the regularised squared error of the bias-normalised ratings by ALS. Defaults: 50 factors (Vargas 2012 §4.8,
    "MF"), 10 epochs, regularisation 0.1, bias damping 5 (LensKit defaults). `item_factors` (n_items × F) is Q over
    recdiv's item vocabulary (items absent from training get LensKit's initial vectors and cannot be scored).
    References: Koren, Bell & Volinsky (2009) IEEE Computer; Zhou et al. (2008) "Large-scale parallel collaborative
    filtering for the Netflix prize"; Takács et al. (2011) ALS; LensKit `lenskit.als.BiasedMFScorer`.
    """

    name = "mf-als"
    purpose = "rating prediction: ranking every item by predicted rating is far below popularity in top-N"
    CAPABILITIES = ("item-factors",)
    Config = BiasedMFConfig
    fresh_blocks = True

    def _fit(self, train: Interactions, **side: Any) -> None:
        from lenskit.als import BiasedMFScorer
        from lenskit.training import TrainingOptions

        c = self.config
        data = to_lenskit(train, explicit=True)
        scorer = BiasedMFScorer(embedding_size=c.factors, epochs=c.epochs, regularization=c.regularization,
                                damping=c.damping)
        scorer.train(data, TrainingOptions(rng=c.seed))
        self.lk_scorer_ = scorer
        # LensKit numbers == recdiv dense indices (the LensKit dataset is built over recdiv's vocabularies)
        self.user_factors = np.asarray(scorer.user_embeddings, dtype=np.float64)
        self.item_factors = np.asarray(scorer.item_embeddings, dtype=np.float64)
        b = scorer.bias
        self.global_bias = float(b.global_bias)
        self.user_bias = np.zeros(train.n_users) if b.user_biases is None else np.asarray(b.user_biases, np.float64)
        self.item_bias = np.zeros(train.n_items) if b.item_biases is None else np.asarray(b.item_biases, np.float64)
        self.item_known_ = train.item_counts() > 0

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        s = self.user_factors[users] @ self.item_factors.T
        s += self.global_bias + self.user_bias[users][:, None] + self.item_bias[None, :]
        s[:, ~self.item_known_] = np.nan
        return s


class PureSVDConfig(RecommenderConfig):
    factors: int = Field(50, ge=1, description="singular vectors kept (Cremonesi et al. 2010 use 50-150)")
    values: Literal["raw", "binary"] = Field("raw", description="raw ratings/counts, or 1 for every stored value")
    algorithm: Literal["randomized", "arpack"] = "randomized"
    n_iter: int = Field(7, ge=1, description="power iterations of the randomized solver")
    seed: int = 0


class PureSVD(Recommender):
    """PureSVD ("pure-svd", Cremonesi, Koren & Turrin 2010, RecSys): truncated SVD of the zero-filled matrix.

    R ≈ U Σ Qᵀ with the F largest singular values (scikit-learn `TruncatedSVD`); the score of item i for user u is
    r̂(u, i) = r_u · Q · q_iᵀ, i.e. the projection of the user's row onto the item-factor space. Missing values are
    zeros (no imputation), as in the paper. `item_factors` = Q (n_items × F, orthonormal columns).
    """

    name = "pure-svd"
    purpose = "top-N candidates"
    CAPABILITIES = ("item-factors",)
    Config = PureSVDConfig
    fresh_blocks = True

    def _fit(self, train: Interactions, **side: Any) -> None:
        from sklearn.decomposition import TruncatedSVD

        c = self.config
        m = binary(train.matrix) if c.values == "binary" else train.matrix.astype(np.float64)
        f = min(c.factors, min(m.shape) - 1) if c.algorithm == "arpack" else min(c.factors, m.shape[1])
        svd = TruncatedSVD(n_components=f, algorithm=c.algorithm, n_iter=c.n_iter, random_state=c.seed)
        svd.fit(m)
        self.item_factors = np.ascontiguousarray(svd.components_.T)
        self.singular_values = svd.singular_values_
        self.matrix_ = m.tocsr()

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        return np.asarray((self.matrix_[users] @ self.item_factors) @ self.item_factors.T)
