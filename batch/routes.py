"""The Batch API's routes: `/v1/files` and `/v1/batches`, as the OpenAI SDK calls them.

    POST   /v1/files                  multipart: purpose=batch, file=JSONL (checked line by line)
    GET    /v1/files[/{id}[/content]] a caller's files, one, its content
    DELETE /v1/files/{id}
    POST   /v1/batches                {"input_file_id", "endpoint", "completion_window", "metadata", "class"}
    GET    /v1/batches[/{id}]         a caller's jobs (newest first), one
    POST   /v1/batches/{id}/cancel

Every route knows its caller as the plans' authenticate step does; a file
or job belongs to the caller that made it, and anyone else is told it does
not exist.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp import BodyPartReader, web

from taskgate.plugins import BATCH_JOBS, EVIDENCE, FRONT, IDLE_CAPACITY, ClientError, Principal

from .config import BatchConfig, window_s
from .files import PRIVATE, PURPOSES, Files, Owner, check_lines, new_file_id, public
from .jobs import ENDED, Job
from .ledger import Ledger
from .local import DirectoryLedger
from .scheduler import IdleCheck, Metrics, Scheduler, task_headers
from .types import ITEMS, SURFACES

CONFIG = web.AppKey("taskgate.batch.config", BatchConfig)
FILES = web.AppKey("taskgate.batch.files", Files)
LEDGER = web.AppKey("taskgate.batch.ledger", Ledger)
SCHEDULER = web.AppKey("taskgate.batch.scheduler", Scheduler)
CHUNK = 1024 * 1024
MAX_FIELD = 256  # a form field that is not the file (purpose)
CLASSES = ("background", "batch")
UPLOAD_TIMEOUT_S = 600.0


def add_routes(app: web.Application) -> None:
    front = app[FRONT]
    config = front.services.section("batch", BatchConfig)
    if not config.enabled:
        return
    directory = Path(config.directory)
    files = Files(directory)
    ledger = _ledger(config, directory, files)
    idle: list[IdleCheck] = front.services.shared(IDLE_CAPACITY, list)
    metrics = Metrics(front.services.metrics)
    headers = task_headers(front.services)
    front.services.shared(BATCH_JOBS, lambda: ledger.newest)  # the dashboard's view of them
    app[CONFIG], app[FILES], app[LEDGER] = config, files, ledger
    app[SCHEDULER] = Scheduler(config, ledger, app[ITEMS], idle, metrics, front.publish, headers)
    app.router.add_post("/v1/files", upload)
    app.router.add_get("/v1/files", list_files)
    app.router.add_get("/v1/files/{file_id}", get_file)
    app.router.add_delete("/v1/files/{file_id}", delete_file)
    app.router.add_get("/v1/files/{file_id}/content", content)
    app.router.add_post("/v1/batches", create)
    app.router.add_get("/v1/batches", list_batches)
    app.router.add_get("/v1/batches/{batch_id}", get_batch)
    app.router.add_post("/v1/batches/{batch_id}/cancel", cancel)
    app.cleanup_ctx.append(_running)


def _ledger(config: BatchConfig, directory: Path, files: Files) -> Ledger:
    if config.store == "redis":
        from .streams import StreamLedger  # the Redis client: only where replicas share jobs

        return StreamLedger(config, files)
    return DirectoryLedger(directory, files, config.keep_s)


async def _running(app: web.Application) -> AsyncIterator[None]:
    await app[SCHEDULER].start()
    yield
    await app[SCHEDULER].close()


async def _identity(request: web.Request, surface: str) -> Principal | None:
    evidence = request[EVIDENCE]
    evidence.surface = surface
    return await request.app[FRONT].authenticate(request, evidence)  # a Reject (401) propagates


async def _owner(request: web.Request, surface: str) -> Owner:
    return owner_of(await _identity(request, surface))


def owner_of(identity: Principal | None) -> Owner:
    return (identity.subject, identity.tenant) if identity is not None else None


# files


async def upload(request: web.Request) -> web.Response:
    owner = await _owner(request, "files")
    config, files = request.app[CONFIG], request.app[FILES]
    if not request.content_type.startswith("multipart/form-data"):
        raise ClientError(400, "invalid_request", "upload a file as multipart/form-data with purpose and file")
    purpose, saved = None, None
    try:
        try:
            async with asyncio.timeout(UPLOAD_TIMEOUT_S):
                reader = await request.multipart()
                while (part := await reader.next()) is not None:
                    if not isinstance(part, BodyPartReader):
                        raise ClientError(400, "invalid_request", "nested multipart bodies are not accepted")
                    if part.name == "purpose":
                        purpose = (await _small(part)).decode("utf-8", "replace").strip()
                    elif part.name == "file" and saved is None:
                        file_id, path = files.new_path()
                        saved = (file_id, path, part.filename or "upload.jsonl")
                        await _save(part, path, config.max_file_bytes)
                    else:
                        await part.release()
        except TimeoutError:
            raise ClientError(408, "upload_timeout", f"the upload took longer than {UPLOAD_TIMEOUT_S:.0f} s") from None
        except (ValueError, AssertionError):  # aiohttp's words for a form it cannot parse (they quote the body)
            raise ClientError(400, "invalid_multipart", "the body cannot be read as multipart/form-data") from None
        if purpose not in PURPOSES:
            raise ClientError(400, "invalid_purpose", f"purpose must be one of {', '.join(PURPOSES)}", "purpose")
        if saved is None:
            raise ClientError(400, "missing_file", "the form has no file field", "file")
        file_id, path, filename = saved
        checked = await asyncio.to_thread(check_lines, path, config.max_items)
    except BaseException:
        if saved is not None:
            files.discard(saved[1])
        raise
    record = files.keep(file_id, owner, purpose, filename[:256], lines=checked.lines, endpoint=checked.endpoint)
    return web.json_response(public(record))


async def _small(part: BodyPartReader) -> bytes:
    data = b""
    while chunk := await part.read_chunk(MAX_FIELD):
        data += chunk
        if len(data) > MAX_FIELD:
            raise ClientError(400, "invalid_request", f"form field {part.name!r} is longer than {MAX_FIELD} bytes")
    return data


async def _save(part: BodyPartReader, path: Path, limit: int) -> None:
    written = 0
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE), "wb") as out:
        while chunk := await part.read_chunk(CHUNK):
            written += len(chunk)
            if written > limit:
                message = f"the file is larger than {limit} bytes; raise batch.max_file_bytes to accept it"
                raise ClientError(413, "file_too_large", message, "file")
            await asyncio.to_thread(out.write, chunk)


async def list_files(request: web.Request) -> web.Response:
    owner = await _owner(request, "files")
    purpose = request.query.get("purpose")
    found = [public(r) for r in request.app[FILES].listed(owner) if purpose in (None, r.get("purpose"))]
    found.sort(key=lambda r: r["created_at"], reverse=True)
    return web.json_response({"object": "list", "data": found, "has_more": False})


async def get_file(request: web.Request) -> web.Response:
    return web.json_response(public(await _file(request)))


async def _file(request: web.Request) -> dict[str, Any]:
    owner = await _owner(request, "files")
    file_id = request.match_info["file_id"]
    record = request.app[FILES].get(owner, file_id)
    if record is None:
        raise ClientError(404, "file_not_found", f"No file with id {file_id[:128]!r} exists here.")
    return record


async def delete_file(request: web.Request) -> web.Response:
    record = await _file(request)
    request.app[FILES].delete(record["id"])
    return web.json_response({"id": record["id"], "object": "file", "deleted": True})


async def content(request: web.Request) -> web.FileResponse:
    record = await _file(request)
    path = request.app[FILES].content(record["id"])
    return web.FileResponse(path, headers={"Content-Type": "application/jsonl"})


# batches


async def create(request: web.Request) -> web.Response:
    identity = await _identity(request, "batches")
    owner = owner_of(identity)
    front, config, ledger = request.app[FRONT], request.app[CONFIG], request.app[LEDGER]
    body = await front.read_json(request)
    if not isinstance(body, dict):
        raise ClientError(400, "invalid_request", "the request body must be a JSON object")
    endpoint, window = body.get("endpoint"), body.get("completion_window")
    cls = body.get("class", "background")
    if cls not in CLASSES:
        raise ClientError(400, "invalid_class", f"class must be one of {', '.join(CLASSES)}", "class")
    if window not in config.windows:
        message = f"completion_window must be one of {', '.join(config.windows)} here (batch.windows)"
        raise ClientError(400, "invalid_completion_window", message, "completion_window")
    if endpoint not in (*SURFACES, "/v1/responses"):
        raise ClientError(400, "invalid_endpoint", "endpoint must be one taskgate serves for batches", "endpoint")
    metadata = body.get("metadata")
    if metadata is not None and not _metadata(metadata):
        message = "metadata is at most 16 string values, keys up to 64 characters and values up to 512"
        raise ClientError(400, "invalid_metadata", message, "metadata")
    file_id = body.get("input_file_id")
    record = request.app[FILES].get(owner, file_id) if isinstance(file_id, str) else None
    if record is None or record.get("purpose") != "batch":
        raise ClientError(404, "file_not_found", "input_file_id names no batch file of yours here", "input_file_id")
    if record.get("endpoint") != endpoint:
        message = f"the file's lines target {record.get('endpoint')}, not {endpoint}"
        raise ClientError(400, "endpoint_mismatch", message, "endpoint")
    mine = [job for job in await ledger.owned(owner) if job.status not in ENDED]
    if len(mine) >= config.max_jobs_per_caller:
        message = f"you have {len(mine)} batches that have not ended (batch.max_jobs_per_caller)"
        raise ClientError(429, "too_many_batches", message)
    try:
        sealed = request.app[ITEMS].seal(identity)
    except ValueError as exc:
        raise ClientError(400, "caller_not_kept", str(exc)) from None
    seconds = window_s(str(window)) or 0
    now = int(time.time())
    batch_id = f"batch_{secrets.token_hex(12)}"
    made = {
        "id": batch_id, "object": "batch", "endpoint": endpoint, "errors": None, "input_file_id": file_id,
        "completion_window": window, "status": "validating", "output_file_id": None, "error_file_id": None,
        "created_at": now, "in_progress_at": None, "expires_at": now + seconds, "finalizing_at": None,
        "completed_at": None, "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
        "metadata": metadata,
        "taskgate": {
            "owner": list(owner) if owner is not None else None, "caller": sealed, "class": cls,
            "window_s": seconds, "output": new_file_id(), "errors": new_file_id(),
        },
    }  # fmt: skip
    job = await ledger.create(made, request.app[FILES].content(str(file_id)))
    request[EVIDENCE].batch = {"batch_id": batch_id, "input_file_id": file_id, "items": record.get("lines")}
    request.app[SCHEDULER].add(job)
    return web.json_response(job.view())


def _metadata(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) <= 16
        and all(isinstance(k, str) and len(k) <= 64 and isinstance(v, str) and len(v) <= 512 for k, v in value.items())
    )


async def list_batches(request: web.Request) -> web.Response:
    owner = await _owner(request, "batches")
    mine = await request.app[LEDGER].owned(owner)
    mine.sort(key=lambda job: (job.record["created_at"], job.id), reverse=True)
    after = request.query.get("after")
    if after is not None:
        at = next((i for i, job in enumerate(mine) if job.id == after), None)
        mine = mine[at + 1 :] if at is not None else []
    try:
        limit = max(1, min(100, int(request.query.get("limit", "20"))))
    except ValueError:
        raise ClientError(400, "invalid_limit", "limit must be a number from 1 to 100", "limit") from None
    page = [job.view() for job in mine[:limit]]
    return web.json_response(
        {
            "object": "list", "data": page, "has_more": len(mine) > limit,
            "first_id": page[0]["id"] if page else None, "last_id": page[-1]["id"] if page else None,
        }
    )  # fmt: skip


async def get_batch(request: web.Request) -> web.Response:
    owner = await _owner(request, "batches")
    return web.json_response((await _job(request, owner)).view())


async def cancel(request: web.Request) -> web.Response:
    owner = await _owner(request, "batches")
    job = await _job(request, owner)
    cancelled = await request.app[SCHEDULER].cancel(job) if job.status not in ENDED else None
    if cancelled is None:
        status = (await request.app[LEDGER].get(job.id) or job).status
        raise ClientError(409, "batch_not_cancellable", f"the batch is {status}; it cannot be cancelled")
    return web.json_response(cancelled.view())


async def _job(request: web.Request, owner: Owner) -> Job:
    batch_id = request.match_info["batch_id"]
    job = await request.app[LEDGER].get(batch_id)
    if job is None or job.owner != owner:
        raise ClientError(404, "batch_not_found", f"No batch with id {batch_id[:128]!r} exists here.")
    return job
