"""Steps that read content: `guards.classify` (an Intent per request) and `guards.pii` (presidio).

Built-in plugin: registered through the `taskgate.plugins` entry point like any other.
"""

from taskgate.plugins import Registry

from .classify import ClassifyStep
from .intent import CLASSES, INTENT, Intent
from .pii import PII, PiiStep, PiiVerdict

__all__ = ["CLASSES", "INTENT", "PII", "ClassifyStep", "Intent", "PiiStep", "PiiVerdict", "register"]


def register(registry: Registry) -> None:
    """Built-in plugin entry point: the guard steps."""
    registry.add_step(ClassifyStep)
    registry.add_step(PiiStep)
