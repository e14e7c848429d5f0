"""OpenAI-shaped response bodies."""

import base64
import struct
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from taskgate.sim.sequence import Sequence as EngineSequence
from taskgate.sim.tokens import piece

Body = dict[str, object]


@dataclass(frozen=True)
class Envelope:
    """The fields every body and chunk of one completion shares."""

    model: str
    chat: bool
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created: int = field(default_factory=lambda: int(time.time()))

    def head(self, chunk: bool) -> Body:
        """``id``, ``object``, ``created`` and ``model``."""
        prefix = "chatcmpl-" if self.chat else "cmpl-"
        return {
            "id": prefix + self.id,
            "object": self._object(chunk),
            "created": self.created,
            "model": self.model,
        }

    def _object(self, chunk: bool) -> str:
        if not self.chat:
            return "text_completion"
        return "chat.completion.chunk" if chunk else "chat.completion"


def usage(seq: EngineSequence) -> Body:
    """Token accounting, with cached prompt tokens."""
    prompt, completion = len(seq.prompt), len(seq.output)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": seq.cached_tokens},
    }


def completion(env: Envelope, seq: EngineSequence) -> Body:
    """A non-streaming chat or text completion."""
    choice: Body = {"index": 0}
    if env.chat:
        calls = seq.tool_calls() if seq.kinds else []
        message: Body = {"role": "assistant", "content": seq.text or (None if calls else "")}
        if calls:
            message["tool_calls"] = calls
        choice["message"] = message
    else:
        choice["text"] = seq.text
    choice |= {"logprobs": None, "finish_reason": seq.finish_reason}
    return {**env.head(False), "choices": [choice], "usage": usage(seq)}


def token_chunk(env: Envelope, seq: EngineSequence, include_usage: bool) -> Body:
    """The stream chunk for the latest output token of ``seq``."""
    index = len(seq.output) - 1
    text = seq.output[index] if seq.scripted is not None else piece(seq.output[index], index)
    kind = seq.kinds[index] if seq.kinds is not None and index < len(seq.kinds) else None
    choice: Body = {"index": 0}
    if env.chat and kind is not None and kind.call is not None:
        call: Body = {"index": kind.call, "function": {"arguments": text}}
        if kind.name:
            call = {"index": kind.call, "id": seq.call_id(kind.call), "type": "function",
                    "function": {"name": kind.name, "arguments": text}}  # fmt: skip
        delta: Body = {"tool_calls": [call]}
        if index == 0:
            delta = {"role": "assistant", **delta}
        choice["delta"] = delta
    elif env.chat:
        delta = {"role": "assistant", "content": text} if index == 0 else {"content": text}
        choice["delta"] = delta
    else:
        choice["text"] = text
    choice |= {"logprobs": None, "finish_reason": seq.finish_reason}
    chunk = {**env.head(True), "choices": [choice]}
    return chunk | {"usage": None} if include_usage else chunk


def usage_chunk(env: Envelope, seq: EngineSequence) -> Body:
    """The final stream chunk carrying usage and no choices."""
    return {**env.head(True), "choices": [], "usage": usage(seq)}


def embeddings(model: str, vectors: Sequence[Sequence[float]], tokens: int, b64: bool) -> Body:
    """An embeddings list response."""
    data = [
        {"object": "embedding", "index": index, "embedding": _encode(vector, b64)}
        for index, vector in enumerate(vectors)
    ]
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _encode(vector: Sequence[float], b64: bool) -> object:
    if not b64:
        return list(vector)
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


def models(names: Iterable[str], max_model_len: int, created: int) -> Body:
    """The ``/v1/models`` list."""
    data = [
        {
            "id": name,
            "object": "model",
            "created": created,
            "owned_by": "taskgate-sim",
            "max_model_len": max_model_len,
        }
        for name in names
    ]
    return {"object": "list", "data": data}
