"""The registry refuses malformed plugins with their names in the error."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from taskgate.plugins import Inputs, Params, PluginError, Registry, Services, Step, StepOptions, StepSpec
from taskgate.plugins.errors import ParamsError


class Good(Step[Params]):
    type = "test.good"
    provides = "good"

    async def run(self, inputs: Inputs) -> Any:
        return 1


def test_a_step_type_cannot_be_registered_twice_and_both_plugins_are_named() -> None:
    registry = Registry()
    with registry.loading("first"):
        registry.add_step(Good)
    with (
        registry.loading("second"),
        pytest.raises(
            PluginError, match=r"plugin 'second' registers step type 'test.good', already registered by 'first'"
        ),
    ):
        registry.add_step(Good)


def test_a_step_without_a_type_name_is_refused() -> None:
    class Nameless(Good):
        type = "Bad Name"

    registry = Registry()
    with registry.loading("p"), pytest.raises(PluginError, match=r"plugin 'p': step class .*Nameless needs a `type`"):
        registry.add_step(Nameless)


def test_a_cpu_bound_step_must_implement_run_blocking() -> None:
    class Heavy(Good):
        type = "test.heavy"
        cpu_bound = True

    with pytest.raises(PluginError, match="must implement run_blocking"):
        Registry().add_step(Heavy)


def test_something_that_is_not_a_step_is_refused() -> None:
    with pytest.raises(PluginError, match=r"not a taskgate\.plugins\.Step subclass"):
        Registry().add_step(dict)  # type: ignore[arg-type]


def test_params_are_validated_once_strictly_with_the_key_path() -> None:
    class Typed(Params):
        limit: int

    class WithParams(Good):
        type = "test.params"
        Params = Typed

    registry = Registry()
    registry.add_step(WithParams)
    with pytest.raises(ParamsError) as info:
        registry.build("x", "test.params", {"limit": 1, "limt": 2}, Services(), StepOptions())
    assert info.value.path == "params.limt"
    step = registry.build("x", "test.params", {"limit": 3}, Services(), StepOptions(timeout=0.5))
    assert step.params.limit == 3
    assert step.spec.timeout == 0.5


def test_a_plugin_whose_register_raises_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    from taskgate.plugins import discovery

    broken = EntryPoint("broken", "tests.plugins.broken_plugin:register", discovery.GROUP)
    monkeypatch.setattr(discovery, "entry_points", lambda group: [broken])
    with pytest.raises(
        PluginError, match=r"plugin 'broken' \(tests.plugins.broken_plugin:register\) failed to register"
    ):
        discovery.load_plugins(Registry())


def test_a_plugin_that_does_not_import_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    from taskgate.plugins import discovery

    missing = EntryPoint("ghost", "tests.plugins.no_such_module:register", discovery.GROUP)
    monkeypatch.setattr(discovery, "entry_points", lambda group: [missing])
    with pytest.raises(PluginError, match=r"plugin 'ghost' .* failed to import: ModuleNotFoundError"):
        discovery.load_plugins(Registry())


def test_declare_lets_parameters_change_an_instance_and_config_options_are_on_it() -> None:
    class Waits(Params):
        for_key: str | None = None
        budget_s: float = 2.0

    class Declares(Step[Waits]):
        type = "test.declares"
        provides = "declared"
        Params = Waits

        async def run(self, inputs: Inputs) -> Any:
            return 1

        def declare(self, spec: StepSpec) -> StepSpec:
            if self.params.for_key is not None:
                spec = replace(spec, optional=(*spec.optional, self.params.for_key))
            if self.options.timeout is None:
                spec = replace(spec, timeout=self.params.budget_s + 1.0)
            return spec

    registry = Registry()
    registry.add_step(Declares)
    plain = registry.build("a", "test.declares", {}, Services(), StepOptions())
    waiting = registry.build("b", "test.declares", {"for_key": "pii"}, Services(), StepOptions(timeout=0.5))
    assert (plain.spec.optional, plain.spec.timeout) == ((), 3.0)
    assert (waiting.spec.optional, waiting.spec.timeout) == (("pii",), 0.5)
    assert waiting.options == StepOptions(timeout=0.5)
