"""The batch room's `Items`: one item through its surface's plan, as the job's caller.

The caller was authenticated when the job was created; the job keeps who it
was (never the token), as the authenticating room keeps its principals
(`plugins.principals`). An item runs the surface's plan compiled without its
authenticate step, with that identity as a seed (`Gateway.seeded`), so
authorization, PII guards, classification and routing decide each item as
they would the caller's own request, under the policy of the moment. Its
answer is read whole, through the plan's output guards, and it leaves an
evidence record shaped like a request's. A Responses item is translated onto
the chat plan, as `/v1/responses` is; it is not kept for a follow-up.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from taskgate.batch.types import ItemResult
from taskgate.gateway.decide import decide
from taskgate.gateway.errors import UpstreamUnavailable, error_body
from taskgate.gateway.gateway import Gateway
from taskgate.gateway.send import outgoing, send
from taskgate.plugins import FAILURES, Endpoint, Principal, RequestContext, Surface
from taskgate.plugins.evidence import Evidence
from taskgate.plugins.principals import keeper

from .responses import CHAT_PATH, response_head
from .responses import PATH as RESPONSES_PATH
from .responses_answer import Encoder, new_id
from .responses_request import parse, translate
from .routes import PATHS

MAX_ANSWER_BYTES = 64 * 1024 * 1024  # an item's answer is kept whole in its job's output file


class GatewayItems:
    """The batch room's Items, as this gateway runs them."""

    def __init__(self, gateway: Gateway):
        self.gateway = gateway

    def seal(self, caller: Principal | None) -> dict[str, Any] | None:
        return keeper(self.gateway.services).seal(caller) if caller is not None else None

    def unseal(self, sealed: Mapping[str, Any] | None) -> Principal | None:
        return keeper(self.gateway.services).unseal(sealed) if sealed is not None else None

    async def run(
        self,
        caller: Principal | None,
        surface: str,
        body: dict[str, Any],
        headers: Mapping[str, str],
        labels: Mapping[str, Any],
    ) -> ItemResult:
        path = RESPONSES_PATH if surface == Surface.RESPONSES else PATHS[surface]
        evidence = Evidence(uuid.uuid4().hex, path, surface=surface, model=str(body.get("model")))
        evidence.batch = dict(labels)
        gateway = self.gateway
        gateway.metrics.inflight += 1
        endpoint: Endpoint | None = None
        try:
            status, answer, endpoint = await self._run(caller, surface, body, headers, evidence)
        except Exception as exc:  # a refusal (authorization, PII, budget) or a failure: the item's error line
            problem = FAILURES.settle(exc, evidence)
            status, cited = problem.status, problem.cited(evidence.request_id)
            answer = json.loads(error_body(status, problem.code, cited, problem.kind, problem.param, problem.public))
        finally:
            gateway.metrics.inflight -= 1
        result = _result(status, answer, evidence, endpoint)
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
        if surface == Surface.RESPONSES:
            translated = translate(parse(body), [])
            encoder = Encoder(response_head(translated, new_id("resp")), False)  # the fields a Response echoes
            plan, body = Surface.CHAT, translated.body
        body = {**body, "stream": False}
        raw = json.dumps(body).encode()
        context = RequestContext.parsed(evidence.request_id, plan, path, headers, raw, body)
        decision = await decide(self.gateway, plan, context, evidence, caller=caller, seeded=True)
        if encoder is not None:
            decision.filters.append(encoder)
        async with send(self.gateway, evidence, decision, path, outgoing(evidence)) as answer:
            if answer.status >= 400:
                failed = await answer.error()
                kind = "upstream_error" if failed.status >= 500 else None
                error = orjson.loads(error_body(failed.status, failed.code, failed.message, kind))
                return failed.status, error, answer.endpoint
            whole = await answer.whole(MAX_ANSWER_BYTES)
            try:
                return answer.status, orjson.loads(whole), answer.endpoint
            except orjson.JSONDecodeError:  # what the guards and the translation gave back is no longer JSON
                raise UpstreamUnavailable("the answer is not JSON", code="upstream_malformed") from None


def _result(status: int, answer: Any, evidence: Evidence, endpoint: Endpoint | None) -> ItemResult:
    usage = evidence.usage or {}
    tokens = {k: int(v) for k, v in usage.items() if k.endswith("_tokens") and isinstance(v, int)}
    cost = usage.get("cost")
    pool, name = (endpoint.pool, endpoint.name) if endpoint is not None else (None, None)
    return ItemResult(
        status, answer, evidence.request_id, pool, name, tokens or None, float(cost) if cost is not None else None
    )
