"""Lazy package attributes (PEP 562), so that importing a package costs nothing until a name is used."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable


class _Facade(types.ModuleType):
    """A package whose exported names stay its exports: importing a submodule of the same name (the function
    `recdiv.eval.evaluate` lives in the module `recdiv.eval.evaluate`) does not bind the submodule over the
    export, so `recdiv.eval.evaluate` is the function whatever was imported before. The submodule is still
    imported as usual (`from recdiv.eval.evaluate import Evaluation`)."""

    _lazy_exports: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: object) -> None:
        if name in self._lazy_exports and isinstance(value, types.ModuleType) and \
                value.__name__ == f"{self.__name__}.{name}":
            return  # the import system binding a submodule: the export keeps the name
        super().__setattr__(name, value)


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for a package whose public `name` lives in module `exports[name]`
    (`"module"` or `"module:attribute"` when the attribute is named differently); the package becomes a
    `_Facade`, so that an export keeps its name when a submodule of that name is imported."""
    module = sys.modules[package]
    module.__class__ = _Facade
    module._lazy_exports = frozenset(exports)

    def __getattr__(name: str) -> object:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        source, _, attr = target.partition(":")
        return getattr(importlib.import_module(source), attr or name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
