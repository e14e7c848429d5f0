"""Replicas of taskgate behind a load balancer: a Redis they share, N `taskgate serve` processes, HAProxy.

    with Fleet(configs, logs, "batch") as base:   # configs: one taskgate config per replica, ports filled in
        ...                                          # base: HAProxy's URL, round robin over the replicas

Each replica's config names its own port and the Redis this starts
(`REDIS` in any string is replaced by its URL). HAProxy checks `/readyz`
every 500 ms and balances round robin per request, as the replica tests do.
Redis and HAProxy are the Debian packages `make test-deps` installs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cluster import env_offline, stop_process
from targets import free_port, wait_ready

REDIS = "REDIS"


class Fleet:
    """Starts Redis, the replicas and HAProxy; stops them all (in reverse) on exit."""

    def __init__(self, configs: list[dict[str, Any]], logs: Path, label: str):
        self.configs, self.logs, self.label = configs, logs, label
        self.procs: list[subprocess.Popen[bytes]] = []
        self.ports: list[int] = []
        self.redis_url = ""

    def __enter__(self) -> str:
        try:
            return self._start()
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self.procs):
            stop_process(proc)
        self.procs.clear()

    def _start(self) -> str:
        self.redis_url = self._redis()
        import yaml

        for index, config in enumerate(self.configs):
            port = free_port()
            settings = _filled(config, self.redis_url)
            settings["server"] = {**settings.get("server", {}), "host": "127.0.0.1", "port": port}
            path = self.logs / f"{self.label}-taskgate-{index}.yaml"
            path.write_text(yaml.safe_dump(settings, sort_keys=False))
            self.procs.append(
                self._spawn([sys.executable, "-m", "taskgate", "serve", "-c", str(path)], f"taskgate-{index}")
            )
            self.ports.append(port)
        for port, proc in zip(self.ports, self.procs[1:], strict=True):
            wait_ready(f"http://127.0.0.1:{port}/readyz", 60.0, proc)
        if len(self.ports) == 1:
            return f"http://127.0.0.1:{self.ports[0]}"
        return self._balancer()

    def _redis(self) -> str:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (make test-deps installs it)")
        port = free_port()
        argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.procs.append(self._spawn(argv, "redis"))
        deadline = time.monotonic() + 10
        while subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout.strip() != b"PONG":
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        return f"redis://127.0.0.1:{port}/0"

    def _balancer(self) -> str:
        binary = shutil.which("haproxy")
        if binary is None:
            raise RuntimeError("haproxy is not installed (make test-deps installs it)")
        port = free_port()
        servers = "\n".join(f"    server r{i} 127.0.0.1:{p} check inter 500ms" for i, p in enumerate(self.ports))
        config = self.logs / f"{self.label}-haproxy.cfg"
        config.write_text(
            "defaults\n    mode http\n    option http-no-delay\n    timeout connect 2s\n"
            "    timeout client 900s\n    timeout server 900s\n"
            f"frontend front\n    bind 127.0.0.1:{port}\n    default_backend replicas\n"
            "backend replicas\n    balance roundrobin\n    option httpchk GET /readyz\n"
            f"    http-check expect status 200\n{servers}\n"
        )
        self.procs.append(self._spawn([binary, "-db", "-f", str(config)], "haproxy"))
        wait_ready(f"http://127.0.0.1:{port}/readyz", 20.0, self.procs[-1])
        return f"http://127.0.0.1:{port}"

    def _spawn(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        log = (self.logs / f"{self.label}-{name}.log").open("ab")
        return subprocess.Popen(
            argv, env=env_offline(), stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
        )


def _filled(value: Any, redis_url: str) -> Any:
    """`value` with REDIS replaced by the URL of the Redis this fleet runs."""
    if isinstance(value, str):
        return value.replace(REDIS, redis_url)
    if isinstance(value, dict):
        return {key: _filled(item, redis_url) for key, item in value.items()}
    if isinstance(value, list):
        return [_filled(item, redis_url) for item in value]
    return value
