"""Jobs every replica runs (`batch.store: redis`): job state, the items' queue and their claims in Redis.

Per job, under `batch.key_prefix`:

- `job:<id>`: a hash: the job's object (`record`), its `status`, its counters (items, tokens, cost, per
  pool), and who is ending it (`finalizer`);
- `items:<id>`: a stream, one entry per item in the order they run (its `custom_id`, where its line is in
  the input file, its prefix group), read by the consumer group `run`;
- `output:<id>`, `errors:<id>`: lists, the lines written so far (`written:<id>`: their ids); `warm:<id>`:
  the prefix groups whose first item has ended;
- `active`, `all`, `owner:<hash>`: sorted sets of job ids: not ended (by deadline), every job, and each
  caller's (by creation).

A replica claims items with XREADGROUP: a claimed entry is pending under
its consumer, and its delivery count is the claim's fencing token. The
replica renews its claims (XCLAIM ... JUSTID, which resets an entry's idle
time and not its count) several times within `lease_s`; another replica
takes entries idle longer than that with XAUTOCLAIM, which counts one more
delivery, so the first replica's token no longer matches. A line is written
by a script that checks, in the same step, that the entry is still pending
under the same consumer with the same count, then acknowledges it, appends
the line and adds its counters: a replica that lost its claim writes
nothing, and no item is written twice. The input and the published output
and error files live in `batch.directory`, which every replica must reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis
import structlog

from taskgate.errors import TaskgateError
from taskgate.plugins import FAILURES, Evidence, Problem
from taskgate.plugins.redis import connect

from .config import BatchConfig
from .files import PRIVATE, Files, Owner
from .jobs import COUNTERS, ENDED, Item, Job, Totals, deltas, grouped, marked, newest, read_input
from .ledger import Claim
from .local import keep_file
from .scripts import CLAIM, COMMIT, DROP, MARK, RECLAIM, RELEASE, RENEW

log = structlog.get_logger("taskgate.batch")
GROUP = "run"
CHUNK = 1000  # entries added, or lines read back, per round trip
LIVE = ("in_progress", "cancelling")


class BatchStoreUnavailable(TaskgateError):
    """The shared store of batch jobs cannot be reached."""


@FAILURES.explains(BatchStoreUnavailable)
def _unavailable(exc: BatchStoreUnavailable, evidence: Evidence) -> Problem:
    message = "the store of batch jobs is unavailable; try again shortly"
    return Problem(
        503, "batch_store_unavailable", message, "api_error", headers={"Retry-After": "1"}, detail=str(exc), cite=True
    )


class StreamLedger:
    """Jobs in Redis, claimed item by item by whichever replica has room."""

    shared = True

    def __init__(self, config: BatchConfig, files: Files):
        self.config, self.store = config, files
        self.lease_s = config.lease_s
        self.consumer = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._redis = connect(config.redis_url, timeout_s=2.0, decode_responses=True)  # nothing here is a request's
        self._p = config.key_prefix
        self._scripts = {
            name: self._redis.register_script(text)
            for name, text in (
                ("claim", CLAIM), ("reclaim", RECLAIM), ("renew", RENEW), ("commit", COMMIT), ("drop", DROP),
                ("mark", MARK), ("release", RELEASE),
            )
        }  # fmt: skip

    def _key(self, kind: str, batch_id: str) -> str:
        return f"{self._p}{kind}:{batch_id}"

    def _owner_key(self, owner: Owner) -> str:
        who = "anonymous" if owner is None else _hashed(owner)
        return f"{self._p}owner:{who}"

    async def start(self) -> list[Job]:
        """Output and error files past `keep_s` are removed (their jobs' keys have expired by then)."""
        await asyncio.to_thread(self.store.sweep, self.config.keep_s, ("batch_output", "batch_errors"))
        return []

    async def close(self, unended: list[Claim]) -> None:
        """Claims not ended are handed back idle, so another replica takes them at once; then the client goes."""
        try:
            for job, claims in _by_job(unended).items():
                pairs = [part for claim in claims for part in (claim.entry, claim.token)]
                idle_ms = int(self.lease_s * 1000) * 2
                await self._scripts["release"](keys=[self._key("items", job)], args=[self.consumer, idle_ms, *pairs])
        finally:
            await self._redis.aclose()

    async def create(self, record: dict[str, Any], inputs: Path) -> Job:
        placed = await asyncio.to_thread(lambda: grouped(read_input(inputs)))
        record = marked(record, "in_progress")
        record["taskgate"] |= {"total": len(placed), "models": sorted({str(p.item.body.get("model")) for p in placed})}
        batch_id, ttl = str(record["id"]), self._ttl(record)
        items = self._key("items", batch_id)
        with _reached():
            for start in range(0, len(placed), CHUNK):
                async with self._redis.pipeline(transaction=False) as pipe:
                    for entry in placed[start : start + CHUNK]:
                        item = entry.item
                        fields = {"c": item.custom_id, "o": entry.offset, "n": entry.length, "g": item.group}
                        pipe.xadd(items, fields | ({"f": "1"} if item.first else {}))
                    pipe.expire(items, ttl)
                    await pipe.execute()
            async with self._redis.pipeline(transaction=True) as pipe:
                job, created = self._key("job", batch_id), record["created_at"]
                pipe.xgroup_create(items, GROUP, id="0")
                pipe.hset(job, mapping={"record": json.dumps(record), "status": "in_progress", "finalizer": ""})
                pipe.expire(job, ttl)
                pipe.zadd(self._p + "active", {batch_id: record["expires_at"]})
                for index in (self._p + "all", self._owner_key(_owner_of(record))):
                    pipe.zadd(index, {batch_id: created})
                    pipe.expire(index, ttl)
                pipe.expire(self._p + "active", ttl)
                await pipe.execute()
        return Job(record, queued=len(placed))

    def _ttl(self, record: dict[str, Any]) -> int:
        """A job's keys outlive its window by `keep_s`: an ended job is shown that long."""
        return max(1, int(record["expires_at"] - time.time() + self.config.keep_s))

    async def get(self, batch_id: str) -> Job | None:
        found = await self._jobs([batch_id])
        return found[0] if found else None

    async def owned(self, owner: Owner) -> list[Job]:
        with _reached():
            ids = await self._redis.zrange(self._owner_key(owner), 0, -1)
        return await self._jobs(ids, prune=self._owner_key(owner))

    async def newest(self, limit: int) -> tuple[int, list[dict[str, Any]]]:
        with _reached():
            held = await self._redis.zcard(self._p + "all")
            ids = await self._redis.zrevrange(self._p + "all", 0, limit - 1)
        jobs = await self._jobs(ids, prune=self._p + "all")
        return max(0, held - (len(ids) - len(jobs))), newest(jobs, limit)

    async def active(self) -> list[Job]:
        with _reached():
            ids = await self._redis.zrange(self._p + "active", 0, -1)
        return [job for job in await self._jobs(ids, prune=self._p + "active") if job.status not in ENDED]

    async def _jobs(self, ids: list[str], prune: str | None = None) -> list[Job]:
        """The jobs `ids` name, as they are now (those whose keys expired dropped from `prune`)."""
        if not ids:
            return []
        with _reached():
            async with self._redis.pipeline(transaction=False) as pipe:
                for batch_id in ids:
                    pipe.hgetall(self._key("job", batch_id))
                    pipe.xinfo_groups(self._key("items", batch_id))
                answers = await pipe.execute(raise_on_error=False)
            found, gone = [], []
            for batch_id, fields, groups in zip(ids, answers[::2], answers[1::2], strict=True):
                job = _job(fields, groups if isinstance(groups, list) else [])
                if job is None:
                    gone.append(batch_id)
                else:
                    found.append(job)
            if gone and prune is not None:
                await self._redis.zrem(prune, *gone)
        return found

    async def mark(self, job: Job, allowed: frozenset[str], status: str, **fields: Any) -> Job | None:
        record = marked(job.record, status, **fields)
        with _reached():
            changed = await self._scripts["mark"](
                keys=[self._key("job", job.id), self._p + "active"],
                args=[",".join(sorted(allowed)), "", status, json.dumps(record), job.id, int(status in ENDED), ""],
            )
        return Job(record, job.totals, job.queued, job.running) if changed else None

    async def take(self, job: Job, count: int, bounded: bool = True) -> list[Claim]:
        """`bounded`: within `batch.per_job` claims of the job across the fleet (a job's parallelism does not grow
        with the replicas)."""
        most = self.config.per_job if bounded else 0
        with _reached():
            entries = await self._scripts["claim"](
                keys=[self._key("job", job.id), self._key("items", job.id)], args=[self.consumer, count, most]
            )
        return await self._claims(job, [(entry_id, fields, 1) for entry_id, fields in entries or []])

    async def reclaim(self, job: Job, count: int) -> list[Claim]:
        with _reached():
            entries = await self._scripts["reclaim"](
                keys=[self._key("job", job.id), self._key("items", job.id)],
                args=[self.consumer, int(self.lease_s * 1000), count],
            )
        return await self._claims(job, [(entry_id, fields, int(token)) for entry_id, fields, token in entries or []])

    async def _claims(self, job: Job, entries: list[tuple[str, list[str], int]]) -> list[Claim]:
        """Claims of the entries taken, each item's body read back from the input file."""
        if not entries:
            return []
        inputs = self.store.content(str(job.record["input_file_id"]))
        found = [
            (entry_id, dict(zip(fields[::2], fields[1::2], strict=True)), token) for entry_id, fields, token in entries
        ]
        spans = [(int(fields["o"]), int(fields["n"])) for _, fields, _ in found]
        bodies = await asyncio.to_thread(_bodies, inputs, spans)
        return [
            Claim(
                job.id, Item(fields["c"], body, fields["g"], fields.get("f") == "1"), entry_id, token, _order(entry_id)
            )
            for (entry_id, fields, token), body in zip(found, bodies, strict=True)
        ]

    async def renew(self, job: str, claims: list[Claim]) -> list[Claim]:
        pairs = [part for claim in claims for part in (claim.entry, claim.token)]
        with _reached():
            lost = set(await self._scripts["renew"](keys=[self._key("items", job)], args=[self.consumer, *pairs]))
        return [claim for claim in claims if claim.entry in lost]

    async def commit(self, claim: Claim, kind: str, line: dict[str, Any]) -> bool:
        counters = [part for name, amount in deltas(line, kind == "errors").items() for part in (name, amount)]
        keys = [self._key(name, claim.job) for name in ("job", "items", kind, "warm", "written")]
        warm = claim.item.group if claim.item.first else ""
        args = [self.consumer, claim.entry, claim.token, json.dumps(line), warm, line["id"]]
        with _reached():
            return bool(await self._scripts["commit"](keys=keys, args=[*args, *counters]))

    async def drop(self, claim: Claim) -> None:
        with _reached():
            await self._scripts["drop"](
                keys=[self._key("items", claim.job)], args=[self.consumer, claim.entry, claim.token]
            )

    async def warm(self, job: Job, group: str) -> bool:
        with _reached():
            return bool(await self._redis.sismember(self._key("warm", job.id), group))

    async def finish(self, job: Job, status: str) -> Job | None:
        """Take the ending of the job (or over from a finisher that stopped), publish its files from its lines,
        then end it; None if another replica holds the ending, or its lines are gone (it ended already)."""
        finishing = marked(job.record, "finalizing")
        expected = str(job.record.get("taskgate", {}).get("finalizer", "")) if job.status == "finalizing" else ""
        finishing["taskgate"] = {**job.ours, "finalizer": self.consumer, "final": job.ours.get("final", status)}
        status = str(finishing["taskgate"]["final"])
        allowed = "finalizing" if job.status == "finalizing" else ",".join(LIVE)
        keys = [self._key("job", job.id), self._p + "active"]
        with _reached():
            if not await self._scripts["mark"](
                keys=keys, args=[allowed, expected, "finalizing", json.dumps(finishing), job.id, 0, self.consumer]
            ):
                return None
            fresh = await self.get(job.id)
            if fresh is None or not await self._publish(fresh):
                return None
            fields: dict[str, Any] = {}
            for kind, name in (("output", "output_file_id"), ("errors", "error_file_id")):
                if self.store.content(fresh.ours[kind]).exists():
                    keep_file(self.store, fresh, kind)
                    fields[name] = fresh.ours[kind]
            ended = marked(fresh.record, status, **fields)
            args = ["finalizing", self.consumer, status, json.dumps(ended), job.id, 1, ""]
            if not await self._scripts["mark"](keys=keys, args=args):
                return None
            ended_keys = ("items", "output", "errors", "warm", "written")
            await self._redis.delete(*(self._key(kind, job.id) for kind in ended_keys))
            await self._redis.expire(self._key("job", job.id), max(1, int(self.config.keep_s)))
        return Job(ended, fresh.totals)

    async def _publish(self, job: Job) -> bool:
        """The job's output and error files, written whole from its lines and then renamed into place (an empty
        one not at all); False if fewer lines are left than its items counted (another finisher ended it)."""
        written: dict[Path, Path] = {}  # partial -> published
        total = 0
        try:
            for kind in ("output", "errors"):
                path = self.store.content(job.ours[kind])
                partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
                lines = 0
                while chunk := await self._redis.lrange(self._key(kind, job.id), lines, lines + CHUNK - 1):
                    written[partial] = path
                    await asyncio.to_thread(_append, partial, chunk)
                    lines += len(chunk)
                total += lines
            if total != job.done:
                return False
            for partial, path in written.items():
                await asyncio.to_thread(os.replace, partial, path)
            return True
        finally:
            for partial in written:
                partial.unlink(missing_ok=True)


def _job(fields: dict[str, str], groups: list[dict[str, Any]]) -> Job | None:
    """A job from its hash and its stream's consumer group (absent once it ended)."""
    if not fields or "record" not in fields:
        return None
    record = json.loads(fields["record"])
    record["status"] = fields.get("status", record["status"])
    record["taskgate"]["finalizer"] = fields.get("finalizer", "")
    totals = Totals()
    for name, value in fields.items():
        if name in COUNTERS or name.startswith("pool:"):
            totals.bump(name, float(value))
    group = next((g for g in groups if g.get("name") == GROUP), None)
    queued = int(group.get("lag") or 0) if group is not None else 0
    running = int(group.get("pending") or 0) if group is not None else 0
    return Job(record, totals, queued, running)


def _owner_of(record: dict[str, Any]) -> Owner:
    owner = record["taskgate"].get("owner")
    return (str(owner[0]), str(owner[1])) if isinstance(owner, list) else None


def _hashed(owner: tuple[str, str]) -> str:
    subject, tenant = owner
    return hashlib.blake2b(f"{tenant}\x00{subject}".encode(), digest_size=16).hexdigest()


def _order(entry_id: str) -> int:
    """A stream entry's place in its stream, as one number."""
    ms, _, seq = entry_id.partition("-")
    return int(ms) * 1_000_000 + int(seq or 0)


def _by_job(claims: list[Claim]) -> dict[str, list[Claim]]:
    found: dict[str, list[Claim]] = {}
    for claim in claims:
        found.setdefault(claim.job, []).append(claim)
    return found


def _bodies(path: Path, spans: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """The bodies of the input lines at `spans` (offset, length)."""
    bodies = []
    with path.open("rb") as inputs:
        for offset, length in spans:
            inputs.seek(offset)
            bodies.append(json.loads(inputs.read(length))["body"])
    return bodies


def _append(path: Path, lines: list[str]) -> None:
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE), "a") as out:
        out.write("".join(line + "\n" for line in lines))


@contextlib.contextmanager
def _reached() -> Iterator[None]:
    try:
        yield
    except redis.RedisError as exc:
        raise BatchStoreUnavailable(f"batch store: {type(exc).__name__}: {exc}") from None
