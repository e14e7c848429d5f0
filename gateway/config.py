"""Load the one YAML config file; every error names the file, key path and reason."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, Field, HttpUrl, ValidationError, field_validator

from taskgate.dag import Failure
from taskgate.plugins import Params, Registry
from taskgate.plugins.params import problems

from .errors import ConfigError

CORE_SECTIONS = ("server", "logging", "usage", "steps", "pipelines")
M = TypeVar("M", bound=BaseModel)


class FirstByte(Params):
    """How long an upstream may take to its first byte of answer (headers, then a stream's first chunk)."""

    interactive: float = Field(default=120.0, gt=0)
    batch: float = Field(default=600.0, gt=0)
    background: float = Field(default=600.0, gt=0)

    def of(self, request_class: object) -> float:
        """The bound for a request of `request_class` (interactive when it names none of these)."""
        if request_class == "batch":
            return self.batch
        return self.background if request_class == "background" else self.interactive


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


TRACING = "tracing"


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

    def section(self, name: str, model: type[M]) -> M:
        """A room's validated section: its defaults when the file has none, or when a registry built by hand left
        the room out (a test's, an embedding application's)."""
        found = self.sections.get(name)
        if found is None:
            return model()
        if not isinstance(found, model):
            raise TypeError(f"section {name!r} is a {type(found).__name__}, not a {model.__name__}")
        return found


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
