"""Load the one YAML config file; every error names the file, key path and reason."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, HttpUrl, ValidationError, field_validator

from taskgate.dag import Failure
from taskgate.plugins import Params, Registry
from taskgate.plugins.params import problems
from taskgate.plugins.redis import RedisUrl

from .errors import ConfigError

SURFACES = ("chat", "completions", "embeddings")
CORE_SECTIONS = ("server", "logging", "usage", "steps", "pipelines", "mcp", "ui", "tracing")
MCP = "mcp"


class FirstByte(Params):
    """How long an upstream may take to its first byte of answer (headers, then a stream's first chunk)."""

    interactive: float = Field(default=120.0, gt=0)
    batch: float = Field(default=600.0, gt=0)
    background: float = Field(default=600.0, gt=0)


class ServerConfig(Params):
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    max_body_bytes: int = Field(default=8 * 1024 * 1024, gt=0)
    connect_timeout_s: float = Field(default=5.0, gt=0)  # opening a connection to an upstream
    first_byte_timeout_s: FirstByte = Field(default_factory=lambda: FirstByte())  # per request class
    read_timeout_s: float = Field(default=60.0, gt=0)  # the longest silence between two pieces of an answer
    body_timeout_s: float = Field(default=30.0, gt=0)  # reading a client's whole request body
    max_header_bytes: int = Field(default=8192, ge=1024, le=65536)  # one request header's value
    max_connections: int = Field(default=1024, gt=0)
    worker_threads: int = Field(default=4, gt=0)


class LoggingConfig(Params):
    level: Literal["debug", "info", "warning", "error"] = "info"
    evidence: bool = True
    evidence_buffer: int = Field(default=1000, ge=0)


class UsageConfig(Params):
    """Token accounting (proxy/usage.py): what each answer took, priced at its pool's price."""

    stream_usage: bool = True  # ask a stream for its usage when the client did not (and keep it from that client)
    metric_tenants: int = Field(default=1000, ge=1)  # distinct tenants labelled in the metrics; the rest: `other`


class StepConfig(Params):
    """One step instance: a name pipelines refer to, its type and parameters."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    type: str
    params: dict[str, Any] = Field(default_factory=dict)
    timeout: float | None = Field(default=None, gt=0)
    on_error: Failure = Failure.CLOSED
    fallback: Any = None


def _variables_set(headers: dict[str, str]) -> dict[str, str]:
    """`headers_env`: every environment variable named holds a value."""
    for header, variable in headers.items():
        if not os.environ.get(variable):
            raise ValueError(f"environment variable {variable} (for header {header}) is not set")
    return headers


class McpServerConfig(Params):
    """An upstream MCP server (Streamable HTTP). taskgate uses its own credentials, never the caller's."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")  # the prefix of its tools: NAME__tool
    url: HttpUrl
    headers_env: dict[str, str] = Field(default_factory=dict)  # header -> environment variable holding its value
    timeout_s: float = Field(default=30.0, gt=0)
    audience: str | None = None  # of the per-task assertions it receives; default: its URL
    sessions: Literal["shared", "per_task"] = "shared"  # per_task: a stateful server gets a session per task
    prefix: bool = True  # its tools, prompts and resources served as NAME__name; false: as it names them
    names: dict[str, str] = Field(default_factory=dict)  # its name -> the name served (no prefix added)

    @field_validator("names")
    @classmethod
    def _served_names(cls, names: dict[str, str]) -> dict[str, str]:
        served = list(names.values())
        twice = next((n for n in served if served.count(n) > 1), None)
        if twice is not None:
            raise ValueError(f"two of its names are served as {twice!r}")
        bad = next((n for n in served if not n or not n.isprintable() or len(n) > 128), None)
        if bad is not None:
            raise ValueError(f"{bad!r} is not a name to serve (1-128 printable characters)")
        return names

    _env_set = field_validator("headers_env")(lambda cls, headers: _variables_set(headers))

    def headers(self) -> dict[str, str]:
        return {header: os.environ[variable] for header, variable in self.headers_env.items()}


class McpConfig(Params):
    """The MCP gateway at /mcp: upstream servers whose tools it aggregates, authorizes and forwards."""

    servers: list[McpServerConfig] = Field(default_factory=list)
    catalog_ttl_s: float = Field(default=30.0, ge=0)  # how long an upstream's tool list is reused
    max_task_sessions: int = Field(default=256, ge=1)  # per_task servers: sessions kept open, least recent closed
    task_sessions_per_caller: int = Field(default=16, ge=1)  # of those, one caller's: its own oldest close first
    max_sessions: int = Field(default=10_000, ge=1)
    session_ttl_s: float = Field(default=86_400.0, gt=0)
    sessions_per_caller: int = Field(default=64, ge=1)  # a caller's oldest session closes past this
    relay_timeout_s: float = Field(default=120.0, gt=0)  # how long an upstream's request waits for the client
    session_store: Literal["memory", "redis"] = "memory"  # redis: every replica serves every handshake session
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = Field(default="taskgate:mcp:", min_length=1)
    # DNS rebinding protection (proxy/origins.py): None derives them from server.host
    allowed_hosts: list[str] | None = None
    allowed_origins: list[str] | None = None

    @field_validator("servers")
    @classmethod
    def _unique(cls, servers: list[McpServerConfig]) -> list[McpServerConfig]:
        names = [s.name for s in servers]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate:
            raise ValueError(f"two MCP servers are named {duplicate!r}")
        unprefixed = [s.name for s in servers if not s.prefix]
        if len(unprefixed) > 1:
            raise ValueError(
                f"servers {unprefixed} both serve names unprefixed, so their names can collide; keep `prefix` on "
                "for all but one and map the names you want bare with `names`"
            )
        claimed: dict[str, str] = {}
        for server in servers:
            for served in server.names.values():
                owner = claimed.setdefault(served, server.name)
                prefixed = served.partition("__")[0] if "__" in served else None
                if owner != server.name:
                    raise ValueError(f"servers {owner!r} and {server.name!r} both serve a name {served!r}")
                if prefixed in names and prefixed != server.name:
                    raise ValueError(f"server {server.name!r} serves {served!r}, a name of server {prefixed!r}")
        return servers


class UiConfig(Params):
    """The dashboard at /ui (docs/dashboard.md): its page is static, its data only for callers with `role`."""

    enabled: bool = True
    role: str = Field(default="admin", min_length=1)  # the role (the token's roles claim) that may read its data
    # serve its data to anyone when no plan authenticates callers: only on a network where everyone may see it
    allow_anonymous: bool = False
    poll_interval_s: float = Field(default=2.0, ge=0.5, le=60)  # how often the page asks, and endpoints are sampled
    history_minutes: float = Field(default=10.0, gt=0, le=120)  # the endpoints' samples kept
    records: int = Field(default=200, ge=1, le=1000)  # the most recent records a page that opens is sent
    batches: int = Field(default=50, ge=1, le=500)  # the newest batch jobs every poll is sent (whole: they change)


class TracingConfig(Params):
    """OpenTelemetry traces of requests, tasks and calls (proxy/tracing.py), exported over OTLP/HTTP; off: no
    tracer exists and no request does any tracing work."""

    enabled: bool = False
    exporter: Literal["otlp_http", "console"] = "otlp_http"  # console: spans as JSON lines on stdout, for a look
    endpoint: HttpUrl = HttpUrl("http://127.0.0.1:4318/v1/traces")  # the collector's OTLP/HTTP traces URL
    headers: dict[str, str] = Field(default_factory=dict)  # sent with every export
    headers_env: dict[str, str] = Field(default_factory=dict)  # header -> environment variable holding its value
    timeout_s: float = Field(default=10.0, gt=0)  # one export's bound
    service_name: str = Field(default="taskgate", min_length=1)
    sample_ratio: float = Field(default=1.0, ge=0.0, le=1.0)  # of new traces; a client's sampled flag is followed
    provider_name: str = Field(default="openai", min_length=1)  # gen_ai.provider.name of model calls

    _env_set = field_validator("headers_env")(lambda cls, headers: _variables_set(headers))

    def export_headers(self) -> dict[str, str]:
        return {**self.headers, **{header: os.environ[variable] for header, variable in self.headers_env.items()}}


class CoreConfig(Params):
    server: ServerConfig = Field(default_factory=ServerConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    usage: UsageConfig = Field(default_factory=UsageConfig)
    steps: list[StepConfig] = Field(default_factory=list)
    pipelines: dict[Literal["chat", "completions", "embeddings", "mcp"], list[str]] = Field(default_factory=dict)
    mcp: McpConfig = Field(default_factory=McpConfig)
    ui: UiConfig = Field(default_factory=UiConfig)
    tracing: TracingConfig = Field(default_factory=TracingConfig)


@dataclass(frozen=True)
class Config:
    """The validated config: core settings plus each room's own section."""

    source: str
    core: CoreConfig
    sections: Mapping[str, BaseModel] = field(default_factory=dict)
    defaults: tuple[tuple[str, str], ...] = ()  # (name, type) of the steps plugins contribute by default

    @property
    def server(self) -> ServerConfig:
        return self.core.server

    def steps(self) -> list[tuple[int | None, StepConfig]]:
        """Configured instances (with their index), plus built-in defaults not overridden."""
        named = {s.name for s in self.core.steps}
        defaults: list[tuple[int | None, StepConfig]] = [
            (None, StepConfig(name=name, type=type_)) for name, type_ in self.defaults if name not in named
        ]
        return [*enumerate(self.core.steps), *defaults]

    def pipeline(self, surface: str) -> list[str]:
        """The surface's configured pipeline, else the default steps in the order plugins contributed them."""
        default = [name for name, _ in self.defaults]
        return list(self.core.pipelines.get(surface, default))  # type: ignore[call-overload]

    @property
    def mcp(self) -> McpConfig:
        return self.core.mcp

    @property
    def ui(self) -> UiConfig:
        return self.core.ui

    @property
    def tracing(self) -> TracingConfig:
        return self.core.tracing


def load_config(path: str | Path | None, registry: Registry) -> Config:
    """Read and validate a config file; None means the embedded defaults."""
    if path is None:
        return parse_config({}, "<defaults>", registry)
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(source, "", f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(source, "", f"not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    return parse_config(_parse_yaml(text, source), source, registry)


def parse_config(raw: Any, source: str, registry: Registry) -> Config:
    """Validate an already-parsed config mapping."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(source, "", f"the top level must be a mapping of sections, not {type(raw).__name__}")
    _check_sections(raw, source, registry)
    core = _validate(CoreConfig, {k: v for k, v in raw.items() if k in CORE_SECTIONS}, source, ())
    sections = {
        name: _validate(model, raw.get(name) or {}, source, (name,)) for name, model in registry.sections.items()
    }
    return Config(source, core, sections, registry.defaults)


def _parse_yaml(text: str, source: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(source, where, f"not valid YAML: {problem}") from None


def _check_sections(raw: Mapping[str, Any], source: str, registry: Registry) -> None:
    known = set(CORE_SECTIONS) | set(registry.sections)
    for key in raw:
        if key not in known:
            raise ConfigError(source, str(key), f"unknown section (known sections: {', '.join(sorted(known))})")


def _validate(model: type[BaseModel], raw: Any, source: str, prefix: tuple[str, ...]) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        path, reason = problems(exc, prefix)[0]
        raise ConfigError(source, path, reason) from None
