"""`/v1/tasks`: workflows checked as graphs, run under one task, each step as soon as its inputs exist."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim.script import Rule, Script
from tests.authz.conftest import Keys
from tests.proxy.agents import ANSWER, SUMMARISE

PLANNER = Script(
    [
        Rule(match="which folder", role="user", reply="inbox"),
        Rule(match="summarise these", role="user", reply=ANSWER),
    ]
)


def diamond(**extra: Any) -> dict[str, Any]:
    """plan -> (mail, files) -> answer: the middle two need only plan's output, so they run together."""
    return {
        "purpose": SUMMARISE,
        "steps": [
            {"id": "plan", "model": "m", "messages": [{"role": "user", "content": "which folder should I read?"}]},
            {"id": "mail", "tool": "mail__read", "arguments": {"folder": "${plan}"}},
            {"id": "files", "tool": "files__read", "arguments": {"path": "/home/alice/${plan}.txt"}},
            {
                "id": "answer",
                "model": "m",
                "max_tokens": 200,
                "messages": [{"role": "user", "content": "summarise these: ${mail} | ${files}"}],
            },
        ],
        **extra,
    }


def bearer(keys: Keys, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {keys.token(roles=[])}", **headers}


async def test_a_diamond_runs_its_middle_steps_in_parallel_under_one_task(start: Any, keys: Keys) -> None:
    client = await start(PLANNER)
    resp = await client.post("/v1/tasks", json=diamond(), headers=bearer(keys))
    assert resp.status == 200, await resp.text()
    body = await resp.json()
    steps = body["steps"]
    assert body["status"] == "completed"
    assert body["layers"] == [["plan"], ["files", "mail"], ["answer"]]
    assert {s["status"] for s in steps.values()} == {"completed"}
    assert steps["plan"]["output"] == "inbox"
    assert steps["mail"]["output"].startswith("[inbox]")  # plan's output reached mail's arguments
    assert "<EMAIL_ADDRESS>" in steps["mail"]["output"]  # the tool's result passed the PII guard
    assert steps["files"]["output"] == "/home/alice/inbox.txt: the offsite moved to Thursday"
    assert steps["answer"]["output"] == ANSWER
    assert steps["answer"]["after"] == ["files", "mail"]
    assert steps["plan"]["where"]["endpoint"] == "up"  # each model step was placed
    mail, files, answer = steps["mail"], steps["files"], steps["answer"]
    # the middle steps overlapped: each began before the other ended
    assert files["started_ms"] < mail["started_ms"] + mail["duration_ms"]
    assert mail["started_ms"] < files["started_ms"] + files["duration_ms"]
    middle_end = max(mail["started_ms"] + mail["duration_ms"], files["started_ms"] + files["duration_ms"])
    middle_wall = middle_end - min(mail["started_ms"], files["started_ms"])
    assert middle_wall < mail["duration_ms"] + files["duration_ms"] - 300  # against the measured sum: load slows both
    assert answer["started_ms"] >= middle_end  # the last waited for both
    record = client.server.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    trace = record["task"]["trace"]
    assert next(e["kind"] for e in trace) == "open"
    assert sorted(e.get("step", "") for e in trace) == ["", "answer", "files", "mail", "plan"]
    tasks = {e["decisions"]["grant"]["task"] for e in trace}
    assert tasks == {body["task"]} == {resp.headers["x-taskgate-task"]}


async def test_a_cycle_is_a_400_naming_its_steps_and_nothing_runs(start: Any, keys: Keys) -> None:
    client = await start(PLANNER)
    steps = [
        {"id": "a", "tool": "mail__read", "arguments": {"folder": "${c}"}},
        {"id": "b", "tool": "mail__read", "arguments": {"folder": "${a}"}},
        {"id": "c", "model": "m", "messages": [{"role": "user", "content": "${b}"}]},
    ]
    resp = await client.post("/v1/tasks", json={"purpose": SUMMARISE, "steps": steps}, headers=bearer(keys))
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert error["code"] == "workflow_cycle"
    assert error["type"] == "invalid_request_error"
    assert all(f"{name} ->" in error["message"] or f"-> {name}" in error["message"] for name in "abc")
    record = client.server.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    assert "task" not in record  # refused before the task was opened
    assert record["steps"] == []


async def test_a_dangling_reference_is_a_400_naming_the_step(start: Any, keys: Keys) -> None:
    client = await start(PLANNER)
    steps = [{"id": "a", "tool": "mail__read", "arguments": {"folder": "${nowhere}"}}]
    resp = await client.post("/v1/tasks", json={"purpose": SUMMARISE, "steps": steps}, headers=bearer(keys))
    assert resp.status == 400
    error = (await resp.json())["error"]
    assert error["code"] == "unknown_reference"
    assert "'a'" in error["message"]
    assert "'nowhere'" in error["message"]


async def test_a_denied_step_skips_what_needs_it_and_the_rest_completes(start: Any, keys: Keys) -> None:
    client = await start(PLANNER)
    steps = [
        {"id": "wipe", "tool": "mail__delete", "arguments": {"message_id": "42", "older_than_days": 90}},
        {"id": "after_wipe", "tool": "mail__read", "arguments": {"folder": "${wipe}"}},
        {"id": "notes", "tool": "files__read", "arguments": {"path": "/home/alice/notes.txt"}},
    ]
    resp = await client.post("/v1/tasks", json={"purpose": SUMMARISE, "steps": steps}, headers=bearer(keys))
    body = await resp.json()
    assert resp.status == 200
    assert body["status"] == "failed"
    wipe, after, notes = (body["steps"][k] for k in ("wipe", "after_wipe", "notes"))
    assert wipe["status"] == "denied"
    assert wipe["error"]["code"] == "tool_denied"
    assert "mail__delete" in wipe["error"]["message"]
    assert after["status"] == "skipped"
    assert after["error"]["code"] == "dependency_failed"
    assert notes["status"] == "completed"


async def test_steps_stream_as_server_sent_events(start: Any, keys: Keys) -> None:
    client = await start(PLANNER)
    resp = await client.post("/v1/tasks", json=diamond(), headers=bearer(keys, Accept="text/event-stream"))
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/event-stream")
    events = []
    for block in (await resp.text()).strip().split("\n\n"):
        name, data = (line.split(": ", 1)[1] for line in block.splitlines())
        events.append((name, json.loads(data)))
    assert [n for n, _ in events] == ["task", "step", "step", "step", "step", "done"]
    assert events[0][1]["status"] == "running"
    finished = [d["id"] for n, d in events if n == "step"]
    assert finished[0] == "plan"
    assert finished[-1] == "answer"
    assert events[-1][1]["status"] == "completed"


async def test_a_task_can_be_polled_by_its_owner_only(start: Any, keys: Keys) -> None:
    client = await start(PLANNER)
    resp = await client.post("/v1/tasks", json=diamond(wait=False), headers=bearer(keys))
    assert resp.status == 202
    accepted = await resp.json()
    task = accepted["task"]
    assert accepted["poll"] == f"/v1/tasks/{task}"
    for _ in range(100):
        state = await (await client.get(f"/v1/tasks/{task}", headers=bearer(keys))).json()
        if state["status"] != "running":
            break
        await asyncio.sleep(0.05)
    assert state["status"] == "completed"
    assert state["steps"]["answer"]["output"] == ANSWER
    bob = {"Authorization": f"Bearer {keys.token(sub='bob', roles=[])}"}
    other = await client.get(f"/v1/tasks/{task}", headers=bob)
    assert other.status == 404
    assert (await other.json())["error"]["code"] == "unknown_task"


async def test_an_unauthenticated_workflow_is_refused_before_any_step(start: Any) -> None:
    client = await start(PLANNER)
    resp = await client.post("/v1/tasks", json=diamond())
    assert resp.status == 401
    assert (await resp.json())["error"]["type"] == "authentication_error"


async def test_a_step_whose_filled_in_inputs_are_too_large_fails_before_they_are_built(start: Any, keys: Keys) -> None:
    client = await start(PLANNER, workflows={"max_input_chars": 2000})
    steps = [
        {"id": "notes", "tool": "files__read", "arguments": {"path": "/home/alice/notes.txt"}},
        {"id": "echo", "tool": "mail__read", "arguments": {"folder": "${notes}" * 100}},
    ]
    resp = await client.post("/v1/tasks", json={"purpose": SUMMARISE, "steps": steps}, headers=bearer(keys))
    body = await resp.json()
    assert body["steps"]["notes"]["status"] == "completed"
    echo = body["steps"]["echo"]
    assert echo["status"] == "failed"
    assert echo["error"]["code"] == "inputs_too_large"


async def test_a_caller_past_its_running_limit_gets_429_and_its_running_task_stays_pollable(
    start: Any, keys: Keys
) -> None:
    client = await start(PLANNER, workflows={"max_running_per_caller": 1, "keep": 1})
    first = await client.post("/v1/tasks", json=diamond(wait=False), headers=bearer(keys))
    assert first.status == 202
    second = await client.post("/v1/tasks", json=diamond(wait=False), headers=bearer(keys))
    assert second.status == 429
    assert second.headers["Retry-After"] == "1"
    assert (await second.json())["error"]["code"] == "too_many_tasks"
    task = (await first.json())["task"]
    polled = await client.get(f"/v1/tasks/{task}", headers=bearer(keys))
    assert polled.status == 200
    assert (await polled.json())["status"] == "running"
