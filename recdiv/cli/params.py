"""`--param NAME=VALUE` options of `recommend` and `rerank`: one reading of values for both commands."""

from __future__ import annotations

import json
from typing import Any

from recdiv.errors import ConfigError


def param_value(text: str) -> Any:
    """A value as JSON when it is JSON (50, 0.5, true, null, [1, 2]); else true/false/none/null in any case;
    else the text itself (``minmax``). The component's typed config then checks it."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    low = text.lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    return text


def parse_param(text: str) -> tuple[str, Any]:
    """`k=v` -> (k, value) (see `param_value`)."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"bad --param {text!r}: expected NAME=VALUE")
    return key.strip(), param_value(raw.strip())


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """{name: value} of repeated `--param NAME=VALUE` options; a name given twice is an error."""
    out: dict[str, Any] = {}
    for text in pairs:
        key, value = parse_param(text)
        if key in out:
            raise ConfigError(f"--param {key} is given twice")
        out[key] = value
    return out
