"""Derived keys: one step's value feeds consumers of several keys."""

from __future__ import annotations

import pytest

from taskgate.dag import Execution, Failure, Outcome, PlanError, StepFailed, compile_plan, execute

from .helpers import echo, failing, sleeper, with_spec


def first_letter(value: object) -> object:
    text = str(value)
    return text[0] if text != "none" else None


async def test_a_derived_key_is_the_projection_of_the_value_and_wakes_its_consumers() -> None:
    source = with_spec(sleeper("source", 0.0, "word"), derives={"letter": first_letter})
    plan = compile_plan("p", [source, echo("reader", ("letter",), "seen")], outputs=["seen"])
    values = await execute(plan, {})
    assert values["word"] == "source"
    assert values["seen"] == {"letter": "s"}


async def test_a_projection_of_none_leaves_the_key_absent_so_optional_readers_run_without_it() -> None:
    source = with_spec(sleeper("none", 0.0, "word"), derives={"letter": first_letter})
    reader = with_spec(echo("reader", (), "seen"), optional=("letter",))
    values = await execute(compile_plan("p", [source, reader]), {})
    assert "letter" not in values
    assert values["seen"] == {}


async def test_failing_open_derives_from_the_fallback_and_optional_failure_leaves_everything_absent() -> None:
    open_ = with_spec(
        failing("s", provides="word"), failure=Failure.OPEN, fallback="xyz", derives={"letter": first_letter}
    )
    values = await execute(compile_plan("p", [open_]), {})
    assert values == {"word": "xyz", "letter": "x"}
    gone = with_spec(failing("s", provides="word"), failure=Failure.OPTIONAL, derives={"letter": first_letter})
    reader = with_spec(echo("reader", (), "seen"), optional=("letter",))
    values = await execute(compile_plan("p", [gone, reader]), {})
    assert values == {"seen": {}}


def test_a_derived_key_collides_like_a_provided_one_and_counts_as_a_provider() -> None:
    a = with_spec(sleeper("a", 0.0, "word"), derives={"letter": first_letter})
    with pytest.raises(PlanError, match="'a' and 'b' both provide 'letter'"):
        compile_plan("p", [a, sleeper("b", 0.0, "letter")])
    plan = compile_plan("p", [a, echo("reader", ("letter",))], outputs=["letter"])
    assert any("-> word, letter" in line for line in plan.describe())


async def test_a_projection_that_raises_fails_the_run_closed_whatever_the_policy() -> None:
    def broken(value: object) -> object:
        raise KeyError("region")

    source = with_spec(sleeper("s", 0.0, "word"), failure=Failure.OPEN, derives={"letter": broken})
    run = Execution(compile_plan("p", [source, echo("reader", ("letter",))]), {})
    with pytest.raises(StepFailed) as caught:
        await run.run()
    assert caught.value.step == "s"
    assert {r.name: r.outcome for r in run.records}["reader"] is Outcome.CANCELLED
