"""A batch job: its object, its items, and what is done of them, kept so that a restart loses and repeats nothing.

`batches/<id>.json` holds the job's object (rewritten whole on every change
of status, and as items end). Its output and error files are the truth of
what is done: each ended item is one line appended to one of them, with a
single write, before the item counts as done. On start-up a job that had
not ended is read back: the lines already written are its finished items
(never run again), the rest of its input runs, an item that was in flight
when the process stopped among them. A last line cut short by a crash is
dropped, and its item runs again.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import secrets
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskgate.plugins import Surface

from .files import PRIVATE, Files, Owner, read_json, write_json
from .types import SURFACES, ItemResult

ENDED = frozenset({"failed", "completed", "expired", "cancelled"})
PREFIX_CHARS = 2048  # how much of an item's prompt groups it with others that share it


@dataclass(slots=True)
class Item:
    custom_id: str
    body: dict[str, Any]
    group: str  # items with the same leading prompt share it: they run back to back, on one endpoint


@dataclass
class Totals:
    """What a job's ended items took."""

    completed: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    priced: bool = False
    pools: dict[str, int] = field(default_factory=dict)

    def add(self, line: Mapping[str, Any], failed: bool) -> None:
        if failed:
            self.failed += 1
        else:
            self.completed += 1
        ours = line.get("taskgate") or {}
        pool = ours.get("pool")
        if pool:
            self.pools[pool] = self.pools.get(pool, 0) + 1
        if ours.get("cost") is not None:
            self.cost += float(ours["cost"])
            self.priced = True
        usage = ((line.get("response") or {}).get("body") or {}).get("usage")
        if isinstance(usage, dict):
            self.input_tokens += _int(usage.get("prompt_tokens", usage.get("input_tokens")))
            self.output_tokens += _int(usage.get("completion_tokens", usage.get("output_tokens")))
            details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
            self.cached_tokens += _int(details.get("cached_tokens") if isinstance(details, dict) else None)


class Job:
    """One batch: its object (`record`), the items still to run, and its open output and error files."""

    def __init__(self, record: dict[str, Any], path: Path, files: Path):
        self.record, self.path, self.files = record, path, files
        self.pending: deque[Item] = deque()
        self.inflight = 0
        self.totals = Totals()
        self.started_mono = time.monotonic()
        self._out: dict[str, Any] = {}

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def status(self) -> str:
        return str(self.record["status"])

    @property
    def owner(self) -> Owner:
        owner = self.ours.get("owner")
        return (str(owner[0]), str(owner[1])) if isinstance(owner, list) else None

    @property
    def ours(self) -> dict[str, Any]:
        ours: dict[str, Any] = self.record["taskgate"]
        return ours

    @property
    def surface(self) -> str:
        return SURFACES.get(str(self.record["endpoint"]), Surface.RESPONSES)

    def view(self) -> dict[str, Any]:
        """The batch object as OpenAI shows it, with taskgate's own facts under `taskgate`."""
        totals = self.totals
        record = dict(self.record)
        ours = {k: v for k, v in self.ours.items() if k in ("class", "window_s")}
        ours |= {"pools": dict(totals.pools), "cost": round(totals.cost, 6) if totals.priced else None}
        record["taskgate"] = ours
        record["request_counts"] = {
            "total": self.ours.get("total", 0),
            "completed": totals.completed,
            "failed": totals.failed,
        }
        record["usage"] = {
            "input_tokens": totals.input_tokens,
            "input_tokens_details": {"cached_tokens": totals.cached_tokens},
            "output_tokens": totals.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": totals.input_tokens + totals.output_tokens,
        }
        return record

    def save(self) -> None:
        write_json(self.path, self.record)

    def mark(self, status: str, **times: int) -> None:
        self.record["status"] = status
        now = int(time.time())
        self.record[f"{status}_at" if status != "in_progress" else "in_progress_at"] = now
        for name, when in times.items():
            self.record[name] = when
        self.save()

    def file_path(self, kind: str) -> Path:
        return self.files / f"{self.ours[kind]}.jsonl"

    def load(self, inputs: Path) -> None:
        """Read back what is done (the lines already written) and queue the rest of the input, grouped by prefix."""
        done: set[str] = set()
        for kind in ("output", "errors"):
            for line in _lines(self.file_path(kind), repair=True):
                done.add(str(line.get("custom_id")))
                self.totals.add(line, failed=kind == "errors")
        todo = [item for item in _items(inputs) if item.custom_id not in done]
        self.ours["total"] = len(done) + len(todo)
        order: dict[str, int] = {}  # groups in order of their first item; items keep their order within one
        for item in todo:
            order.setdefault(item.group, len(order))
        self.pending = deque(sorted(todo, key=lambda item: order[item.group]))

    def write(self, item: Item, result: ItemResult) -> None:
        """The item's line, in one write: after it, the item is done and never runs again."""
        failed = result.status >= 400
        error = None
        if failed and isinstance(result.body, dict):
            found = result.body.get("error") or {}
            error = {"code": found.get("code"), "message": found.get("message")}
        line = {
            "id": f"batch_req_{secrets.token_hex(12)}",
            "custom_id": item.custom_id,
            "response": {"status_code": result.status, "request_id": result.request_id, "body": result.body},
            "error": error,
            "taskgate": {"pool": result.pool, "endpoint": result.endpoint, "cost": result.cost},
        }
        self.append("errors" if failed else "output", line)
        self.totals.add(line, failed)

    def expire(self, item: Item) -> None:
        """An item the window closed on: an error line, as OpenAI writes one."""
        message = "This request could not be executed before the completion window expired."
        line = {
            "id": f"batch_req_{secrets.token_hex(12)}",
            "custom_id": item.custom_id,
            "response": None,
            "error": {"code": "batch_expired", "message": message},
        }
        self.append("errors", line)
        self.totals.add(line, failed=True)

    def append(self, kind: str, line: Mapping[str, Any]) -> None:
        handle = self._out.get(kind)
        if handle is None:
            handle = self._out[kind] = os.open(self.file_path(kind), os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE)
        os.write(handle, (json.dumps(line) + "\n").encode())

    def close(self) -> None:
        for handle in self._out.values():
            os.close(handle)
        self._out.clear()


def group_of(body: Mapping[str, Any]) -> str:
    """What an item's prompt starts with, hashed: items that share a long instruction or document share it."""
    messages = body.get("messages")
    if isinstance(messages, list):
        lead = json.dumps(messages[:-1]) + json.dumps(messages[-1:])[:PREFIX_CHARS] if messages else ""
    else:
        lead = json.dumps(body.get("prompt", body.get("input", body.get("instructions", ""))))
    return hashlib.blake2b(f"{body.get('model')}\0{lead[:PREFIX_CHARS]}".encode(), digest_size=8).hexdigest()


def _items(path: Path) -> Iterator[Item]:
    for line in _lines(path):
        body = line["body"]
        yield Item(str(line["custom_id"]), body, group_of(body))


def _lines(path: Path, repair: bool = False) -> Iterator[dict[str, Any]]:
    """A JSONL file's lines. `repair` (an output or error file): a last line with no newline, a write cut
    short, is dropped from the file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    if repair and data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with path.open("r+b") as handle:
            handle.truncate(cut)
        data = data[:cut]
    for raw in data.splitlines():
        if raw.strip():
            yield json.loads(raw)


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


class Jobs:
    """Every job this directory holds, by id."""

    def __init__(self, directory: Path, files: Files):
        self.directory, self.store = directory / "batches", files
        self.files = files.directory
        self.by_id: dict[str, Job] = {}

    def prepare(self) -> None:
        """Every job the directory holds (none if it does not exist yet)."""
        for path in sorted(self.directory.glob("batch_*.json")):
            record = read_json(path)
            if isinstance(record, dict) and isinstance(record.get("taskgate"), dict):
                self.by_id[str(record["id"])] = Job(record, path, self.files)

    def new(self, record: dict[str, Any]) -> Job:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        job = Job(record, self.directory / f"{record['id']}.json", self.files)
        self.by_id[job.id] = job
        return job

    def get(self, owner: Owner, batch_id: str) -> Job | None:
        job = self.by_id.get(batch_id)
        return job if job is not None and job.owner == owner else None

    def keep_file(self, job: Job, kind: str) -> None:
        """The job's output or error file, recorded as a file its caller may read."""
        purpose = "batch_output" if kind == "output" else "batch_errors"
        self.store.keep(job.ours[kind], job.owner, purpose, f"{job.id}_{kind}.jsonl")

    def forget(self, job: Job) -> None:
        self.by_id.pop(job.id, None)
        job.path.unlink(missing_ok=True)

    def newest(self, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """How many jobs are held, and the newest `limit` as the dashboard shows them (`plugins.BATCH_JOBS`)."""
        # created_at is in seconds: jobs made in the same one keep the order they were added in
        order = enumerate(self.by_id.values())
        newest = heapq.nlargest(limit, order, key=lambda kept: (kept[1].record["created_at"], kept[0]))
        return len(self.by_id), [summary(job) for _, job in newest]


def summary(job: Job) -> dict[str, Any]:
    """What the dashboard shows of a job: its OpenAI object's progress and taskgate's facts, not its metadata,
    files or the caller it keeps (`who` is the owner's subject and tenant, as a record's is)."""
    shown = job.view()
    ours, usage, owner = shown["taskgate"], shown["usage"], job.owner
    return {
        "id": job.id,
        "status": job.status,
        "endpoint": shown["endpoint"],
        "class": ours.get("class"),
        "who": f"{owner[0]}@{owner[1]}" if owner is not None else None,
        "created_at": shown["created_at"],
        "expires_at": shown["expires_at"],
        "request_counts": shown["request_counts"],
        "queued": len(job.pending),
        "running": job.inflight,
        "pools": ours["pools"],
        "usage": {
            "input_tokens": usage["input_tokens"],
            "cached_tokens": usage["input_tokens_details"]["cached_tokens"],
            "output_tokens": usage["output_tokens"],
        },
        "cost": ours["cost"],
    }
