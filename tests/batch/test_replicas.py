"""A batch job across three `taskgate serve` replicas behind HAProxy and one Redis: the replica that took the job is
killed a third of the way through, another is paused past its lease and resumed, and every item's line is written
exactly once; at the engine, no item whose line was written ever ran again."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
import openai
import pytest
import redis.asyncio

from tests.proxy.test_replicas import Replica, ready, spawn, stop, until

from ..conftest import RedisServer, closed_port, haproxy, haproxy_states
from .conftest import engine, jsonl, line, lines_of

ITEMS = 300
LEASE_S = 1.5
PREFIX = "taskgate:batch:"


def config(port: int, engine_url: str, redis_url: str, directory: Path) -> dict[str, Any]:
    pool = {"name": "p", "endpoints": [{"name": "sim", "url": engine_url}], "models": [{"name": "m"}]}
    return {
        "server": {"host": "127.0.0.1", "port": port},
        "logging": {"level": "warning", "evidence": False},
        "routing": {"pools": [pool], "state": {"scrape_interval_s": 0.2}},
        "batch": {
            "directory": str(directory), "store": "redis", "redis_url": redis_url, "lease_s": LEASE_S,
            "concurrency": 4, "per_job": 4, "poll_s": 0.05,
        },
    }  # fmt: skip


@pytest.mark.timeout(150)  # three processes start on two cores shared with the rest of the suite
async def test_a_job_survives_a_killed_and_a_paused_replica_with_every_line_written_exactly_once(
    redis_server: RedisServer, aiohttp_server: Any, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.04, default_max_tokens=6)  # about 0.25 s an item
    shared = tmp_path / "batches"  # the directory every replica reaches
    started: list[Replica] = []
    store = redis.asyncio.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        for index in range(3):
            port = closed_port()
            started.append(spawn(f"r{index}", port, config(port, sim.url, redis_server.url, shared), tmp_path))
        await asyncio.gather(*(ready(r) for r in started))
        with haproxy(tmp_path, [r.port for r in started], health="/readyz") as port:
            await until(lambda: _all_up(tmp_path), 10, "haproxy sees every replica up")
            async with openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=2) as api:
                data = jsonl(*(line(f"item-{i:03d}", f"item-{i:03d} text") for i in range(ITEMS)))
                uploaded = await api.files.create(file=("in.jsonl", data), purpose="batch")
                made = await api.batches.with_raw_response.create(
                    input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
                )
                batch = made.parse()
                creator = next(r for r in started if r.name == made.headers["x-served-by"])
                survivors = [r for r in started if r is not creator]

                async def written() -> int:
                    return int(await store.llen(f"{PREFIX}output:{batch.id}"))

                await until(lambda: _at_least(written, ITEMS // 3), 60, "a third of the lines are written")
                os.kill(creator.proc.pid, signal.SIGKILL)

                paused = survivors[0]
                await until(lambda: _holds(store, batch.id, paused), 30, "the replica to pause has items claimed")
                os.kill(paused.proc.pid, signal.SIGSTOP)
                paused_at = time.monotonic()
                try:  # another replica takes over every claim it held once the lease lapsed
                    await until(lambda: _taken_from(store, batch.id, paused), 30, "the paused replica's claims")
                    # not before the lease lapsed: it runs from the replica's last renewal, which came up to one
                    # renewal period (a third of the lease) before the pause
                    assert time.monotonic() - paused_at >= LEASE_S - LEASE_S / 3
                finally:
                    os.kill(paused.proc.pid, signal.SIGCONT)
                refused = await until(lambda: _refused(paused), 20, "the resumed replica has its lines refused")
                done = await _ended(api, batch.id)
                output = await lines_of(api, done.output_file_id)
    finally:
        await store.aclose()
        stop(started)
    assert done.status == "completed"
    assert done.request_counts is not None
    assert (done.request_counts.completed, done.request_counts.failed) == (ITEMS, 0)
    assert done.error_file_id is None
    counted = Counter(entry["custom_id"] for entry in output)
    assert counted == Counter(f"item-{i:03d}" for i in range(ITEMS))  # every item exactly once, none torn
    assert refused >= 1

    # at the engine: each item's written answer is its last run; none ran again once its line was written
    runs: dict[str, list[Any]] = {}
    for seen in sim.seen:
        runs.setdefault(seen.body["messages"][0]["content"].split()[0], []).append(seen)
    for entry in output:
        answered = entry["response"]["body"]["id"]
        mine = runs[entry["custom_id"]]
        [kept] = [run for run in mine if run.answer == answered]
        assert all(run.came < (kept.went or 0) for run in mine), f"{entry['custom_id']} ran after its line"
    again = [custom_id for custom_id, mine in runs.items() if len(mine) > 1]
    assert len(again) <= 2 * 4  # only what the killed and the paused replicas had claimed ran twice
    log = "".join(r.log.read_text(errors="replace") for r in started)
    assert "Traceback" not in log


async def _all_up(tmp_path: Path) -> bool:
    return set(haproxy_states(tmp_path).values()) == {"UP"}


async def _at_least(count: Any, wanted: int) -> bool:
    return bool(await count() >= wanted)


def _consumer_of(replica: Replica) -> str:
    return f"{socket.gethostname()}-{replica.proc.pid}-"


async def _pending(store: Any, batch_id: str, replica: Replica) -> int:
    consumers = await store.xinfo_consumers(f"{PREFIX}items:{batch_id}", "run")
    return sum(int(c["pending"]) for c in consumers if str(c["name"]).startswith(_consumer_of(replica)))


async def _holds(store: Any, batch_id: str, replica: Replica) -> bool:
    return await _pending(store, batch_id, replica) > 0


async def _taken_from(store: Any, batch_id: str, replica: Replica) -> bool:
    return await _pending(store, batch_id, replica) == 0


async def _refused(replica: Replica) -> int:
    """Claims the replica lost (its lines refused, or its renewals), from its own /metrics."""
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http,
        http.get(f"http://127.0.0.1:{replica.port}/metrics") as resp,
    ):
        text = await resp.text()
    found = [ln.split()[-1] for ln in text.splitlines() if ln.startswith("taskgate_batch_claims_lost_total")]
    return int(float(found[0])) if found else 0


async def _ended(api: openai.AsyncOpenAI, batch_id: str) -> Any:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        batch = await api.batches.retrieve(batch_id)
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return batch
        await asyncio.sleep(0.2)
    pytest.fail(f"the job did not end: {batch}")
