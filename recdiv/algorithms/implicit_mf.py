"""Matrix factorisation for implicit feedback (play counts, clicks) with the `implicit` library (CPU): WRMF and BPR."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
from pydantic import Field
from threadpoolctl import threadpool_limits

from recdiv.algorithms.base import Recommender, RecommenderConfig, default_threads
from recdiv.data.interactions import Interactions

Transform = Literal["log1p", "raw", "binary"]


def confidence_values(matrix: sp.csr_matrix, transform: Transform) -> sp.csr_matrix:
    """The training matrix as implicit-feedback strengths: log(1 + x), x itself, or 1 for every stored value."""
    m = matrix.astype(np.float32).tocsr(copy=True)
    if transform == "log1p":
        m.data = np.log1p(np.maximum(m.data, 0))
    elif transform == "binary":
        m.data = np.ones_like(m.data)
    return m


class _ImplicitMF(Recommender):
    CAPABILITIES = ("item-factors",)
    fresh_blocks = True  # _score_block allocates a new array

    def _store(self, model, train: Interactions) -> None:
        self.user_factors = np.asarray(model.user_factors, dtype=np.float64)
        self.item_factors = np.asarray(model.item_factors, dtype=np.float64)
        self.model_ = model

    def _threads(self) -> int:
        return self.config.threads or default_threads()

    def _score_block(self, users: np.ndarray) -> np.ndarray:
        return self.user_factors[users] @ self.item_factors.T


class WRMFConfig(RecommenderConfig):
    factors: int = Field(50, ge=1)
    regularization: float = Field(0.01, ge=0)
    alpha: float = Field(1.0, gt=0, description="confidence c = 1 + alpha·value")
    transform: Transform = Field("log1p", description="value fed to the confidence: log(1 + count), count, or 1")
    iterations: int = Field(15, ge=1)
    seed: int = 0
    threads: int = Field(0, ge=0, description="0: RECDIV_THREADS or all usable cores (ALS is deterministic)")


class WRMF(_ImplicitMF):
    """Weighted regularised MF for implicit feedback ("wrmf"; Hu, Koren & Volinsky 2008, ICDM), by ALS.

    Minimises Σ_{u,i} c_ui (p_ui − x_u·y_i)² + λ(‖x_u‖² + ‖y_i‖²) over all (u, i), with preference p_ui = 1 for
    observed pairs (else 0) and confidence c_ui = 1 + α·f(v_ui), f = log1p of the play count by default (Hu et al.
    §4 suggest a log scaling for counts). Score: x_u·y_i. implicit 0.7 `AlternatingLeastSquares` (conjugate gradient),
    defaults 50 factors, λ = 0.01, α = 1, 15 iterations; deterministic given `seed` (each user/item solve is
    independent of thread scheduling).
    """

    name = "wrmf"
    purpose = "top-N candidates (implicit feedback)"
    Config = WRMFConfig

    def _fit(self, train: Interactions, **side: Any) -> None:
        from implicit.cpu.als import AlternatingLeastSquares

        c = self.config
        with threadpool_limits(limits=1, user_api="blas"):  # implicit parallelises itself; avoid oversubscription
            model = AlternatingLeastSquares(factors=c.factors, regularization=c.regularization, alpha=c.alpha,
                                            iterations=c.iterations, random_state=c.seed,
                                            num_threads=self._threads())
            model.fit(confidence_values(train.matrix, c.transform), show_progress=False)
        self._store(model, train)


class BPRConfig(RecommenderConfig):
    factors: int = Field(100, ge=1, description="latent factors (an item-bias factor is added by implicit)")
    learning_rate: float = Field(0.01, gt=0)
    regularization: float = Field(0.01, ge=0)
    iterations: int = Field(100, ge=1)
    seed: int = 0
    threads: int = Field(1, ge=0, description="SGD threads; >1 is Hogwild-style and not reproducible")


class BPR(_ImplicitMF):
    """Bayesian personalised ranking ("bpr"; Rendle et al. 2009, UAI), SGD on sampled (u, i, j) triples.

    Maximises Σ ln σ(x̂_ui − x̂_uj) − λ‖Θ‖² over observed i and sampled unobserved j; score x̂_ui = w_u·h_i + b_i.
    implicit 0.7 `BayesianPersonalizedRanking`, defaults 100 factors, learning rate 0.01, λ = 0.01,
    100 iterations. Runs single-threaded by default: parallel SGD updates race, so only threads=1 is deterministic.
    """

    name = "bpr"
    purpose = "top-N candidates (pairwise ranking)"
    Config = BPRConfig

    def _fit(self, train: Interactions, **side: Any) -> None:
        from implicit.cpu.bpr import BayesianPersonalizedRanking

        c = self.config
        model = BayesianPersonalizedRanking(factors=c.factors, learning_rate=c.learning_rate,
                                            regularization=c.regularization, iterations=c.iterations,
                                            random_state=c.seed, num_threads=self._threads())
        with threadpool_limits(limits=1, user_api="blas"):
            model.fit(confidence_values(train.matrix, "binary"), show_progress=False)
        self._store(model, train)
