"""The SDK is the whole contract: built-in step rooms use only what a third-party plugin can."""

from __future__ import annotations

import ast
from pathlib import Path

from taskgate import testing
from taskgate.plugins import Step

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("authz", "guards", "routing")
SHARED = ("taskgate.plugins", "taskgate.errors")  # the SDK, and the base exception below every room


def imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def foreign(name: str, room: str) -> bool:
    """Part of taskgate outside the SDK and the room itself: the engine, the proxy, another room."""
    ours = name == "taskgate" or name.startswith("taskgate.")
    return ours and not any(
        name == allowed or name.startswith(f"{allowed}.") for allowed in (*SHARED, f"taskgate.{room}")
    )


def test_step_rooms_import_of_taskgate_only_the_sdk_and_themselves() -> None:
    wrong = {
        f"{path.relative_to(ROOT)}: {name}"
        for room in ROOMS
        for path in sorted((ROOT / room).glob("*.py"))
        for name in imported(path)
        if foreign(name, room)
    }
    assert wrong == set(), "step rooms reach taskgate through taskgate.plugins only"


def test_built_in_steps_override_no_private_method_of_step() -> None:
    plugins = testing.registry()
    private = {name for name in vars(Step) if name.startswith("_") and not name.startswith("__")}
    overrides = {
        f"{cls.__qualname__}.{name}"
        for type_name, cls in plugins.steps.items()
        if plugins.origin(type_name) in ROOMS
        for name in set(vars(cls)) & private
    }
    assert overrides == set(), "use the public hooks (declare, when) instead"
