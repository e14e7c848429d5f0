"""One way to reach Redis for every room: a plain URL, or a service whose primary Redis Sentinel names.

    from taskgate.plugins.redis import RedisUrl, connect

    class MyConfig(Params):
        redis_url: RedisUrl = "redis://127.0.0.1:6379/0"   # checked when the config loads

    client = connect(config.redis_url)                      # a redis.asyncio.Redis; close it with aclose()

The URL forms:

    redis://[[user]:password@]host[:port][/db]    redis-py's own forms (also rediss://, unix://)
    redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/service[/db]

In the sentinel form the hosts are the sentinels (port 26379 by default),
`service` the name they monitor, and the credentials and `db` those of the
primary. The client asks the sentinels for the primary when it opens a
connection, so after a failover its next connection reaches the new primary;
until the sentinels promote one, commands fail with a `redis.ConnectionError`
(`MasterNotFoundError` or a refused connection), which every store renders
as its own "unavailable" (a task store: fail closed). Sentinels are reached
without credentials.

`connect(url, *, timeout_s=0.5, decode_responses=False, retries=1)` is the
contract: `timeout_s` bounds connecting and each reply (None: no read
timeout, for a subscriber that waits on a channel); `retries` re-sends a
command on a broken connection (a pooled one a restart or failover closed),
never after a timeout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import unquote

import redis.asyncio as aioredis
from pydantic import AfterValidator
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError

__all__ = ["SENTINEL_PORT", "SENTINEL_SCHEME", "RedisUrl", "SentinelUrl", "check_url", "connect", "redacted"]
SENTINEL_SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379
FORMS = "redis://HOST[:PORT][/DB] or redis+sentinel://HOST[:PORT][,HOST[:PORT]...]/SERVICE[/DB]"


@dataclass(frozen=True)
class SentinelUrl:
    """A `redis+sentinel://` URL, parsed: the sentinels, the service they monitor, the primary's db and login."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None


def check_url(url: str) -> str:
    """`url` if it is one of the forms `connect` takes; else ValueError saying what is wrong and what is right."""
    if url.startswith(SENTINEL_SCHEME + "://"):
        parse_sentinel(url)
        return url
    try:
        parse_url(url)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{redacted(url)!r} is not a Redis URL ({exc}); use {FORMS}") from None
    return url


RedisUrl = Annotated[str, AfterValidator(check_url)]
"""A config field holding a Redis URL, checked when the config loads."""


def parse_sentinel(url: str) -> SentinelUrl:
    """The parts of a `redis+sentinel://` URL; ValueError naming the part that is wrong."""
    rest = url[len(SENTINEL_SCHEME) + 3 :]
    if "?" in rest or "#" in rest:
        raise ValueError(f"{redacted(url)!r}: a sentinel URL takes no query or fragment ({FORMS})")
    netloc, _, path = rest.partition("/")
    login, _, hosts = netloc.rpartition("@")
    username, _, password = login.partition(":")
    if not hosts:
        raise ValueError(f"{redacted(url)!r}: name at least one sentinel host ({FORMS})")
    sentinels = tuple(_host(url, part) for part in hosts.split(","))
    service, _, db = path.partition("/")
    if not service:
        raise ValueError(f"{redacted(url)!r}: name the service the sentinels monitor after the hosts ({FORMS})")
    if db and not db.isdigit():
        raise ValueError(f"{redacted(url)!r}: the database after the service is a number, not {db!r} ({FORMS})")
    return SentinelUrl(
        sentinels, unquote(service), int(db or 0), unquote(username) or None, unquote(password) if password else None
    )


def _host(url: str, part: str) -> tuple[str, int]:
    if part.startswith("["):  # [IPv6]:port
        host, _, port = part[1:].partition("]")
        port = port.removeprefix(":")
    else:
        host, _, port = part.partition(":")
    if not host or (port and not port.isdigit()) or not 0 < int(port or SENTINEL_PORT) < 65536:
        raise ValueError(f"{redacted(url)!r}: {part!r} is not HOST[:PORT] ({FORMS})")
    return host, int(port or SENTINEL_PORT)


def connect(url: str, *, timeout_s: float | None = 0.5, decode_responses: bool = False, retries: int = 1) -> Any:
    """A client of the Redis `url` names (either form); nothing is sent until its first command."""
    retry = Retry(NoBackoff(), retries, (ConnectionError,))
    options: dict[str, Any] = {
        "socket_timeout": timeout_s, "socket_connect_timeout": timeout_s if timeout_s is not None else 2.0,
        "decode_responses": decode_responses, "retry": retry,
    }  # fmt: skip
    if not url.startswith(SENTINEL_SCHEME + "://"):
        return aioredis.from_url(check_url(url), **options)
    parsed = parse_sentinel(url)
    asking = options["socket_connect_timeout"]  # a sentinel answers at once, or is away
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        list(parsed.sentinels), sentinel_kwargs={"socket_timeout": asking, "socket_connect_timeout": asking}
    )
    login: dict[str, Any] = {"username": parsed.username, "password": parsed.password, "db": parsed.db}
    return sentinel.master_for(parsed.service, redis_class=_SentinelManaged, **options, **login)


class _SentinelManaged(aioredis.Redis):
    """The primary's client; closing it also closes its connections to the sentinels."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        manager = getattr(self.connection_pool, "sentinel_manager", None)
        await super().aclose(close_connection_pool)
        if manager is not None:
            await manager.aclose()


def redacted(url: str) -> str:
    """`url` without its password, for logs and errors."""
    scheme, sep, rest = url.partition("://")
    login, at, where = rest.rpartition("@")
    if not sep or not at or ":" not in login:
        return url
    return f"{scheme}://{login.partition(':')[0]}:***@{where}"
