"""The catalogue of measures: every metric family registered (`recdiv.eval.metrics`), parsed from strings
``Name(param=value,...)@K`` and listed."""

from __future__ import annotations

import re
from collections.abc import Iterable

import recdiv.eval.metrics  # noqa: F401  (registers every measure)
from recdiv.errors import ConfigError
from recdiv.eval.measure import REGISTRY, Measure

__all__ = ["list_measures", "parse_measure", "parse_measures"]

_PATTERN = re.compile(r"^\s*(?P<name>[A-Za-z][\w\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$")


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``Name(param=value,...)@K`` into a measure instance; unknown names raise ConfigError."""
    if isinstance(text, Measure):
        return text
    m = _PATTERN.match(text)
    if not m:
        raise ConfigError(f"cannot parse measure {text!r}: expected Name(param=value,...)@K")
    name = m["name"]
    cls = REGISTRY.get(name) or next((c for n, c in REGISTRY.items() if n.lower() == name.lower()), None)
    if cls is None:
        close = [n for n in REGISTRY if n.lower().startswith(name.lower()[:2])][:5]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ConfigError(f"unknown measure {name!r}{hint}; `recdiv eval --list` lists them all")
    params = {}
    if m["params"] and m["params"].strip():
        for part in m["params"].split(","):
            if "=" not in part:
                raise ConfigError(f"cannot parse parameter {part.strip()!r} in {text!r}: expected key=value")
            k, v = (s.strip() for s in part.split("=", 1))
            params[k] = v
    cutoff = None
    if m["cutoff"] is not None:
        if not m["cutoff"].isdigit() or int(m["cutoff"]) < 1:
            raise ConfigError(f"cutoff in {text!r} must be a positive integer")
        cutoff = int(m["cutoff"])
    return cls(cutoff, **params)


def parse_measures(texts: Iterable[str | Measure]) -> list[Measure]:
    return [parse_measure(t) for t in texts]


def list_measures() -> list[type[Measure]]:
    return [REGISTRY[k] for k in sorted(REGISTRY, key=str.lower)]
