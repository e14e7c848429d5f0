"""Parsing and validating OpenAI request bodies."""

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import TypeGuard

from taskgate.sim.errors import bad_request, model_not_found
from taskgate.sim.tokens import render_chat, tokenize

Body = dict[str, object]


@dataclass(frozen=True)
class GenerationRequest:
    """A chat or text completion request, reduced to what the engine needs."""

    chat: bool
    model: str
    prompt: list[str]
    max_tokens: int
    stream: bool
    include_usage: bool
    seed: int | None


@dataclass(frozen=True)
class EmbeddingRequest:
    """An embeddings request: one token list per input."""

    model: str
    inputs: list[list[str]]
    dimensions: int | None
    base64: bool


def parse_body(raw: bytes) -> Body:
    """Decode a JSON object body or raise a 400."""
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise bad_request(f"Malformed JSON body: {exc}") from None
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.")
    return body


def chat_request(body: Body, models: Collection[str], max_tokens: int) -> GenerationRequest:
    """Validate a ``/v1/chat/completions`` body."""
    model = _model(body, models)
    prompt = tokenize(render_chat(_messages(body), body.get("tools")))
    return _generation(body, True, model, prompt, max_tokens)


def completion_request(body: Body, models: Collection[str], max_tokens: int) -> GenerationRequest:
    """Validate a ``/v1/completions`` body."""
    model = _model(body, models)
    prompt = _single_prompt(body.get("prompt"))
    return _generation(body, False, model, prompt, max_tokens)


def embedding_request(body: Body, models: Collection[str]) -> EmbeddingRequest:
    """Validate a ``/v1/embeddings`` body."""
    model = _model(body, models)
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64", None):
        raise bad_request("encoding_format must be 'float' or 'base64'.", "encoding_format")
    dimensions = _optional_int(body, "dimensions")
    if dimensions is not None and dimensions < 1:
        raise bad_request("dimensions must be at least 1.", "dimensions")
    return EmbeddingRequest(model, _inputs(body.get("input")), dimensions, encoding == "base64")


def _generation(body: Body, chat: bool, model: str, prompt: list[str], default_max: int) -> GenerationRequest:
    if _optional_int(body, "n") not in (None, 1):
        raise bad_request("Only n=1 is supported.", "n")
    stream = _flag(body, "stream")
    return GenerationRequest(
        chat=chat,
        model=model,
        prompt=prompt,
        max_tokens=_max_tokens(body, default_max),
        stream=stream,
        include_usage=_include_usage(body, stream),
        seed=_optional_int(body, "seed"),
    )


def _model(body: Body, models: Collection[str]) -> str:
    model = body.get("model")
    if not isinstance(model, str):
        raise bad_request("'model' must be a string.", "model")
    if model not in models:
        raise model_not_found(model)
    return model


def _optional_int(body: Body, name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_request(f"'{name}' must be an integer.", name)
    return value


def _flag(body: Body, name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool) and value is not None:
        raise bad_request(f"'{name}' must be a boolean.", name)
    return bool(value)


def _max_tokens(body: Body, default: int) -> int:
    for name in ("max_completion_tokens", "max_tokens"):
        value = _optional_int(body, name)
        if value is not None:
            if value < 1:
                raise bad_request(f"'{name}' must be at least 1.", name)
            return value
    return default


def _include_usage(body: Body, stream: bool) -> bool:
    options = body.get("stream_options")
    if options is None:
        return False
    if not stream:
        message = "The 'stream_options' parameter is only allowed when 'stream' is enabled."
        raise bad_request(message, "stream_options")
    if not isinstance(options, dict):
        raise bad_request("'stream_options' must be an object.", "stream_options")
    return _flag(options, "include_usage")


def _messages(body: Body) -> list[Body]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise bad_request("'messages' must be a non-empty list.", "messages")
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise bad_request("Each message must be an object with a 'role'.", "messages")
    return messages


def _single_prompt(value: object) -> list[str]:
    if isinstance(value, list) and len(value) == 1 and not _is_token_ids(value):
        value = value[0]
    tokens = _tokens_of(value)
    if tokens is None:
        raise bad_request("'prompt' must be a string or a list of token ids.", "prompt")
    return tokens


def _inputs(value: object) -> list[list[str]]:
    single = _tokens_of(value)
    if single is not None:
        return [single]
    if not isinstance(value, list) or not value:
        raise bad_request("'input' must be a string or a non-empty list.", "input")
    inputs = [_tokens_of(item) for item in value]
    if any(tokens is None for tokens in inputs):
        raise bad_request("Each input must be a string or a list of token ids.", "input")
    return [tokens for tokens in inputs if tokens is not None]


def _tokens_of(value: object) -> list[str] | None:
    if isinstance(value, str):
        return tokenize(value)
    if _is_token_ids(value):
        return [str(token) for token in value]
    return None


def _is_token_ids(value: object) -> TypeGuard[list[int]]:
    if not isinstance(value, list) or not value:
        return False
    return all(isinstance(item, int) and not isinstance(item, bool) for item in value)
