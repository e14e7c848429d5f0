"""The `ui` section: the dashboard at /ui."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from taskgate.plugins import Params
from taskgate.plugins.redis import RedisUrl

SECTION = "ui"


class FleetConfig(Params):
    """`ui.fleet`: where every replica's evidence meets, for a dashboard of the whole fleet."""

    store: Literal["memory", "redis"] = "memory"  # memory: the page shows the replica that answers it
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key: str = Field(default="taskgate:evidence", min_length=1)
    max_records: int = Field(default=10_000, ge=100, le=1_000_000)  # the stream keeps about this many
    replica: str | None = Field(default=None, min_length=1, max_length=128)  # this replica's name; default host:port


class UiConfig(Params):
    """The dashboard at /ui (docs/dashboard.md): its page is static, its data only for callers with `role`."""

    enabled: bool = True
    role: str = Field(default="admin", min_length=1)  # the role (the token's roles claim) that may read its data
    # serve its data to anyone when no plan authenticates callers: only on a network where everyone may see it
    allow_anonymous: bool = False
    poll_interval_s: float = Field(default=2.0, ge=0.5, le=60)  # how often the page asks, and endpoints are sampled
    history_minutes: float = Field(default=10.0, gt=0, le=120)  # the endpoints' samples kept
    records: int = Field(default=200, ge=1, le=1000)  # the most recent records a page that opens is sent
    batches: int = Field(default=50, ge=1, le=500)  # the newest batch jobs every poll is sent (whole: they change)
    fleet: FleetConfig = Field(default_factory=FleetConfig)  # every replica's requests on one page (docs/dashboard.md)
