"""The `batch` section: where jobs and files live, their bounds, and how items are released."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from taskgate.plugins import Params
from taskgate.plugins.redis import RedisUrl

WINDOW = re.compile(r"(\d{1,6})([smh])")
UNIT_S = {"s": 1, "m": 60, "h": 3600}
MAX_WINDOW_S = 7 * 24 * 3600


def window_s(window: str) -> int | None:
    """`24h` as seconds; None if it is not a number and a unit (s, m, h) within a week."""
    found = WINDOW.fullmatch(window)
    if found is None:
        return None
    seconds = int(found.group(1)) * UNIT_S[found.group(2)]
    return seconds if 0 < seconds <= MAX_WINDOW_S else None


class BatchConfig(Params):
    """The Batch API: `/v1/files` and `/v1/batches`, run in the pools' idle capacity (docs/batch.md)."""

    enabled: bool = True
    directory: str = "taskgate-batches"  # files and jobs, one directory each (relative: to the working directory)
    max_file_bytes: int = Field(default=200 * 1024 * 1024, gt=0)  # an uploaded file, as OpenAI allows
    max_items: int = Field(default=50_000, ge=1, le=1_000_000)  # lines in a batch's input file
    max_jobs_per_caller: int = Field(default=16, ge=1)  # jobs not yet ended, per caller
    concurrency: int = Field(default=8, ge=1, le=1024)  # items in flight at once, every job together (per replica)
    per_job: int = Field(default=4, ge=1, le=1024)  # of one job at most (with store: redis, across every replica)
    poll_s: float = Field(default=0.1, gt=0, le=10)  # how soon an item waiting for idle capacity looks again
    windows: list[str] = Field(default_factory=lambda: ["24h"], min_length=1)  # completion windows clients may ask
    # the aging rule: past `due_after` of its window, a job whose pace would not finish in time has its items
    # placed as `batch` work that queues for a slot instead of waiting for idle capacity; past `due_always`, all do
    due_after: float = Field(default=0.5, gt=0, le=1)
    due_always: float = Field(default=0.9, gt=0, le=1)
    keep_s: float = Field(default=7 * 24 * 3600, gt=0)  # ended jobs and their files are removed this long after
    # memory: jobs run on the replica that holds `directory`; redis: every replica runs every job (job state, the
    # items' queue and claims in Redis, files in `directory`, which every replica must reach: docs/batch.md)
    store: Literal["memory", "redis"] = "memory"
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = Field(default="taskgate:batch:", min_length=1)
    lease_s: float = Field(default=15.0, ge=0.5, le=600)  # a claim on an item lasts this long unless renewed

    @field_validator("windows")
    @classmethod
    def _windows(cls, windows: list[str]) -> list[str]:
        bad = [w for w in windows if window_s(w) is None]
        if bad:
            raise ValueError(f"completion windows are a number and a unit (s, m, h) up to 168h, not {bad}")
        return windows
