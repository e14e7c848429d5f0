"""The Responses API: `POST /v1/responses` and `GET /v1/responses/{id}`, translated onto the chat plan.

The engines speak chat completions. A Responses request is translated into
a chat body (responses_request), run through the chat plan and dispatched
like any chat request, so the grant, every guard, routing and the evidence
apply unchanged; the answer, through the chat output guards first, is
translated back by the last filter of the chain (responses_answer). The
evidence says so under `decisions.responses`.

A response is kept (responses_store) for its caller, unless the request
says `store: false`: `previous_response_id` continues the conversation it
holds, on the endpoint where the chain ran (the chain's first id is the
request's routing session, unless the client names its own). A request with
`tool_loop` is answered by the agent room's tool loop, its final answer
translated whole.

The seam for engines that speak Responses natively is `_answer`: such a
placement would take the Responses body as sent and a Responses-aware output
guard, instead of the translation. Nothing here does that yet.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import structlog
from aiohttp import web
from multidict import CIMultiDict

from taskgate.gateway.answer import Answer
from taskgate.gateway.decide import Decision, decide
from taskgate.gateway.gateway import GATEWAY, Gateway
from taskgate.gateway.send import outgoing, send
from taskgate.plugins import EVIDENCE, ClientError, RequestContext, Surface, Takeover
from taskgate.plugins.evidence import Evidence

from .reask import settling, whole
from .relay import error_answer, stream
from .responses_answer import Encoder, new_id
from .responses_request import TOOL_LOOP, Translated, parse, translate
from .responses_store import (
    SECTION,
    Kept,
    ResponsesConfig,
    ResponseStoreUnavailable,
    Store,
    open_store,
    owner_of,
    too_long,
)
from .routes import read_context

PATH = "/v1/responses"
CHAT_PATH = "/v1/chat/completions"
SURFACE = Surface.RESPONSES
logger = structlog.get_logger("taskgate")


@dataclass
class Responses:
    """The surface's wiring, built once: its store and the chat surface's takeovers (the tool loop)."""

    config: ResponsesConfig
    store: Store
    takeovers: Mapping[str, Takeover]


RESPONSES = web.AppKey("taskgate.llm.responses", Responses)


def add_routes(app: web.Application, takeovers: Mapping[str, Mapping[str, Takeover]]) -> None:
    config = app[GATEWAY].config.section(SECTION, ResponsesConfig)
    app[RESPONSES] = Responses(config, open_store(config), takeovers.get(Surface.CHAT, {}))
    app.cleanup_ctx.append(_store)
    app.router.add_post(PATH, create)
    app.router.add_get(PATH + "/{response_id}", retrieve)


async def _store(app: web.Application) -> AsyncIterator[None]:
    yield
    await app[RESPONSES].store.close()


@dataclass
class Note:
    """What the surface did with one request, recorded under `decisions.responses`."""

    response_id: str
    previous_response_id: str | None = None
    previous_endpoint: str | None = None
    kept: str = "no"

    def evidence(self) -> Mapping[str, Any]:
        return {"translated": "responses -> chat completions", **{k: v for k, v in vars(self).items() if v}}


@dataclass
class Exchange:
    """One request on its way: the translation, where its chain stands, and the encoder of its answer."""

    translated: Translated
    owner: str
    chain: str
    note: Note
    encoder: Encoder


async def create(request: web.Request) -> web.StreamResponse:
    """Answer a Responses request through the chat plan."""
    gateway, evidence = request.app[GATEWAY], request[EVIDENCE]
    evidence.surface = SURFACE
    exchange, context = await _prepare(request, gateway, evidence)
    if TOOL_LOOP in exchange.translated.body and TOOL_LOOP in request.app[RESPONSES].takeovers:
        return await _loop(request, exchange, context)
    decision = await decide(gateway, Surface.CHAT, context, evidence)
    accept = "text/event-stream" if exchange.translated.stream else "application/json"
    async with send(gateway, evidence, decision, CHAT_PATH, outgoing(evidence, accept)) as answer:
        if answer.status >= 400:
            return error_answer(await answer.error(), answer.headers)
        return await _answer(request, answer, decision, exchange, context)


async def retrieve(request: web.Request) -> web.Response:
    """A kept response, for the caller that created it."""
    gateway, evidence = request.app[GATEWAY], request[EVIDENCE]
    evidence.surface = SURFACE
    response_id = request.match_info["response_id"]
    owner = owner_of(await gateway.authenticate(request, evidence))
    kept = await request.app[RESPONSES].store.get(owner, response_id)
    if kept is None:
        raise ClientError(404, "response_not_found", f"No response with id {response_id[:128]!r} is kept here.")
    return web.json_response(kept.response)


async def _prepare(request: web.Request, gateway: Gateway, evidence: Evidence) -> tuple[Exchange, RequestContext]:
    """Read and translate the request, continuing the response it names; the chat context the plan runs on."""
    raw = (await read_context(request, SURFACE, evidence)).json()
    ask = parse(raw)
    note = Note(new_id("resp"), ask.previous_response_id)
    evidence.decisions[SURFACE] = note
    owner = owner_of(await gateway.authenticate(request, evidence))
    previous = await _previous(request.app[RESPONSES].store, owner, ask.previous_response_id)
    translated = translate(ask, previous.messages if previous is not None else [])
    if previous is not None:
        note.previous_endpoint = previous.endpoint
    chain = previous.chain if previous is not None else note.response_id
    encoder = Encoder(response_head(translated, note.response_id), translated.stream)
    body = translated.body
    context = RequestContext.parsed(
        evidence.request_id, "chat", CHAT_PATH, _headers(gateway, request, chain), json.dumps(body).encode(), body
    )
    return Exchange(translated, owner, chain, note, encoder), context


async def _previous(store: Store, owner: str, response_id: str | None) -> Kept | None:
    if response_id is None:
        return None
    found = await store.get(owner, response_id)
    if found is None:
        message = f"Previous response with id {response_id!r} not found."
        raise ClientError(400, "previous_response_not_found", message, "previous_response_id")
    return found


def _headers(gateway: Gateway, request: web.Request, chain: str) -> CIMultiDict[str]:
    """The client's headers, naming the chain as the routing session unless the client names its own."""
    headers = CIMultiDict(request.headers)
    session = gateway.services.session_header()
    if session not in headers:
        headers[session] = chain
    return headers


def response_head(translated: Translated, response_id: str) -> dict[str, Any]:
    """The Response's fields that echo the request."""
    ask = translated.ask
    return {
        "id": response_id,
        "model": ask.model,
        "instructions": ask.instructions,
        "previous_response_id": ask.previous_response_id,
        "tools": translated.tools,
        "tool_choice": ask.tool_choice if ask.tool_choice is not None else "auto",
        "parallel_tool_calls": ask.parallel_tool_calls is not False,
        "temperature": ask.temperature,
        "top_p": ask.top_p,
        "max_output_tokens": ask.max_output_tokens,
        "metadata": ask.metadata or {},
        "store": translated.store,
        "text": ask.text.model_dump(by_alias=True) if ask.text is not None else {"format": {"type": "text"}},
        "truncation": "disabled",
        "user": ask.user,
    }


async def _answer(
    request: web.Request, answer: Answer, decision: Decision, exchange: Exchange, context: RequestContext
) -> web.StreamResponse:
    """The chat answer through the plan's output guards (a whole one asked again while every call it made was
    blocked: reask.py), then the translation, to the client; kept and settled once done."""

    async def settle(chat: bytes | None = None) -> None:
        await settling(decision, chat)()
        await _keep(request, exchange, _sent(decision, context), answer.log.endpoint, answer.headers)

    headers = answer.client_headers()
    headers["Content-Type"] = "text/event-stream" if exchange.encoder.stream else "application/json"
    if not answer.streamed:
        chat = await whole(request.app[GATEWAY], request[EVIDENCE], context, decision, answer)
        body = exchange.encoder.whole(chat)  # the translation reads what the guards let out
        await settle(chat)
        return web.Response(status=answer.status, body=body, headers=headers)
    answer.filters.append(exchange.encoder)  # the translation is the last filter: it reads what the guards let out
    return await stream(request, answer, exchange.encoder.failed, settle, headers)


def _sent(decision: Decision, context: RequestContext) -> list[dict[str, Any]]:
    """The messages the engine was sent, after the plan's edits (redaction); the translated ones if a step
    added or removed messages, since which of them the next turn would carry cannot be told."""
    ours: list[dict[str, Any]] = context.json()["messages"]
    if decision.body is context.body:
        return ours
    sent = json.loads(decision.body).get("messages")
    return sent if isinstance(sent, list) and len(sent) == len(ours) else ours


async def _keep(
    request: web.Request, exchange: Exchange, sent: list[dict[str, Any]], endpoint: str | None, ours: Mapping[str, str]
) -> None:
    """Keep a finished response for its caller (unless asked not to); a store that fails is noted, not fatal."""
    if not exchange.translated.store or not exchange.encoder.completed:
        exchange.note.kept = "no: store is false" if not exchange.translated.store else "no: the answer did not finish"
        return
    surface = request.app[RESPONSES]
    messages = [*sent[exchange.translated.instructions :], exchange.encoder.message()]
    kept = Kept(
        exchange.note.response_id, exchange.chain, exchange.encoder.response(), messages, endpoint, _task(request, ours)
    )
    if too_long(kept, surface.config.max_chars):
        exchange.note.kept = f"no: longer than {SECTION}.max_chars ({surface.config.max_chars})"
        return
    try:
        await surface.store.put(exchange.owner, kept)
    except ResponseStoreUnavailable as exc:  # the answer is good; a follow-up will be told it is not found
        logger.warning("response_not_kept", request_id=request[EVIDENCE].request_id, error=str(exc))
        exchange.note.kept = "no: the store failed"
        return
    exchange.note.kept = "yes"


def _task(request: web.Request, ours: Mapping[str, str]) -> str | None:
    header, _ = request.app[GATEWAY].services.task_headers()
    return next((value for name, value in ours.items() if name.lower() == header), None)


async def _loop(request: web.Request, exchange: Exchange, context: RequestContext) -> web.StreamResponse:
    """The agent room's tool loop runs the request; its final chat answer is translated whole."""
    body = {k: v for k, v in exchange.translated.body.items() if k not in ("stream", "stream_options")}
    chat = RequestContext.parsed(context.id, "chat", CHAT_PATH, context.headers, json.dumps(body).encode(), body)
    answer = await request.app[RESPONSES].takeovers[TOOL_LOOP](request, chat)
    if answer.status != 200 or not isinstance(answer, web.Response) or not isinstance(answer.body, bytes):
        return answer
    translated = exchange.encoder.whole(answer.body)
    loop = json.loads(answer.body).get("taskgate_loop")
    await _keep(request, exchange, body["messages"], None, answer.headers)
    if not exchange.encoder.stream:
        translated = json.dumps({**json.loads(translated), "taskgate_loop": loop}).encode()
    kind = "text/event-stream" if exchange.encoder.stream else "application/json"
    headers = {k: v for k, v in answer.headers.items() if k.lower().startswith("x-taskgate-")}
    return web.Response(body=translated, headers={**headers, "Content-Type": kind})


__all__ = ["PATH", "RESPONSES", "add_routes", "create", "retrieve"]
