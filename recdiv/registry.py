"""One registry helper for every kind of component: recommenders, rerankers, measures, aspect spaces,
item similarities, significance tests and corrections.

One spelling rule everywhere (the command line, experiment files and Python): a component has a canonical name
and aliases, and lookups ignore case and punctuation, so that ``IA-Select``, ``ia-select``, ``iaselect`` and
``IASelect`` name the same reranker. An unknown name is a `ConfigError` with a did-you-mean suggestion.

Every built-in component of every kind is registered the same way: by name, aliases and ``module:attribute``
(`Registry.defer`), one row in its kind's registry module (`recdiv.algorithms.registry`,
`recdiv.diversifiers.registry`, `recdiv.eval.catalog`, `recdiv.data.datasets`); its module is imported on the first
lookup of that name, so that listing the names (`--help`) imports none of the components. An alias of another tool
may fix some parameters (`Registry.alias`); it is deferred with its target.

Beyond the built-ins, a lookup accepts ``module:attribute`` (e.g. ``mypkg.rerankers:MyReranker``, imported on
use) and the components that installed packages declare under the registry's entry-point group (e.g.
``[project.entry-points."recdiv.rerankers"] mine = "mypkg.rerankers:MyReranker"``). A ``module:attribute`` is
imported with the working folder on the path (first, as ``python -m`` and ``uvicorn app:app`` do), so that
``recdiv rerank … --method mymod:MyReranker`` works from the folder that holds ``mymod.py`` although the `recdiv`
console script itself does not search that folder (`load_plugin`).

A component declares its capabilities in a class attribute ``CAPABILITIES`` (e.g. a recommender that provides
item factors: ``CAPABILITIES = ("item-factors",)``), so that other layers ask the registry what a component can
do instead of keeping lists of names.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from recdiv.errors import ConfigError

T = TypeVar("T")

__all__ = ["Entry", "Registry", "load_object", "load_plugin", "normalise", "source_fingerprint"]


def entry_points(group: str):
    """The installed entry points of `group` (importlib.metadata, imported when plugins are first looked for)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


def normalise(name: str) -> str:
    """The lookup key of a name: lower case, letters and digits only (``IA-Select`` → ``iaselect``)."""
    return re.sub(r"[^0-9a-z]+", "", str(name).casefold())


def load_object(spec: str, what: str = "component") -> Any:
    """The object named by ``module:attribute`` (attribute may be dotted); ConfigError if it cannot be loaded."""
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"{spec!r} is not of the form module:attribute")
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as e:
        raise ConfigError(f"cannot import {what} {spec!r}: {_import_problem(module, e)}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"cannot import {what} {spec!r}: {module} has no attribute {attr!r}") from None
    return obj


def load_plugin(spec: str, what: str = "component") -> Any:
    """The object a user names by ``module:attribute``, imported with the working folder on the path (see the
    module docstring): the folder is put first on `sys.path` if no entry of it names it already, and stays there,
    so that the plugin's own later imports of its neighbours work too."""
    import os

    cwd = os.getcwd()
    if cwd not in {os.path.abspath(p or os.curdir) for p in sys.path}:
        sys.path.insert(0, cwd)
    return load_object(spec, what)


def _import_problem(module: str, error: ImportError) -> str:
    """What went wrong importing `module`, and the fix when the module (or its package) is really missing."""
    import os

    top = module.split(".")[0]
    missing = getattr(error, "name", None)
    target_missing = missing in (top, module) or module.startswith(f"{missing}.")
    if not isinstance(error, ModuleNotFoundError) or not target_missing:
        return f"{type(error).__name__}: {error}"  # the module exists but fails, or a module it imports is missing
    return (f"no module {missing!r} in the working folder ({os.getcwd()}) or on the path: run the command from "
            f"the folder that holds {top}.py or {top}/, add that folder to PYTHONPATH, or install the package "
            f"that holds it (pip install -e FOLDER)")


@dataclass(frozen=True)
class Entry(Generic[T]):
    """A registered component: canonical name, the object, aliases, capabilities and, for aliases that fix some
    parameters (e.g. a measure spelled by another tool), the preset parameters."""

    name: str
    obj: T
    aliases: tuple[str, ...] = ()
    capabilities: frozenset[str] = frozenset()
    preset: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Deferred:
    """A component known by name, aliases and ``module:attribute`` before it is imported (`Registry.defer`); with
    `preset`, an alias of it that fixes some parameters (`Registry.alias`)."""

    name: str
    spec: str
    aliases: tuple[str, ...] = ()
    preset: dict[str, Any] = field(default_factory=dict)


class Registry(Generic[T]):
    """Components of one kind by name (see the module docstring).

    kind: what the components are, for messages ("reranker"); group: the entry-point group ("recdiv.rerankers");
    base: if given, objects loaded from ``module:attribute`` or entry points must be subclasses of it (a class, or
    its ``module:attribute``, imported when first needed).
    """

    def __init__(self, kind: str, *, group: str | None = None, base: type | str | None = None):
        self.kind = kind
        self.group = group
        self._base = base
        self._entries: dict[str, Entry[T] | _Deferred] = {}  # canonical name -> entry (or its deferred form)
        self._keys: dict[str, Entry[T] | _Deferred] = {}  # normalised name or alias -> entry

        self._plugins_loaded = group is None

    # registering -------------------------------------------------------------------------------------------
    def add(self, name: str, obj: T, *, aliases: Iterable[str] = (), capabilities: Iterable[str] = ()) -> T:
        """Register `obj` under the canonical `name` and its aliases; capabilities add to `obj.CAPABILITIES`."""
        entry = Entry(name, obj, tuple(aliases), frozenset(capabilities) | _capabilities(obj))
        for spelling in (name, *entry.aliases):
            self._claim(spelling, entry)
        self._entries[name] = entry
        return obj

    def defer(self, name: str, spec: str, *, aliases: Iterable[str] = ()) -> None:
        """Register the component ``spec`` (``module:attribute``) under `name` and its aliases without importing it:
        the first lookup of one of these names imports it (its capabilities are then read from the object)."""
        deferred = _Deferred(name, spec, tuple(aliases))
        for spelling in (name, *deferred.aliases):
            self._claim(spelling, deferred)
        self._entries[name] = deferred

    def _resolve(self, found: Entry[T] | _Deferred) -> Entry[T]:
        """The entry of a registered component, importing it if it was deferred."""
        if not isinstance(found, _Deferred):
            return found
        entry = self._entries[found.name]
        if isinstance(entry, _Deferred):
            obj = load_object(entry.spec, self.kind)
            entry = Entry(entry.name, obj, entry.aliases, _capabilities(obj))
            for spelling in (entry.name, *entry.aliases):
                self._keys[normalise(spelling)] = entry
            self._entries[entry.name] = entry
        if found.preset:  # an alias that fixes parameters
            entry = Entry(entry.name, entry.obj, entry.aliases, entry.capabilities, dict(found.preset))
        return entry

    @property
    def base(self) -> type | None:
        if isinstance(self._base, str):
            self._base = load_object(self._base, self.kind)
        return self._base

    def register(self, name: str | None = None, *, aliases: Iterable[str] = (),
                 capabilities: Iterable[str] = ()) -> Callable[[T], T]:
        """Class decorator: `@REGISTRY.register("MMR", aliases=(...))`; the name defaults to `obj.NAME`."""

        def deco(obj: T) -> T:
            return self.add(name or obj.NAME, obj, aliases=aliases, capabilities=capabilities)  # type: ignore[attr-defined]

        return deco

    def alias(self, alias: str, target: str, **preset: Any) -> None:
        """Another spelling of `target`, optionally with fixed parameters (`preset`); a deferred target stays
        deferred."""
        found = self._keys.get(normalise(target))
        if found is None:
            raise ConfigError(self.unknown(target))
        if isinstance(found, _Deferred):
            self._claim(alias, _Deferred(found.name, found.spec, found.aliases, {**found.preset, **preset}))
        else:
            self._claim(alias, Entry(found.name, found.obj, found.aliases, found.capabilities,
                                     {**found.preset, **preset}))

    def _claim(self, spelling: str, entry: Entry[T] | _Deferred) -> None:
        key = normalise(spelling)
        if not key:
            raise ValueError(f"{self.kind} name {spelling!r} has no letters or digits")
        old = self._keys.get(key)
        if old is not None and old is not entry and (
                type(old) is not type(entry) or old.preset != entry.preset
                or (old.spec != entry.spec if isinstance(old, _Deferred) else old.obj is not entry.obj)):
            raise ValueError(f"{self.kind} name {spelling!r} is taken by {old.name!r}")
        self._keys[key] = entry

    # looking up --------------------------------------------------------------------------------------------
    def entry(self, name: str) -> Entry[T]:
        """The entry of `name` (canonical name, alias, ``module:attribute`` or entry point); ConfigError naming
        the closest known names when there is none."""
        if isinstance(name, str) and ":" in name:
            return self._from_spec(name)
        key = normalise(name)
        hit = self._keys.get(key)
        if hit is None and not self._plugins_loaded:
            self._load_plugins()
            hit = self._keys.get(key)
        if hit is None:
            raise ConfigError(self.unknown(name))
        return self._resolve(hit)

    def get(self, name: str) -> T:
        """The component named `name` (see `entry`)."""
        return self.entry(name).obj

    def canonical(self, name: str) -> str:
        return self.entry(name).name

    def __contains__(self, name: object) -> bool:
        try:
            self.entry(str(name))
        except ConfigError:
            return False
        return True

    def unknown(self, name: str) -> str:
        """The message for an unknown name: did-you-mean (closest spellings), else the known names."""
        key = normalise(name)
        import difflib

        close = difflib.get_close_matches(key, list(self._keys), n=3, cutoff=0.6)
        names = list(dict.fromkeys(self._keys[k].name for k in close))
        if names:
            quoted = [repr(n) for n in names]
            alternatives = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
            return f"unknown {self.kind} {name!r} (did you mean {alternatives}?)"
        return f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}"

    def _from_spec(self, spec: str) -> Entry[T]:
        obj = load_plugin(spec, self.kind)
        if self.base is not None and not (isinstance(obj, type) and issubclass(obj, self.base)):
            raise ConfigError(f"{spec!r} is not a {self.kind} (a subclass of {self.base.__name__})")
        return Entry(spec, obj, capabilities=_capabilities(obj))

    def _load_plugins(self) -> None:
        """Register the components installed packages declare under the entry-point group (once)."""
        self._plugins_loaded = True
        for ep in entry_points(group=self.group):
            if normalise(ep.name) in self._keys:
                continue  # a built-in name wins
            self.add(ep.name, self._from_spec(ep.value).obj)

    # listing -----------------------------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Canonical names in registration order (built-ins, then installed plugins)."""
        if not self._plugins_loaded:
            self._load_plugins()
        return list(self._entries)

    def entries(self) -> list[Entry[T]]:
        """Every entry (deferred components are imported)."""
        self.names()
        return [self._resolve(e) for e in list(self._entries.values())]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __len__(self) -> int:
        return len(self.names())

    def has(self, name: str, capability: str) -> bool:
        """Whether the component `name` declares `capability`."""
        return capability in self.entry(name).capabilities

    def with_capability(self, capability: str) -> list[str]:
        return [e.name for e in self.entries() if capability in e.capabilities]


def _capabilities(obj: Any) -> frozenset[str]:
    return frozenset(getattr(obj, "CAPABILITIES", ()))


def source_fingerprint(obj: Any) -> str:
    """sha256 (16 hex digits) of the source of the modules that define `obj`'s class and its base classes (for a
    function, its module): experiment cache keys include it, so that a changed component is recomputed on
    `--resume`. Helper modules a component calls are not included; built-in modules (abc, builtins) are skipped."""
    classes = obj.__mro__ if isinstance(obj, type) else (obj,)
    import hashlib
    import inspect

    h = hashlib.sha256()
    seen: set[str] = set()
    for c in classes:
        module = sys.modules.get(getattr(c, "__module__", "") or "")
        path = getattr(module, "__file__", None)
        if module is None or path is None or path in seen or module.__name__ in ("abc", "builtins"):
            continue
        seen.add(path)
        try:
            h.update(inspect.getsource(module).encode("utf-8"))
        except (OSError, TypeError):  # no source (compiled module): its file's bytes
            try:
                with open(path, "rb") as fh:
                    h.update(fh.read())
            except OSError:
                h.update(path.encode("utf-8"))
    return h.hexdigest()[:16]
