"""Host and Origin checks against DNS rebinding, for the MCP gateway (MCP's transport spec asks servers to).

A page a browser loaded from an attacker's name can, once that name resolves
to 127.0.0.1, send requests to a local server with its own Host and Origin.
A request whose Host is not one of the gateway's names is answered 421, one
whose Origin is not an allowed origin 403, before anything is read.

Defaults: a gateway bound to a loopback address answers only to loopback
names (`localhost`, `127.0.0.1`, `[::1]`, any port) and loopback origins. One
bound elsewhere (a sidecar on a pod address or 0.0.0.0, behind a Service)
answers to any Host but to no request that carries an Origin (what browsers
send, and agents do not): operators list their names in `mcp.allowed_hosts`
and the origins of browser clients they mean to serve in
`mcp.allowed_origins`. An entry is exact, `NAME:*` for any port, or `*` for
anything.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True)
class Origins:
    hosts: tuple[str, ...] | None  # None: any Host
    origins: tuple[str, ...]  # empty: no request that carries an Origin

    @classmethod
    def build(cls, bind: str, hosts: Sequence[str] | None, origins: Sequence[str] | None) -> Origins:
        loopback = _loopback(bind)
        if hosts is None and loopback:
            hosts = [f"{h}{port}" for h in LOOPBACK_HOSTS for port in ("", ":*")]
        if origins is None:
            origins = [f"http://{h}{port}" for h in LOOPBACK_HOSTS for port in ("", ":*")] if loopback else []
        return cls(tuple(hosts) if hosts is not None else None, tuple(origins))

    def refusal(self, host: str | None, origin: str | None) -> tuple[int, str] | None:
        """(status, why) if a request with these headers must be refused; None if it may go on."""
        if self.hosts is not None and not _listed(host or "", self.hosts):
            return 421, "this gateway does not answer to that Host (DNS rebinding protection)"
        if origin and not _listed(origin, self.origins):
            return 403, "requests from that Origin are not accepted (DNS rebinding protection)"
        return None


def _loopback(bind: str) -> bool:
    if bind == "localhost":
        return True
    try:
        address = ipaddress.ip_address(bind)
    except ValueError:  # a name: only `localhost` is known to be loopback
        return False
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return (mapped or address).is_loopback


def _listed(value: str, allowed: tuple[str, ...]) -> bool:
    for entry in allowed:
        if entry == "*" or value == entry:
            return True
        port = value[len(entry) - 1 :]
        if entry.endswith(":*") and value.startswith(entry[:-1]) and port.isascii() and port.isdecimal():
            return True
    return False
