"""A batch job as every part of the room sees it: its object, what its ended items took, its items and their lines.

Where a job is kept, and how its items are claimed and its lines written,
is its ledger's business (`batch.ledger`): a directory on one replica
(`local`), or Redis and a directory every replica reaches (`streams`).
This module holds what both share: the job's snapshot and how it is shown,
an item and the group of items that share its prefix, and an ended item's
line.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import secrets
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskgate.plugins import Surface

from .files import Owner
from .types import SURFACES, ItemResult

ENDED = frozenset({"failed", "completed", "expired", "cancelled"})
PREFIX_CHARS = 2048  # how much of an item's prompt groups it with others that share it


@dataclass(slots=True)
class Item:
    custom_id: str
    body: dict[str, Any]
    group: str  # items with the same leading prompt share it: they run back to back, on one endpoint
    first: bool = False  # the first of its group: it runs alone, and the rest follow once it has ended


@dataclass
class Totals:
    """What a job's ended items took."""

    completed: int = 0
    failed: int = 0
    expired: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    priced: bool = False
    pools: dict[str, int] = field(default_factory=dict)

    def add(self, line: Mapping[str, Any], failed: bool) -> None:
        for name, amount in deltas(line, failed).items():
            self.bump(name, amount)

    def bump(self, name: str, amount: float) -> None:
        """One counter of `deltas` (or of a store that kept them) added to."""
        if name.startswith("pool:"):
            self.pools[name[5:]] = self.pools.get(name[5:], 0) + int(amount)
        elif name == "cost":
            self.cost += amount
        elif name == "priced":
            self.priced = self.priced or amount > 0
        else:
            setattr(self, name, getattr(self, name) + int(amount))


COUNTERS = frozenset(
    {"completed", "failed", "expired", "input_tokens", "output_tokens", "cached_tokens", "cost", "priced"}
)


def deltas(line: Mapping[str, Any], failed: bool) -> dict[str, float]:
    """What one ended item's line adds to its job's totals, counter by counter (`Totals.bump` takes them)."""
    out: dict[str, float] = {"failed" if failed else "completed": 1}
    error = line.get("error") or {}
    if error.get("code") == "batch_expired":
        out["expired"] = 1
    ours = line.get("taskgate") or {}
    if ours.get("pool"):
        out[f"pool:{ours['pool']}"] = 1
    if ours.get("cost") is not None:
        out["cost"], out["priced"] = float(ours["cost"]), 1
    usage = ((line.get("response") or {}).get("body") or {}).get("usage")
    if isinstance(usage, dict):
        details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
        out["input_tokens"] = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
        out["output_tokens"] = _int(usage.get("completion_tokens", usage.get("output_tokens")))
        out["cached_tokens"] = _int(details.get("cached_tokens") if isinstance(details, dict) else None)
    return {name: amount for name, amount in out.items() if amount}


@dataclass
class Job:
    """A job as its ledger knows it now: its object (`record`), its totals, and its items not yet ended
    (`queued`: waiting to be claimed; `running`: claimed, by any replica)."""

    record: dict[str, Any]
    totals: Totals = field(default_factory=Totals)
    queued: int = 0
    running: int = 0

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

    @property
    def done(self) -> int:
        return self.totals.completed + self.totals.failed

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


def marked(record: dict[str, Any], status: str, **fields: Any) -> dict[str, Any]:
    """`record` with a new status, the time it took it (`<status>_at`), and `fields` set."""
    return {**record, "status": status, f"{status}_at": int(time.time()), **fields}


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
        "queued": job.queued,
        "running": job.running,
        "pools": ours["pools"],
        "usage": {
            "input_tokens": usage["input_tokens"],
            "cached_tokens": usage["input_tokens_details"]["cached_tokens"],
            "output_tokens": usage["output_tokens"],
        },
        "cost": ours["cost"],
    }


def newest(jobs: list[Job], limit: int) -> list[dict[str, Any]]:
    """The newest `limit` jobs as the dashboard shows them; jobs made in the same second keep the order given."""
    order = enumerate(jobs)
    found = heapq.nlargest(limit, order, key=lambda kept: (kept[1].record["created_at"], kept[0]))
    return [summary(job) for _, job in found]


# an ended item's line


def result_line(item: Item, result: ItemResult) -> tuple[str, dict[str, Any]]:
    """The line an item's answer is, and the file it goes to (`output`, or `errors` for a refusal)."""
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
    return ("errors" if failed else "output"), line


def expired_line(item: Item) -> dict[str, Any]:
    """An item the window closed on: an error line, as OpenAI writes one."""
    message = "This request could not be executed before the completion window expired."
    return {
        "id": f"batch_req_{secrets.token_hex(12)}",
        "custom_id": item.custom_id,
        "response": None,
        "error": {"code": "batch_expired", "message": message},
    }


# the input


def group_of(body: Mapping[str, Any]) -> str:
    """What an item's prompt starts with, hashed: items that share a long instruction or document share it."""
    messages = body.get("messages")
    if isinstance(messages, list):
        lead = json.dumps(messages[:-1]) + json.dumps(messages[-1:])[:PREFIX_CHARS] if messages else ""
    else:
        lead = json.dumps(body.get("prompt", body.get("input", body.get("instructions", ""))))
    return hashlib.blake2b(f"{body.get('model')}\0{lead[:PREFIX_CHARS]}".encode(), digest_size=8).hexdigest()


@dataclass(slots=True)
class Placed:
    """An input line and where it is in its file: how a ledger that shares the file finds it again."""

    item: Item
    offset: int
    length: int


def grouped(placed: list[Placed]) -> list[Placed]:
    """Items in the order they run: groups one after another in the order of their first item, file order within
    one; the first of each group marked."""
    order: dict[str, int] = {}
    for entry in placed:
        order.setdefault(entry.item.group, len(order))
    ordered = sorted(placed, key=lambda entry: order[entry.item.group])
    seen: set[str] = set()
    for entry in ordered:
        entry.item.first = entry.item.group not in seen
        seen.add(entry.item.group)
    return ordered


def read_input(path: Path, skip: set[str] | None = None) -> list[Placed]:
    """An input file's items (but those in `skip`), where each line is; CPU work for a large file: run it on a
    thread."""
    found: list[Placed] = []
    offset = 0
    with path.open("rb") as lines:
        for raw in lines:
            length = len(raw)
            if raw.strip():
                line = json.loads(raw)
                custom_id = str(line["custom_id"])
                if skip is None or custom_id not in skip:
                    found.append(Placed(Item(custom_id, line["body"], group_of(line["body"])), offset, length))
            offset += length
    return found


def jsonl(path: Path, repair: bool = False) -> Iterator[dict[str, Any]]:
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
