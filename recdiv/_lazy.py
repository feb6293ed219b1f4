"""Lazy package attributes (PEP 562), so that importing a package costs nothing until a name is used."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for a package whose public `name` lives in module `exports[name]`
    (`"module"` or `"module:attribute"` when the attribute is named differently)."""

    def __getattr__(name: str) -> object:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr or name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
