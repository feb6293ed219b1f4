"""Latent aspect spaces (METRICS.md §E.11; Vargas 2012 thesis §3.6.2): MF factors, pLSA topics, LDA topics.

Functions take arrays (or fit their own topic model on training data), never recommender objects.
- `factor_space(Q, l)`: A(i) = the l dominant factors of q_i (largest signed values; `abs=True` by magnitude).
- `plsa_space(p_z_u, p_i_z)`: aspects = topics z; p(z|i) ∝ p(i|z)·p(z), p(z) = mean_u p(z|u); returns the space
  (weights p(z|i)), a `TopicAspects` that also carries the user distributions p(z|u) as `user_topics`.
- `lda_space(train, n_topics)`: scikit-learn `LatentDirichletAllocation` on the users × items training matrix
  (users as documents, items as words); p(z|u) = the fitted document-topic distributions; p(i|z) = the
  normalised topic-word weights; then as pLSA.
Topic spaces are dense (every item has every topic with weight p(z|i)); `top` keeps the `top` most probable
topics of each item as its aspect set.

Every ``*_space`` function returns an `AspectSpace`. `plsa_space` and `lda_space` used to return the pair
(space, p(z|u)); unpacking their result that way still works for now, with a FutureWarning (use
``space.user_topics``).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from recdiv.aspects.space import AspectSpace
from recdiv.data.interactions import Interactions
from recdiv.data.vocab import Vocab
from recdiv.errors import ConfigError


def _top_per_row(values: np.ndarray, l: int) -> sp.csr_matrix:
    """CSR keeping the l largest entries of every row (ties → lower column), with their values."""
    n, F = values.shape
    order = np.lexsort((np.broadcast_to(np.arange(F), (n, F)), -values), axis=1)[:, :l]
    rows = np.repeat(np.arange(n), l)
    m = sp.csr_matrix((values[rows, order.ravel()], (rows, order.ravel())), shape=(n, F))
    m.sort_indices()
    return m


def factor_space(factors: np.ndarray, l: int, items: Vocab, *, abs: bool = False,
                 name: str = "mf-factors") -> AspectSpace:
    """A(i) = the indices of the l dominant components of the item factor vector q_i (thesis §3.6.2).

    Dominant = largest signed value (default [CHOICE]) or largest |value| (`abs=True`); l must satisfy 1 ≤ l ≤ F
    (no published default). Membership weights are 1 (explicit-style aspects); items whose factor vector is all
    zeros get no aspects.
    """
    q = np.asarray(factors, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] != len(items):
        raise ConfigError(f"factors must be items × F with {len(items)} rows, got shape {q.shape}")
    if not 1 <= l <= q.shape[1]:
        raise ConfigError(f"l must be between 1 and the number of factors {q.shape[1]}, got {l}")
    m = _top_per_row(np.abs(q) if abs else q, l)
    m.data = np.ones_like(m.data)
    zero = ~np.any(q != 0, axis=1)
    if zero.any():
        m = sp.csr_matrix(sp.diags((~zero).astype(float)) @ m)
        m.eliminate_zeros()
        m.sort_indices()
    return AspectSpace(items, Vocab([f"f{j}" for j in range(q.shape[1])]), m, name)


def item_topic_distribution(p_z_u: np.ndarray, p_i_z: np.ndarray) -> np.ndarray:
    """p(z|i) = p(i|z)·p(z) / Σ_z' p(i|z')·p(z'), p(z) = mean_u p(z|u) (METRICS.md §E.11). Items × topics;
    rows of items with p(i|z) = 0 for every z are 0."""
    p_z_u = np.asarray(p_z_u, dtype=np.float64)
    p_i_z = np.asarray(p_i_z, dtype=np.float64)
    if p_z_u.shape[1] != p_i_z.shape[0]:
        raise ConfigError(f"p(z|u) has {p_z_u.shape[1]} topics but p(i|z) has {p_i_z.shape[0]}")
    pz = p_z_u.mean(axis=0)
    joint = p_i_z.T * pz[None, :]
    tot = joint.sum(axis=1, keepdims=True)
    return np.divide(joint, tot, out=np.zeros_like(joint), where=tot > 0)


class TopicAspects(AspectSpace):
    """The aspect space of a topic model (topics as aspects, weights p(z|i)) with the users' topic distributions
    p(z|u) (users × topics) as `user_topics`."""

    def __init__(self, items: Vocab, names: Vocab, membership: sp.csr_matrix, name: str, user_topics: np.ndarray):
        super().__init__(items, names, membership, name)
        self.user_topics = user_topics

    def __iter__(self):
        """The former return value (space, p(z|u)), for callers that unpack it (deprecated)."""
        warnings.warn("plsa_space and lda_space return the aspect space; unpacking `space, p_z_u = ...` is "
                      "deprecated and will be removed in a future release: use space.user_topics for p(z|u)",
                      FutureWarning, stacklevel=2)
        return iter((self, self.user_topics))


def plsa_space(p_z_u: np.ndarray, p_i_z: np.ndarray, items: Vocab, *, top: int | None = None,
               name: str = "plsa") -> TopicAspects:
    """The topic space of pLSA arrays p(z|u) (users × Z) and p(i|z) (Z × items): weights p(z|i), and p(z|u) as
    `user_topics`."""
    pzi = item_topic_distribution(p_z_u, p_i_z)
    if pzi.shape[0] != len(items):
        raise ConfigError(f"p(i|z) covers {pzi.shape[0]} items, the vocabulary {len(items)}")
    m = _top_per_row(pzi, top) if top is not None else sp.csr_matrix(pzi)
    m.eliminate_zeros()
    names = Vocab([f"z{j}" for j in range(pzi.shape[1])])
    return TopicAspects(items, names, m, name, np.asarray(p_z_u, dtype=np.float64))


def fit_lda(train: Interactions, n_topics: int, *, seed: int = 0, max_iter: int = 20,
            binary: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(p(z|u) users × Z, p(i|z) Z × items) of scikit-learn's `LatentDirichletAllocation` (batch learning) fitted
    on the training matrix (users = documents, items = words; `binary=True` counts each interaction once)."""
    from sklearn.decomposition import LatentDirichletAllocation  # deferred: scikit-learn loads slowly

    x = train.matrix.copy()
    if binary:
        x.data = np.ones_like(x.data)
    lda = LatentDirichletAllocation(n_components=n_topics, random_state=seed, max_iter=max_iter,
                                    learning_method="batch")
    p_z_u = lda.fit_transform(x)
    p_i_z = lda.components_ / lda.components_.sum(axis=1, keepdims=True)
    return p_z_u, p_i_z


def lda_space(train: Interactions, n_topics: int, *, seed: int = 0, top: int | None = None, max_iter: int = 20,
              binary: bool = True, name: str = "lda") -> TopicAspects:
    """The topic space of an LDA topic model (`fit_lda`) fitted on the training matrix, as `plsa_space` (the
    fitted p(z|u) as `user_topics`)."""
    p_z_u, p_i_z = fit_lda(train, n_topics, seed=seed, max_iter=max_iter, binary=binary)
    return plsa_space(p_z_u, p_i_z, train.items, top=top, name=name)
