"""The catalogue of measures: every metric family registered (`recdiv.eval.metrics`), parsed from strings
``Name(param=value,...)@K`` and listed.

Names follow the one spelling rule of `recdiv.registry` (``alpha-nDCG`` = ``Alpha-NDCG`` = ``alphandcg``); an
unknown name gets a did-you-mean. Other tools' spellings map onto the same measure objects in two ways:

- a name alias, optionally with preset parameters: ``MEASURES.alias("precision", "P")``,
  ``MEASURES.alias("ndcg_exp", "nDCG", gain="exp")`` (a preset that the string also sets must agree);
- a spelling: a regular expression over the whole string and the canonical string it stands for,
  ``add_spelling(r"P\\.(\\d+)", r"P@\\1")`` (trec_eval's ``P.10``), ``add_spelling(r"ndcg_cut_(\\d+)", r"nDCG@\\1")``.
  Spellings are tried, in the order added, before the ``Name(param=value)@K`` syntax.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import recdiv.eval.metrics  # noqa: F401  (registers every measure)
from recdiv.errors import ConfigError
from recdiv.eval.measure import MEASURES, Measure

__all__ = ["add_spelling", "list_measures", "parse_measure", "parse_measures"]

_PATTERN = re.compile(r"^\s*(?P<name>[A-Za-z][\w\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$")
_SPELLINGS: list[tuple[re.Pattern, str]] = []


def add_spelling(pattern: str, replacement: str) -> None:
    """Read strings that match `pattern` (the whole string) as `re.sub(pattern, replacement, text)`."""
    _SPELLINGS.append((re.compile(pattern), replacement))


def _respell(text: str) -> str:
    stripped = text.strip()
    for rx, replacement in _SPELLINGS:
        if rx.fullmatch(stripped):
            return rx.sub(replacement, stripped)
    return text


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``Name(param=value,...)@K`` (or a registered spelling) into a measure instance; unknown names and
    bad parameters raise ConfigError."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise ConfigError(f"a measure is a string such as 'nDCG@10', got {text!r}")
    source = text
    text = _respell(text)
    m = _PATTERN.match(text)
    if not m:
        raise ConfigError(f"cannot parse measure {source!r}: expected Name(param=value,...)@K")
    try:
        entry = MEASURES.entry(m["name"])
    except ConfigError as e:
        raise ConfigError(f"{e}; `recdiv eval --list` lists them all") from None
    params: dict[str, str] = {}
    if m["params"] and m["params"].strip():
        for part in m["params"].split(","):
            if "=" not in part:
                raise ConfigError(f"cannot parse parameter {part.strip()!r} in {source!r}: expected key=value")
            k, v = (s.strip() for s in part.split("=", 1))
            if k in params:
                raise ConfigError(f"parameter {k!r} is given twice in {source!r}")
            params[k] = v
    cutoff = None
    if m["cutoff"] is not None:
        if not m["cutoff"].isdigit() or int(m["cutoff"]) < 1:
            raise ConfigError(f"cutoff in {source!r} must be a positive integer")
        cutoff = int(m["cutoff"])
    preset = dict(entry.preset)
    if "cutoff" in preset:
        fixed = preset.pop("cutoff")
        if cutoff is not None and cutoff != fixed:
            raise ConfigError(f"{source!r}: {m['name']} stands for cutoff {fixed}; it takes no other")
        cutoff = fixed
    declared = entry.obj.param_map()
    for k in preset.keys() & params.keys():
        if declared[k].coerce(entry.name, params[k]) != declared[k].coerce(entry.name, preset[k]):
            raise ConfigError(f"{source!r}: {m['name']} stands for {k}={preset[k]}")
    return entry.obj(cutoff, **{**preset, **params})


def parse_measures(texts: Iterable[str | Measure]) -> list[Measure]:
    return [parse_measure(t) for t in texts]


def list_measures() -> list[type[Measure]]:
    """Every registered measure class, by name (case-insensitive order)."""
    return [e.obj for e in sorted(MEASURES.entries(), key=lambda e: e.name.lower())]
