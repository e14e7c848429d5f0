"""Fixtures shared by every test folder: a plugin registry, a proxy factory, simulated engines, a Redis server,
a load balancer."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from aiohttp.test_utils import TestClient

from taskgate.gateway.config import parse_config
from taskgate.plugins import Registry
from taskgate.proxy.app import create_app, default_registry
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim

ProxyFactory = Callable[..., Awaitable[TestClient[Any, Any]]]

# Someone's personal data, for the tests that check it is acted on: valid values of each kind that no one
# publishes for testing. The published ones (guards/testvalues.py: 4111 1111 1111 1111, GB82 WEST ..., 555-01xx,
# addresses at example.com) are no one's by default (`allow_test_values`), so they cannot stand in for a person's.
CARD = "4539 0690 0679 2185"  # a Visa number: passes Luhn
IBAN = "GB53 BARC 9898 7310 5760 32"  # a British IBAN: 22 characters, passes mod 97
PHONE = "212-484-7316"  # a New York number that phonenumbers calls valid, outside 555-0100 to 555-0199
EMAIL = "maria.gonzalez@fastmail.com"


@pytest.fixture(scope="session")
def registry() -> Registry:
    return default_registry()


@pytest.fixture
def proxy(aiohttp_client: Any, registry: Registry) -> ProxyFactory:
    """Start a proxy from a config mapping; returns a client bound to it."""

    async def make(raw: dict[str, Any], plugins: Registry | None = None) -> TestClient[Any, Any]:
        chosen = plugins or registry
        app = create_app(parse_config(raw, "<test>", chosen), chosen)
        client: TestClient[Any, Any] = await aiohttp_client(app)
        return client

    return make


def upstreams(url: str, *models: str, name: str = "up") -> dict[str, Any]:
    """A routing section with one pool, `default`, of one endpoint serving `models`."""
    pool = {"name": "default", "endpoints": [{"name": name, "url": url}], "models": [{"name": m} for m in models]}
    return {"routing": {"pools": [pool]}}


def closed_port() -> int:
    """A local port with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


Engine = tuple[str, str, Any]  # name, base URL, the TestServer
StartEngines = Callable[..., Awaitable[list[Engine]]]


@pytest.fixture
def engines(aiohttp_server: Any) -> StartEngines:
    """Start simulated engines: names, and EngineProfile overrides (default: instant, model m)."""

    async def start(*names: str, profile: str = "instant", **overrides: Any) -> list[Engine]:
        chosen = dataclasses.replace(PROFILES[profile], **{"models": ("m",), **overrides})
        started = []
        for name in names:
            server = await aiohttp_server(create_sim(chosen, name=name))
            started.append((name, str(server.make_url("")).rstrip("/"), server))
        return started

    return start


@dataclass
class RedisServer:
    port: int
    proc: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        """Start a fresh, empty server on the same port."""
        self.stop()
        self.proc = _spawn(self.port)


def _spawn(port: int, *extra: str) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed; `make test` installs it with apt-get")
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *extra]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _started(server: RedisServer) -> RedisServer:
    """`server` once it answers PING (within 10 s, else the test fails)."""
    client = redis.Redis(port=server.port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline or server.proc.poll() is not None:
                server.stop()
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
    client.close()
    return server


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    port = closed_port()
    server = _started(RedisServer(port, _spawn(port)))
    yield server
    server.stop()


SERVICE = "taskgate"  # the name the sentinels monitor


@dataclass
class SentinelGroup:
    """A primary, one replica of it and a Sentinel watching them (quorum 1), all on 127.0.0.1."""

    primary: RedisServer
    replica: RedisServer
    sentinel: subprocess.Popen[bytes]
    sentinel_port: int

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.sentinel_port}/{SERVICE}"

    def primary_port(self) -> int:
        """The port of the primary, as the sentinel names it now."""
        with redis.Redis(port=self.sentinel_port, socket_timeout=1) as client:
            _, port = client.sentinel_get_master_addr_by_name(SERVICE)
        return int(port)

    def stop(self) -> None:
        for proc in (self.sentinel, self.primary.proc, self.replica.proc):
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)


@pytest.fixture
def sentinel_group(tmp_path: Path) -> Iterator[SentinelGroup]:
    """A Redis primary with a replica, failed over by a Sentinel within about a second of the primary dying."""
    binary = shutil.which("redis-sentinel")
    if binary is None:
        pytest.fail("redis-sentinel is not installed; `make test` installs it with apt-get")
    primary = _started(RedisServer(port := closed_port(), _spawn(port, "--dir", str(tmp_path))))
    replica_port = closed_port()
    replica = _started(
        RedisServer(replica_port, _spawn(replica_port, "--replicaof", "127.0.0.1", str(port), "--dir", str(tmp_path)))
    )  # a replica's full sync goes through an RDB file on disk: in tmp_path, not the working directory
    sentinel_port = closed_port()
    config = tmp_path / "sentinel.conf"  # the sentinel rewrites it as it learns
    config.write_text(
        f"port {sentinel_port}\nbind 127.0.0.1\ndir {tmp_path}\n"
        f"sentinel monitor {SERVICE} 127.0.0.1 {port} 1\n"
        f"sentinel down-after-milliseconds {SERVICE} 400\nsentinel failover-timeout {SERVICE} 2000\n"
    )
    with (tmp_path / "sentinel.log").open("wb") as out:
        sentinel = subprocess.Popen([binary, str(config)], stdout=out, stderr=out)
    group = SentinelGroup(primary, replica, sentinel, sentinel_port)
    try:
        _wait_watched(group)
        yield group
    finally:
        group.stop()


def _wait_watched(group: SentinelGroup) -> None:
    """Until the replica has synced and the sentinel knows it (so it can promote it)."""
    deadline = time.monotonic() + 10
    with redis.Redis(port=group.replica.port) as replica, redis.Redis(port=group.sentinel_port) as sentinel:
        while True:
            with contextlib.suppress(redis.RedisError):
                synced = replica.info("replication").get("master_link_status") == "up"
                if synced and sentinel.sentinel_slaves(SERVICE):
                    return
            if time.monotonic() > deadline or group.sentinel.poll() is not None:
                pytest.fail("the sentinel group did not come up")
            time.sleep(0.05)


@contextlib.contextmanager
def haproxy(tmp_path: Path, backends: list[int], health: str | None = None) -> Iterator[int]:
    """A real load balancer on 127.0.0.1, round-robin per request over `backends`; yields its port.

    Each answer names the replica that served it (`x-served-by: rN`, N the backend's index). With `health`
    (a path, e.g. /readyz) each backend is checked every 200 ms, taken out after two failed checks (a check
    may take 2 s: a busy replica is not a dead one) and back at its first good one; `haproxy_states(tmp_path)`
    reads what haproxy thinks of each.
    """
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.fail("haproxy is not installed; `make test` installs it with apt-get")
    port = closed_port()
    check = " check inter 200ms fall 2 rise 1" if health else ""
    servers = "\n".join(f"    server r{i} 127.0.0.1:{p}{check}" for i, p in enumerate(backends))
    probe = f"    option httpchk GET {health}\n    http-check expect status 200\n    timeout check 2s\n"
    probe = probe if health else ""
    config = tmp_path / "haproxy.cfg"
    config.write_text(
        f"global\n    stats socket {tmp_path / 'haproxy.sock'} level operator\n"
        "defaults\n    mode http\n    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\n"
        f"frontend front\n    bind 127.0.0.1:{port}\n    default_backend replicas\n"
        f"backend replicas\n    balance roundrobin\n    http-response set-header x-served-by %s\n{probe}{servers}\n"
    )
    log = tmp_path / "haproxy.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 10
        stats = tmp_path / "haproxy.sock"
        while not (_listening(port) and stats.exists()):  # the stats socket may come a moment after the port
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"haproxy did not start: {log.read_text()}")
            time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def haproxy_states(tmp_path: Path) -> dict[str, str]:
    """What the load balancer `haproxy(tmp_path, ...)` started thinks of each replica: rN -> UP, DOWN, ..."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(2.0)
        sock.connect(str(tmp_path / "haproxy.sock"))
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
    return {row[1]: row[17] for row in rows if len(row) > 17 and row[0] == "replicas" and row[1].startswith("r")}


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
        return True
    return False
