"""Workflow graphs for /v1/tasks: references make edges; a diamond runs in three layers; cycles are named."""

from __future__ import annotations

from typing import Any

import pytest

from taskgate.agent.workflows import WorkflowError, parse, resolve


def model(step: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": step, "model": "m", "messages": [{"role": "user", "content": text}], **extra}


def test_a_diamond_runs_in_three_layers_with_the_two_middle_steps_together() -> None:
    workflow = parse(
        {
            "purpose": "brief me on the incident",
            "steps": [
                {"id": "fetch", "tool": "mail__read", "arguments": {"folder": "inbox"}},
                model("summary", "Summarise: ${fetch}"),
                model("risks", "List the risks in: ${fetch}"),
                model("brief", "Write a brief from ${summary} and ${risks}"),
            ],
        }
    )
    assert workflow.layers == (("fetch",), ("risks", "summary"), ("brief",))
    assert resolve({"text": "A ${fetch} B"}, {"fetch": "mail"}) == {"text": "A mail B"}


@pytest.mark.parametrize(
    ("steps", "message", "named"),
    [
        ([model("a", "${b}"), model("b", "${a}")], "steps form a cycle: a -> b -> a", ["a", "b"]),
        ([model("a", "x", after=["c"]), model("b", "${a}"), model("c", "${b}")], "cycle", ["a", "b", "c"]),
        ([model("a", "${nope}")], "step 'a' refers to 'nope', which no step defines", ["a"]),
        ([model("a", "${a}")], "refers to its own output", ["a"]),
        ([model("a", "x"), model("a", "y")], "two steps have the id 'a'", ["a"]),
    ],
)
def test_bad_graphs_are_refused_naming_the_steps(steps: list[dict[str, Any]], message: str, named: list[str]) -> None:
    with pytest.raises(WorkflowError) as caught:
        parse({"purpose": "p", "steps": steps})
    assert message in caught.value.message
    assert sorted(caught.value.steps) == sorted(named)


def test_malformed_steps_name_the_field() -> None:
    with pytest.raises(WorkflowError, match=r"steps\[0\]: .*model call .* or a tool call"):
        parse({"purpose": "p", "steps": [{"id": "a", "model": "m", "tool": "x__y", "messages": [{}]}]})
    with pytest.raises(WorkflowError, match="purpose"):
        parse({"steps": [model("a", "x")]})
