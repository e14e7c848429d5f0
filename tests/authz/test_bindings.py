"""How a request without a task token is recognised as part of a task, and what must never be recognised.

A chat request continues the task of a conversation taskgate answered (its
digest up to an assistant turn taskgate emitted, chained from the caller); an
MCP call runs in the task whose model turn emitted it; a stated purpose is one
task per caller. Each rule has its test here, including the forgeries:
another caller replaying a conversation, an invented tool-call id, messages
reordered, a call no turn emitted. The digests, a binding's expiry and the
memory store's bound are checked directly; the rest through the gateway, with
a scripted engine, an SDK tool server, and Redis where replicas share them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio
from mcp.server import MCPServer

from taskgate.authz.conversations import (
    Bound,
    MemoryBindings,
    RedisBindings,
    call_key,
    conversation_key,
    extend,
    matching,
    principal_digest,
    purpose_key,
)
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script, ToolCall

from ..conftest import RedisServer
from .conftest import Keys, jwt_section
from .mcp_servers import mail_server, serving
from .policy import task_key, write_policy
from .test_mcp import connect
from .test_mcp_tasks import meta

POLICY = """\
p, role:mail-user, acme, mail__*, call, r-mail
p, role:mail-user, acme, lookup_colleague, call, r-lookup
p, profile:default, *, mail__*, call, prof-mail
p, profile:default, *, lookup_colleague, call, prof-lookup
p2, mail__send, *, to, provenance, instruction|contacts, c-to
p3, lookup_colleague, *, contacts, t-colleague
p, role:mail-user, acme, book__*, call, r-book
p, profile:default, *, book__*, call, prof-book
p3, book__address_book, entries[].email, contacts, t-book
g, alice, role:mail-user, acme
g, bob, role:mail-user, acme
"""
SEND = ToolCall("mail__send", {"to": "carol@acme.example", "body": "the report"})
SCRIPT = Script([
    Rule(match="sent to", role="tool", reply="Sent."),
    Rule(match="carol@acme.example", role="tool", tool_calls=(SEND,)),  # a colleague looked up: mail her
    Rule(match="dan@acme.example", role="tool", tool_calls=(ToolCall("mail__send", {"to": "dan@acme.example",
                                                                                    "body": "hello"}),)),
    Rule(match="address book", role="user", tool_calls=(ToolCall("book__address_book", {}),)),
    Rule(match="read my mail", role="user", tool_calls=(ToolCall("mail__read", {"folder": "inbox"}),)),
    Rule(match="report", role="user", tool_calls=(SEND,)),
    Rule(match=".", reply="Noted."),
])  # fmt: skip
NAMES = ("mail__send", "mail__read", "lookup_colleague", "book__address_book")
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in NAMES]


def conversation(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "Help the user."}, *messages]


USER = {"role": "user", "content": "mail carol@acme.example the report"}


# The digests: what a binding is keyed by.


def keys_of(messages: list[dict[str, Any]], subject: str = "alice") -> list[str]:
    digest, out = principal_digest("acme", subject), []
    for message in messages:
        digest = extend(digest, message)
        out.append(conversation_key(digest))
    return out


CALL: dict[str, Any] = {
    "id": "call_9f2c", "type": "function", "function": {"name": "mail__send", "arguments": '{"to": "x", "body": "y"}'}
}  # fmt: skip
ANSWER: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [CALL]}


def test_a_conversation_replayed_by_another_caller_has_another_digest() -> None:
    assert keys_of(conversation(USER, ANSWER))[-1] != keys_of(conversation(USER, ANSWER), "mallory")[-1]
    assert call_key("acme", "alice", "mail__send", {}) != call_key("acme", "mallory", "mail__send", {})


def test_an_invented_tool_call_id_or_changed_arguments_make_another_digest() -> None:
    invented = {**ANSWER, "tool_calls": [{**CALL, "id": "call_0"}]}
    function = {"name": "mail__send", "arguments": '{"to": "eve"}'}
    changed = {**ANSWER, "tool_calls": [{**CALL, "function": function}]}
    genuine = keys_of(conversation(USER, ANSWER))[-1]
    assert genuine != keys_of(conversation(USER, invented))[-1]
    assert genuine != keys_of(conversation(USER, changed))[-1]


def test_reordered_messages_make_another_digest() -> None:
    later = {"role": "user", "content": "and copy me"}
    assert keys_of(conversation(USER, later, ANSWER))[-1] != keys_of(conversation(later, USER, ANSWER))[-1]


def test_a_tool_result_moved_to_another_call_makes_another_digest() -> None:
    """Which call a result answers is part of the conversation: results swapped between two calls are a forgery."""
    both = {**ANSWER, "tool_calls": [CALL, {**CALL, "id": "call_7a1d"}]}
    reply = {"role": "assistant", "content": "Done."}

    def results(first: str, second: str) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": first, "content": "sent"},
                {"role": "tool", "tool_call_id": second, "content": "bounced"}]  # fmt: skip

    genuine = keys_of(conversation(USER, both, *results("call_9f2c", "call_7a1d"), reply))[-1]
    assert genuine != keys_of(conversation(USER, both, *results("call_7a1d", "call_9f2c"), reply))[-1]


def test_a_purpose_stated_by_another_caller_has_another_key() -> None:
    said = "mail carol@acme.example the report"
    assert purpose_key("acme", "alice", said) != purpose_key("acme", "mallory", said)
    assert purpose_key("acme", "alice", said) != purpose_key("globex", "alice", said)


def test_what_runtimes_change_when_they_send_a_turn_back_does_not_change_the_digest() -> None:
    """Empty content as null or "", argument keys in another order or spacing, fields a runtime adds."""
    resent = {
        "role": "assistant", "content": "", "refusal": None, "tool_calls": [
            {"id": "call_9f2c", "type": "function", "function": {"name": "mail__send",
                                                                 "arguments": '{"body":"y","to":"x"}'}}],
    }  # fmt: skip
    assert keys_of(conversation(USER, ANSWER))[-1] == keys_of(conversation(USER, resent))[-1]
    assert call_key("acme", "alice", "mail__send", '{"to": "x", "body": "y"}') == call_key(
        "acme", "alice", "mail__send", {"body": "y", "to": "x"}
    )


def test_a_session_hint_only_narrows() -> None:
    hinted, plain = Bound("t1", "e", "x-session-id=a"), Bound("t2", "e")
    assert [b.task for b in matching([hinted, plain], "x-session-id=a")] == ["t2", "t1"]
    assert [b.task for b in matching([hinted, plain], "x-session-id=b")] == ["t2"]  # never joins another hint's
    assert {b.task for b in matching([hinted, plain], None)} == {"t1", "t2"}


def test_a_task_bound_under_several_hints_is_one_candidate() -> None:
    """A purpose joins only when exactly one task is found: one task's entries must not count as several."""
    entries = [Bound("t1", "e", "x-session-id=a"), Bound("t1", "e"), Bound("t1", "e", "x-session-id=b")]
    assert [b.task for b in matching(entries, None)] == ["t1"]


async def test_a_binding_expires_and_the_memory_store_keeps_at_most_its_bound() -> None:
    store = MemoryBindings(max_entries=2)
    await store.add([("a", Bound("t1", "e").dump(), 0.05)])
    assert await store.get(["a"]) == [[Bound("t1", "e").dump()]]
    await asyncio.sleep(0.1)
    assert await store.get(["a"]) == [[]]
    await store.add([(k, Bound(k, "e").dump(), 60) for k in ("b", "c", "d")])
    assert [len(found) for found in await store.get(["b", "c", "d"])] == [0, 1, 1]


async def test_bindings_in_redis_are_shared_trimmed_and_expire(redis_server: RedisServer) -> None:
    one, two = RedisBindings(redis_server.url, "t:"), RedisBindings(redis_server.url, "t:")
    try:
        await one.add([("k", Bound(f"t{n}", "e").dump(), 60) for n in range(10)])
        (found,) = await two.get(["k"])
        assert [b.task for raw in found if (b := Bound.load(raw)) is not None] == [f"t{n}" for n in range(2, 10)]
        await one.add([("gone", Bound("t", "e").dump(), 1)])
        await asyncio.sleep(2.1)
        assert await two.get(["gone"]) == [[]]
    finally:
        await one.close()
        await two.close()


# Through the gateway.


def book_server() -> MCPServer:
    """The user's address book: its entries' emails are contacts (the policy's p3 row on that field)."""
    server = MCPServer("book")

    @server.tool()
    def address_book() -> dict[str, Any]:
        """The user's address book."""
        return {"entries": [{"name": "Dan", "email": "dan@acme.example"}]}

    return server


@pytest.fixture
async def gateway(
    proxy: Any, keys: Keys, tmp_path: Path, aiohttp_server: Any, redis_server: RedisServer, request: Any
) -> AsyncIterator[tuple[Any, Any, Keys, Any]]:
    """Two replicas sharing Redis (tasks and bindings), a scripted engine, and the mail server; parametrized
    indirectly, the `authz.tasks.conversations` section."""
    profile = dataclasses.replace(PROFILES["instant"], models=("m",), default_max_tokens=256)
    engine = await aiohttp_server(create_sim(profile, "sim", SCRIPT))
    async with serving(mail_server()) as mail, serving(book_server()) as book:
        url = str(engine.make_url("")).rstrip("/")
        # timeout_ms: a loaded machine's Redis may take longer than the 500 ms default; these tests are about bindings
        tasks = {"keys": [task_key(tmp_path)], "store": "redis", "redis_url": redis_server.url, "timeout_ms": 10_000,
                 "conversations": getattr(request, "param", {})}  # fmt: skip
        config = {
            "routing": {"pools": [{"name": "p", "endpoints": [{"name": "e", "url": url}], "models": [{"name": "m"}]}]},
            "authz": {
                "jwt": jwt_section(keys),
                "policy": {"file": str(write_policy(tmp_path, POLICY))},
                "tasks": tasks,
            },
            "steps": [
                {"name": "authn", "type": "authz.authenticate"},
                {"name": "authorize", "type": "authz.authorize"},
            ],
            "pipelines": {"chat": ["authn", "authorize", "state", "route"], "mcp": ["authn", "authorize"]},
            "mcp": {"servers": [{"name": "mail", "url": mail}, {"name": "book", "url": book}]},
            "logging": {"evidence": False},
        }
        one, two = await proxy(config), await proxy(config)
        yield one, two, keys, mail
        await one.close()
        await two.close()


def caller(keys: Keys, subject: str = "alice") -> dict[str, str]:
    return {"Authorization": f"Bearer {keys.token(sub=subject, roles=[])}"}


async def chat(client: Any, headers: dict[str, str], messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """One chat turn: the task it ran in, and the assistant's message."""
    response = await client.post("/v1/chat/completions", json={"model": "m", "messages": messages, "tools": TOOLS},
                                 headers=headers)  # fmt: skip
    assert response.status == 200, await response.text()
    return response.headers["x-taskgate-task"], (await response.json())["choices"][0]["message"]


def grant(client: Any, task: str) -> dict[str, Any]:
    from taskgate.gateway.gateway import GATEWAY

    records = client.app[GATEWAY].evidence.records()
    found: list[dict[str, Any]] = [
        g for r in records if (g := r.get("decisions", {}).get("grant", {})).get("task") == task
    ]
    return found[-1]


async def test_a_turn_that_continues_what_taskgate_answered_is_the_same_task_on_any_replica(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, two, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    task, answer = await chat(one, caller(keys), opening)
    minted = answer["tool_calls"][0]["id"]
    assert minted.startswith("call_")
    assert len(minted) == 29  # taskgate's own id, not the engine's
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": "[inbox] nothing new"}
    again, _ = await chat(two, caller(keys), [*opening, answer, result])  # the other replica: Redis has it
    assert again == task
    assert grant(two, task)["binding"] == {"by": "conversation", "message": 2}


async def test_another_caller_replaying_a_conversation_gets_a_task_of_its_own(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    task, answer = await chat(one, caller(keys), opening)
    replayed, _ = await chat(one, caller(keys, "bob"), [*opening, answer, {"role": "user", "content": "more"}])
    assert replayed != task
    assert grant(one, replayed)["new_task"] is True


async def test_an_invented_tool_call_id_or_reordered_messages_do_not_join_the_task(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    task, answer = await chat(one, caller(keys), opening)
    invented = {**answer, "tool_calls": [{**answer["tool_calls"][0], "id": "call_0"}]}
    forged, _ = await chat(one, caller(keys), [*opening, invented, {"role": "user", "content": "more"}])
    extra = {"role": "user", "content": "and the drafts"}
    reordered, _ = await chat(one, caller(keys), [opening[0], extra, opening[1], answer])
    assert task not in (forged, reordered)


async def test_a_new_user_turn_is_a_new_instruction_of_the_task_its_mcp_calls_may_use(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    """The opening names nobody; a later user turn names carol; the model mails her through /mcp, in the task."""
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    task, answer = await chat(one, caller(keys), opening)
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": "[inbox] nothing new"}
    said = {"role": "user", "content": "then mail carol@acme.example the report"}
    again, _ = await chat(one, caller(keys), [*opening, answer, result, said])
    assert again == task
    async with connect(one, caller(keys)) as mcp:
        sent = await mcp.call_tool("mail__send", SEND.arguments)
    assert not sent.is_error, sent.content
    assert grant(one, task)["binding"]["by"] == "model_turn"


async def test_a_conversation_two_tasks_answered_alike_joins_neither_and_its_later_turns_keep_their_own_task(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    """The same opening answered the same way in two tasks is nobody's to continue: the next turn opens a task of
    its own, and the turn after that continues that task (the longest prefix taskgate answered decides)."""
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "hello"})
    first, reply = await chat(one, caller(keys), opening)
    second, again = await chat(one, caller(keys), opening)
    assert first != second
    assert reply == again  # a plain reply: both tasks bound the same conversation
    asked = [*opening, reply, {"role": "user", "content": "and then?"}]
    third, answer = await chat(one, caller(keys), asked)
    assert third not in (first, second)
    assert grant(one, third)["new_task"] is True
    fourth, _ = await chat(one, caller(keys), [*asked, answer, {"role": "user", "content": "thanks"}])
    assert fourth == third
    assert grant(one, third)["binding"] == {"by": "conversation", "message": 4, "new_instructions": 1}


async def test_an_mcp_call_no_model_turn_emitted_is_not_in_any_task(gateway: tuple[Any, Any, Keys, Any]) -> None:
    one, _, keys, _ = gateway
    await chat(one, caller(keys), conversation(USER))  # the model asks to mail carol the report
    async with connect(one, caller(keys)) as mcp:
        other = await mcp.call_tool("mail__send", {"to": "carol@acme.example", "body": "another text"})
    async with connect(one, caller(keys, "bob")) as mcp:
        not_yours = await mcp.call_tool("mail__send", SEND.arguments)
    for refused in (other, not_yours):  # a new task, whose instruction is nobody's: the rule refuses
        assert refused.is_error
        assert refused.meta is not None
        assert refused.meta["io.taskgate/refusal"]["rule"] == "c-to"


@pytest.mark.parametrize("gateway", [{"call_ttl_s": 1}], indirect=True)
async def test_a_model_turn_s_call_binds_an_mcp_call_only_for_its_own_ttl(gateway: tuple[Any, Any, Keys, Any]) -> None:
    """The conversation is remembered for an hour, the call its turn asked for only `call_ttl_s`: made later, the
    MCP call is nobody's, and the rule on the recipient refuses it."""
    one, _, keys, _ = gateway
    task, answer = await chat(one, caller(keys), conversation(USER))  # the model asks to mail carol the report
    await asyncio.sleep(2.2)
    async with connect(one, caller(keys)) as mcp:
        late = await mcp.call_tool("mail__send", SEND.arguments)
    assert late.is_error
    assert late.meta is not None
    assert late.meta["io.taskgate/refusal"]["rule"] == "c-to"
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": "refused"}
    again, _ = await chat(one, caller(keys), [*conversation(USER), answer, result])
    assert again == task  # the conversation itself is still the task's


async def test_a_result_of_a_call_two_tasks_emitted_is_kept_in_both(gateway: tuple[Any, Any, Keys, Any]) -> None:
    """Both conversations asked for the address book; the one MCP call runs in the newer task, and what it showed
    is in the older task too: handed back there (wrapped, so only the task's record vouches), Dan may be mailed."""
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "write hello to the one in my address book"})
    older, answer = await chat(one, caller(keys), opening)
    newer, _ = await chat(one, caller(keys), opening)
    async with connect(one, caller(keys)) as mcp:
        book = await mcp.call_tool("book__address_book", {})
    assert not book.is_error
    assert book.meta is not None
    assert book.meta["io.taskgate/task"] == newer != older
    wrapped = json.dumps({"type": "text", "text": book.content[0].text})  # type: ignore[union-attr]
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": wrapped}
    again, send = await chat(one, caller(keys), [*opening, answer, result])
    assert again == older
    assert send["tool_calls"][0]["function"]["arguments"] == '{"to": "dan@acme.example", "body": "hello"}'


async def test_a_call_two_tasks_emitted_runs_only_if_both_grants_allow_it(gateway: tuple[Any, Any, Keys, Any]) -> None:
    """Both conversations' guards let the model mail carol: one because its user named her, the other because a
    client-side lookup (trusted contacts) showed her. At /mcp only the first task has seen her: refused."""
    one, _, keys, _ = gateway
    await chat(one, caller(keys), conversation(USER))
    call = {"id": "call_l1", "type": "function", "function": {"name": "lookup_colleague", "arguments": "{}"}}
    lookup = {"role": "assistant", "content": None, "tool_calls": [call]}
    shown = {"role": "tool", "tool_call_id": "call_l1", "content": "carol@acme.example"}
    looked_up = conversation({"role": "user", "content": "mail my colleague about it"}, lookup, shown)
    other, send = await chat(one, caller(keys), looked_up)
    assert send["tool_calls"][0]["function"]["name"] == "mail__send"  # released: the guard let it through
    async with connect(one, caller(keys)) as mcp:
        sent = await mcp.call_tool("mail__send", SEND.arguments)
    assert sent.is_error
    text = sent.content[0].text  # type: ignore[union-attr]
    assert f"2 tasks emitted this call, and task {other}'s grant does not allow it" in text


async def test_a_revoked_task_s_conversation_is_refused_not_started_again(gateway: tuple[Any, Any, Keys, Any]) -> None:
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    task, answer = await chat(one, caller(keys), opening)
    revoked = await one.post(f"/v1/tasks/{task}/revoke", headers=caller(keys))
    assert revoked.status == 200
    messages = [*opening, answer, {"role": "user", "content": "go on"}]
    response = await one.post("/v1/chat/completions", headers=caller(keys), json={"model": "m", "tools": TOOLS,
                                                                                  "messages": messages})  # fmt: skip
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "task_revoked"


async def test_a_stated_purpose_is_one_task_unless_session_headers_tell_runs_apart(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, _, keys, _ = gateway
    tasks = []
    for purpose, session in (("p1", None), ("p1", None), ("p2", "a"), ("p2", "a"), ("p2", "b")):
        said = {"x-taskgate-purpose": f"mail carol@acme.example the report ({purpose})"}
        async with connect(one, {**caller(keys), **said, **({"x-session-id": session} if session else {})}) as mcp:
            sent = await mcp.call_tool("mail__send", SEND.arguments)
        assert not sent.is_error
        assert sent.meta is not None
        tasks.append(sent.meta["io.taskgate/task"])
    assert tasks[0] == tasks[1]  # each call a session of its own, one purpose: one task
    assert tasks[2] == tasks[3] != tasks[4]  # the same purpose in two runs a session header tells apart


async def test_a_stated_purpose_two_runs_share_joins_neither_when_no_session_header_tells_which(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, _, keys, _ = gateway
    said = {"x-taskgate-purpose": "mail carol@acme.example the report"}
    tasks = []
    for session in ("a", "b", None):
        hint = {"x-session-id": session} if session else {}
        async with connect(one, {**caller(keys), **said, **hint}) as mcp:
            sent = await mcp.call_tool("mail__send", SEND.arguments)
        assert sent.meta is not None
        tasks.append(sent.meta["io.taskgate/task"])
    assert len(set(tasks)) == 3  # two runs hold the purpose: a call naming neither run is in a task of its own


async def test_a_purpose_stated_in_meta_always_opens_a_task_even_one_a_header_bound(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    """A purpose in `_meta` is a client written for taskgate opening a task: it never joins one a runtime's
    configured header opened, though the words are the same."""
    one, _, keys, _ = gateway
    said = "mail carol@acme.example the report"
    tasks = []
    for _ in range(2):
        async with connect(one, {**caller(keys), "x-taskgate-purpose": said}) as mcp:
            sent = await mcp.call_tool("mail__send", SEND.arguments)
        assert sent.meta is not None
        tasks.append(sent.meta["io.taskgate/task"])
    async with connect(one, caller(keys)) as mcp:
        opened = await mcp.call_tool("mail__send", SEND.arguments, meta=meta("io.taskgate/purpose", said))
    assert opened.meta is not None
    assert tasks[0] == tasks[1] != opened.meta["io.taskgate/task"]


async def test_a_presented_task_token_wins_over_a_conversation_taskgate_recognises(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    task, answer = await chat(one, caller(keys), opening)
    opened = await one.post("/v1/chat/completions", headers=caller(keys), json={
        "model": "m", "messages": conversation({"role": "user", "content": "hello"}), "tools": TOOLS})  # fmt: skip
    other, token = opened.headers["x-taskgate-task"], opened.headers["x-taskgate-task-token"]
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": "[inbox] nothing new"}
    carried, _ = await chat(one, {**caller(keys), "x-taskgate-task-token": token}, [*opening, answer, result])
    assert other != task
    assert carried == other


async def test_a_streamed_answer_is_bound_too_and_a_named_task_id_is_never_a_recognised_one(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "read my mail please"})
    streamed = await one.post("/v1/chat/completions", headers=caller(keys),
                              json={"model": "m", "messages": opening, "tools": TOOLS, "stream": True})  # fmt: skip
    task, text = streamed.headers["x-taskgate-task"], await streamed.text()
    call = next(c for line in text.splitlines() if line.startswith("data: {") and (c := json.loads(line[6:])["choices"])
                and c[0]["delta"].get("tool_calls"))[0]["delta"]["tool_calls"][0]  # fmt: skip
    answer = {"role": "assistant", "content": None, "tool_calls": [{k: v for k, v in call.items() if k != "index"}]}
    result = {"role": "tool", "tool_call_id": call["id"], "content": "[inbox] nothing new"}
    again, _ = await chat(one, caller(keys), [*opening, answer, result])
    assert again == task
    named, _ = await chat(one, {**caller(keys), "x-taskgate-task": "my-own-task"}, [*opening, answer, result])
    assert named == "my-own-task"  # the caller chose a task of its own: nothing is recognised for it


async def test_a_responses_follow_up_by_previous_response_id_or_with_new_instructions_is_the_same_task(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    one, two, keys, _ = gateway
    tools = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in NAMES]
    first = await one.post("/v1/responses", headers=caller(keys), json={
        "model": "m", "instructions": "Help the user.", "input": "read my mail please", "tools": tools})  # fmt: skip
    body = await first.json()
    task, (call,) = first.headers["x-taskgate-task"], body["output"]
    result = {"type": "function_call_output", "call_id": call["call_id"], "output": "[inbox] nothing new"}
    chained = await one.post("/v1/responses", headers=caller(keys), json={
        "model": "m", "previous_response_id": body["id"], "input": [result], "tools": tools})  # fmt: skip
    assert chained.status == 200, await chained.text()
    assert chained.headers["x-taskgate-task"] == task  # no instructions resent: the conversation is the same
    whole = [{"role": "user", "content": "read my mail please"}, call, result]
    resent = await two.post("/v1/responses", headers=caller(keys), json={
        "model": "m", "instructions": "Help the user. Today is Friday.", "input": whole, "tools": tools})  # fmt: skip
    assert resent.headers["x-taskgate-task"] == task  # the whole input again, instructions rewritten, other replica


async def test_a_result_taskgate_forwarded_keeps_its_labels_in_the_conversation_however_the_runtime_wraps_it(
    gateway: tuple[Any, Any, Keys, Any],
) -> None:
    """The address book's entries are contacts in the task (the result /mcp forwarded, field by field). A runtime
    hands the result back wrapped in JSON of its own, where the field is not where the policy names it: the task
    still has it as a contact, so the model may mail Dan; a conversation that is not the task's may not."""
    one, _, keys, _ = gateway
    opening = conversation({"role": "user", "content": "write hello to the one in my address book"})
    task, answer = await chat(one, caller(keys), opening)
    async with connect(one, caller(keys)) as mcp:
        book = await mcp.call_tool("book__address_book", {})
    wrapped = json.dumps({"type": "text", "text": book.content[0].text})  # type: ignore[union-attr]
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": wrapped}
    again, send = await chat(one, caller(keys), [*opening, answer, result])
    assert again == task
    assert send["tool_calls"][0]["function"]["arguments"] == '{"to": "dan@acme.example", "body": "hello"}'
    forged = {**answer, "tool_calls": [{**answer["tool_calls"][0], "id": "call_x"}]}
    other, refused = await chat(one, caller(keys), [*opening, forged, {**result, "tool_call_id": "call_x"}])
    assert other != task
    assert "tool_calls" not in refused  # the wrapped copy alone vouches for nothing: blocked


async def test_a_conversation_whose_task_store_lost_its_epoch_is_refused_not_resumed(
    gateway: tuple[Any, Any, Keys, Any], redis_server: RedisServer
) -> None:
    """The bindings survive but the task store's epoch is gone (evicted, or the store replaced): a revocation of the
    task cannot be ruled out, so its conversation is refused, the evidence saying why, and never resumed."""
    one, _, keys, _ = gateway
    opening = conversation(USER)
    _, answer = await chat(one, caller(keys), opening)
    store = redis.asyncio.Redis.from_url(redis_server.url)
    try:
        epochs = [key async for key in store.scan_iter(match="*epoch")]
        assert len(epochs) == 1, epochs
        await store.delete(*epochs)
    finally:
        await store.aclose()
    result = {"role": "tool", "tool_call_id": answer["tool_calls"][0]["id"], "content": "sent"}
    body = {"model": "m", "messages": [*opening, answer, result], "tools": TOOLS}
    refused = await one.post("/v1/chat/completions", json=body, headers=caller(keys))
    assert refused.status == 403, await refused.text()
    assert (await refused.json())["error"]["code"] == "task_state_lost"
