"""The explorer's state: everything a page shows follows from one `State`, and a `State` is its URL.

    dataset=ml-100k&split=u1&rec=user-knn&rec.k=50&n=500&k=10&m=nDCG@10&m=ILD@10
    &a=MMR&a.lambda=0.5&aspects.a=genres&b=xQuAD&b.lambda=0.5&user=42

`a` and `b` are the two configurations (a reranker over an aspect space, reranking the baseline's candidates),
`rec` the baseline recommender, `m` the measures, `user` the user shown. Component parameters (`rec.NAME`,
`a.NAME`, `b.NAME`) are read as the command line reads `--param NAME=VALUE` (`recdiv.cli.params.param_value`) and
checked, like every other value, by the typed configs `recdiv run` checks: a state is valid exactly when its
experiment (`recdiv.explore.experiment.experiment_of`) is. The server keeps no state of its own: a page sends its
state with every request, so sessions cannot see each other's choices.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode

from pydantic import Field, ValidationError

from recdiv.cli.params import param_value
from recdiv.config import Config, error_lines
from recdiv.errors import ConfigError

Scalar = bool | int | float | str | None

#: the largest values a request may ask for (work is sized by them; the catalog narrows n to the items)
MAX_DEPTH = 1000
MAX_MEASURES = 12
MAX_QUERY = 4000  # characters of a state's query string
_SAFE = re.compile(r"^[^\x00-\x1f\x7f]*$")  # no control characters in any value


class Diversifier(Config):
    """One configuration: a reranker (a registered name, or a plugin given at start), its parameters, and the
    aspect space it reranks over (None: the dataset's first explicit space)."""

    reranker: str = Field(min_length=1, max_length=100)
    params: dict[str, Scalar] = Field(default_factory=dict, max_length=20)
    aspects: str | None = Field(None, min_length=1, max_length=100)


class State(Config):
    """What the explorer shows (see the module docstring)."""

    dataset: str = Field(min_length=1, max_length=200)
    split: str = Field(min_length=1, max_length=100)
    seed: int = Field(0, ge=0, le=2**31 - 1)
    threshold: float | None = Field(None, ge=-1e6, le=1e6, description="relevance threshold (None: the dataset's)")
    population: Literal["relevant", "judged"] = "relevant"
    recommender: str = Field(min_length=1, max_length=100)
    recommender_params: dict[str, Scalar] = Field(default_factory=dict, max_length=20)
    n: int = Field(100, ge=1, le=MAX_DEPTH, description="candidate depth: the baseline's top n")
    k: int = Field(10, ge=1, le=MAX_DEPTH, description="list length after reranking")
    measures: tuple[str, ...] = Field(min_length=1, max_length=MAX_MEASURES)
    a: Diversifier | None = None
    b: Diversifier | None = None
    user: str | None = Field(None, max_length=200)

    def configs(self) -> dict[str, Diversifier]:
        """The configurations shown, by system name ("A", "B")."""
        return {name: d for name, d in (("A", self.a), ("B", self.b)) if d is not None}

    def replace(self, **changes: Any) -> State:
        return self.model_validate({**self.model_dump(), **changes})


_TOP = {"dataset": "dataset", "split": "split", "seed": "seed", "threshold": "threshold",
        "population": "population", "rec": "recommender", "n": "n", "k": "k", "user": "user"}


def from_query(query: str | list[tuple[str, str]], defaults: State | None = None) -> State:
    """The `State` a URL query describes (see the module docstring); keys it does not give come from `defaults`.
    A ConfigError names every problem (an unknown key, a value of the wrong type, a parameter given twice)."""
    if isinstance(query, str):
        if len(query) > MAX_QUERY:
            raise ConfigError(f"the state is too long ({len(query)} characters; at most {MAX_QUERY})")
        pairs = parse_qsl(query.lstrip("?"), keep_blank_values=True)
    else:
        pairs = list(query)
    data: dict[str, Any] = defaults.model_dump() if defaults is not None else {}
    given: set[str] = set()
    measures: list[str] = []
    sides: dict[str, dict[str, Any]] = {}
    for key, value in pairs:
        if not _SAFE.match(key) or not _SAFE.match(value):
            raise ConfigError(f"{key!r}: control characters are not allowed")
        if key == "m":
            measures.append(value)
            continue
        if key in given:
            raise ConfigError(f"{key} is given twice")
        given.add(key)
        head, dot, rest = key.partition(".")
        if key in _TOP:
            field = _TOP[key]
            data[field] = None if value in ("", "none") and field in ("threshold", "user") else value
            if field == "recommender" and defaults is not None and value != defaults.recommender:
                data["recommender_params"] = {}
        elif key in ("a", "b"):
            if value in ("", "none"):
                data[key] = None
            else:
                side = sides.setdefault(key, {})
                side["reranker"] = value
        elif dot and head == "rec" and rest:
            data.setdefault("recommender_params", {})
            data["recommender_params"] = {**data["recommender_params"], rest: param_value(value)}
        elif dot and head in ("a", "b") and rest:
            sides.setdefault(head, {}).setdefault("params", {})[rest] = param_value(value)
        elif dot and head == "aspects" and rest in ("a", "b"):
            sides.setdefault(rest, {})["aspects"] = value or None
        else:
            raise ConfigError(f"unknown key {key!r} in the state (keys: {', '.join(_TOP)}, m, a, b, rec.NAME, "
                              "a.NAME, b.NAME, aspects.a, aspects.b)")
    if measures:
        data["measures"] = measures
    for name, side in sides.items():
        if "reranker" not in side:
            raise ConfigError(f"{name}.*: parameters of configuration {name.upper()} without its reranker "
                              f"({name}=NAME)")
        old = data.get(name) or {}
        keep = old.get("reranker") == side["reranker"]  # the same reranker keeps its earlier parameters
        data[name] = {"reranker": side["reranker"],
                      "params": {**(old.get("params") or {} if keep else {}), **side.get("params", {})},
                      "aspects": side.get("aspects", old.get("aspects"))}
    try:
        return State.model_validate(data, strict=False)
    except ValidationError as e:
        raise ConfigError("; ".join(error_lines(e))) from None


def to_query(state: State) -> str:
    """The URL query of `state` (`from_query(to_query(s)) == s`)."""
    pairs: list[tuple[str, str]] = [("dataset", state.dataset), ("split", state.split)]
    if state.seed:
        pairs.append(("seed", str(state.seed)))
    if state.threshold is not None:
        pairs.append(("threshold", _text(state.threshold)))
    if state.population != "relevant":
        pairs.append(("population", state.population))
    pairs.append(("rec", state.recommender))
    pairs += [(f"rec.{k}", _text(v)) for k, v in state.recommender_params.items()]
    pairs += [("n", str(state.n)), ("k", str(state.k))]
    pairs += [("m", m) for m in state.measures]
    for name, d in (("a", state.a), ("b", state.b)):
        if d is None:
            continue
        pairs.append((name, d.reranker))
        pairs += [(f"{name}.{k}", _text(v)) for k, v in d.params.items()]
        if d.aspects is not None:
            pairs.append((f"aspects.{name}", d.aspects))
    if state.user is not None:
        pairs.append(("user", state.user))
    return urlencode(pairs)


def _text(v: Scalar) -> str:
    """A parameter value as `param_value` reads it back (strings that would read as another type are quoted)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    return v if param_value(v) == v else json.dumps(v, ensure_ascii=False)
