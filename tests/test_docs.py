"""Every built-in and example step type is documented."""

from __future__ import annotations

from pathlib import Path

from taskgate.plugins import Registry

ROOT = Path(__file__).resolve().parents[1]


def test_every_registered_step_type_has_a_docs_page(registry: Registry) -> None:
    undocumented = [
        name
        for name in registry.steps
        if registry.origin(name) in {"routing", "guards", "authz"}
        and not (ROOT / "docs" / "steps" / f"{name}.md").exists()
    ]
    assert undocumented == [], f"add docs/steps/<type>.md for: {undocumented}"


def test_the_readme_opens_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```bash", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.strip().splitlines()] == ["make demo", "make test"]
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("exec make test")


def test_every_name_the_sdk_and_its_test_helpers_export_is_in_the_plugin_guide() -> None:
    from taskgate import plugins, testing

    guide = (ROOT / "docs" / "plugins.md").read_text()
    missing = [name for name in (*plugins.__all__, *testing.__all__) if f"`{name}" not in guide]
    assert missing == [], f"document these in docs/plugins.md: {missing}"
