"""The gateway: compiled plans, shared services, metrics, evidence; the `Front` rooms' routes see.

Built once by the front door's app factory. It runs a surface's plan
(`run_plan`: steps, decisions and metrics recorded however the run ends),
says who calls (`authenticate`: the plans' authenticate step and nothing
else), and publishes evidence records off the answer's path: a finished
record is kept and logged right after its answer goes out (`publish`
schedules it; `flush` writes what is pending, hands it to the evidence
sinks, and runs at shutdown, so a graceful stop loses none).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog
from aiohttp import web

from taskgate.dag import Execution, Plan
from taskgate.logs import write_evidence
from taskgate.plugins import (
    EVIDENCE,
    EVIDENCE_SINKS,
    IDENTITY,
    PLACEMENT,
    REQUEST,
    ClientError,
    Outputs,
    Placement,
    Principal,
    RequestContext,
    Services,
)
from taskgate.plugins.evidence import Evidence, EvidenceLog, Kept
from taskgate.plugins.jsonbody import BodyError, loads

from .body import read as read_body
from .config import Config
from .metrics import Metrics

if TYPE_CHECKING:
    from .tracing import Tracing  # the OpenTelemetry SDK: imported only where tracing is on

IDENTIFY = "identity"
"""The plan that only authenticates: the step providing `identity` and what it needs (absent: no authentication)."""
log = structlog.get_logger("taskgate")


@dataclass
class Gateway:
    """Everything a request handler needs; built once by create_app. Rooms' routes see it as their `Front`."""

    config: Config
    plans: dict[str, Plan]
    services: Services
    metrics: Metrics = field(default_factory=Metrics)
    evidence: EvidenceLog = field(default_factory=lambda: EvidenceLog(1000))
    pool: ThreadPoolExecutor | None = None
    ready: bool = False
    tracing: Tracing | None = None  # None: tracing is off, and no request does any tracing work
    seeded: dict[str, Plan] = field(default_factory=dict)
    """Per surface, its plan with the caller as a seed (no authenticate step): batch items, whose caller was
    authenticated when their job was created (plans.seeded_plans)."""
    provided: dict[str, tuple[str, ...]] = field(init=False)
    """Per surface, the keys its steps provide, in plan order: where the hooks the gateway reads come from."""
    sinks: list[Callable[[list[bytes]], None]] = field(init=False)
    """Where each flush's records also go (`EVIDENCE_SINKS`: the dashboard's fleet stream); empty by default."""
    _background: set[asyncio.Task[None]] = field(default_factory=set, init=False, repr=False)
    _unpublished: list[Kept] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.provided = {
            surface: tuple(key for name in plan.order if (key := plan.steps[name].spec.provides) is not None)
            for surface, plan in self.plans.items()
        }
        self.sinks = self.services.shared(EVIDENCE_SINKS, list)

    def outputs(self, surface: str, values: dict[str, Any]) -> Outputs:
        """What `surface`'s plan provided, in plan order, sorted by hook."""
        return Outputs(values[key] for key in self.provided[surface] if key in values)

    def spawn(self, work: Awaitable[None]) -> None:
        """Run `work` beside the request (a budget's charge), kept until it ends; `drain` awaits what is left."""
        task = asyncio.create_task(_logged(work))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def drain(self) -> None:
        """Let the work `spawn` started finish, and write every record still pending (at shutdown, before the
        stores they write to close)."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        self.flush()

    async def run_plan(
        self,
        surface: str,
        context: RequestContext,
        evidence: Evidence,
        caller: Principal | None = None,
        seeded: bool = False,
    ) -> dict[str, Any]:
        """Run `surface`'s plan; the steps, decisions and metrics are recorded whether it finishes or stops.

        `seeded`: its variant that takes `caller` as the identity instead of authenticating the request."""
        if seeded:
            plan = self.seeded[surface]
            seeds = {REQUEST: context, IDENTITY: caller} if IDENTITY in plan.seeds else {REQUEST: context}
        else:
            plan, seeds = self.plans[surface], {REQUEST: context}
        run = Execution(plan, seeds, self.pool)
        try:
            return await run.run()
        except BaseException:
            release(run.values.get(PLACEMENT))  # placed, then a later step stopped the request
            raise
        finally:
            evidence.steps = run.records
            evidence.add_decisions(run.values)  # also when a step stopped the request: what was decided so far
            self.metrics.observe_steps(run.records)
            if self.tracing is not None:
                self.tracing.plan(surface, run)

    async def authenticate(self, request: web.Request, evidence: Evidence) -> Principal | None:
        """Who calls, as the plans' authenticate step says (its Reject propagates); None if no plan authenticates."""
        if IDENTIFY not in self.plans:
            return None
        context = RequestContext.parsed(evidence.request_id, IDENTIFY, request.path, request.headers, b"", None)
        identity: Principal | None = (await self.run_plan(IDENTIFY, context, evidence)).get(IDENTITY)
        return identity

    async def read_json(self, request: web.Request) -> Any:
        server = self.config.server
        try:
            return loads(await read_body(request, server.max_body_bytes, server.body_timeout_s))
        except BodyError as exc:
            raise ClientError(exc.status, exc.code, exc.message) from None

    def publish(self, evidence: Evidence) -> None:
        """Keep a finished record for inspection and write it as one log line (when configured), right after the
        answer goes out; a quiet one is neither."""
        if evidence.quiet:
            return
        if not self._unpublished:
            asyncio.get_running_loop().call_soon(self.flush)
        self._unpublished.append(self.evidence.add(evidence))

    def flush(self) -> None:
        """Render the records `publish` left pending and write their log lines, in one write."""
        pending, self._unpublished = self._unpublished, []
        rendered = [kept.rendered() for kept in pending]
        if rendered and self.config.core.logging.evidence:
            write_evidence(rendered)
        if rendered:
            for sink in self.sinks:  # each only keeps them: its own task sends them
                sink(rendered)


async def _logged(work: Awaitable[None]) -> None:
    try:
        await work
    except Exception:  # a Meter must not raise; one that does is a bug to see, never a request's failure
        log.exception("background_work_failed")


def release(placement: Any) -> None:
    """Tell routing a placement will not be dispatched after all."""
    if isinstance(placement, Placement) and placement.observer is not None:
        placement.observer.finished(None, None)


GATEWAY = web.AppKey("taskgate.gateway", Gateway)
__all__ = ["EVIDENCE", "GATEWAY", "IDENTIFY", "Gateway", "release"]
