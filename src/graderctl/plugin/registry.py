"""The grader-kind registry: which kinds exist, found through the entry-point group ``graderctl.graders``.

A :class:`KindRegistry` loads the group's entry points once, on first use, and validates every kind as it
registers (a broken plugin is recorded, not fatal to the other packages' kinds). The module-level functions
(:func:`kinds`, :func:`register`, :func:`get_kind`, :func:`broken_kinds`, :func:`kind_origin`) use the
process-wide default registry; a test can build a fresh ``KindRegistry(group=None)`` (no entry points) and
make it the default for a while with :func:`using`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint, entry_points

from pydantic import BaseModel

from graderctl.errors import PluginError
from graderctl.plugin.api import GraderKind

__all__ = [
    "ENTRY_POINT_GROUP",
    "KindRegistry",
    "broken_kinds",
    "default_registry",
    "get_kind",
    "kind_origin",
    "kinds",
    "register",
    "using",
    "validate_kind",
]

ENTRY_POINT_GROUP = "graderctl.graders"


def validate_kind(cls: object, origin: str) -> type[GraderKind]:
    """Check a kind when it registers, so a malformed plugin fails loudly and early."""
    if not (isinstance(cls, type) and issubclass(cls, GraderKind)):
        raise PluginError(f"{origin}: a grader kind must subclass graderctl.plugin.GraderKind, got {cls!r}")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise PluginError(f"{origin}: {cls.__name__} has no `name` class attribute")
    params = getattr(cls, "Params", None)
    if not (isinstance(params, type) and issubclass(params, BaseModel)):
        raise PluginError(f"{origin}: {cls.__name__}.Params must be a pydantic BaseModel")
    if cls.grade_batch is GraderKind.grade_batch:
        raise PluginError(f"{origin}: {cls.__name__} does not implement grade_batch()")
    return cls


def _distribution(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "unknown distribution"
    return f"{dist.metadata['Name'] or dist.name} {dist.version}"


class KindRegistry:
    """Grader kinds by name: those of an entry-point group (loaded once, on first use) plus any
    :meth:`register`-ed by hand. ``group=None``: no entry points (an empty registry, for tests)."""

    def __init__(self, group: str | None = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._registry: dict[str, type[GraderKind]] | None = None
        #: Where each registered kind comes from: ``"<distribution> <version>"`` for an entry point, else the
        #: ``origin`` given to :meth:`register`.
        self._origins: dict[str, str] = {}
        #: Entry points that could not be loaded, by kind name: the reason. A broken plugin does not stop the
        #: kinds of other packages from working; using the broken kind raises :class:`PluginError` with it.
        self._broken: dict[str, str] = {}
        self._lock = threading.Lock()

    def kinds(self) -> dict[str, type[GraderKind]]:
        """All registered kinds, loaded once from the entry points. An entry point that cannot be loaded
        (import error, not a valid kind, a name clash) is left out and recorded in :meth:`broken_kinds`: one
        broken plugin does not break the kinds of every other package. The mapping is the registry itself."""
        with self._lock:
            if self._registry is None:
                self._registry = self._load()
            return self._registry

    def _load(self) -> dict[str, type[GraderKind]]:
        found: dict[str, type[GraderKind]] = {}
        if self.group is None:
            return found
        for ep in entry_points(group=self.group):
            where = f"{_distribution(ep)}: entry point {ep.name} = {ep.value}"
            try:
                cls = validate_kind(ep.load(), where)
                if cls.name != ep.name:
                    raise PluginError(f"{where}: entry-point name differs from the kind's name {cls.name!r}")
            except PluginError as exc:
                self._broken[ep.name] = str(exc)
                continue
            except Exception as exc:  # whatever the plugin's import raises
                self._broken[ep.name] = f"{where}: could not be imported: {type(exc).__name__}: {exc}"
                continue
            if ep.name in self._broken or (ep.name in found and found[ep.name] is not cls):
                first = self._origins.get(ep.name, "another entry point")
                self._broken[ep.name] = (
                    f"grader kind {ep.name!r} is registered by two packages "
                    f"({first}; {_distribution(ep)}): uninstall one of them"
                )
                found.pop(ep.name, None)
                continue
            found[ep.name] = cls
            self._origins[ep.name] = _distribution(ep)
        return found

    def register(self, cls: type[GraderKind], *, origin: str = "register()") -> None:
        """Register a kind by hand (tests, notebooks). Duplicate names are rejected."""
        registry = self.kinds()
        validate_kind(cls, origin)
        if cls.name in registry and registry[cls.name] is not cls:
            raise PluginError(
                f"{origin}: grader kind {cls.name!r} is already registered by {registry[cls.name]!r}"
            )
        registry[cls.name] = cls
        self._origins.setdefault(cls.name, origin)

    def broken_kinds(self) -> dict[str, str]:
        """Entry points of the group that could not be loaded, by kind name: why."""
        self.kinds()
        return dict(self._broken)

    def kind_origin(self, name: str) -> str:
        """Where a registered kind comes from: ``"<distribution> <version>"``, or how it was registered."""
        self.kinds()
        return self._origins.get(name, "unknown")

    def get_kind(self, name: str) -> type[GraderKind]:
        registry = self.kinds()
        if name not in registry and name in self._broken:
            raise PluginError(f"grader kind {name!r} cannot be used: {self._broken[name]}")
        if name not in registry:
            known = ", ".join(sorted(registry)) or "none"
            raise PluginError(
                f"unknown grader kind {name!r}; known kinds: {known}. "
                "Fix: use one of these, or install the package that provides the kind."
            )
        return registry[name]


_default = KindRegistry()


def default_registry() -> KindRegistry:
    """The registry the module-level functions (and so the services) use."""
    return _default


@contextmanager
def using(registry: KindRegistry) -> Iterator[KindRegistry]:
    """Make ``registry`` the default for the duration of a ``with`` block (tests)."""
    global _default
    previous, _default = _default, registry
    try:
        yield registry
    finally:
        _default = previous


def kinds() -> dict[str, type[GraderKind]]:
    """The default registry's kinds (see :meth:`KindRegistry.kinds`)."""
    return _default.kinds()


def register(cls: type[GraderKind], *, origin: str = "register()") -> None:
    """Register a kind by hand in the default registry (tests, notebooks). Duplicate names are rejected."""
    _default.register(cls, origin=origin)


def broken_kinds() -> dict[str, str]:
    """Entry points of ``graderctl.graders`` that could not be loaded, by kind name: why."""
    return _default.broken_kinds()


def kind_origin(name: str) -> str:
    """Where a registered kind comes from: ``"<distribution> <version>"``, or how it was registered."""
    return _default.kind_origin(name)


def get_kind(name: str) -> type[GraderKind]:
    return _default.get_kind(name)
