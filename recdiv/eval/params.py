"""Parameters shared by several measures, declared once (`recdiv.eval.measure.Param`): the rank discount, the
relevance model, the item distance, the intent weights, the ideal-list tie rule, the lists an exposure measure
aggregates. A measure that needs another default uses `dataclasses.replace(PARAM, default=...)`."""

from __future__ import annotations

import math

from recdiv.aspects.similarity import SIMILARITIES
from recdiv.errors import ConfigError
from recdiv.eval.measure import Param
from recdiv.models.discount import POSITION_SYNTAX, parse_discount
from recdiv.models.discount import SYNTAX as DISCOUNT_SYNTAX
from recdiv.models.relevance import SYNTAX as RELEVANCE_SYNTAX
from recdiv.models.relevance import parse_relevance

__all__ = ["DISC", "DIST", "DISTANCES", "IDEAL_TIES", "LEVEL", "POSITION_DISC", "PROFILE_REL", "REDUNDANCY", "REL",
           "UNDEFINED", "USERS", "WEIGHTS"]

#: item distances d = 1 − sim of the distance-based measures: the registered item similarities
DISTANCES = tuple(SIMILARITIES.names())


def _position_only(spec: str) -> None:
    if parse_discount(spec).uses_relevance:
        raise ConfigError(f"discount {spec!r} depends on relevance; this measure takes the discounts of position "
                          f"alone: {POSITION_SYNTAX}")


def _finite_level(level: float | None) -> None:
    if level is not None and not math.isfinite(level):
        raise ConfigError("a relevance level is a finite grade, e.g. rel=4")


#: ir_measures' relevance level of the accuracy measures: relevant ⇔ grade ≥ rel, for this measure only
LEVEL = Param("rel", float, None, "relevance level of this measure: relevant ⇔ grade ≥ rel (ir_measures' rel=); "
              "default τ (--rel-threshold); the users averaged over stay the evaluated population", spec=_finite_level)
DISC = Param("disc", str, "none", f"rank discount disc(k): {DISCOUNT_SYNTAX}", spec=parse_discount)
POSITION_DISC = Param("disc", str, "none", f"rank discount of position: {POSITION_SYNTAX}", spec=_position_only)
REL = Param("rel", str, "none", f"relevance model p(rel|i,u): {RELEVANCE_SYNTAX}", spec=parse_relevance)
PROFILE_REL = Param("profile_rel", str, "none", "relevance model weighting the profile's training ratings",
                    spec=parse_relevance)
DIST = Param("dist", str, "cosine", "item distance 1 − sim (cosine, jaccard: aspects; pearson: train; "
             "latent-cosine: the context's similarity)", choices=DISTANCES)
UNDEFINED = Param("undefined", str, "skip", "pairs without a defined distance: dropped, or distance 1",
                  choices=("skip", "one"))
WEIGHTS = Param("weights", str, "profile", "intent weights w_a: p(a|u) of the training profile, or uniform over "
                "the aspects of the user's relevant test items", choices=("profile", "uniform"))
IDEAL_TIES = Param("ideal_ties", str, "max_id", "tie rule of the greedy ideal list: largest or smallest item id",
                   choices=("max_id", "min_id"))
REDUNDANCY = Param("alpha", float, 0.5, "redundancy penalty α: an aspect's gain shrinks by (1−α) per earlier "
                   "item having it", low=0.0, high=1.0)
USERS = Param("users", str, "evaluated", "lists aggregated: those of the evaluated users, or every list of the run",
              choices=("evaluated", "run"))
