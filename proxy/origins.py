"""Host and Origin checks against DNS rebinding, for the MCP gateway (MCP's transport spec asks servers to).

A page a browser loaded from an attacker's name can, once that name resolves
to 127.0.0.1, send requests to a local server with its own Host and Origin.
A request whose Host is not one of the gateway's names is answered 421, one
whose Origin is not an allowed origin 403, before anything is read.

Defaults: a gateway bound to a loopback address answers only to loopback
names (`localhost`, `127.0.0.1`, `[::1]`, any port) and loopback origins. One
bound elsewhere (a sidecar on a pod address, behind a Service) answers to any
Host, and to an Origin only of the same host it was asked as; operators list
their names in `mcp.allowed_hosts` and `mcp.allowed_origins` to narrow or
widen that. An entry is exact, `NAME:*` for any port, or `*` for anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK_BINDS = frozenset({"127.0.0.1", "localhost", "::1"})
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True)
class Origins:
    hosts: tuple[str, ...] | None  # None: any Host
    origins: tuple[str, ...] | None  # None: an Origin only of the host asked for

    @classmethod
    def build(cls, bind: str, hosts: Sequence[str] | None, origins: Sequence[str] | None) -> Origins:
        loopback = bind in LOOPBACK_BINDS
        if hosts is None and loopback:
            hosts = [f"{h}{port}" for h in LOOPBACK_HOSTS for port in ("", ":*")]
        if origins is None and loopback:
            origins = [f"http://{h}{port}" for h in LOOPBACK_HOSTS for port in ("", ":*")]
        return cls(tuple(hosts) if hosts is not None else None, tuple(origins) if origins is not None else None)

    def refusal(self, host: str | None, origin: str | None) -> tuple[int, str] | None:
        """(status, why) if a request with these headers must be refused; None if it may go on."""
        if self.hosts is not None and not _listed(host or "", self.hosts):
            return 421, "this gateway does not answer to that Host (DNS rebinding protection)"
        if origin and not self._origin_ok(origin, host or ""):
            return 403, "requests from that Origin are not accepted (DNS rebinding protection)"
        return None

    def _origin_ok(self, origin: str, host: str) -> bool:
        if self.origins is not None:
            return _listed(origin, self.origins)
        return urlsplit(origin).netloc == host  # same origin as asked


def _listed(value: str, allowed: tuple[str, ...]) -> bool:
    for entry in allowed:
        if entry == "*" or value == entry:
            return True
        if entry.endswith(":*") and value.startswith(entry[:-1]) and value[len(entry) - 1 :].isdigit():
            return True
    return False
