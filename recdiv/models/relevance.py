"""Relevance models p(rel | i, u) of the Vargas & Castells framework (METRICS.md §B.4; thesis §4.5.2).

A relevance model maps test grades r(u, i) (NaN = unjudged) to probabilities of relevance. τ (the binary
threshold) comes from the evaluation context; the graded models use the “indifference” rating
τ_g = τ − 1 unless given, g = max(0, r − τ_g), g_max = r_max − τ_g.

| spec | p(rel | i, u) |
|---|---|
| ``none`` | 1 |
| ``binary`` | 1 if r ≥ τ else 0 (unjudged 0) |
| ``graded`` | (2^g − 1) / 2^g_max (unjudged 0) — thesis eq. 4.13 |
| ``graded_noneg`` | 2^g / 2^g_max (unjudged 2^−g_max) — the variant of the thesis experiments |
| ``background0.1`` (also ``background(0.1)``) | 1 if r ≥ τ, 0 if judged and 0 ≤ r < τ, b if unjudged or r < 0 |
| ``unnormalised`` | 2^g − 1 (reproduces thesis Table 4 only) |

Positions without an item (padding) always get 0.

`stop_probability(g, g_max)` = (2^g − 1) / 2^g_max is ERR's mapping of a gain level to the probability that the
user is satisfied and stops (Chapelle et al. 2009), shared by ERR, ERR-IA and RBU.
"""

from __future__ import annotations

import re

import numpy as np

from recdiv.data.qrels import is_judged, is_relevant
from recdiv.errors import ConfigError

__all__ = [
    "Background",
    "Binary",
    "Graded",
    "GradedNoNeg",
    "NoRelevance",
    "RelevanceModel",
    "Unnormalised",
    "is_judged",
    "is_relevant",
    "parse_relevance",
    "stop_probability",
]


class RelevanceModel:
    """Base: `probability(grades, threshold, max_grade)` maps grades (NaN = unjudged) to p(rel)."""

    spec: str = ""
    #: p(rel) depends on the maximum grade of the scale
    uses_max_grade: bool = False

    def __init__(self, tau_g: float | None = None):
        self.tau_g = None if tau_g is None else float(tau_g)

    def probability(self, grades: np.ndarray, threshold: float, max_grade: float) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract

    def ranked(self, grades: np.ndarray, valid: np.ndarray, threshold: float, max_grade: float) -> np.ndarray:
        """(n, K) p(rel) of ranked items with these grades (NaN unjudged); 0 where not `valid` (padding)."""
        return np.where(valid, self.probability(grades, threshold, max_grade), 0.0)

    def indifference(self, threshold: float) -> float:
        return threshold - 1.0 if self.tau_g is None else self.tau_g

    def __str__(self) -> str:
        return self.spec

    def __repr__(self) -> str:
        return f"<relevance {self.spec}>"


class NoRelevance(RelevanceModel):
    """p(rel) = 1: pure novelty/diversity."""

    spec = "none"

    def probability(self, grades, threshold, max_grade):
        return np.ones(np.shape(grades))


class Binary(RelevanceModel):
    """p(rel) = [r ≥ τ] (RankSys `BinaryRelevanceModel`); unjudged items are not relevant."""

    spec = "binary"

    def probability(self, grades, threshold, max_grade):
        return is_relevant(grades, threshold).astype(np.float64)


class Graded(RelevanceModel):
    """p(rel) = (2^g − 1) / 2^g_max, g = max(0, r − τ_g), g_max = r_max − τ_g (thesis eq. 4.13, ERR mapping)."""

    spec = "graded"
    minus_one = True
    normalise = True
    uses_max_grade = True

    def probability(self, grades, threshold, max_grade):
        tau_g = self.indifference(threshold)
        g = np.maximum(0.0, np.nan_to_num(grades, nan=tau_g) - tau_g)
        p = np.exp2(g) - (1.0 if self.minus_one else 0.0)
        return p / np.exp2(max_grade - tau_g) if self.normalise else p


class GradedNoNeg(Graded):
    """p(rel) = 2^g / 2^g_max (thesis §4.5.2, no “− 1”: unobserved relevance is 2^−g_max, not 0)."""

    spec = "graded_noneg"
    minus_one = False


class Unnormalised(Graded):
    """p(rel) = 2^g − 1 without the division by 2^g_max: reproduces thesis Table 4 (METRICS.md §B.7)."""

    spec = "unnormalised"
    normalise = False
    uses_max_grade = False


class Background(RelevanceModel):
    """p(rel) = 1 if r ≥ τ, 0 if judged with r < τ, b if unjudged (RankSys `BackgroundBinaryRelevanceModel`);
    a negative label (TREC: pooled but unjudged) counts as unjudged."""

    def __init__(self, b: float, tau_g: float | None = None):
        super().__init__(tau_g)
        if not 0.0 <= b <= 1.0:
            raise ConfigError(f"background relevance needs 0 ≤ b ≤ 1, got {b!r}")
        self.b = float(b)
        self.spec = f"background{_num(self.b)}"

    def probability(self, grades, threshold, max_grade):
        grades = np.asarray(grades, dtype=np.float64)
        # NaN (not in the qrels) and negative labels (pooled but unjudged) are unjudged
        return np.where(is_judged(grades), is_relevant(grades, threshold).astype(np.float64), self.b)


def _num(x: float) -> str:
    return repr(float(x)).rstrip("0").rstrip(".") if not float(x).is_integer() else str(int(x))


_SIMPLE = {"none": NoRelevance, "binary": Binary, "graded": Graded, "graded_noneg": GradedNoNeg,
           "unnormalised": Unnormalised}
_BACKGROUND = re.compile(r"^background\s*(?:\(\s*([^()]*?)\s*\)|([0-9.eE+\-]+))$")
SYNTAX = "none, binary, graded, graded_noneg, unnormalised or background<b> (e.g. background0.1)"


def parse_relevance(spec: str | RelevanceModel, tau_g: float | None = None) -> RelevanceModel:
    """A relevance model from its spec string (see the module docstring); instances pass through."""
    if isinstance(spec, RelevanceModel):
        return spec
    text = str(spec).strip().lower()
    if text in _SIMPLE:
        return _SIMPLE[text](tau_g)
    m = _BACKGROUND.match(text)
    if not m:
        raise ConfigError(f"unknown relevance model {spec!r}; expected {SYNTAX}")
    try:
        b = float(m[1] if m[1] is not None else m[2])
    except ValueError:
        raise ConfigError(f"cannot read the parameter of relevance model {spec!r}; expected {SYNTAX}") from None
    return Background(b, tau_g)


def stop_probability(g, g_max):
    """R = (2^g − 1) / 2^g_max: the probability that a user stops at an item of gain level g ≥ 0 (0 for g = 0),
    g_max the highest level (a number, or an array broadcast against g). Chapelle, Metzler, Zhang & Grinspan
    2009 (ERR); RankSys `ERRIA.ERRRelevanceModel`."""
    return (np.exp2(g) - 1.0) / np.exp2(g_max)
