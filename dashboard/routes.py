"""The dashboard at /ui: a static page anyone may load, and the JSON it polls, for the `ui.role` only.

The page holds no data. It asks for a bearer token (kept in the tab's
sessionStorage) and polls `/ui/api/requests` (recent evidence records, as
`ui_view.view` shapes them: this replica's, or with `ui.fleet.store: redis`
every replica's, each naming the replica that served it) and `/ui/api/endpoints` (the endpoints' last
minutes, `history.History`) with it; each poll sends only what is new since
the cursor the last one returned; and `/ui/api/batches`, the batch jobs this
replica holds (the newest `ui.batches`, whole each time: a job's progress
changes in place; none where the batch room is off). The token is checked by
the plans' authenticate step like any other; a gateway that authenticates
nobody serves the data to nobody unless `ui.allow_anonymous` says so. The page's
own requests (assets and polls that succeed) leave no evidence record, so
watching the buffer does not fill it; a refused one does.
"""

from __future__ import annotations

import hashlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from aiohttp import web

from taskgate.gateway.gateway import GATEWAY, IDENTIFY, Gateway
from taskgate.logs import dumps
from taskgate.plugins import BATCH_JOBS, ENDPOINT_READINGS, EVIDENCE, EVIDENCE_SINKS, ClientError, Reject

from .config import SECTION, UiConfig
from .fleet import FleetLog, valid_cursor
from .history import History
from .view import view

log = structlog.get_logger("taskgate")
STATIC = Path(__file__).parent / "static" / "ui"
SECURITY = {
    # everything from this origin, nothing inline, no frames: a page that shows evidence runs no one else's code
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str
    etag: str

    @classmethod
    def read(cls, name: str, content_type: str) -> Asset:
        body = (STATIC / name).read_bytes()
        return cls(body, content_type, '"' + hashlib.blake2b(body, digest_size=8).hexdigest() + '"')


ASSETS = {
    "/ui": ("index.html", "text/html; charset=utf-8"),
    "/ui/ui.css": ("ui.css", "text/css; charset=utf-8"),
    "/ui/ui.js": ("ui.js", "text/javascript; charset=utf-8"),
    "/ui/icon.svg": ("icon.svg", "image/svg+xml"),
}
HISTORY = web.AppKey("taskgate.ui.history", History)
UI = web.AppKey("taskgate.ui", UiConfig)
LOADED = web.AppKey("taskgate.ui.assets", dict[str, Asset])
FLEET = web.AppKey("taskgate.ui.fleet", FleetLog)


def add_routes(app: web.Application, gateway: Gateway) -> None:
    """The page, its assets and its API, and the endpoints' sampler, when `ui.enabled`."""
    ui = app[UI] = gateway.config.section(SECTION, UiConfig)
    if not ui.enabled:
        return
    app[LOADED] = {path: Asset.read(name, kind) for path, (name, kind) in ASSETS.items()}
    app[HISTORY] = History(gateway.services.shared(ENDPOINT_READINGS, list), ui.poll_interval_s, ui.history_minutes)
    if ui.fleet.store == "redis":  # every replica's records, published from the gateway's flush
        replica = ui.fleet.replica or f"{socket.gethostname()}:{gateway.config.server.port}"
        app[FLEET] = FleetLog(ui.fleet, replica)
        sinks: list[Callable[[list[bytes]], None]] = gateway.services.shared(EVIDENCE_SINKS, list)
        sinks.append(app[FLEET].queue)
        app.cleanup_ctx.append(_publishing)
    for path in ASSETS:
        app.router.add_get(path, asset)
    app.router.add_get("/", home)
    app.router.add_get("/ui/", home)
    app.router.add_get("/ui/api/access", access)
    app.router.add_get("/ui/api/requests", requests)
    app.router.add_get("/ui/api/endpoints", endpoints)
    app.router.add_get("/ui/api/batches", batches)
    app.cleanup_ctx.append(_sampling)
    if IDENTIFY not in gateway.plans and ui.allow_anonymous:  # said once, at start-up
        log.warning("ui_open_to_anyone", reason="no plan authenticates callers and ui.allow_anonymous is set")
    elif IDENTIFY not in gateway.plans:
        log.info("ui_serves_nobody", reason=_NOBODY)


async def _sampling(app: web.Application) -> AsyncIterator[None]:
    async with app[HISTORY].running():
        yield


async def _publishing(app: web.Application) -> AsyncIterator[None]:
    async with app[FLEET].running():
        yield


async def home(request: web.Request) -> web.Response:
    request[EVIDENCE].quiet = True
    return web.Response(status=302, headers={"Location": "/ui"})


async def asset(request: web.Request) -> web.Response:
    """The page's static files: the same bytes for everyone, revalidated by their ETag."""
    request[EVIDENCE].quiet = True
    found = request.app[LOADED][request.path]
    headers = {**SECURITY, "ETag": found.etag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == found.etag:
        return web.Response(status=304, headers=headers)
    return _compressed(web.Response(body=found.body, headers={**headers, "Content-Type": found.content_type}))


async def access(request: web.Request) -> web.Response:
    """Whether the page must ask for a token: only a gateway that authenticates nobody and was told to let anyone
    in says no (its data is anyone's already)."""
    request[EVIDENCE].quiet = True
    gateway = request.app[GATEWAY]
    anyone = IDENTIFY not in gateway.plans and request.app[UI].allow_anonymous
    return _json({"token": "none" if anyone else "required"})


async def requests(request: web.Request) -> web.Response:
    """Records kept since the cursor `after` (at most `ui.records`), oldest first, and the cursor to send next:
    this replica's, or every replica's where they share a stream (each with the replica that served it)."""
    gateway = await _admitted(request)
    limit, raw = request.app[UI].records, request.query.get("after", "0")
    if not valid_cursor(raw):
        raise ClientError(400, "invalid_cursor", "`after` must be the cursor a previous answer returned", "after")
    if FLEET in request.app:
        try:
            cursor, found = await request.app[FLEET].since(raw, limit)
        except Exception as exc:
            log.warning("ui_fleet_unavailable", reason=f"{type(exc).__name__}: {exc}")
            message = "the fleet's records cannot be read now (ui.fleet's Redis); poll again shortly"
            raise Reject(503, "fleet_unavailable", message, "api_error", headers={"Retry-After": "1"}) from None
        return _json({"cursor": cursor, "records": [view(r) | {"replica": who} for who, r in found]})
    kept = gateway.evidence
    found_here = kept.since(int(raw) if raw.isdigit() else 0)[-limit:]
    return _json({"cursor": kept.added, "records": [view(r) for r in found_here]})


async def endpoints(request: web.Request) -> web.Response:
    """The endpoints' samples taken since the cursor `after`."""
    await _admitted(request)
    return _json(request.app[HISTORY].since(_cursor(request)))


async def batches(request: web.Request) -> web.Response:
    """The newest `ui.batches` jobs this replica holds, whole (no cursor: a job changes in place), and how many it
    holds; `enabled` false, and no jobs, where no batch room serves jobs (`batch.enabled: false`)."""
    gateway = await _admitted(request)
    jobs: Callable[[int], Awaitable[tuple[int, list[dict[str, Any]]]]] | None = gateway.services.found(BATCH_JOBS)
    if jobs is None:
        return _json({"enabled": False, "held": 0, "batches": []})
    held, newest = await jobs(request.app[UI].batches)
    return _json({"enabled": True, "held": held, "batches": newest})


async def _admitted(request: web.Request) -> Gateway:
    """The gateway, once the caller is known to hold the dashboard's role; a Reject (401, 403) otherwise."""
    gateway, evidence = request.app[GATEWAY], request[EVIDENCE]
    evidence.surface = "ui"
    ui = request.app[UI]
    identity = await gateway.authenticate(request, evidence)  # a missing or bad token: the step's 401
    # anonymous only where no plan authenticates at all: an authenticate step that let a caller through without
    # an identity (skipped, failed open) is not a gateway that authenticates nobody
    anyone = IDENTIFY not in gateway.plans and ui.allow_anonymous
    if identity is None and not anyone:
        raise Reject(403, "ui_unauthenticated", _NOBODY, "permission_error")
    if identity is not None and ui.role not in identity.roles:
        message = f"the dashboard's data is for callers with the role {ui.role!r} (ui.role); this token has not got it"
        raise Reject(403, "ui_role_required", message, "permission_error")
    evidence.quiet = True
    return gateway


_NOBODY = (
    "this gateway authenticates nobody (no authenticate step in its plans), so the dashboard serves its data to "
    "nobody; add an authz.authenticate step, or set ui.allow_anonymous: true where everyone who can reach it may "
    "see every request"
)


def _cursor(request: web.Request) -> int:
    raw = request.query.get("after", "0")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise ClientError(400, "invalid_cursor", "`after` must be the cursor a previous answer returned", "after")
    return int(raw)


def _json(payload: object) -> web.Response:
    headers = {**SECURITY, "Cache-Control": "no-store"}
    return _compressed(web.Response(body=dumps(payload), content_type="application/json", headers=headers))


def _compressed(response: web.Response) -> web.Response:
    """Sent gzipped to a client that accepts it (bodies over 4 KiB are compressed on a thread, not the loop)."""
    response.enable_compression()
    return response


__all__ = ["ASSETS", "HISTORY", "add_routes"]
