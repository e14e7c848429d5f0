"""Find plugins through the `taskgate.plugins` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from taskgate.dag.errors import describe

from .errors import PluginError
from .registry import Registry

GROUP = "taskgate.plugins"
"""Entry-point group; each entry names a `register(registry)` callable."""

Register = Callable[[Registry], None]


def load_plugins(registry: Registry, group: str = GROUP) -> list[str]:
    """Load every plugin in the group, built-ins first; return their names."""
    found = sorted(entry_points(group=group), key=_order)
    for entry in found:
        register = _load(entry)
        with registry.loading(entry.name):
            try:
                register(registry)
            except PluginError:
                raise
            except Exception as exc:
                raise PluginError(f"plugin {entry.name!r} ({entry.value}) failed to register: {describe(exc)}") from exc
    return [entry.name for entry in found]


def _order(entry: EntryPoint) -> tuple[int, str]:
    builtin = entry.value.startswith("taskgate.")
    return (0 if builtin else 1, entry.name)


def _load(entry: EntryPoint) -> Register:
    try:
        target = entry.load()
    except Exception as exc:
        raise PluginError(f"plugin {entry.name!r} ({entry.value}) failed to import: {describe(exc)}") from exc
    if not callable(target):
        raise PluginError(f"plugin {entry.name!r} ({entry.value}) is not callable; point it at register(registry)")
    return target  # type: ignore[no-any-return]
