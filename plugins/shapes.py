"""The shapes of the OpenAI request fields the plan's steps read, checked before any step runs.

Part of the SDK's promise to step authors: a step that reads `messages`,
content parts, `tools` or tool calls may rely on these shapes, because the
front door refuses a body without them before any step runs.

Steps read messages, content parts, tools and tool calls; a body whose
`messages` is a number or a string would either fail a step (a 503 for the
client's mistake) or be forwarded unchecked. Only the fields steps read are
checked, strictly (no coercion); every other field passes through as sent,
so a newer API field never breaks a client. A bad field is a 400 that names
its path, e.g. `messages[2].content[0].text: Input should be a valid string`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel as _Model
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from .failures import ClientError

_OPEN = ConfigDict(extra="allow", strict=True)


class _Function(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    name: str
    arguments: NotRequired[str]


class _ToolCall(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    id: NotRequired[str]
    type: NotRequired[str]
    function: _Function


class _Part(_Model):
    model_config = _OPEN
    type: str
    text: str | None = None

    @model_validator(mode="after")
    def _text_parts_have_text(self) -> _Part:
        if self.type in ("text", "input_text", "output_text") and self.text is None:
            raise ValueError(f"a {self.type!r} part needs `text`, a string")
        return self


class _Message(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    role: str
    content: NotRequired[str | list[_Part] | None]
    name: NotRequired[str]
    tool_calls: NotRequired[list[_ToolCall] | None]
    tool_call_id: NotRequired[str]
    function_call: NotRequired[_Function | None]


class _ToolFunction(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    name: str
    description: NotRequired[str | None]
    parameters: NotRequired[dict[str, Any] | None]


class _Tool(_Model):
    model_config = _OPEN
    type: str
    function: _ToolFunction | None = None

    @model_validator(mode="after")
    def _function_tools_have_function(self) -> _Tool:
        if self.type == "function" and self.function is None:
            raise ValueError("a 'function' tool needs `function` with a `name`")
        return self


class _Named(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    name: str


class _ToolChoice(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    type: str
    function: NotRequired[_Named]


_Tokens = list[int] | list[list[int]]
_Count = int | None


class _Common(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    model: str
    stream: NotRequired[bool | None]
    stream_options: NotRequired[dict[str, Any] | None]
    max_tokens: NotRequired[_Count]
    max_completion_tokens: NotRequired[_Count]
    user: NotRequired[str]
    metadata: NotRequired[dict[str, Any] | None]


class _Chat(_Common):
    messages: NotRequired[Annotated[list[_Message], Field(min_length=1)]]  # absent: the upstream says so
    tools: NotRequired[list[_Tool] | None]
    tool_choice: NotRequired[Literal["none", "auto", "required"] | _ToolChoice | None]
    functions: NotRequired[list[_Named] | None]
    function_call: NotRequired[Literal["none", "auto"] | _Named | None]
    parallel_tool_calls: NotRequired[bool | None]
    tool_loop: NotRequired[Any]  # the tool loop checks its own request


class _Completions(_Common):
    prompt: NotRequired[str | list[str] | _Tokens]
    suffix: NotRequired[str | None]


class _Embeddings(_Common):
    input: NotRequired[str | list[str] | _Tokens]


SHAPES: dict[str, TypeAdapter[Any]] = {
    "chat": TypeAdapter(_Chat),
    "completions": TypeAdapter(_Completions),
    "embeddings": TypeAdapter(_Embeddings),
}


def check(surface: str, body: dict[str, Any]) -> None:
    """Refuse a body whose fields steps read have the wrong shape: 400 naming the first bad field's path."""
    shape = SHAPES.get(surface)
    if shape is None:
        return
    try:
        shape.validate_python(body)
    except ValidationError as exc:
        where, reason = _first_problem(exc, body)
        raise ClientError(400, "invalid_field", f"{where}: {reason}", param=where) from None


def _first_problem(exc: ValidationError, body: dict[str, Any]) -> tuple[str, str]:
    """The deepest bad field; where a union's branches all failed there, what each would have needed."""
    errors = [
        (path(e["loc"], body, e["type"] == "missing"), e["msg"])
        for e in exc.errors(include_url=False, include_input=False)
    ]
    deepest = max(errors, key=lambda e: e[0].count(".") + e[0].count("["))[0]
    reasons = list(dict.fromkeys(msg.removeprefix("Value error, ") for where, msg in errors if where == deepest))
    lead = "Input should be "
    rest = [r.removeprefix(lead) if r.startswith(lead) and reasons[0].startswith(lead) else r for r in reasons[1:]]
    return deepest, " or ".join([reasons[0], *rest])


def path(loc: tuple[int | str, ...], body: Any, missing: bool = False) -> str:
    """messages[2].content, from pydantic's location: steps the body does not have (union branch tags) left out."""
    out, value = "", body
    for position, key in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            out, value = out + f"[{key}]", value[key]
        elif isinstance(value, dict) and isinstance(key, str) and (key in value or (missing and last)):
            out, value = out + (f".{key}" if out else key), value.get(key)
    return out or "the body"
