"""The rooms' layering is a checked contract: lint-imports (run by `make test`) refuses an import against it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import taskgate

ROOT = Path(__file__).resolve().parent.parent
LINT = str(Path(sys.executable).with_name("lint-imports"))


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([LINT, "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the installed package (the rooms' symlinks followed) beside the project's contracts."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(Path(taskgate.__file__).parent, root / "taskgate", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_package_as_it_is_keeps_every_contract(tree: Path) -> None:
    result = lint(tree)
    assert result.returncode == 0, result.stdout
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("routing/_extra.py", "import taskgate.authz", "taskgate.routing is not allowed to import taskgate.authz"),
        ("guards/_extra.py", "import taskgate.proxy.app", "taskgate.guards is not allowed to import taskgate.proxy"),
        ("agent/_extra.py", "import taskgate.proxy.app", "taskgate.agent is not allowed to import taskgate.proxy"),
        # the front door above the surfaces, the surfaces independent of each other and above the gateway
        ("llm/_extra.py", "import taskgate.proxy.app", "taskgate.llm is not allowed to import taskgate.proxy"),
        (
            "mcp_gateway/_extra.py",
            "import taskgate.llm.routes",
            "taskgate.mcp_gateway is not allowed to import taskgate.llm",
        ),
        (
            "llm/_extra.py",
            "import taskgate.mcp_gateway.forward",
            "taskgate.llm is not allowed to import taskgate.mcp_gateway",
        ),
        ("dashboard/_extra.py", "import taskgate.llm", "taskgate.dashboard is not allowed to import taskgate.llm"),
        ("gateway/_extra.py", "import taskgate.llm.relay", "taskgate.gateway is not allowed to import taskgate.llm"),
        (
            "gateway/_extra.py",
            "import taskgate.dashboard",
            "taskgate.gateway is not allowed to import taskgate.dashboard",
        ),
        # the gateway above agent and batch, and above the step rooms
        ("agent/_extra.py", "import taskgate.gateway.send", "taskgate.agent is not allowed to import taskgate.gateway"),
        (
            "batch/_extra.py",
            "import taskgate.gateway.decide",
            "taskgate.batch is not allowed to import taskgate.gateway",
        ),
        (
            "authz/_extra.py",
            "import taskgate.gateway.answer",
            "taskgate.authz is not allowed to import taskgate.gateway",
        ),
        ("dag/_extra.py", "import taskgate.plugins", "taskgate.dag is not allowed to import taskgate.plugins"),
    ],
)
def test_an_import_against_the_layers_breaks_the_contract(tree: Path, module: str, line: str, broken: str) -> None:
    extra = tree / "taskgate" / module
    extra.write_text(line + "\n")
    try:
        result = lint(tree)
    finally:
        extra.unlink()
    assert result.returncode == 1, result.stdout
    assert broken in result.stdout
