"""Steps that read content: `guards.classify` (an Intent per request) and `guards.pii` (presidio).

Built-in plugin: registered through the `taskgate.plugins` entry point like any other. Importing this
package loads neither model: the steps' modules are imported when the plugin registers them, and the PII
analyzer (presidio, spaCy) when a `guards.pii` step is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from taskgate.plugins import Registry

if TYPE_CHECKING:
    from .classify import ClassifyStep
    from .intent import CLASSES, INTENT, Intent
    from .pii import PII, PiiStep, PiiVerdict

__all__ = ["CLASSES", "INTENT", "PII", "ClassifyStep", "Intent", "PiiStep", "PiiVerdict", "register"]
_HOMES = {"ClassifyStep": ".classify", "CLASSES": ".intent", "INTENT": ".intent", "Intent": ".intent",
          "PII": ".pii", "PiiStep": ".pii", "PiiVerdict": ".pii"}  # fmt: skip


def __getattr__(name: str) -> Any:
    """The package's names, each imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home, __name__), name)


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the guard steps."""
    from .classify import ClassifyStep
    from .pii import PiiStep

    registry.add_step(ClassifyStep)
    registry.add_step(PiiStep)
