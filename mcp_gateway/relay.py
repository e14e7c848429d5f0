"""A call's back-channel: what the upstream sends its client during a call, passed to the client that made it.

An upstream MCP server may, while it runs a tool, report progress, send log
messages, and ask its client for something: a model completion (sampling),
input from the user (elicitation), the client's roots. Through the gateway
the client that made the call is the one to hear and answer, and only for a
call its task's grant allowed: such a call runs on an upstream connection of
its own whose callbacks feed a `Relay`. The client's answer to a relayed
request arrives as a POST of a JSON-RPC response on its session, and is
matched by the request id taskgate gave it (random, and bound to that
session). The answer to the call becomes a server-sent event stream as soon as
the first notification or request is relayed; a call that relays nothing is
answered with JSON, as before.

A 2026-07-28 client has no back-channel for requests (the revision asks for
them as input-required results instead): its calls relay progress and log
messages only, and the upstream is told the client cannot sample, elicit or
list roots.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import structlog
from aiohttp import web
from mcp.types import (
    INTERNAL_ERROR,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    LoggingMessageNotificationParams,
)
from pydantic import ValidationError

from taskgate.plugins.evidence import Evidence

from .rpc import DUMP, RpcError, explained

Answer = Mapping[str, Any]  # a JSON-RPC response or error, as the client posted it
BACK_CHANNEL = ("sampling", "elicitation", "roots")  # client capabilities that take the upstream's requests
log = structlog.get_logger("taskgate.mcp")
R = TypeVar("R", CreateMessageResult, ElicitResult, ListRootsResult)


class Answers:
    """Relayed requests waiting for their client's answer, by (session, request id); an app has one."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, str], asyncio.Future[Answer]] = {}

    def expect(self, session: str) -> tuple[str, asyncio.Future[Answer]]:
        request_id = f"taskgate-{uuid.uuid4().hex}"
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[(session, request_id)] = future
        future.add_done_callback(lambda _: self._waiting.pop((session, request_id), None))
        return request_id, future

    def answer(self, session: str, message: Answer) -> bool:
        """A client's answer; False if nothing of its session waits for that id."""
        future = self._waiting.get((session, str(message.get("id"))))
        if future is None or future.done():
            return False
        future.set_result(message)
        return True


@dataclass
class Relay:
    """One call's channel to its client: events in the order the upstream sent them, answers awaited."""

    answers: Answers
    session: str | None  # None: a 2026-07-28 request, which takes no requests back
    capabilities: Mapping[str, Any]  # the client's, as it declared them
    progress_token: str | int | None
    log_level: str | None
    timeout_s: float
    events: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    counts: Counter[str] = field(default_factory=Counter)
    # the plan's output guards over what is relayed to the client (set once the plan allowed the call);
    # raises when it cannot check, and then the event is withheld
    guard: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    @property
    def wanted(self) -> bool:
        """Whether this call has anything to relay at all (else it runs on the shared connection)."""
        return self.progress_token is not None or self.log_level is not None or bool(self.callbacks())

    def callbacks(self) -> dict[str, Any]:
        """The SDK client callbacks for what the client declared it can take (the upstream sees no more)."""
        if self.session is None:
            return {}
        offered = {
            "sampling": ("sampling_callback", self.sampling),
            "elicitation": ("elicitation_callback", self.elicitation),
            "roots": ("list_roots_callback", self.roots),
        }
        return dict(offered[c] for c in BACK_CHANNEL if isinstance(self.capabilities.get(c), dict))

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        params = {"progressToken": self.progress_token, "progress": progress, "total": total, "message": message}
        self._notify("notifications/progress", {k: v for k, v in params.items() if v is not None})

    async def logging(self, params: LoggingMessageNotificationParams) -> None:
        self._notify("notifications/message", params.model_dump(**DUMP))

    async def sampling(self, _: Any, params: CreateMessageRequestParams) -> CreateMessageResult | ErrorData:
        return await self._ask("sampling/createMessage", params.model_dump(**DUMP), CreateMessageResult)

    async def elicitation(self, _: Any, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        return await self._ask("elicitation/create", params.model_dump(**DUMP), ElicitResult)

    async def roots(self, _: Any) -> ListRootsResult | ErrorData:
        return await self._ask("roots/list", None, ListRootsResult)

    def _notify(self, method: str, params: dict[str, Any]) -> None:
        guarded = self._guarded(method, params)
        if guarded is not None:
            self.counts[method] += 1
            self.events.put_nowait({"jsonrpc": "2.0", "method": method, "params": guarded})

    def _guarded(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """`params` as the output guards leave them; None (and counted) if they could not check them."""
        if params is None or self.guard is None:
            return params
        try:
            return self.guard(params)
        except Exception:
            self.counts[f"{method} withheld"] += 1
            return None

    async def _ask(self, method: str, params: dict[str, Any] | None, result: type[R]) -> R | ErrorData:
        """A request of the upstream, put to the client; its answer (or error) back, within the timeout."""
        assert self.session is not None  # callbacks() offers none without a session
        guarded = self._guarded(method, params)
        if params is not None and guarded is None:
            return ErrorData(code=INTERNAL_ERROR, message=f"the gateway could not check this {method}, so withheld it")
        request_id, future = self.answers.expect(self.session)
        self.counts[method] += 1
        self.events.put_nowait({"jsonrpc": "2.0", "id": request_id, "method": method, **_params(guarded)})
        try:
            answer = await asyncio.wait_for(future, self.timeout_s)
        except TimeoutError:
            return ErrorData(code=INTERNAL_ERROR, message=f"the client did not answer {method} in time")
        error = answer.get("error")
        if isinstance(error, dict):
            return ErrorData(code=int(error.get("code", INTERNAL_ERROR)), message=str(error.get("message", "")))
        try:
            return result.model_validate(answer.get("result"), by_name=False)
        except ValidationError:
            return ErrorData(code=INTERNAL_ERROR, message=f"the client's answer to {method} is not one")


def _params(params: dict[str, Any] | None) -> dict[str, Any]:
    return {"params": params} if params is not None else {}


async def answered(
    request: web.Request,
    message_id: Any,
    relay: Relay,
    call: Awaitable[dict[str, Any]],
    stamp: Any,
    evidence: Evidence,
) -> web.StreamResponse:
    """The answer to a call that may relay: JSON if the call ends before it relays anything, else an event
    stream of what it relays and then its result (or its error) as the last event."""
    task = asyncio.ensure_future(call)
    first = asyncio.ensure_future(relay.events.get())
    try:
        await asyncio.wait({task, first}, return_when=asyncio.FIRST_COMPLETED)
        if not first.done():
            first.cancel()
            return web.json_response({"jsonrpc": "2.0", "id": message_id, "result": stamp(task.result())})
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await stream.prepare(request)
        try:
            await _send(stream, first.result())
            while not (task.done() and relay.events.empty()):
                getter = asyncio.ensure_future(relay.events.get())
                await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    await _send(stream, getter.result())
                else:
                    getter.cancel()
            await _send(stream, _final(message_id, task, stamp, evidence))
            await stream.write_eof()
        except ConnectionResetError:  # the client left: the call is cancelled below, the evidence says so
            evidence.fail("client_disconnected", "the client closed the stream before the call ended")
        return stream
    finally:
        first.cancel()
        if not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=5.0)  # the call's upstream connection closes before we go


def _final(message_id: Any, task: asyncio.Future[dict[str, Any]], stamp: Any, evidence: Evidence) -> dict[str, Any]:
    """The call's end as the stream's last event: its result, or its error in JSON-RPC's words (recorded)."""
    error = task.exception()
    if error is None:
        return {"jsonrpc": "2.0", "id": message_id, "result": stamp(task.result())}
    if not isinstance(error, RpcError):
        error = explained(error, evidence)
    elif evidence.error is None:
        evidence.fail(str(error.code), error.message)
    failure: dict[str, Any] = {"code": error.code, "message": error.message}
    return {"jsonrpc": "2.0", "id": message_id, "error": {**failure, **_data(error.data)}}


def _data(data: Any) -> dict[str, Any]:
    return {"data": data} if data is not None else {}


async def _send(stream: web.StreamResponse, message: dict[str, Any]) -> None:
    await stream.write(b"event: message\ndata: " + json.dumps(message, separators=(",", ":")).encode() + b"\n\n")
