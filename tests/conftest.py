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

from taskgate.plugins import Registry
from taskgate.proxy.app import create_app, default_registry
from taskgate.proxy.config import parse_config
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim

ProxyFactory = Callable[..., Awaitable[TestClient[Any, Any]]]


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


def _spawn(port: int) -> subprocess.Popen[bytes]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed; `make test` installs it with apt-get")
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    port = closed_port()
    proc = _spawn(port)
    server = RedisServer(port, proc)
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline or proc.poll() is not None:
                server.stop()
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
    client.close()
    yield server
    server.stop()


@contextlib.contextmanager
def haproxy(tmp_path: Path, backends: list[int]) -> Iterator[int]:
    """A real load balancer on 127.0.0.1, round-robin per request over `backends`; yields its port."""
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.fail("haproxy is not installed; `make test` installs it with apt-get")
    port = closed_port()
    servers = "\n".join(f"    server r{i} 127.0.0.1:{p}" for i, p in enumerate(backends))
    config = tmp_path / "haproxy.cfg"
    config.write_text(
        "defaults\n    mode http\n    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\n"
        f"frontend front\n    bind 127.0.0.1:{port}\n    default_backend replicas\n"
        f"backend replicas\n    balance roundrobin\n{servers}\n"
    )
    log = tmp_path / "haproxy.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 10
        while not _listening(port):
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"haproxy did not start: {log.read_text()}")
            time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
        return True
    return False
