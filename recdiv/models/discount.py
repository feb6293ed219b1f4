"""Rank discount models disc(k): one vocabulary for every measure that discounts by rank (METRICS.md §B.2,
§A.4, §A.11; thesis §4.4).

disc(k) is the probability that the user sees the item at 1-based position k. The same objects serve the
accuracy metrics (nDCG, DCG), the novelty/diversity metrics, the intent-aware metrics and the exposure metrics,
so that every measure with a ``disc`` parameter accepts the same specs (usable inside measure names, where
parentheses are not allowed):

| spec | disc(k) |
|---|---|
| ``none`` | 1 |
| ``log`` | 1 / log2(k + 1) (nDCG, trec_eval) |
| ``jk`` / ``jk3`` (also ``jk(3)``) | 1 for k ≤ b, else 1 / log_b(k) (Järvelin & Kekäläinen 2002; b = 2 by default) |
| ``recip`` | 1 / k |
| ``exp0.85`` (also ``exp(0.85)``) | p^(k−1), 0 < p ≤ 1 (RBP's patience) |
| ``halflife5`` (also ``halflife(5)``) | 2^(−(k−1)/(α−1)), α > 1 (Breese's half-life) |
| ``cascade`` | Π_{l<k} (1 − p(rel | i_l, u)) |
| ``cascade0.9`` (also ``cascade(0.9)``) | p0^(k−1) · Π_{l<k} (1 − p(rel | i_l, u)) |

Models defined as a division by a rank function (log, jk, half-life) also give those divisors (`divisors`):
the accuracy metrics divide by them, as trec_eval does, so that nDCG stays trec_eval-exact.

disc(k) = 0 beyond the list length n' = min(K, n). The relative discount used by EILD is
disc(l | k) = disc(max(1, l − k)) (thesis eq. 4.16). For the cascade models, which depend on the list, recdiv
uses the conditional probability of reaching l from k that mirrors that rule [CHOICE]: 1 for l < k and
p0^(l−k−1) · Π_{k<m<l} (1 − p(rel | i_m, u)) for l > k (l = k + 1 gives 1, as disc(1) does for the other models).
"""

from __future__ import annotations

import re

import numpy as np

from recdiv.errors import ConfigError

__all__ = [
    "Cascade",
    "Discount",
    "ExponentialDiscount",
    "HalfLifeDiscount",
    "JKDiscount",
    "LogDiscount",
    "NoDiscount",
    "ReciprocalDiscount",
    "parse_discount",
]


class Discount:
    """Base: a rank discount model. Position-only models implement `_at(k)` over 1-based positions."""

    spec: str = ""
    #: True when disc(k) depends on the relevance of the items above k (cascade models)
    uses_relevance: bool = False

    def at(self, k: np.ndarray | int) -> np.ndarray:
        """disc(k) for 1-based positions k (position-only models; rerankers use this)."""
        if self.uses_relevance:
            raise ConfigError(f"discount {self.spec!r} depends on relevance; use weights(valid, prel)")
        return self._at(np.asarray(k, dtype=np.float64))

    def positions(self, k: int) -> np.ndarray:
        """(k,) vector disc(1), …, disc(k)."""
        return self.at(np.arange(1, k + 1))

    def divisors(self, k: int) -> np.ndarray | None:
        """(k,) vector 1/disc(1), …, 1/disc(k) for models defined as a division (log, jk, half-life), computed as
        the division's own rank function; None for the others (use `positions`)."""
        return None

    def weights(self, valid: np.ndarray, prel: np.ndarray | None = None) -> np.ndarray:
        """(n, K) disc(k) of every position of every list, 0 at padding (`valid` False)."""
        return self.positions(valid.shape[1])[None, :] * valid

    def relative(self, valid: np.ndarray, prel: np.ndarray | None = None) -> np.ndarray:
        """disc(l | k) = disc(max(1, l − k)) with a zero diagonal: (K, K) for position-only models."""
        pos = np.arange(valid.shape[1])
        out = self.at(np.maximum(1, pos[None, :] - pos[:, None]))
        np.fill_diagonal(out, 0.0)
        return out

    def _at(self, k: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __str__(self) -> str:
        return self.spec

    def __repr__(self) -> str:
        return f"<discount {self.spec}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Discount) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(("discount", self.spec))


class NoDiscount(Discount):
    """disc(k) = 1: the user browses the whole list (thesis Table 6 column “1”)."""

    spec = "none"

    def _at(self, k):
        return np.ones_like(k)


class LogDiscount(Discount):
    """disc(k) = 1 / log2(k + 1), as in nDCG (thesis Table 4; trec_eval divides by log2(k + 1))."""

    spec = "log"

    def _at(self, k):
        return 1.0 / np.log2(k + 1.0)

    def divisors(self, k):
        return np.log2(np.arange(1, k + 1, dtype=np.float64) + 1.0)


class JKDiscount(Discount):
    """disc(k) = 1 for k ≤ b, else 1 / log_b(k): Järvelin & Kekäläinen's original DCG discount (b = 2: the
    lecture convention), computed as the division by log(k) / log(b)."""

    def __init__(self, b: float = 2.0):
        if not b > 1.0:
            raise ConfigError(f"jk discount needs a log base b > 1, got {b!r}")
        self.b = float(b)
        self.spec = "jk" if self.b == 2.0 else f"jk{_num(self.b)}"

    def _at(self, k):
        return 1.0 / self._divisor(k)

    def _divisor(self, k):
        return np.where(k <= self.b, 1.0, np.log(np.maximum(k, 1.0)) / np.log(self.b))

    def divisors(self, k):
        return self._divisor(np.arange(1, k + 1, dtype=np.float64))


class HalfLifeDiscount(Discount):
    """disc(k) = 2^(−(k−1)/(α−1)): the chance of viewing rank k halves every α − 1 ranks (Breese, Heckerman &
    Kadie 1998; α = the half-life rank), computed as the division by 2^((k−1)/(α−1))."""

    def __init__(self, alpha: float):
        if not alpha > 1.0:
            raise ConfigError(f"half-life discount needs a half-life rank α > 1, got {alpha!r}")
        self.alpha = float(alpha)
        self.spec = f"halflife{_num(self.alpha)}"

    def _at(self, k):
        return 1.0 / self._divisor(k)

    def _divisor(self, k):
        return np.exp2((k - 1.0) / (self.alpha - 1.0))

    def divisors(self, k):
        return self._divisor(np.arange(1, k + 1, dtype=np.float64))


class ReciprocalDiscount(Discount):
    """disc(k) = 1 / k (RankSys `ReciprocalDiscountModel`)."""

    spec = "recip"

    def _at(self, k):
        return 1.0 / k


class ExponentialDiscount(Discount):
    """disc(k) = p^(k−1): RBP's patience model (Moffat & Zobel 2008); thesis Table 6 uses p = 0.85."""

    def __init__(self, p: float):
        if not 0.0 < p <= 1.0:
            raise ConfigError(f"exponential discount needs 0 < p ≤ 1, got {p!r}")
        self.p = float(p)
        self.spec = f"exp{_num(self.p)}"

    def _at(self, k):
        return self.p ** (k - 1.0)


class Cascade(Discount):
    """disc(k) = p0^(k−1) · Π_{l<k} (1 − p(rel | i_l, u)): the user stops at the first relevant item
    (ERR-like; thesis §4.4, p0 = p(cont | ¬rel), default 1)."""

    uses_relevance = True

    def __init__(self, p0: float = 1.0):
        if not 0.0 < p0 <= 1.0:
            raise ConfigError(f"cascade discount needs 0 < p0 ≤ 1, got {p0!r}")
        self.p0 = float(p0)
        self.spec = "cascade" if self.p0 == 1.0 else f"cascade{_num(self.p0)}"

    def weights(self, valid, prel=None):
        if prel is None:
            raise ConfigError("the cascade discount needs the relevance of the ranked items")
        cont = 1.0 - np.where(valid, prel, 0.0)
        reach = np.ones(valid.shape)
        if valid.shape[1] > 1:
            reach[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
        return reach * self.p0 ** np.arange(valid.shape[1])[None, :] * valid

    def relative(self, valid, prel=None):
        """(n, K, K): 1 for l < k; p0^(l−k−1) Π_{k<m<l} (1 − p_m) for l > k; 0 on the diagonal."""
        if prel is None:
            raise ConfigError("the cascade discount needs the relevance of the ranked items")
        n, K = valid.shape
        cont = self.p0 * (1.0 - np.where(valid, prel, 0.0))
        out = np.ones((n, K, K))
        idx = np.arange(K)
        out[:, idx, idx] = 0.0
        cur = np.ones((n, max(K - 1, 0)))
        for d in range(1, K):
            if d > 1:  # extend each path k → k+d by the item at k+d−1
                cur = cur[:, :-1] * cont[:, d - 1 : K - 1]
            ks = idx[: K - d]
            out[:, ks, ks + d] = cur
        return out

    def _at(self, k):  # pragma: no cover - guarded by `at`
        raise ConfigError("cascade has no position-only form")


def _num(x: float) -> str:
    return repr(float(x)).rstrip("0").rstrip(".") if not float(x).is_integer() else str(int(x))


_PARAM = re.compile(r"^(exp|cascade|jk|halflife)\s*(?:\(\s*([^()]*?)\s*\)|([0-9.eE+\-]+))?$")
_SIMPLE = {"none": NoDiscount, "log": LogDiscount, "recip": ReciprocalDiscount}
#: the discounts of position alone (every measure with a `disc` parameter takes these)
POSITION_SYNTAX = "none, log, jk or jk<b>, recip, exp<p> (e.g. exp0.85), halflife<α> (e.g. halflife5)"
SYNTAX = f"{POSITION_SYNTAX}, cascade or cascade<p0> (e.g. cascade0.9)"


def rank_order_sum(terms: np.ndarray) -> np.ndarray:
    """Σ_k terms[:, k] per row (one ranked list per row), added rank by rank (k = 1, 2, ...): trec_eval's summation
    order. A row's sum depends on nothing but its own terms — not on the other rows, nor on zeros padding it to the
    widest list of the rows evaluated with it — so a user's value is the same to the last bit in any block of users
    (NumPy's pairwise sum depends on the row length; a BLAS matrix-vector product on the rows beside it and on the
    thread count)."""
    total = np.zeros(terms.shape[0])
    for c in range(terms.shape[1]):
        total += terms[:, c]
    return total


def row_sums(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ_k values[u, k]·weights[k] for every row u, rank by rank (`rank_order_sum`): instead of `values @ weights`."""
    return rank_order_sum(values * weights[: values.shape[1]])


def parse_discount(spec: str | Discount) -> Discount:
    """A discount object from its spec string (see the module docstring); instances pass through."""
    if isinstance(spec, Discount):
        return spec
    text = str(spec).strip().lower()
    if text in _SIMPLE:
        return _SIMPLE[text]()
    m = _PARAM.match(text)
    if not m:
        raise ConfigError(f"unknown rank discount {spec!r}; expected {SYNTAX}")
    arg = m[2] if m[2] is not None else m[3]
    if m[1] == "exp":
        if not arg:
            raise ConfigError(f"discount {spec!r} needs its patience p, e.g. exp0.85")
        return ExponentialDiscount(_float(spec, arg))
    if m[1] == "halflife":
        if not arg:
            raise ConfigError(f"discount {spec!r} needs its half-life rank α, e.g. halflife5")
        return HalfLifeDiscount(_float(spec, arg))
    if m[1] == "jk":
        return JKDiscount(2.0 if not arg else _float(spec, arg))
    return Cascade(1.0 if not arg else _float(spec, arg))


def _float(spec, arg: str) -> float:
    try:
        return float(arg)
    except ValueError:
        raise ConfigError(f"cannot read the parameter of discount {spec!r}; expected {SYNTAX}") from None
