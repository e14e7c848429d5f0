"""Where jobs are kept and how their items are claimed and their lines written: the scheduler's one contract.

Two ledgers keep it. `local.DirectoryLedger` (`batch.store: memory`) keeps
jobs in `batch.directory` for one replica: a restart reads back what was
written. `streams.StreamLedger` (`batch.store: redis`) lets every replica
run every job: job state, the queue of items and each item's claim in Redis
(a stream per job read by a consumer group), the files in a directory every
replica reaches.

A claim is a lease with a fencing token. The replica that holds it renews
it while the item waits or runs (`renew`); one that stops renewing loses
it, and another replica takes the item (`reclaim`). An item's line is
written by `commit`, which checks, in the same step as it appends, that the
claim is still held with the same token: a replica that lost its lease (it
was paused, or its network was) writes nothing, and every item's line
appears exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .files import Owner
from .jobs import Item, Job


@dataclass(frozen=True, slots=True)
class Claim:
    """One item this replica holds: its job, the queue's id of it, and the lease's fencing token."""

    job: str
    item: Item
    entry: str
    token: int
    order: int  # where the item runs in its job: claims are started in this order


class Ledger(Protocol):
    """Jobs, their items' claims and their lines, as one replica reaches them."""

    shared: bool
    """Whether other replicas run the same jobs (and claims can be lost to them)."""
    lease_s: float
    """How long a claim lasts unless renewed; `renew` runs several times within it."""

    async def start(self) -> list[Job]:
        """Open the store; the jobs that could not be read back (marked failed), for their evidence."""
        ...

    async def close(self, unended: list[Claim]) -> None:
        """Let go of `unended` claims (another replica may take them at once) and of the store."""
        ...

    async def create(self, record: dict[str, Any], inputs: Path) -> Job:
        """A new job of the items in `inputs`, queued in the order they run (`jobs.grouped`)."""
        ...

    async def get(self, batch_id: str) -> Job | None: ...

    async def owned(self, owner: Owner) -> list[Job]:
        """`owner`'s jobs (ended ones until they are removed)."""
        ...

    async def newest(self, limit: int) -> tuple[int, list[dict[str, Any]]]:
        """How many jobs are held, and the newest `limit` as the dashboard shows them (`plugins.BATCH_JOBS`)."""
        ...

    async def active(self) -> list[Job]:
        """Every job not ended, as it is now (another replica may have cancelled one)."""
        ...

    async def mark(self, job: Job, allowed: frozenset[str], status: str, **fields: Any) -> Job | None:
        """Move `job` to `status` if its status is one of `allowed` now; None (nothing changed) otherwise."""
        ...

    async def take(self, job: Job, count: int, bounded: bool = True) -> list[Claim]:
        """Claim up to `count` of the job's items no replica has claimed yet, in the order they run; `bounded`:
        while fewer than `batch.per_job` of its items are claimed, by every replica together."""
        ...

    async def reclaim(self, job: Job, count: int) -> list[Claim]:
        """Claim up to `count` of the job's items whose claims lapsed (their replica stopped renewing them)."""
        ...

    async def renew(self, job: str, claims: list[Claim]) -> list[Claim]:
        """Renew this replica's claims on one job's items; those already lost to another replica."""
        ...

    async def commit(self, claim: Claim, kind: str, line: dict[str, Any]) -> bool:
        """Append the item's line to the job's `kind` file (`output`, `errors`) and end its claim, if the claim
        is still held; False, and nothing written, if it is not."""
        ...

    async def drop(self, claim: Claim) -> None:
        """End a claim without a line (its job was cancelled)."""
        ...

    async def warm(self, job: Job, group: str) -> bool:
        """Whether the first item of `group` has ended (so the rest may follow, its prefix cached)."""
        ...

    async def finish(self, job: Job, status: str) -> Job | None:
        """End a job whose items have all ended: its files published, its status `status`. None if another
        replica is ending it."""
        ...
