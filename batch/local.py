"""Jobs kept in one directory, for one replica (`batch.store: memory`): a restart loses and repeats nothing.

`batches/<id>.json` holds the job's object (rewritten whole on every change
of status). Its output and error files are the truth of what is done: each
ended item is one line appended to one of them, with a single write, before
the item counts as done. On start-up a job that had not ended is read back:
the lines already written are its finished items (never run again), the
rest of its input is queued, an item that was in flight when the process
stopped among them. A last line cut short by a crash is dropped, and its
item runs again. Claims are never lost here: nobody else runs these jobs.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import deque
from pathlib import Path
from typing import Any

import structlog

from .files import PRIVATE, Files, Owner, read_json, write_json
from .jobs import ENDED, Item, Job, Totals, grouped, jsonl, marked, newest, read_input
from .ledger import Claim

log = structlog.get_logger("taskgate.batch")


class LocalJob:
    """A job's state on this replica: its snapshot, the items not yet claimed, and its open output files."""

    def __init__(self, job: Job, path: Path, files: Path):
        self.job, self.path, self.files = job, path, files
        self.pending: deque[tuple[int, Item]] = deque()  # with where each runs in the job
        self.claimed: set[str] = set()
        self.warm: set[str] = set()
        self._out: dict[str, int] = {}

    def save(self) -> None:
        write_json(self.path, self.job.record)

    def file_path(self, kind: str) -> Path:
        return self.files / f"{self.job.ours[kind]}.jsonl"

    def load(self, inputs: Path) -> None:
        """Read back what is done (the lines already written) and queue the rest of the input, grouped by prefix."""
        done: set[str] = set()
        self.job.totals = Totals()
        for kind in ("output", "errors"):
            for line in jsonl(self.file_path(kind), repair=True):
                done.add(str(line.get("custom_id")))
                self.job.totals.add(line, failed=kind == "errors")
        todo = [placed.item for placed in grouped(read_input(inputs, skip=done))]
        self.job.ours["total"] = len(done) + len(todo)
        self.job.ours["models"] = sorted({str(item.body.get("model")) for item in todo})
        self.pending = deque(enumerate(todo))
        self.counted()

    def append(self, kind: str, line: dict[str, Any]) -> None:
        handle = self._out.get(kind)
        if handle is None:
            handle = self._out[kind] = os.open(self.file_path(kind), os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE)
        os.write(handle, (json.dumps(line) + "\n").encode())

    def counted(self) -> None:
        self.job.queued, self.job.running = len(self.pending), len(self.claimed)

    def close(self) -> None:
        for handle in self._out.values():
            os.close(handle)
        self._out.clear()


class DirectoryLedger:
    """Every job `batch.directory` holds, run by this replica alone."""

    shared = False
    lease_s = 3600.0  # nothing takes a claim away here: renewing is a formality

    def __init__(self, directory: Path, files: Files, keep_s: float):
        self.directory, self.store, self.keep_s = directory / "batches", files, keep_s
        self.files = files.directory
        self.by_id: dict[str, LocalJob] = {}

    async def start(self) -> list[Job]:
        """Every job the directory holds; those that had not ended are read back, ended ones past `keep_s`
        removed with their files."""
        for path in sorted(self.directory.glob("batch_*.json")):
            record = read_json(path)
            if isinstance(record, dict) and isinstance(record.get("taskgate"), dict):
                self.by_id[str(record["id"])] = LocalJob(Job(record), path, self.files)
        self._sweep()
        failed = []
        for kept in self.by_id.values():
            if kept.job.status in ENDED:
                continue
            try:
                await self._resume(kept)
            except (OSError, ValueError) as exc:
                errors = [{"code": "resume_failed", "message": f"the job could not be resumed: {exc}", "line": None}]
                self._mark(kept, "failed", errors={"object": "list", "data": errors})
                log.warning("batch_failed", batch_id=kept.job.id, code="resume_failed", reason=str(exc))
                failed.append(kept.job)
        return failed

    async def _resume(self, kept: LocalJob) -> None:
        inputs = self.files / f"{kept.job.record['input_file_id']}.jsonl"
        await asyncio.to_thread(kept.load, inputs)  # a large input is parsed off the event loop
        if kept.job.status in ("validating", "finalizing"):
            self._mark(kept, "in_progress")
        if kept.job.status == "cancelling":  # cancelled before the restart: nothing more starts
            kept.pending.clear()
            kept.counted()

    def _sweep(self) -> None:
        now = time.time()
        for kept in list(self.by_id.values()):
            job = kept.job
            ended = job.record.get(f"{job.status}_at")  # completed_at, failed_at, expired_at, cancelled_at
            if job.status in ENDED and isinstance(ended, int) and now - ended > self.keep_s:
                for kind in ("output", "errors"):
                    self.store.delete(job.ours[kind])
                self.by_id.pop(job.id, None)
                kept.path.unlink(missing_ok=True)

    async def close(self, unended: list[Claim]) -> None:
        for kept in self.by_id.values():  # what was claimed and not written runs again after a restart
            kept.close()

    async def create(self, record: dict[str, Any], inputs: Path) -> Job:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        kept = LocalJob(Job(record), self.directory / f"{record['id']}.json", self.files)
        self.by_id[kept.job.id] = kept
        kept.save()
        await self._resume(kept)
        return kept.job

    async def get(self, batch_id: str) -> Job | None:
        kept = self.by_id.get(batch_id)
        return kept.job if kept is not None else None

    async def owned(self, owner: Owner) -> list[Job]:
        return [kept.job for kept in self.by_id.values() if kept.job.owner == owner]

    async def newest(self, limit: int) -> tuple[int, list[dict[str, Any]]]:
        return len(self.by_id), newest([kept.job for kept in self.by_id.values()], limit)

    async def active(self) -> list[Job]:
        return [kept.job for kept in self.by_id.values() if kept.job.status not in ENDED]

    async def mark(self, job: Job, allowed: frozenset[str], status: str, **fields: Any) -> Job | None:
        kept = self.by_id[job.id]
        if kept.job.status not in allowed:
            return None
        self._mark(kept, status, **fields)
        if status == "cancelling":
            kept.pending.clear()
            kept.counted()
        return kept.job

    def _mark(self, kept: LocalJob, status: str, **fields: Any) -> None:
        kept.job.record = marked(kept.job.record, status, **fields)
        kept.save()

    async def take(self, job: Job, count: int, bounded: bool = True) -> list[Claim]:
        kept = self.by_id[job.id]
        claims: list[Claim] = []
        while kept.pending and len(claims) < count:
            order, item = kept.pending.popleft()
            kept.claimed.add(item.custom_id)
            claims.append(Claim(job.id, item, item.custom_id, 0, order))
        kept.counted()
        return claims

    async def reclaim(self, job: Job, count: int) -> list[Claim]:
        return []

    async def renew(self, job: str, claims: list[Claim]) -> list[Claim]:
        return []

    async def commit(self, claim: Claim, kind: str, line: dict[str, Any]) -> bool:
        kept = self.by_id[claim.job]
        if claim.entry not in kept.claimed:
            return False
        kept.append(kind, line)
        kept.job.totals.add(line, failed=kind == "errors")
        kept.claimed.discard(claim.entry)
        if claim.item.first:
            kept.warm.add(claim.item.group)
        kept.counted()
        return True

    async def drop(self, claim: Claim) -> None:
        kept = self.by_id[claim.job]
        kept.claimed.discard(claim.entry)
        kept.counted()

    async def warm(self, job: Job, group: str) -> bool:
        return group in self.by_id[job.id].warm

    async def finish(self, job: Job, status: str) -> Job | None:
        kept = self.by_id[job.id]
        kept.close()
        self._mark(kept, "finalizing")
        fields = {}
        for kind, name in (("output", "output_file_id"), ("errors", "error_file_id")):
            path = kept.file_path(kind)
            if path.exists() and path.stat().st_size > 0:
                keep_file(self.store, kept.job, kind)
                fields[name] = kept.job.ours[kind]
        self._mark(kept, status, **fields)
        return kept.job


def keep_file(files: Files, job: Job, kind: str) -> None:
    """The job's output or error file, recorded as a file its caller may read."""
    purpose = "batch_output" if kind == "output" else "batch_errors"
    files.keep(job.ours[kind], job.owner, purpose, f"{job.id}_{kind}.jsonl")
