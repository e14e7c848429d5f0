"""Verification keys fetched from an identity provider's JWKS URL, kept fresh without blocking the event loop.

The set is fetched with the app's aiohttp session when the app starts, and
again when it is past its time: `jwks_ttl_s`, or sooner when the answer's
`Cache-Control: max-age` says so (never sooner than `jwks_refetch_interval_s`).
A token naming a kid the set lacks (a key the provider just rotated in) has
the set fetched again, at most once per `jwks_refetch_interval_s`, so a flood
of made-up kids costs the provider one request per interval. Each fetch
replaces the whole set: new keys are picked up, removed keys dropped.

Fetches run one at a time; requests that need the set meanwhile wait for the
one in flight. A set that cannot be fetched fails closed: once the last good
set is past its time no token is verified with it (JwksUnavailable, 503 with
the reason in the evidence), and after a failed fetch the next waits
RETRY_S, so a provider that is down is not hammered either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass
from typing import Any

import aiohttp
import jwt
import structlog

from taskgate.errors import TaskgateError

log = structlog.get_logger("taskgate.authz")
MAX_BYTES = 1 << 20
RETRY_S = 2.0
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d+)\"?\s*(?:,|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Key:
    """A verification key of a JWKS: its kid, algorithm, the key PyJWT verifies with, and its JWK (to compare)."""

    kid: str | None
    algorithm: str
    key: Any
    jwk: str  # canonical JSON of the member


class JwksError(TaskgateError):
    """A key set that could not be fetched or read; the message says why, for the evidence."""


def usable_keys(document: Any, algorithms: Collection[str], secrets: bool) -> list[Key]:
    """The signing keys of a JWKS document for the allowed algorithms; `secrets`: whether `oct` keys count."""
    items = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise JwksError("not a JWKS document (no `keys` list)")
    found: list[Key] = []
    for item in items:
        if not isinstance(item, dict) or item.get("use", "sig") != "sig" or (item.get("kty") == "oct" and not secrets):
            continue
        try:
            key = jwt.PyJWK(item)
        except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
            continue  # a key of a kind PyJWT cannot use, or broken: other keys of the set may still serve
        if key.algorithm_name in algorithms:
            found.append(Key(key.key_id, key.algorithm_name, key.key, json.dumps(item, sort_keys=True)))
    return found


@dataclass(frozen=True, slots=True)
class KeySet:
    keys: tuple[Key, ...]
    kids: frozenset[str]
    expires: float  # time.monotonic()
    generation: int  # changes when the keys change, so identities verified with the old ones are checked again


class JwksUnavailable(TaskgateError):
    """No key set within its time could be had; nothing is verified against a stale one."""


class RemoteJwks:
    """The key set at one URL: `fresh()` before trusting anything it verified, `keys()` for a token's header."""

    def __init__(
        self,
        url: str,
        algorithms: Collection[str],
        ttl_s: float,
        refetch_interval_s: float,
        timeout_s: float,
        session: Callable[[], aiohttp.ClientSession],
    ):
        self.url, self._algorithms, self._session = url, frozenset(algorithms), session
        self._ttl, self._interval, self._timeout = ttl_s, refetch_interval_s, timeout_s
        self._set: KeySet | None = None
        self._lock = asyncio.Lock()
        self._next_try = 0.0  # after a failed fetch, none before this
        self._next_refetch = 0.0  # the next refetch for an unknown kid, not before this
        self.failure: str | None = None  # why the last fetch failed; None once one succeeds

    async def fresh(self) -> int:
        """The generation of a set within its time, fetched if need be; JwksUnavailable if there is none."""
        found = self._set
        if found is None or time.monotonic() >= found.expires:
            await self._refresh(lambda s: s is not None and time.monotonic() < s.expires)
            found = self._set
        if found is None or time.monotonic() >= found.expires:
            raise JwksUnavailable(self.failure or "the key set has not been fetched")
        return found.generation

    async def keys(self, kid: str | None, algorithm: str) -> tuple[list[Any], int]:
        """The keys that may verify a token with this header, and the set's generation.

        A kid the set does not know has it fetched again (rate-limited); a
        refetch that fails is JwksUnavailable, since the key may well exist.
        """
        generation = await self.fresh()
        if kid is not None and self._set is not None and kid not in self._set.kids:
            await self._refetch_for(kid)
            generation = await self.fresh()
        current = self._set.keys if self._set is not None else ()
        found = [k.key for k in current if k.algorithm == algorithm and (kid is None or k.kid == kid)]
        return found, generation

    async def _refetch_for(self, kid: str) -> None:
        """Fetch the set again for a kid it lacks: at most once per interval; a fetch in flight is waited for."""
        if self._lock.locked():
            async with self._lock:
                return
        if time.monotonic() < self._next_refetch:
            return
        self._next_refetch = time.monotonic() + self._interval
        if not await self._refresh(lambda s: s is not None and kid in s.kids, force=True):
            raise JwksUnavailable(self.failure or "the key set could not be fetched again")

    async def _refresh(self, done: Callable[[KeySet | None], bool], force: bool = False) -> bool:
        """Fetch unless `done` already holds once the fetch in flight has ended; whether a fetch succeeded."""
        async with self._lock:
            if done(self._set):
                return True
            if time.monotonic() < self._next_try and not force:
                return False
            try:
                self._install(*await self._fetch())
            except JwksError as exc:
                self.failure = f"{self.url}: {exc}"
                self._next_try = time.monotonic() + RETRY_S
                log.warning("jwks_fetch_failed", url=self.url, reason=str(exc))
                return False
            return True

    def _install(self, keys: list[Key], max_age: float | None) -> None:
        ttl = self._ttl if max_age is None else min(self._ttl, max(self._interval, max_age))
        old = self._set
        same = old is not None and {k.jwk for k in old.keys} == {k.jwk for k in keys}
        generation = 1 if old is None else old.generation if same else old.generation + 1
        kids = frozenset(k.kid for k in keys if k.kid is not None)
        self._set = KeySet(tuple(keys), kids, time.monotonic() + ttl, generation)
        self.failure = None
        if not same:
            log.info("jwks_keys", url=self.url, kids=sorted(kids), generation=generation)

    async def _fetch(self) -> tuple[list[Key], float | None]:
        status, body, cache = await self._get()
        if status != 200:
            raise JwksError(f"HTTP {status}")
        try:
            document = json.loads(body)
        except ValueError:
            raise JwksError("the answer is not JSON") from None
        keys = usable_keys(document, self._algorithms, secrets=False)
        if not keys:
            raise JwksError(f"no usable signing key for {sorted(self._algorithms)}")
        return keys, _max_age(cache)

    async def _get(self) -> tuple[int, bytes, str]:
        """Status, body (at most MAX_BYTES) and Cache-Control of one GET; JwksError if it cannot be had."""
        try:
            session = self._session()
        except TaskgateError as exc:  # no HTTP session: the app is not running (`taskgate explain`)
            raise JwksError(str(exc)) from None
        headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
        timeout, body = aiohttp.ClientTimeout(total=self._timeout), bytearray()
        try:
            async with session.get(self.url, timeout=timeout, headers=headers, allow_redirects=False) as resp:
                async for chunk in resp.content.iter_chunked(1 << 16):
                    body += chunk
                    if len(body) > MAX_BYTES:
                        raise JwksError(f"the key set is larger than {MAX_BYTES} bytes")
                return resp.status, bytes(body), resp.headers.get("Cache-Control", "")
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise JwksError(f"{type(exc).__name__}: {exc}"[:200]) from None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Fetch the set as the app starts (a failure is logged, and the first token that needs it tries again)."""
        await self._refresh(lambda s: s is not None)
        yield


def _max_age(cache_control: str) -> float | None:
    """What `Cache-Control` allows: `no-store`/`no-cache` as 0, else `max-age`; None when it says neither."""
    lowered = cache_control.lower()
    if "no-store" in lowered or "no-cache" in lowered:
        return 0.0
    found = _MAX_AGE.search(cache_control)
    return float(found.group(1)) if found else None
