"""The batch room's one contract with the gateway: `Items` runs one item of a job as its caller would have sent it.

The gateway puts its `Items` on the app (`ITEMS`) before routes are added,
as it puts the agent room's `Caller`; without one there is no Batch API.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import web

from taskgate.plugins import Principal, Surface

SURFACES = {
    "/v1/chat/completions": Surface.CHAT,
    "/v1/completions": Surface.COMPLETIONS,
    "/v1/embeddings": Surface.EMBEDDINGS,
}
"""The endpoints a batch may target, and the surface whose plan runs each of its items."""
RESPONSES = "/v1/responses"


@dataclass(frozen=True, slots=True)
class ItemResult:
    """How one item ended: what its caller would have been answered, and what it cost."""

    status: int
    body: Any  # the answer's JSON (an OpenAI error object for a refusal)
    request_id: str  # its evidence record's id
    pool: str | None = None  # where it ran; None: it was never dispatched
    endpoint: str | None = None
    usage: Mapping[str, int] | None = None  # prompt, completion and total tokens, as the upstream reported them
    cost: float | None = None

    @property
    def waits(self) -> bool:
        """Refused only because no pool had room for it yet: tried again later, never an error line."""
        if self.status != 429 or not isinstance(self.body, dict):
            return False
        error = self.body.get("error")  # a Response carries `"error": null`
        return isinstance(error, dict) and error.get("code") in ("pool_not_idle", "pool_busy")


class Items(Protocol):
    """The gateway's side of batch work."""

    def seal(self, caller: Principal | None) -> dict[str, Any] | None:
        """The verified caller as data a job keeps (it outlives the token that proved it); None: anonymous."""
        ...

    def unseal(self, sealed: Mapping[str, Any] | None) -> Principal | None:
        """The caller a job kept, for its items; raises ValueError if it cannot be restored."""
        ...

    async def run(
        self,
        caller: Principal | None,
        surface: str,
        body: dict[str, Any],
        headers: Mapping[str, str],
        labels: Mapping[str, Any],
    ) -> ItemResult:
        """Run `surface`'s plan for `body` as `caller` (who was authenticated when the job was created) and
        dispatch it; the answer whole, never raised. `labels` go into the item's evidence record."""
        ...


ITEMS = web.AppKey("taskgate.batch.items", Items)
