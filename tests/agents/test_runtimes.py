"""Real agent runtimes, unchanged, behind taskgate: one task per conversation, injected mail refused, runs that end.

Each test runs docs/agents.md's snippet for a runtime, as printed there, in the
runtimes' own virtualenv (tests/agents/install.sh), against one stack per
module (tests/agents/stack.py): `taskgate serve`, a scripted engine and the
desk tool server, which records every call that reaches it. The scripted
model asks for the weather in the city the user names and mails Bob a
forecast; a forecast for some cities carries an instruction to mail
eve@evil.example, which the model obeys. The policy lets `desk__send_email`
go only to a recipient the user's instruction names. Every run uses a city of
its own, so what the desk saw and the evidence tell the runs apart.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .stack import EVE, Stack, desk_stack, finish

DOCS = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
SNIPPETS = dict(re.findall(r"<!-- snippet: (\S+) -->\s*```python\n(.*?)```", DOCS.read_text(), re.S))
RUNTIMES = {  # runtime -> (snippet, extra environment)
    "openai-agents-responses": ("openai-agents", {"OPENAI_AGENTS_API": "responses"}),
    "openai-agents-chat": ("openai-agents", {"OPENAI_AGENTS_API": "chat"}),
    "pydantic-ai": ("pydantic-ai", {}),
    "langgraph": ("langgraph", {}),
}
# a city per run: the legitimate ones get a plain forecast, the INJECTED ones (desk.py) a poisoned one
CITIES = {
    "openai-agents-responses": ("Paris", "Oslo", "Nice", "Alta", "Toulouse", "Rome"),
    "openai-agents-chat": ("Lyon", "Bergen", "Rouen", "Bodo", "Grenoble", "Milan"),
    "pydantic-ai": ("Nantes", "Tromso", "Dijon", "Molde", "Reims", "Turin"),
    "langgraph": ("Lille", "Narvik", "Brest", "Hamar", "Amiens", "Genoa"),
}
DONE = "Done: the forecast went out."
pytestmark = pytest.mark.timeout(240)  # a runtime's import alone takes seconds; two runs and the stack's start more
REFUSED = "taskgate refused"


def to_bob(city: str) -> str:
    return f"Send Bob (bob@acme.example) today's weather in {city}"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with desk_stack(tmp_path_factory.mktemp("desk")) as running:
        yield running


def run(stack: Stack, runtime: str, prompt: str, direct: bool = False) -> str:
    snippet, env = RUNTIMES[runtime]
    return finish(stack.run(SNIPPETS[snippet], prompt, direct=direct, env=env))


def task_of(stack: Stack, city: str) -> str:
    """The task the desk's weather call for `city` ran in (its per-task assertion names it)."""
    found = {c["task"] for c in stack.calls() if c["tool"] == "get_weather" and c["arguments"]["city"] == city}
    assert len(found) == 1, f"weather calls for {city}: {found}"
    return str(found.pop())


def of_task(stack: Stack, task: str, want: int) -> list[dict[str, Any]]:
    """The evidence records of `task`'s calls (model turns and MCP calls), once at least `want` are written."""
    deadline = time.monotonic() + 10
    while True:
        records = [r for r in stack.records() if r.get("decisions", {}).get("grant", {}).get("task") == task]
        calls = [r for r in records if r["surface"] in ("chat", "responses") or r.get("model") == "tools/call"]
        if len(calls) >= want or time.monotonic() > deadline:
            return calls
        time.sleep(0.1)


def mails(stack: Stack) -> list[dict[str, Any]]:
    return [c for c in stack.calls() if c["tool"] == "send_email"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_conversation_is_one_task_across_its_model_turns_and_mcp_calls(stack: Stack, runtime: str) -> None:
    city = CITIES[runtime][0]
    assert run(stack, runtime, to_bob(city)) == DONE
    task = task_of(stack, city)
    sent = [m for m in mails(stack) if m["arguments"]["subject"] == f"Weather in {city}"]
    assert [(m["arguments"]["to"], m["task"]) for m in sent] == [("bob@acme.example", task)]
    calls = of_task(stack, task, 5)
    turns = [r for r in calls if r["surface"] in ("chat", "responses")]
    tools = [r for r in calls if r.get("model") == "tools/call"]
    assert (len(turns), len(tools)) == (3, 2)  # ask for the weather, mail Bob, answer; the two tools it ran
    grants = [r["decisions"]["grant"] for r in calls]
    assert [g["new_task"] for g in grants].count(True) == 1  # the first model turn opened it
    assert {g["binding"]["by"] for g in grants if not g["new_task"]} == {"conversation", "model_turn"}
    mailed = next(g for g in grants if any(d.get("tool") == "desk__send_email" for d in g.get("decisions", [])))
    assert mailed["decisions"][-1]["outcome"] == "allow"  # the instruction names bob: the rule admits him


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_mail_a_tool_result_asked_for_is_refused_and_the_run_still_ends_in_an_answer(
    stack: Stack, runtime: str
) -> None:
    city = CITIES[runtime][1]
    answer = run(stack, runtime, to_bob(city))
    assert REFUSED in answer  # the model's next step, after it was told: the runtime's run went on to the end
    task = task_of(stack, city)
    assert not [m for m in mails(stack) if m["arguments"]["to"] == EVE]  # it never reached the desk
    turns = [r for r in of_task(stack, task, 3) if r["surface"] in ("chat", "responses")]
    blocked = next(r for r in turns if r.get("task", {}).get("asked_again"))
    decision = blocked["decisions"]["grant"]["decisions"][-1]
    assert (decision["tool"], decision["outcome"], decision["rule"]) == (
        "desk__send_email", "deny", "c-recipient-from-user",
    )  # fmt: skip
    assert decision["refused"]["value"] == EVE
    assert decision["refused"]["seen"]["label"] == "untrusted"
    assert blocked["task"]["trace"][0]["refused"] == ["desk__send_email"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_with_the_model_called_directly_the_purpose_header_makes_one_task_and_refuses_the_injected_mail_at_mcp(
    stack: Stack, runtime: str
) -> None:
    legitimate, injected = CITIES[runtime][2], CITIES[runtime][3]
    snippet, env = RUNTIMES[runtime]
    runs = [stack.run(SNIPPETS[snippet], to_bob(city), direct=True, env=env) for city in (legitimate, injected)]
    assert finish(runs[0]) == DONE
    assert REFUSED in finish(runs[1])
    task = task_of(stack, legitimate)
    sent = [m for m in mails(stack) if m["arguments"]["subject"] == f"Weather in {legitimate}"]
    assert [(m["arguments"]["to"], m["task"]) for m in sent] == [("bob@acme.example", task)]
    tools = of_task(stack, task, 2)
    assert [r["surface"] for r in tools] == ["mcp", "mcp"]  # the model turns went elsewhere: only the tools here
    assert {r["decisions"]["grant"]["binding"]["by"] for r in tools} == {"purpose"}
    assert not [m for m in mails(stack) if m["arguments"]["to"] == EVE]
    weather = of_task(stack, task_of(stack, injected), 1)[0]["request_id"]
    refused = next(
        r for r in stack.records() if r.get("model") == "tools/call" and r.get("error", {}).get("code") == "tool_denied"
        and r["error"]["decision"]["refused"]["seen"].get("call") == weather
    )  # fmt: skip
    assert refused["error"]["decision"]["refused"]["value"] == EVE
    assert refused["error"]["answered_as"] == "isError result"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_two_conversations_at_once_on_one_key_stay_two_tasks_that_do_not_see_each_other(
    stack: Stack, runtime: str
) -> None:
    mine, theirs = CITIES[runtime][4], CITIES[runtime][5]
    snippet, env = RUNTIMES[runtime]
    bob = stack.run(SNIPPETS[snippet], to_bob(mine), env=env)
    carol = stack.run(SNIPPETS[snippet], f"Send Carol (carol@acme.example) today's weather in {theirs}", env=env)
    assert finish(bob) == DONE
    assert REFUSED in finish(carol)  # its model mailed Bob, whom only the other conversation's user named
    assert task_of(stack, mine) != task_of(stack, theirs)
    sent = {m["arguments"]["subject"]: m["task"] for m in mails(stack)}
    assert sent[f"Weather in {mine}"] == task_of(stack, mine)
    assert f"Weather in {theirs}" not in sent


def test_google_adk_behind_taskgate_runs_one_task_and_its_injected_mail_is_refused(stack: Stack) -> None:
    """ADK's snippet, in its own virtualenv (LiteLLM, which it reaches OpenAI-compatible models through)."""
    local = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # no internet: LiteLLM's price list from the package
    city, injected = "Avignon", "Lillehammer"
    assert finish(stack.run(SNIPPETS["google-adk"], to_bob(city), adk=True, env=local)) == DONE
    assert REFUSED in finish(stack.run(SNIPPETS["google-adk"], to_bob(injected), adk=True, env=local))
    task = task_of(stack, city)
    sent = [m for m in mails(stack) if m["arguments"]["subject"] == f"Weather in {city}"]
    assert [(m["arguments"]["to"], m["task"]) for m in sent] == [("bob@acme.example", task)]
    calls = of_task(stack, task, 5)
    assert sum(r["decisions"]["grant"]["new_task"] for r in calls) == 1
    assert not [m for m in mails(stack) if m["arguments"]["to"] == EVE]
