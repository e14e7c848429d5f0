"""Plans are checked once, at compile time, and errors name the steps."""

from __future__ import annotations

import pytest

from taskgate.dag import PlanError, compile_plan

from .helpers import echo, sleeper


def test_cycle_is_rejected_naming_every_step_in_it() -> None:
    steps = [echo("a", ("kc",), "ka"), echo("b", ("ka",), "kb"), echo("c", ("kb",), "kc")]
    with pytest.raises(PlanError, match="cycle") as info:
        compile_plan("p", steps)
    assert set(info.value.steps) == {"a", "b", "c"}
    rotations = ("a -> b -> c -> a", "b -> c -> a -> b", "c -> a -> b -> c")
    assert any(f"steps form a cycle: {loop}" in str(info.value) for loop in rotations), str(info.value)


def test_missing_provider_names_the_step_and_the_key() -> None:
    with pytest.raises(PlanError, match=r"step 'route' requires 'intent', but no step provides it") as info:
        compile_plan("p", [echo("route", ("intent",), "placement")], seeds=["request"])
    assert info.value.steps == ("route",)


def test_duplicate_provider_names_both_steps() -> None:
    with pytest.raises(PlanError, match=r"steps 'one' and 'two' both provide 'x'") as info:
        compile_plan("p", [sleeper("one", 0, "x"), sleeper("two", 0, "x")])
    assert info.value.steps == ("one", "two")


def test_duplicate_step_names_are_rejected() -> None:
    with pytest.raises(PlanError, match="two steps are named 'a'"):
        compile_plan("p", [sleeper("a", 0, "x"), sleeper("a", 0, "y")])


def test_a_step_may_not_overwrite_a_seed() -> None:
    with pytest.raises(PlanError, match="request already provides"):
        compile_plan("p", [sleeper("a", 0, "request")], seeds=["request"])


def test_required_surface_output_must_have_a_provider() -> None:
    with pytest.raises(PlanError, match="no step provides 'placement'"):
        compile_plan("p", [sleeper("a", 0, "x")], outputs=["placement"])


def test_optional_input_without_provider_is_allowed() -> None:
    plan = compile_plan("p", [echo("a", ("request",), "x", optional=("nobody",))], seeds=["request"])
    assert plan.order == ("a",)


def test_generations_group_independent_steps() -> None:
    steps = [sleeper("a", 0, "ka"), sleeper("b", 0, "kb"), echo("c", ("ka", "kb"), "kc")]
    plan = compile_plan("p", steps)
    assert plan.generations == (("a", "b"), ("c",))
    assert any("c: ka, kb -> kc" in line for line in plan.describe())
