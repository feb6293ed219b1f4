"""The one configuration base of recdiv's components (recommenders, rerankers, aspect spaces) and experiments.

Configs are pydantic models that reject unknown keys (``extra="forbid"``), take values of the declared type only
(``strict``: ``n = "30"`` is an error, not 30; an int is accepted where a float is declared), take finite numbers
only (NaN and ±inf are errors: ``lambda = nan`` would silently turn comparisons false) and cannot change after
construction (``frozen``). `validate_config` turns a validation error into a `ConfigError` whose message
names the key path, e.g. ``diversifiers[0].params.lambda: Input should be less than or equal to 1``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from recdiv.errors import ConfigError

__all__ = ["Config", "error_lines", "key_path", "validate_config"]


class Config(BaseModel):
    """Base of every configuration: unknown keys are errors, types are strict, instances are immutable; fields
    may be written by their alias (`lambda` for `lambda_`)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _none_as_word(cls, data: Any) -> Any:
        """A None (`--param norm=none` reads as JSON null) where a field takes the word "none" but not None is
        that word: `norm=none` and `'norm="none"'` are the same option."""
        if not isinstance(data, dict):
            return data
        for name, field in cls.model_fields.items():
            for key in {name, field.alias} - {None}:
                if key in data and data[key] is None and _takes_none_word(field.annotation):
                    data = {**data, key: "none"}
        return data


def _takes_none_word(annotation: Any) -> bool:
    """Whether a field's type accepts the string "none" and not None (a Literal of words including "none")."""
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return "none" in args
    if type(None) in args:
        return False
    return any(_takes_none_word(a) for a in args)


def key_path(loc: tuple) -> str:
    """A pydantic error location as a key path: `diversifiers[0].grid.lambda`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "tagged-union")):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out


def error_lines(error: ValidationError, prefix: str = "") -> list[str]:
    """One `key.path: problem` line per problem of a pydantic validation error, paths prefixed by `prefix`."""
    lines = []
    for err in error.errors():
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "required key is missing"
        where = key_path(err["loc"])
        where = f"{prefix}.{where}" if prefix and where else prefix or where
        lines.append(f"{where}: {msg}" if where and not msg.startswith(where) else msg)
    return lines


def validate_config(cls: type[Config], data: dict[str, Any], where: str = "", *, strict: bool | None = None,
                    what: str = "") -> Config:
    """`cls` validated from `data`; a ConfigError naming `where` and the key path of every problem.
    `strict=False` reads text values (command-line options) by the declared types."""
    try:
        return cls.model_validate(data, strict=strict)
    except ValidationError as e:
        head = f"{what}: " if what else ""
        raise ConfigError(head + "; ".join(error_lines(e, where))) from None
