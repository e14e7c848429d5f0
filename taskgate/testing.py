"""Test helpers for plugin authors: the real engine and a real gateway, nothing mocked.

    from taskgate import testing

    guard = testing.step("example.keyword_block", {"words": ["password"]})
    outputs = await testing.run_steps([guard], testing.request({"prompt": "hello"}))
    assert outputs["keyword_scan"].terms == 1

Steps are built through the plugin registry (parameters validated as config
validates them), plans by the engine's compiler, requests served by the app
`taskgate serve` runs; what passes here behaves the same in the proxy. A test
needs nothing else from taskgate than this module and `taskgate.plugins`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from aiohttp.typedefs import Handler, Middleware
from multidict import CIMultiDict
from opentelemetry.trace import TracerProvider

from taskgate.dag import Execution, PlanError, StepFailed, compile_plan
from taskgate.errors import TaskgateError
from taskgate.gateway.config import parse_config
from taskgate.gateway.gateway import GATEWAY
from taskgate.llm.routes import PATHS
from taskgate.plugins import (
    REQUEST,
    Candidate,
    Endpoint,
    Registry,
    RequestContext,
    Scorer,
    Services,
    Step,
    StepOptions,
    load_plugins,
)
from taskgate.plugins.evidence import Evidence, EvidenceLog, Kept
from taskgate.proxy.app import create_app
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_engine

__all__ = [
    "Client",
    "Cluster",
    "Engine",
    "PlanError",
    "StepFailed",
    "Upstream",
    "capture_evidence",
    "cluster",
    "gateway",
    "registry",
    "request",
    "run_steps",
    "services",
    "step",
    "upstream",
]

Client = TestClient[web.Request, web.Application]
"""What `gateway()` yields: an aiohttp test client bound to the running gateway."""
_captures: list[list[dict[str, Any]]] = []


def registry() -> Registry:
    """A new registry with every installed plugin, built-ins first, loaded as the proxy loads them.

    Example:

        plugins = testing.registry()
        assert plugins.origin("example.keyword_block") == "keyword_guard"
    """
    found = Registry()
    load_plugins(found)
    return found


def request(
    body: Any, *, surface: str = "chat", headers: Mapping[str, str] | None = None, request_id: str = "test"
) -> RequestContext:
    """The RequestContext a surface hands its plan: `body` is JSON-encoded unless it is bytes.

    Header names are case-insensitive, as they are on a served request.

    Example:

        context = testing.request({"model": "m", "prompt": "hi"}, surface="completions",
                                  headers={"Authorization": "Bearer t"})
        assert context.model == "m" and context.headers["authorization"] == "Bearer t"
    """
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return RequestContext(request_id, surface, PATHS.get(surface, "/mcp"), CIMultiDict(headers or {}), raw)


def services(sections: Mapping[str, Any] | None = None, plugins: Registry | None = None) -> Services:
    """What steps of one app share: config sections (raw, validated by their plugins' models), the scorers.

    Steps that share state (`routing.cluster_state` and `routing.route`) must be built on one.

    Example:

        shared = testing.services({"routing": {"pools": [...]}})
        state = testing.step("routing.cluster_state", services=shared)
    """
    found = plugins or registry()
    parsed: dict[str, Any] = {}
    for name, raw in (sections or {}).items():
        model = found.sections.get(name)
        if model is None:
            known = ", ".join(found.sections) or "none"
            raise TaskgateError(f"no plugin registers a config section {name!r} (registered: {known})")
        parsed[name] = model.model_validate(raw)
    return found.services(parsed)


def step(
    type_name: str,
    params: Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
    services: Services | None = None,
    options: StepOptions | None = None,
    plugins: Registry | None = None,
) -> Step[Any]:
    """A step built as config builds it: by type name, its `params` validated strictly (a ParamsError names the key).

    `name` defaults to the type name; `options` carries what config's `timeout`,
    `on_error` and `fallback` would.

    Example:

        guard = testing.step("example.keyword_block", {"words": ["password"]}, name="no-secrets")
    """
    found = plugins or registry()
    shared = services if services is not None else found.services()
    return found.build(name or type_name, type_name, params, shared, options or StepOptions())


async def run_steps(
    steps: Step[Any] | Sequence[Step[Any]], context: RequestContext, seeds: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Run steps as one plan, the way a surface runs its pipeline; return every key they settled.

    The engine's compiler checks the plan (a missing provider or a cycle is the
    PlanError start-up raises); `request` and the keys of `seeds` are its seeds, so
    `seeds` stands in for the steps you leave out. A refusal (`Reject`, `Halt`) or a
    fail-closed failure (`StepFailed`) is raised as the engine raised it. Either way
    the run's evidence record goes to `capture_evidence()`.

    Example:

        outputs = await testing.run_steps([guard], testing.request({"prompt": "hello"}))
        assert outputs["keyword_scan"].chars_scanned == 5
    """
    chosen = [steps] if isinstance(steps, Step) else list(steps)
    given = {REQUEST: context, **(seeds or {})}
    run = Execution(compile_plan(context.surface, chosen, seeds=given), given)
    try:
        await run.run()
    finally:
        evidence = Evidence(context.id, context.path, context.surface, steps=run.records)
        evidence.add_decisions(run.values)
        evidence.duration_ms = run.elapsed_ms()
        _publish(evidence.record())
    return {key: value for key, value in run.values.items() if key not in given}


@contextmanager
def capture_evidence() -> Iterator[list[dict[str, Any]]]:
    """Collect the evidence records written inside the block, oldest first.

    A record is what taskgate writes once per request: `steps` (outcome and timing
    of each) and `decisions` (each output's `evidence()`, by key). A request served
    by `gateway()` gives the whole record (`status`, `dispatch`, `error`); a
    `run_steps` call gives the plan's part, also when the run was refused.

    Example:

        with testing.capture_evidence() as records, pytest.raises(Reject):
            await testing.run_steps([guard], testing.request({"prompt": "my password"}))
        assert records[0]["steps"][0]["outcome"] == "halted"
    """
    records: list[dict[str, Any]] = []
    _captures.append(records)
    try:
        yield records
    finally:
        _captures[:] = [open_ for open_ in _captures if open_ is not records]


def _publish(record: dict[str, Any]) -> None:
    for records in _captures:
        records.append(record)


class _CapturedLog(EvidenceLog):
    """The gateway's evidence log, which also hands every record to the open captures."""

    def add(self, record: dict[str, Any] | Evidence) -> Kept:
        kept = super().add(record)
        _publish(kept.record())
        return kept


@asynccontextmanager
async def gateway(
    config: Mapping[str, Any], plugins: Registry | None = None, tracer_provider: TracerProvider | None = None
) -> AsyncIterator[Client]:
    """A real gateway on 127.0.0.1, from a config mapping (what taskgate.yaml holds); yields a client for it.

    The config is checked and every plan compiled as `taskgate serve` does; the
    app's start-up (HTTP session, scrapers, step lifespans) runs on entry and is
    torn down on exit. Responses carry `x-taskgate-request-id`; their evidence
    records go to `capture_evidence()`. With `tracer_provider` (an OpenTelemetry
    SDK provider, say with an `InMemorySpanExporter`) every request is traced to it.

    Example:

        async with testing.upstream("m") as engine, testing.gateway(engine.config()) as client:
            resp = await client.post("/v1/chat/completions", json={"model": "m", "messages": [...]})
            assert resp.status == 200
    """
    found = plugins or registry()
    parsed = parse_config(config, "<test>", found)
    app = create_app(parsed, found, tracer_provider)
    app[GATEWAY].evidence = _CapturedLog(parsed.core.logging.evidence_buffer)
    async with TestClient(TestServer(app)) as client:
        yield client


@dataclass
class Upstream:
    """A simulated OpenAI-compatible engine that keeps the body of every inference request it answers."""

    url: str
    models: tuple[str, ...]
    name: str
    bodies: list[bytes] = field(default_factory=list)

    def config(self) -> dict[str, Any]:
        """A gateway config with one pool, `default`, of this engine serving its models; add steps and pipelines."""
        pool = {
            "name": "default",
            "endpoints": [{"name": self.name, "url": self.url}],
            "models": [{"name": model} for model in self.models],
        }
        return {"routing": {"pools": [pool]}}


@asynccontextmanager
async def upstream(*models: str, name: str = "up") -> AsyncIterator[Upstream]:
    """A `taskgate.sim` engine on 127.0.0.1 that answers at once, serving `models` (default: `m`).

    It speaks chat, completions and embeddings (streamed too) and serves metrics
    for the gateway's scraper; `bodies` holds each POSTed body, in order.

    Example:

        async with testing.upstream("m") as engine:
            raw = engine.config() | {"pipelines": {"chat": ["state", "route"]}}
    """
    served = models or ("m",)
    app = create_engine(dataclasses.replace(PROFILES["instant"], models=served), name=name)
    found = Upstream("", served, name)
    app.middlewares.append(_recording(found.bodies))
    async with TestServer(app) as server:
        found.url = str(server.make_url("")).rstrip("/")
        yield found


def _recording(bodies: list[bytes]) -> Middleware:
    @web.middleware
    async def record(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "POST":
            bodies.append(await request.read())  # aiohttp keeps the bytes: the handler reads them again
        return await handler(request)

    return record


@dataclass(frozen=True, slots=True)
class Engine:
    """One endpoint's state when scorers run: its pool, scraped load, taskgate's in-flight count, cached blocks."""

    name: str
    pool: str = "default"
    waiting: float = 0.0
    running: float = 0.0
    kv_usage: float = 0.0
    inflight: int = 0
    prefix_blocks: int = 0
    session_match: bool = False
    stale: bool = False
    region: str | None = None
    hardware: str | None = None


@dataclass(frozen=True)
class Cluster:
    """The candidates of one request, per pool, as `routing.route` hands them to scorers."""

    pools: Mapping[str, tuple[Candidate, ...]]

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return tuple(c for peers in self.pools.values() for c in peers)

    def __getitem__(self, endpoint: str) -> Candidate:
        return next(c for c in self.candidates if c.endpoint.name == endpoint)

    def score(self, scorer: Scorer) -> dict[str, float]:
        """Each endpoint's score, every candidate rated against the peers of its pool as route rates them."""
        return {c.endpoint.name: scorer.score(c, peers) for peers in self.pools.values() for c in peers}


def cluster(*engines: Engine, prompt_blocks: int = 0) -> Cluster:
    """Candidates for a request whose prompt is `prompt_blocks` blocks long, on `engines`, grouped by pool.

    Example:

        view = testing.cluster(testing.Engine("a", prefix_blocks=6), testing.Engine("b", waiting=3), prompt_blocks=8)
        assert view.score(PrefixAffinity()) == {"a": 0.75, "b": 0.0}
        busy = [c.endpoint.name for c in view.candidates if c.load > 2]  # what a filter would drop
    """
    pools: dict[str, list[Candidate]] = {}
    for engine in engines:
        if any(c.endpoint.name == engine.name for peers in pools.values() for c in peers):
            raise ValueError(f"two engines are named {engine.name!r}")
        pools.setdefault(engine.pool, []).append(_candidate(engine, prompt_blocks))
    return Cluster({pool: tuple(peers) for pool, peers in pools.items()})


def _candidate(engine: Engine, prompt_blocks: int) -> Candidate:
    return Candidate(
        endpoint=Endpoint(engine.name, f"http://{engine.name}.invalid", engine.pool, engine.region, engine.hardware),
        prefix_blocks=engine.prefix_blocks,
        prompt_blocks=prompt_blocks,
        waiting=engine.waiting,
        running=engine.running,
        kv_usage=engine.kv_usage,
        inflight=engine.inflight,
        session_match=engine.session_match,
        stale=engine.stale,
    )
