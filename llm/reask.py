"""A chat answer's last steps before the client: a blocked turn asked again, and the answer settled with the task.

When the chat guard blocks every tool call of a whole answer, the client
would get a note and no call: an agent runtime takes that as the model's
final word, and its run ends there. Instead, taskgate gives the model the
refusals as those calls' results and asks it again (the authorize step's
`ask_again` times at most, 2 by default), so the client gets the model's next
step: another call, or an answer. Each turn runs the whole chat plan in the
same task (it presents the task's token) and is recorded in the request's
evidence (`task.trace`, kind `ask_again`). The trade-off: the client's copy
of the conversation lacks the refused call and its refusal, which only the
model saw. A stream is not asked again: its text has gone out already, and
it ends with the note, as before.

Whatever the client gets, whole or streamed, the plan's `Settles` outputs are
told once it is complete and before its last bytes go out, so the task it
belongs to can recognise the runtime's next call.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from taskgate.gateway.answer import Answer
from taskgate.gateway.decide import Decision, decide
from taskgate.gateway.gateway import Gateway
from taskgate.gateway.send import outgoing, send
from taskgate.plugins import FAILURES, RequestContext, Surface
from taskgate.plugins.evidence import Evidence

from .relay import relay

CHAT_PATH = "/v1/chat/completions"


def wanted(decision: Decision) -> bool:
    """Whether the plan asks for the answer at all (nothing does: the plain relay, not a single step more)."""
    return bool(decision.settlers or decision.askers)


async def answered(
    request: web.Request, gateway: Gateway, evidence: Evidence, context: RequestContext, decision: Decision,
    answer: Answer,
) -> web.StreamResponse:  # fmt: skip
    """The relay, with the answer settled; a whole chat answer whose calls were all blocked asked again first."""
    if answer.status >= 400 or answer.streamed:
        return await relay(request, answer, settle=settling(decision, None))
    body = await whole(gateway, evidence, context, decision, answer)
    await settling(decision, body)()
    return web.Response(status=answer.status, body=body, headers=answer.client_headers())


async def whole(
    gateway: Gateway, evidence: Evidence, context: RequestContext, decision: Decision, answer: Answer
) -> bytes:
    """The whole chat answer through the guards, asked again while the guard blocked every call it made."""
    body = await answer.whole()
    askers, turn = decision.askers, 0
    sent: dict[str, Any] = dict(context.json())
    while (more := next((m for a in askers if (m := a.refusals(turn + 1))), None)) is not None:
        turn += 1
        sent = {**sent, "messages": [*sent["messages"], *more]}
        again = await _ask(gateway, evidence, context, decision, sent, turn, more)
        if again is None:
            break
        body, askers = again
    return body


def settling(decision: Decision, answer: bytes | None) -> Callable[[], Awaitable[None]]:
    async def settle() -> None:
        for settler in decision.settlers:
            await settler.settle(answer)

    return settle


async def _ask(
    gateway: Gateway, evidence: Evidence, context: RequestContext, decision: Decision, body: dict[str, Any],
    turn: int, refused: list[dict[str, Any]],
) -> tuple[bytes, list[Any]] | None:  # fmt: skip
    """One more turn in the task (its token presented): its answer and what it would ask again; None if the model
    could not be asked (the answer before it stands). Recorded as an entry of the request's task trace."""
    child, started = evidence.child(f"ask-{turn}"), time.perf_counter()
    headers = CIMultiDict(context.headers)
    _, token_header = gateway.services.task_headers()
    token = next((v for k, v in decision.headers.items() if k.lower() == token_header), None)
    if token is not None:
        headers[token_header] = token
    raw = json.dumps(body).encode()
    asked = RequestContext.parsed(child.request_id, Surface.CHAT, CHAT_PATH, headers, raw, body)
    tools = [c.get("function", {}).get("name") for c in refused[0].get("tool_calls") or () if isinstance(c, dict)]
    status, result = 502, None
    try:
        again = await decide(gateway, Surface.CHAT, asked, child)
        async with send(gateway, child, again, CHAT_PATH, outgoing(child, "application/json")) as answer:
            status = answer.status
            if status < 400 and not answer.streamed:
                result = (await answer.whole(), again.askers)
            elif status >= 400:
                failed = await answer.error()
                child.fail(failed.code, failed.message)
    except Exception as exc:  # the answer the client would have had before this turn still stands
        status = FAILURES.settle(exc, child).status
    entry = evidence.trace_entry(child, started, status, {"kind": "ask_again", "turn": turn, "refused": tools})
    trace: list[dict[str, Any]] = (evidence.task or {}).get("trace", [])
    evidence.task = {"asked_again": turn, "trace": [*trace, entry]}
    return result
