"""Real parts for routing tests: a Redis server on 127.0.0.1 and simulated engines."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from taskgate.proxy.state import GATEWAY
from taskgate.routing import ClusterState

from ..conftest import Engine, StartEngines, closed_port

__all__ = ["Engine", "StartEngines"]


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


def pool(name: str, engines: list[Engine], **extra: Any) -> dict[str, Any]:
    endpoints = [{"name": n, "url": url} for n, url, _ in engines]
    return {"name": name, "endpoints": endpoints, "models": [{"name": "m"}], **extra}


def routing(*pools: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"routing": {"pools": list(pools), **extra}, "logging": {"evidence": False}}


def cluster_of(client: Any) -> ClusterState:
    state: ClusterState = client.app[GATEWAY].services._shared["routing.cluster"]
    return state


def record_of(client: Any, resp: Any) -> dict[str, Any]:
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    return dict(record)


def chat(system: str, *turns: str) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}]
    for i, text in enumerate(turns):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    return {"model": "m", "messages": messages, "max_tokens": 4}
