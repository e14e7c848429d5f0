"""The gateway's side of the batch room's `Items`: one item through its surface's plan, as the job's caller.

The caller was authenticated when the job was created; the job keeps who it
was (never the token). An item runs the surface's plan compiled without its
authenticate step, with that identity as a seed (`Gateway.seeded`), so
authorization, PII guards, classification and routing decide each item as
they would the caller's own request, under the policy of the moment. Its
answer is read whole, through the plan's output guards, and it leaves an
evidence record shaped like a request's. A Responses item is translated onto
the chat plan, as `/v1/responses` is; it is not kept for a follow-up.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import Mapping
from typing import Any

import aiohttp
import structlog

from taskgate.authz.identity import Identity
from taskgate.batch.types import ItemResult
from taskgate.plugins import FAILURES, Endpoint, Principal, RequestContext
from taskgate.plugins.evidence import Evidence

from .dispatch import Decision, decide, send
from .errors import UpstreamUnavailable, error_body, upstream_error
from .openai import PATHS
from .relay import MAX_ERROR_BYTES, Dispatch, FilterChain, finite, record_failure, refuse_encoded, refused
from .responses import CHAT_PATH, response_head
from .responses import PATH as RESPONSES_PATH
from .responses_answer import Encoder, new_id
from .responses_request import parse, translate
from .state import Gateway
from .usage import usage_of

log = structlog.get_logger("taskgate")
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # an item's answer is kept whole in its job's output file


class GatewayItems:
    """The batch room's Items, as this gateway runs them."""

    def __init__(self, gateway: Gateway):
        self.gateway = gateway

    def seal(self, caller: Principal | None) -> dict[str, Any] | None:
        if caller is None:
            return None
        if not isinstance(caller, Identity):  # a plugin's own principal: nothing says how to restore it
            raise ValueError(f"a caller of type {type(caller).__name__} cannot be kept for a batch job")
        return dataclasses.asdict(caller)

    def unseal(self, sealed: Mapping[str, Any] | None) -> Principal | None:
        if sealed is None:
            return None
        try:
            fields = {**sealed, "roles": tuple(sealed["roles"]), "scopes": tuple(sealed["scopes"])}
            fields["claims"] = tuple((str(k), str(v)) for k, v in sealed.get("claims", ()))
            return Identity(**fields)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the job's caller cannot be restored: {exc}") from None

    async def run(
        self,
        caller: Principal | None,
        surface: str,
        body: dict[str, Any],
        headers: Mapping[str, str],
        labels: Mapping[str, Any],
    ) -> ItemResult:
        path = RESPONSES_PATH if surface == "responses" else PATHS[surface]
        evidence = Evidence(uuid.uuid4().hex, path, surface=surface, model=str(body.get("model")))
        evidence.batch = dict(labels)
        gateway = self.gateway
        gateway.metrics.inflight.inc()
        try:
            status, answer, endpoint = await self._run(caller, surface, body, headers, evidence)
        except Exception as exc:  # a refusal (authorization, PII, budget) or a failure: the item's error line
            problem = FAILURES.explain(exc, evidence)
            if problem.unexpected:
                log.exception("batch_item_failed", request_id=evidence.request_id)
            problem.record(evidence)
            status, endpoint = problem.status, None
            cited = problem.cited(evidence.request_id)
            answer = json.loads(error_body(status, problem.code, cited, problem.kind, problem.param, problem.public))
        finally:
            gateway.metrics.inflight.dec()
        usage = evidence.usage or {}
        tokens = {k: int(v) for k, v in usage.items() if k.endswith("_tokens") and isinstance(v, int)}
        cost = usage.get("cost")
        pool = endpoint.pool if endpoint is not None else None
        name = endpoint.name if endpoint is not None else None
        priced = float(cost) if cost is not None else None
        result = ItemResult(status, answer, evidence.request_id, pool, name, tokens or None, priced)
        evidence.quiet = result.waits  # an item only told to wait for room runs again: its last attempt is the record
        evidence.finish(status)
        gateway.publish(evidence)
        if not result.waits:
            gateway.metrics.request_done(surface, status, evidence.duration_ms / 1000.0)
        return result

    async def _run(
        self,
        caller: Principal | None,
        surface: str,
        body: dict[str, Any],
        headers: Mapping[str, str],
        evidence: Evidence,
    ) -> tuple[int, Any, Endpoint | None]:
        encoder = None
        plan, path = surface, PATHS.get(surface, CHAT_PATH)
        if surface == "responses":
            translated = translate(parse(body), [])
            encoder = Encoder(response_head(translated, new_id("resp")), False)  # the fields a Response echoes
            plan, body = "chat", translated.body
        body = {**body, "stream": False}
        raw = json.dumps(body).encode()
        context = RequestContext.parsed(evidence.request_id, plan, path, headers, raw, body)
        decision = await decide(self.gateway, plan, context, evidence, caller=caller, seeded=True)
        if encoder is not None:
            decision.filters.append(encoder)
        sent = {"Content-Type": "application/json", "Accept-Encoding": "identity", "X-Request-Id": evidence.request_id}

        async def whole(upstream: aiohttp.ClientResponse, ours: dict[str, str], log: Dispatch) -> tuple[int, Any]:
            try:
                return await _whole(upstream, log, decision)
            finally:
                record_failure(evidence, log)

        status, answer = await send(self.gateway, evidence, decision, path, sent, whole)
        answered = evidence.dispatch.endpoint if isinstance(evidence.dispatch, Dispatch) else None
        placement = decision.placement
        return status, answer, next((e for e in (placement.endpoint, *placement.fallbacks) if e.name == answered), None)


async def _whole(upstream: aiohttp.ClientResponse, log: Dispatch, decision: Decision) -> tuple[int, Any]:
    """The answer read whole and through the plan's output guards; an upstream's error in OpenAI words."""
    limit = MAX_ERROR_BYTES if upstream.status >= 400 else MAX_ANSWER_BYTES
    try:
        async with upstream, asyncio.timeout(finite(log.timeouts.idle_s)):
            raw = await upstream.content.read(limit)
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.outcome = "upstream_broke"
        raise UpstreamUnavailable(f"upstream {log.endpoint!r} failed while sending its answer") from exc
    log.bytes, log.outcome = len(raw), "completed"
    if upstream.status >= 400:
        code, message = upstream_error(upstream.status, raw)
        log.upstream_error = {"code": code, "message": message}
        kind = "upstream_error" if upstream.status >= 500 else None
        return upstream.status, json.loads(error_body(upstream.status, code, message, kind))
    if (used := usage_of(raw)) is not None:  # the answer's tokens: the job's totals and the tenant's budget
        log.record_usage(used)
    if decision.filters:
        refuse_encoded(upstream, log)
        try:
            raw = FilterChain(decision.filters).whole(raw)
        except Exception as exc:  # a guard that cannot check the answer withholds it
            refused(exc, log)
            raise UpstreamUnavailable(str(exc), code="output_refused") from None
    try:
        return upstream.status, json.loads(raw)
    except ValueError:
        raise UpstreamUnavailable("the upstream's answer is not JSON", code="upstream_malformed") from None
