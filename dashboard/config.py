"""The `ui` section: the dashboard at /ui."""

from __future__ import annotations

from pydantic import Field

from taskgate.plugins import Params

SECTION = "ui"


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
