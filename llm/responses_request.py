"""A Responses API request, checked and translated into the chat completions body the chat plan runs.

Input items become chat messages in order: a message keeps its role (a
`developer` message becomes `system`, which every engine knows), its text
and image parts become chat parts; `function_call` items become the
preceding assistant message's `tool_calls`, `function_call_output` items
`tool` messages; `reasoning` items are dropped (an engine cannot read them
back). `instructions` become a first system message, not carried into a
follow-up (as the Responses API does). Function tools become chat function
tools; `text.format` becomes `response_format`, `max_output_tokens`
`max_tokens`, `reasoning.effort` `reasoning_effort`.

Only what can be translated is accepted: any other item, part or tool
type, or a parameter taskgate cannot honour, is a 400 that names its path,
as is a parameter the Responses API does not have.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from taskgate.plugins import ClientError
from taskgate.plugins.shapes import path

_STRICT = ConfigDict(extra="allow", strict=True)  # items may carry ids and statuses a client echoes back
TOOL_LOOP = "tool_loop"  # the agent room's field, passed through to the chat body it takes over
IGNORED = frozenset(
    {"include", "service_tier", "safety_identifier", "prompt_cache_key", "prompt_cache_retention", "stream_options",
     "truncation", "max_tool_calls", "top_logprobs"}
)  # fmt: skip
"""Accepted, and without effect on an engine that speaks chat completions."""
UNSUPPORTED = {
    "background": "taskgate answers while the client waits; leave out background",
    "conversation": "taskgate continues a response with previous_response_id; leave out conversation",
    "prompt": "taskgate keeps no prompt templates; send the input itself",
    "context_management": "taskgate does not compact conversations",
}


class _Text(BaseModel):
    model_config = _STRICT
    type: Literal["input_text", "output_text"]
    text: str


class _Image(BaseModel):
    model_config = _STRICT
    type: Literal["input_image"]
    image_url: str  # a URL or a data URL: taskgate knows no file ids
    detail: str | None = None


class _Refusal(BaseModel):
    model_config = _STRICT
    type: Literal["refusal"]
    refusal: str


_Part = Annotated[_Text | _Image | _Refusal, Field(discriminator="type")]


class _Message(BaseModel):
    model_config = _STRICT
    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[_Part]


class _FunctionCall(BaseModel):
    model_config = _STRICT
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str


class _FunctionOutput(BaseModel):
    model_config = _STRICT
    type: Literal["function_call_output"]
    call_id: str
    output: str | list[_Text]


class _Reasoning(BaseModel):
    model_config = _STRICT
    type: Literal["reasoning"]


ITEMS: dict[str, TypeAdapter[Any]] = {
    "message": TypeAdapter(_Message),
    "function_call": TypeAdapter(_FunctionCall),
    "function_call_output": TypeAdapter(_FunctionOutput),
    "reasoning": TypeAdapter(_Reasoning),
}


class _FunctionTool(BaseModel):
    model_config = _STRICT
    type: Literal["function"]
    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class _Format(BaseModel):
    model_config = _STRICT
    type: Literal["text", "json_object", "json_schema"]
    name: str | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    description: str | None = None
    strict: bool | None = None


class _TextConfig(BaseModel):
    model_config = _STRICT
    format: _Format | None = None


class _ReasoningConfig(BaseModel):
    model_config = _STRICT
    effort: str | None = None


class _ToolChoice(BaseModel):
    model_config = _STRICT
    type: Literal["function"]
    name: str


class ResponsesRequest(BaseModel):
    """The fields of a Responses request taskgate reads; any other is refused (see IGNORED, UNSUPPORTED)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    model: str
    input: str | list[dict[str, Any]]  # items are checked one by one, so an error names the item
    instructions: str | None = None
    previous_response_id: str | None = Field(default=None, min_length=1, max_length=128)
    tools: list[dict[str, Any]] | None = None
    tool_choice: Literal["none", "auto", "required"] | _ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    stream: bool | None = None
    store: bool | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_output_tokens: int | None = Field(default=None, ge=1)
    metadata: dict[str, str] | None = None
    text: _TextConfig | None = None
    reasoning: _ReasoningConfig | None = None
    user: str | None = None
    tool_loop: Any = None


@dataclass
class Translated:
    """A Responses request as a chat completions body, and what the answer's translation needs of it."""

    ask: ResponsesRequest
    body: dict[str, Any]
    instructions: int  # how many leading messages the instructions are (not kept for a follow-up)
    tools: list[dict[str, Any]] = field(default_factory=list)  # as the client gave them, for the Response

    @property
    def stream(self) -> bool:
        return self.ask.stream is True

    @property
    def store(self) -> bool:
        return self.ask.store is not False


def parse(raw: Mapping[str, Any]) -> ResponsesRequest:
    """The request's fields checked; a 400 naming the first one that cannot be taken."""
    for name, reason in UNSUPPORTED.items():
        if raw.get(name) not in (None, False):
            raise ClientError(400, "unsupported_parameter", f"{name}: {reason}", name)
    fields = {k: v for k, v in raw.items() if k not in IGNORED and k not in UNSUPPORTED}
    try:
        return ResponsesRequest.model_validate(fields)
    except ValidationError as exc:
        raise _invalid(exc, dict(raw)) from None


def translate(ask: ResponsesRequest, history: list[dict[str, Any]]) -> Translated:
    """The chat body: instructions, the conversation so far (`history`), then this request's input."""
    lead = [{"role": "system", "content": ask.instructions}] if ask.instructions else []
    tools = [_tool(tool, f"tools[{i}]") for i, tool in enumerate(ask.tools or [])]
    body: dict[str, Any] = {"model": ask.model, "messages": [*lead, *history, *messages(ask.input)]}
    if tools:
        body["tools"] = [_chat_tool(tool) for tool in tools]
    body.update(_options(ask))
    return Translated(ask, body, len(lead), [tool.model_dump(exclude_none=True) for tool in tools])


def messages(given: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Input items as chat messages, in order."""
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    out: list[dict[str, Any]] = []
    for position, raw in enumerate(given):
        item = _item(raw, f"input[{position}]")
        if isinstance(item, _Message):
            out.append(_message(item))
        elif isinstance(item, _FunctionCall):
            _add_call(out, item)
        elif isinstance(item, _FunctionOutput):
            out.append({"role": "tool", "tool_call_id": item.call_id, "content": _output_text(item.output)})
    if not out:
        raise ClientError(400, "invalid_field", "input: give at least one message or tool output", "input")
    return out


def _item(raw: Any, where: str) -> BaseModel:
    if not isinstance(raw, dict):
        raise ClientError(400, "invalid_field", f"{where}: an input item must be an object", where)
    kind = raw.get("type", "message" if "role" in raw else None)
    adapter = ITEMS.get(kind) if isinstance(kind, str) else None
    if adapter is None:
        known = ", ".join(repr(k) for k in ITEMS)
        reason = f"taskgate translates input items of type {known}, not {kind!r}"
        raise ClientError(400, "unsupported_item", f"{where}.type: {reason}", f"{where}.type")
    try:
        item: BaseModel = adapter.validate_python(raw)
    except ValidationError as exc:
        raise _invalid(exc, raw, where) from None
    return item


def _message(item: _Message) -> dict[str, Any]:
    role = "system" if item.role == "developer" else item.role
    if isinstance(item.content, str):
        return {"role": role, "content": item.content}
    refusals = [part.refusal for part in item.content if isinstance(part, _Refusal)]
    parts = [_part(part) for part in item.content if not isinstance(part, _Refusal)]
    message: dict[str, Any] = {"role": role, "content": _content(parts)}
    if refusals and role == "assistant":
        message["refusal"] = "".join(refusals)
    return message


def _part(part: _Text | _Image) -> dict[str, Any]:
    if isinstance(part, _Text):
        return {"type": "text", "text": part.text}
    image: dict[str, Any] = {"url": part.image_url} | ({"detail": part.detail} if part.detail else {})
    return {"type": "image_url", "image_url": image}


def _content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]] | None:
    """One text part as a plain string (what every engine reads); several parts as chat parts."""
    if not parts:
        return None
    if len(parts) == 1 and parts[0]["type"] == "text":
        return str(parts[0]["text"])
    return parts


def _add_call(out: list[dict[str, Any]], item: _FunctionCall) -> None:
    """A function call joins the assistant message just before it, as chat carries a turn's calls."""
    call = {"id": item.call_id, "type": "function", "function": {"name": item.name, "arguments": item.arguments}}
    last = out[-1] if out else None
    if last is not None and last["role"] == "assistant":
        last["tool_calls"] = [*last.get("tool_calls", []), call]
    else:
        out.append({"role": "assistant", "content": None, "tool_calls": [call]})


def _output_text(output: str | list[_Text]) -> str:
    return output if isinstance(output, str) else "".join(part.text for part in output)


def _tool(raw: Any, where: str) -> _FunctionTool:
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind != "function":
        reason = f"taskgate translates function tools only, not {kind!r}"
        raise ClientError(400, "unsupported_tool", f"{where}.type: {reason}", f"{where}.type")
    try:
        return _FunctionTool.model_validate(raw)
    except ValidationError as exc:
        raise _invalid(exc, raw, where) from None


def _chat_tool(tool: _FunctionTool) -> dict[str, Any]:
    function = tool.model_dump(exclude={"type"}, exclude_none=True)
    return {"type": "function", "function": function}


def _options(ask: ResponsesRequest) -> dict[str, Any]:
    """The chat body's other fields, from the request's."""
    out: dict[str, Any] = {}
    for name in ("temperature", "top_p", "parallel_tool_calls", "user"):
        if (value := getattr(ask, name)) is not None:
            out[name] = value
    if ask.max_output_tokens is not None:
        out["max_tokens"] = ask.max_output_tokens
    if isinstance(ask.tool_choice, _ToolChoice):
        out["tool_choice"] = {"type": "function", "function": {"name": ask.tool_choice.name}}
    elif ask.tool_choice is not None:
        out["tool_choice"] = ask.tool_choice
    if ask.text is not None and ask.text.format is not None and ask.text.format.type != "text":
        out["response_format"] = _response_format(ask.text.format)
    if ask.reasoning is not None and ask.reasoning.effort is not None:
        out["reasoning_effort"] = ask.reasoning.effort
    if ask.stream:
        out |= {"stream": True, "stream_options": {"include_usage": True}}
    if ask.tool_loop is not None:
        out[TOOL_LOOP] = ask.tool_loop
    return out


def _response_format(given: _Format) -> dict[str, Any]:
    if given.type == "json_object":
        return {"type": "json_object"}
    if given.name is None or given.schema_ is None:
        message = "text.format: a json_schema format needs a name and a schema"
        raise ClientError(400, "invalid_field", message, "text.format")
    schema = {"name": given.name, "schema": given.schema_, "description": given.description, "strict": given.strict}
    return {"type": "json_schema", "json_schema": {k: v for k, v in schema.items() if v is not None}}


def _invalid(exc: ValidationError, value: Any, where: str = "") -> ClientError:
    """The deepest problem pydantic found (where a union's branches failed, the one that got furthest), as a 400
    naming its path (`input[2].content[0].text`)."""
    found = [(path(e["loc"], value, e["type"] == "missing"), e) for e in exc.errors(include_url=False)]
    inner, error = max(found, key=lambda pair: pair[0].count(".") + pair[0].count("["))
    place = inner if not where else where if inner == "the body" else f"{where}{'' if inner[0] == '[' else '.'}{inner}"
    if error["type"] == "extra_forbidden":
        return ClientError(400, "unknown_parameter", f"Unknown parameter: {place!r}.", place)
    return ClientError(400, "invalid_field", f"{place}: {error['msg'].removeprefix('Value error, ')}", place)
