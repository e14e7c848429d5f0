"""An MCP server that serves everything the official conformance suite's server scenarios ask for.

Written on the Python SDK's low-level `Server`, so every tool schema, content block
and server-to-client request goes on the wire exactly as the scenarios expect (the
JSON Schema 2020-12 tool, for one, needs a hand-written `inputSchema`). Served over
Streamable HTTP on 127.0.0.1 with DNS-rebinding protection, SSE responses and an
in-memory event store, so a client that loses a stream can resume it.

    python -m tests.conformance.everything --port 8931

serves http://127.0.0.1:8931/mcp. Each scenario, and what it needs from here:

    server-initialize              the initialize handshake
    logging-set-level              logging/setLevel answers {}
    ping                           ping answers {}
    completion-complete            completion/complete on test_prompt_with_arguments
    tools-list                     every tool has a name, description and inputSchema
    tools-call-simple-text         test_simple_text
    tools-call-image               test_image_content (a PNG)
    tools-call-audio               test_audio_content (a WAV, audio/wav)
    tools-call-embedded-resource   test_embedded_resource
    tools-call-mixed-content       test_multiple_content_types (text, image, resource)
    tools-call-with-logging        test_tool_with_logging: three info logs, ~50 ms apart
    tools-call-error               test_error_handling: a result with isError true
    tools-call-with-progress       test_tool_with_progress: progress 0, 50, 100 of 100
    tools-call-sampling            test_sampling(prompt): sampling/createMessage
    tools-call-elicitation         test_elicitation(message): elicitation/create
    json-schema-2020-12            json_schema_2020_12_tool keeps $schema, $defs, additionalProperties
    elicitation-sep1034-defaults   test_elicitation_sep1034_defaults: defaults for every primitive
    server-sse-polling             test_reconnection: closes its SSE stream mid-call when it can
    server-sse-multiple-streams    concurrent POSTs on one session, each its own SSE stream
    elicitation-sep1330-enums      test_elicitation_sep1330_enums: the five enum shapes
    resources-list                 direct resources, each with uri and name
    resources-read-text            test://static-text
    resources-read-binary          test://static-binary (a PNG blob)
    resources-templates-read       test://template/{id}/data
    resources-subscribe            resources/subscribe answers {}
    resources-unsubscribe          resources/unsubscribe answers {}
    prompts-list                   every prompt has a name and description
    prompts-get-simple             test_simple_prompt
    prompts-get-with-args          test_prompt_with_arguments(arg1, arg2)
    prompts-get-embedded-resource  test_prompt_with_embedded_resource(resourceUri)
    prompts-get-with-image         test_prompt_with_image
    dns-rebinding-protection       a 4xx for Host/Origin evil.example.com, 2xx for 127.0.0.1:port
"""

from __future__ import annotations

import argparse
import base64
import io
import itertools
import json
import re
import struct
import wave
import zlib
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import uvicorn
from mcp import MCPError, types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import ServerMessageMetadata
from starlette.applications import Starlette

__all__ = ["build_app", "build_server", "main"]

NAME = "taskgate-conformance-everything"
RESOURCE_NOT_FOUND = -32002  # the spec's code for resources/read of an unknown URI
LOGGER = "everything"
LOG_LEVELS: tuple[types.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)

Ctx = ServerRequestContext[dict[str, Any], Any]
ToolFn = Callable[[Ctx, dict[str, Any]], Awaitable[types.CallToolResult]]


def _png_red_pixel() -> bytes:
    """A 1x1 red PNG, built byte by byte."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte, then one red pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav_silence() -> bytes:
    """Ten milliseconds of 8 kHz mono 16-bit silence."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(8000)
        wav.writeframes(b"\x00\x00" * 80)
    return out.getvalue()


PNG = _png_red_pixel()
PNG_B64 = base64.b64encode(PNG).decode()
WAV_B64 = base64.b64encode(_wav_silence()).decode()

NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


def _string_args(**described: str) -> dict[str, Any]:
    """An inputSchema of required string arguments."""
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in described.items()},
        "required": list(described),
    }


TOOLS = [
    types.Tool(name="test_simple_text", description="Returns one text block", input_schema=NO_ARGS),
    types.Tool(name="test_image_content", description="Returns a 1x1 red PNG", input_schema=NO_ARGS),
    types.Tool(name="test_audio_content", description="Returns a short WAV", input_schema=NO_ARGS),
    types.Tool(name="test_embedded_resource", description="Returns an embedded text resource", input_schema=NO_ARGS),
    types.Tool(
        name="test_multiple_content_types", description="Returns text, an image and a resource", input_schema=NO_ARGS
    ),
    types.Tool(name="test_tool_with_logging", description="Logs three messages while it runs", input_schema=NO_ARGS),
    types.Tool(name="test_error_handling", description="Always fails, as a tool result", input_schema=NO_ARGS),
    types.Tool(name="test_tool_with_progress", description="Reports progress 0, 50 and 100", input_schema=NO_ARGS),
    types.Tool(
        name="test_sampling",
        description="Asks the client's LLM to answer a prompt (sampling/createMessage)",
        input_schema=_string_args(prompt="The prompt to send to the LLM"),
    ),
    types.Tool(
        name="test_elicitation",
        description="Asks the user for a username and an email (elicitation/create)",
        input_schema=_string_args(message="The message to show the user"),
    ),
    types.Tool(
        name="test_elicitation_sep1034_defaults",
        description="Elicits a form whose every primitive field has a default (SEP-1034)",
        input_schema=NO_ARGS,
    ),
    types.Tool(
        name="test_elicitation_sep1330_enums",
        description="Elicits a form with the five enum schema shapes (SEP-1330)",
        input_schema=NO_ARGS,
    ),
    types.Tool(
        name="json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        input_schema=JSON_SCHEMA_2020_12,
    ),
    types.Tool(
        name="test_reconnection",
        description="Closes its SSE stream mid-call; the result arrives when the client resumes (SEP-1699)",
        input_schema=NO_ARGS,
    ),
]

ELICIT_USER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}
ELICIT_DEFAULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your name", "default": "John Doe"},
        "age": {"type": "integer", "description": "Your age", "default": 30},
        "score": {"type": "number", "description": "Your score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "Your status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verified?", "default": True},
    },
}
ELICIT_ENUMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Pick one", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "description": "Pick one",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Pick one (legacy titles)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Pick any",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Pick any",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}

STATIC_TEXT = "This is the content of the static text resource."
WATCHED_TEXT = "Watched resource content"
TEMPLATE = re.compile(r"test://template/(?P<id>[^/]+)/data")
RESOURCES = [
    types.Resource(
        uri="test://static-text", name="static-text", description="A static text resource", mime_type="text/plain"
    ),
    types.Resource(
        uri="test://static-binary", name="static-binary", description="A 1x1 red PNG", mime_type="image/png"
    ),
    types.Resource(
        uri="test://watched-resource",
        name="watched-resource",
        description="A resource clients may subscribe to",
        mime_type="text/plain",
    ),
]
TEMPLATES = [
    types.ResourceTemplate(
        uri_template="test://template/{id}/data",
        name="template-data",
        description="JSON data for an id",
        mime_type="application/json",
    )
]

PROMPTS = [
    types.Prompt(name="test_simple_prompt", description="A prompt without arguments"),
    types.Prompt(
        name="test_prompt_with_arguments",
        description="A prompt with two required arguments",
        arguments=[
            types.PromptArgument(name="arg1", description="First test argument", required=True),
            types.PromptArgument(name="arg2", description="Second test argument", required=True),
        ],
    ),
    types.Prompt(
        name="test_prompt_with_embedded_resource",
        description="A prompt that embeds a resource",
        arguments=[types.PromptArgument(name="resourceUri", description="URI of the resource to embed", required=True)],
    ),
    types.Prompt(name="test_prompt_with_image", description="A prompt with an image"),
]
COMPLETIONS = {
    "arg1": ["paris", "park", "party", "test", "testing", "tested"],
    "arg2": ["world", "word", "work"],
    "id": ["1", "2", "3", "42", "123"],
}


def text(value: str) -> types.TextContent:
    return types.TextContent(text=value)


def image() -> types.ImageContent:
    return types.ImageContent(data=PNG_B64, mime_type="image/png")


def invalid_params(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


class MemoryEventStore(EventStore):
    """Keeps the newest events of every stream so a client that lost its SSE stream can resume it.

    Event ids are `<stream id>::<sequence>`, the sequence counting across all streams.
    """

    def __init__(self, keep: int = 10_000) -> None:
        self._events: deque[tuple[int, str, types.JSONRPCMessage | None]] = deque(maxlen=keep)
        self._sequence = itertools.count(1)

    async def store_event(self, stream_id: str, message: types.JSONRPCMessage | None) -> str:
        sequence = next(self._sequence)
        self._events.append((sequence, stream_id, message))
        return f"{stream_id}::{sequence}"

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        stream_id, sep, after = last_event_id.rpartition("::")
        if not sep or not after.isdigit():
            return None
        last = int(after)
        for sequence, stream, message in list(self._events):
            if stream == stream_id and sequence > last and message is not None:
                await send_callback(EventMessage(message=message, event_id=f"{stream}::{sequence}"))
        return stream_id


@dataclass
class Sessions:
    """What each client session asked for: its log level and the resources it watches."""

    levels: dict[str, types.LoggingLevel] = field(default_factory=dict)
    subscriptions: dict[str, set[str]] = field(default_factory=dict)

    @staticmethod
    def key(ctx: Ctx) -> str:
        request = ctx.request
        return str(request.headers.get("mcp-session-id", "")) if request is not None else ""

    def wants(self, ctx: Ctx, level: types.LoggingLevel) -> bool:
        floor = self.levels.get(self.key(ctx), "debug")
        return LOG_LEVELS.index(level) >= LOG_LEVELS.index(floor)


def build_server() -> Server[dict[str, Any]]:
    sessions = Sessions()

    async def log(ctx: Ctx, level: types.LoggingLevel, message: str) -> None:
        if sessions.wants(ctx, level):
            params = types.LoggingMessageNotificationParams(level=level, logger=LOGGER, data=message)
            notification = types.LoggingMessageNotification(params=params)
            await ctx.session.send_notification(notification, related_request_id=ctx.request_id)

    def on_this_request(ctx: Ctx) -> ServerMessageMetadata:
        """Server-to-client requests ride the tool call's own SSE stream."""
        return ServerMessageMetadata(related_request_id=ctx.request_id)

    async def elicit(ctx: Ctx, message: str, schema: dict[str, Any]) -> types.ElicitResult:
        request = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=schema))
        return await ctx.session.send_request(request, types.ElicitResult, metadata=on_this_request(ctx))

    def client_can(ctx: Ctx, capability: str) -> bool:
        capabilities = ctx.session.client_capabilities
        return capabilities is not None and getattr(capabilities, capability, None) is not None

    def failure(message: str) -> types.CallToolResult:
        return types.CallToolResult(content=[text(message)], is_error=True)

    async def simple_text(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return types.CallToolResult(content=[text("This is a simple text response for testing.")])

    async def image_content(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return types.CallToolResult(content=[image()])

    async def audio_content(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return types.CallToolResult(content=[types.AudioContent(data=WAV_B64, mime_type="audio/wav")])

    async def embedded_resource(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        resource = types.TextResourceContents(
            uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."
        )
        return types.CallToolResult(content=[types.EmbeddedResource(resource=resource)])

    async def multiple_content_types(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        resource = types.TextResourceContents(
            uri="test://mixed-content-resource",
            mime_type="application/json",
            text=json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
        )
        content: list[types.ContentBlock] = [
            text("Multiple content types test:"),
            image(),
            types.EmbeddedResource(resource=resource),
        ]
        return types.CallToolResult(content=content)

    async def with_logging(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        await log(ctx, "info", "Tool execution started")
        await anyio.sleep(0.05)
        await log(ctx, "info", "Tool processing data")
        await anyio.sleep(0.05)
        await log(ctx, "info", "Tool execution completed")
        return types.CallToolResult(content=[text("Tool with logging executed successfully")])

    async def error_handling(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return failure("This tool intentionally returns an error for testing")

    async def with_progress(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        # report_progress goes against the caller's progress token, and is a no-op without one
        await ctx.session.report_progress(0, 100)
        await anyio.sleep(0.05)
        await ctx.session.report_progress(50, 100)
        await anyio.sleep(0.05)
        await ctx.session.report_progress(100, 100)
        return types.CallToolResult(content=[text("Tool with progress executed successfully")])

    async def sampling(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        if not client_can(ctx, "sampling"):
            return failure("The client does not support sampling")
        message = types.SamplingMessage(role="user", content=text(str(args["prompt"])))
        request = types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(messages=[message], max_tokens=100)
        )
        result = await ctx.session.send_request(request, types.CreateMessageResult, metadata=on_this_request(ctx))
        answer = result.content.text if isinstance(result.content, types.TextContent) else "No response"
        return types.CallToolResult(content=[text(f"LLM response: {answer}")])

    async def elicitation(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        if not client_can(ctx, "elicitation"):
            return failure("The client does not support elicitation")
        result = await elicit(ctx, str(args["message"]), ELICIT_USER_SCHEMA)
        return types.CallToolResult(
            content=[text(f"User response: action={result.action}, content={json.dumps(result.content)}")]
        )

    def elicitation_form(message: str, schema: dict[str, Any]) -> ToolFn:
        async def tool(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
            if not client_can(ctx, "elicitation"):
                return failure("The client does not support elicitation")
            result = await elicit(ctx, message, schema)
            return types.CallToolResult(
                content=[text(f"Elicitation completed: action={result.action}, content={json.dumps(result.content)}")]
            )

        return tool

    async def json_schema_tool(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        return types.CallToolResult(content=[text(f"Received: {json.dumps(args, sort_keys=True)}")])

    async def reconnection(ctx: Ctx, args: dict[str, Any]) -> types.CallToolResult:
        # The transport offers the close only to clients that can resume (2025-11-25 on, with an event store)
        if ctx.close_sse_stream is not None:
            await ctx.close_sse_stream()
        await anyio.sleep(0.1)
        return types.CallToolResult(
            content=[
                text(
                    "Reconnection test completed successfully. If you received this, "
                    "the client properly reconnected after stream closure."
                )
            ]
        )

    tools: dict[str, ToolFn] = {
        "test_simple_text": simple_text,
        "test_image_content": image_content,
        "test_audio_content": audio_content,
        "test_embedded_resource": embedded_resource,
        "test_multiple_content_types": multiple_content_types,
        "test_tool_with_logging": with_logging,
        "test_error_handling": error_handling,
        "test_tool_with_progress": with_progress,
        "test_sampling": sampling,
        "test_elicitation": elicitation,
        "test_elicitation_sep1034_defaults": elicitation_form(
            "Please review and update the form fields with defaults", ELICIT_DEFAULTS_SCHEMA
        ),
        "test_elicitation_sep1330_enums": elicitation_form(
            "Please select options from the enum fields", ELICIT_ENUMS_SCHEMA
        ),
        "json_schema_2020_12_tool": json_schema_tool,
        "test_reconnection": reconnection,
    }
    assert sorted(tools) == sorted(t.name for t in TOOLS)

    async def list_tools(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = tools.get(params.name)
        if tool is None:
            raise invalid_params(f"Unknown tool: {params.name}")
        args = params.arguments or {}
        schema = next(t.input_schema for t in TOOLS if t.name == params.name)
        missing = [name for name in schema.get("required", []) if not isinstance(args.get(name), str)]
        if missing:
            raise invalid_params(f"{params.name} needs the string argument(s) {', '.join(missing)}")
        return await tool(ctx, args)

    async def list_resources(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=RESOURCES)

    async def list_templates(
        ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read_resource(ctx: Ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = params.uri
        contents: types.TextResourceContents | types.BlobResourceContents
        if uri == "test://static-text":
            contents = types.TextResourceContents(uri=uri, mime_type="text/plain", text=STATIC_TEXT)
        elif uri == "test://static-binary":
            contents = types.BlobResourceContents(uri=uri, mime_type="image/png", blob=PNG_B64)
        elif uri == "test://watched-resource":
            contents = types.TextResourceContents(uri=uri, mime_type="text/plain", text=WATCHED_TEXT)
        elif match := TEMPLATE.fullmatch(uri):
            ident = match["id"]
            data = json.dumps(
                {"id": ident, "templateTest": True, "data": f"Data for ID: {ident}"}, separators=(",", ":")
            )
            contents = types.TextResourceContents(uri=uri, mime_type="application/json", text=data)
        else:
            raise MCPError(code=RESOURCE_NOT_FOUND, message=f"Resource not found: {uri}", data={"uri": uri})
        return types.ReadResourceResult(contents=[contents])

    async def subscribe(ctx: Ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        sessions.subscriptions.setdefault(sessions.key(ctx), set()).add(params.uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: Ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        sessions.subscriptions.get(sessions.key(ctx), set()).discard(params.uri)
        return types.EmptyResult()

    async def list_prompts(ctx: Ctx, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=PROMPTS)

    async def get_prompt(ctx: Ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        prompt = next((p for p in PROMPTS if p.name == params.name), None)
        if prompt is None:
            raise invalid_params(f"Unknown prompt: {params.name}")
        args = params.arguments or {}
        missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in args]
        if missing:
            raise invalid_params(f"{params.name} needs the argument(s) {', '.join(missing)}")
        messages: list[types.PromptMessage]
        if params.name == "test_simple_prompt":
            messages = [types.PromptMessage(role="user", content=text("This is a simple prompt for testing."))]
        elif params.name == "test_prompt_with_arguments":
            said = f"Prompt with arguments: arg1='{args['arg1']}', arg2='{args['arg2']}'"
            messages = [types.PromptMessage(role="user", content=text(said))]
        elif params.name == "test_prompt_with_embedded_resource":
            resource = types.TextResourceContents(
                uri=args["resourceUri"], mime_type="text/plain", text="Embedded resource content for testing."
            )
            messages = [
                types.PromptMessage(role="user", content=types.EmbeddedResource(resource=resource)),
                types.PromptMessage(role="user", content=text("Please process the embedded resource above.")),
            ]
        else:
            messages = [
                types.PromptMessage(role="user", content=image()),
                types.PromptMessage(role="user", content=text("Please analyze the image above.")),
            ]
        return types.GetPromptResult(description=prompt.description, messages=messages)

    async def complete(ctx: Ctx, params: types.CompleteRequestParams) -> types.CompleteResult:
        known = (isinstance(params.ref, types.PromptReference) and params.ref.name == "test_prompt_with_arguments") or (
            isinstance(params.ref, types.ResourceTemplateReference) and params.ref.uri == TEMPLATES[0].uri_template
        )
        candidates = COMPLETIONS.get(params.argument.name, []) if known else []
        values = [v for v in candidates if v.startswith(params.argument.value)]
        return types.CompleteResult(completion=types.Completion(values=values, total=len(values), has_more=False))

    async def set_level(ctx: Ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
        sessions.levels[sessions.key(ctx)] = params.level
        return types.EmptyResult()

    server: Server[dict[str, Any]] = Server(
        NAME,
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )
    # Registered by method rather than as on_set_logging_level, which warns that 2026-07-28
    # drops logging: the scenarios speak 2025-11-25, where logging/setLevel is the way.
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    return server


def build_app(host: str = "127.0.0.1") -> Starlette:
    """The Streamable HTTP app, at /mcp."""
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    return build_server().streamable_http_app(
        streamable_http_path="/mcp",
        event_store=MemoryEventStore(),
        retry_interval=1000,
        transport_security=security,
        host=host,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    options = parser.parse_args(argv)
    uvicorn.run(
        build_app(options.host),
        host=options.host,
        port=options.port,
        log_level=options.log_level,
        lifespan="on",
        timeout_graceful_shutdown=1,
    )


if __name__ == "__main__":
    main()
