"""HTTP handlers for the OpenAI-compatible endpoints of one engine."""

import json
import time
import uuid
from contextlib import aclosing

from aiohttp import web

from taskgate.sim import responses, responses_api
from taskgate.sim.embeddings import embed
from taskgate.sim.engine import CapacityError, Engine
from taskgate.sim.errors import bad_request
from taskgate.sim.metrics import CONTENT_TYPE
from taskgate.sim.protocol import (
    GenerationRequest,
    chat_request,
    completion_request,
    embedding_request,
    parse_body,
)
from taskgate.sim.remote import FIELD, asked, handoff
from taskgate.sim.responses import Envelope
from taskgate.sim.script import Script, rule_pieces
from taskgate.sim.sequence import Sequence
from taskgate.sim.text import content_seed
from taskgate.sim.tokens import block_hashes, message_text

SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


class Api:
    """The endpoints, bound to one engine."""

    def __init__(self, engine: Engine, script: Script | None = None, name: str = "sim") -> None:
        self.engine = engine
        self.script = script
        self.profile = engine.profile
        self.started = int(time.time())
        self.engine_id = f"{name}-{uuid.uuid4().hex[:8]}"  # a prefill's answer names it for the decode engine

    async def chat(self, request: web.Request) -> web.StreamResponse:
        """``POST /v1/chat/completions``."""
        body = parse_body(await request.read())
        req = chat_request(body, self.profile.models, self.profile.default_max_tokens)
        messages = body.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages and isinstance(messages[-1], dict) else {}
        role = last.get("role") if isinstance(last.get("role"), str) else None
        return await self._complete(request, req, message_text(last.get("content")), role, body)

    async def responses(self, request: web.Request) -> web.StreamResponse:
        """``POST /v1/responses``: the chat generation, asked and answered in the Responses API's shapes."""
        body = parse_body(await request.read())
        if body.get("stream"):
            raise bad_request("this engine answers the Responses API whole only; leave out stream", "stream")
        chat = responses_api.as_chat(body)
        req = chat_request(chat, self.profile.models, self.profile.default_max_tokens)
        last = chat["messages"][-1] if chat["messages"] else {}
        answer = await self._complete(request, req, message_text(last.get("content")), last.get("role"))
        if not isinstance(answer, web.Response) or answer.status != 200 or not isinstance(answer.body, bytes):
            return answer
        return web.json_response(responses_api.as_response(json.loads(answer.body), body))

    async def completions(self, request: web.Request) -> web.StreamResponse:
        """``POST /v1/completions``."""
        body = parse_body(await request.read())
        req = completion_request(body, self.profile.models, self.profile.default_max_tokens)
        prompt = body.get("prompt")
        return await self._complete(request, req, prompt if isinstance(prompt, str) else "", None, body)

    async def embeddings(self, request: web.Request) -> web.Response:
        """``POST /v1/embeddings``."""
        req = embedding_request(parse_body(await request.read()), self.profile.models)
        dim = req.dimensions or self.profile.embedding_dim
        if dim > self.profile.embedding_dim:
            raise bad_request(f"dimensions must be at most {self.profile.embedding_dim}.", "dimensions")
        tokens = sum(len(tokens) for tokens in req.inputs)
        await self.engine.embed(tokens)
        vectors = [embed(req.model, tokens, dim) for tokens in req.inputs]
        return web.json_response(responses.embeddings(req.model, vectors, tokens, req.base64))

    async def models(self, request: web.Request) -> web.Response:
        """``GET /v1/models``."""
        body = responses.models(self.profile.models, self.profile.max_model_len, self.started)
        return web.json_response(body)

    async def health(self, request: web.Request) -> web.Response:
        """``GET /health``: 200 with an empty body while serving."""
        return web.Response()

    async def metrics(self, request: web.Request) -> web.Response:
        """``GET /metrics`` in the Prometheus text format."""
        self.engine.refresh_metrics()
        return web.Response(body=self.engine.metrics.render(), headers={"Content-Type": CONTENT_TYPE})

    async def _complete(
        self,
        request: web.Request,
        req: GenerationRequest,
        last: str,
        role: str | None = None,
        body: dict[str, object] | None = None,
    ) -> web.StreamResponse:
        seq = Sequence(req.prompt, req.max_tokens, content_seed(req.model, req.prompt, req.seed))
        transfer = asked(body, self.profile.role) if body is not None and self.profile.role != "both" else None
        if transfer is not None:
            seq.remote = transfer.remote
        rule = self.script.find(last, role) if self.script is not None else None
        if rule is not None:
            scripted = rule_pieces(rule)
            seq.scripted, seq.kinds, seq.delay_s = [p.text for p in scripted], scripted, rule.delay_s
        try:
            self.engine.check(seq)
        except CapacityError as exc:
            raise bad_request(str(exc), "messages" if req.chat else "prompt") from None
        env = Envelope(req.model, req.chat)
        if req.stream:
            return await self._stream(request, req, seq, env)
        async with aclosing(self.engine.generate(seq)) as tokens:
            async for _ in tokens:
                pass
        answer = responses.completion(env, seq)
        if transfer is not None and transfer.remote_decode:
            answer[FIELD] = self._handoff(request, seq)
        return web.json_response(answer)

    def _handoff(self, request: web.Request, seq: Sequence) -> dict[str, object]:
        """What the decode engine needs to pull this prefill's KV: this engine, its blocks, where it listens."""
        self.engine.metrics.handed_off()
        host, _, port = request.host.rpartition(":")
        blocks = block_hashes(seq.prompt, self.profile.block_size)
        return handoff(self.engine_id, blocks, host or None, int(port) if port.isdigit() else None)

    async def _stream(
        self, request: web.Request, req: GenerationRequest, seq: Sequence, env: Envelope
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers=SSE_HEADERS)
        await response.prepare(request)
        try:
            async with aclosing(self.engine.generate(seq)) as tokens:
                async for _ in tokens:
                    await _send(response, responses.token_chunk(env, seq, req.include_usage))
            if req.include_usage:
                await _send(response, responses.usage_chunk(env, seq))
            await response.write(b"data: [DONE]\n\n")
        except ConnectionResetError:
            pass  # the client went away; the sequence is already freed
        return response


async def _send(response: web.StreamResponse, chunk: dict[str, object]) -> None:
    data = json.dumps(chunk, separators=(",", ":"))
    await response.write(f"data: {data}\n\n".encode())
