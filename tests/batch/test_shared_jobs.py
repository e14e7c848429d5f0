"""Jobs in Redis (`batch.store: redis`): two gateways on one Redis and one directory run one job's items between
them, each line written once; a cancel through either stops both; a claim whose lease lapsed writes nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import openai

from taskgate.batch.config import BatchConfig
from taskgate.batch.files import Files
from taskgate.batch.jobs import result_line
from taskgate.batch.streams import StreamLedger
from taskgate.batch.types import ItemResult

from ..conftest import ProxyFactory, RedisServer
from .conftest import engine, jsonl, line, lines_of, records, until, until_ended


def shared_config(url: str, directory: Path, redis_url: str, **batch: Any) -> dict[str, Any]:
    pool = {"name": "p", "endpoints": [{"name": "sim", "url": url}], "models": [{"name": "m"}]}
    store = {"store": "redis", "redis_url": redis_url, "lease_s": 1.0}
    return {
        "routing": {"pools": [pool], "state": {"scrape_interval_s": 0.1}},
        "batch": {"directory": str(directory), **store, **batch},
        "logging": {"evidence": False},
    }


def sdk(client: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0, timeout=30)


async def test_two_replicas_share_one_job_and_every_line_is_written_once(
    redis_server: RedisServer, aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.05, default_max_tokens=4)  # 0.2 s an item
    config = shared_config(sim.url, tmp_path / "shared", redis_server.url, concurrency=2, per_job=4)
    first, second = await proxy(config), await proxy(config)
    items = 24
    async with sdk(first) as made_here, sdk(second) as seen_there:
        data = jsonl(*(line(f"item-{i}", f"item-{i} text") for i in range(items)))
        uploaded = await made_here.files.create(file=("in.jsonl", data), purpose="batch")
        batch = await made_here.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        listed = await seen_there.batches.list()
        assert [job.id for job in listed.data] == [batch.id]  # the other replica knows the job at once
        done = await until_ended(seen_there, batch.id)
        output = await lines_of(seen_there, done.output_file_id)
    assert done.status == "completed"
    assert done.request_counts is not None
    assert done.request_counts.completed == items
    assert Counter(entry["custom_id"] for entry in output) == Counter(f"item-{i}" for i in range(items))
    ran = [[r for r in records(client) if (r.get("batch") or {}).get("custom_id")] for client in (first, second)]
    assert all(ran), "both replicas ran items"
    assert sum(len(mine) for mine in ran) == items  # and none ran twice
    assert len(sim.seen) == items


async def test_a_cancel_through_one_replica_stops_the_items_of_both(
    redis_server: RedisServer, aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.05, default_max_tokens=4)
    config = shared_config(sim.url, tmp_path / "shared", redis_server.url, concurrency=1, per_job=1)
    first, second = await proxy(config), await proxy(config)
    async with sdk(first) as api, sdk(second) as other:
        data = jsonl(*(line(f"item-{i}", f"item-{i} text") for i in range(40)))
        uploaded = await api.files.create(file=("in.jsonl", data), purpose="batch")
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        await until(lambda: len(sim.seen) >= 4)
        cancelling = await other.batches.cancel(batch.id)
        assert cancelling.status == "cancelling"
        done = await until_ended(api, batch.id)
        seen = len(sim.seen)
        await asyncio.sleep(0.5)
        output = await lines_of(api, done.output_file_id)
    assert done.status == "cancelled"
    assert len(sim.seen) == seen  # nothing started after the job ended
    assert seen <= 4 + 2 + 2  # at most what ran, plus what either replica had in flight when it heard
    assert len(output) == seen
    assert done.request_counts is not None
    assert done.request_counts.completed == seen


async def test_a_claim_whose_lease_lapsed_cannot_write_its_line(tmp_path: Path, redis_server: RedisServer) -> None:
    files = Files(tmp_path)
    config = BatchConfig(store="redis", redis_url=redis_server.url, lease_s=0.5)
    paused, other = StreamLedger(config, files), StreamLedger(config, files)
    file_id, path = files.new_path()
    path.write_bytes(jsonl(line("only", "the one item")))
    now = int(time.time())
    record = {
        "id": "batch_0123", "status": "validating", "endpoint": "/v1/chat/completions", "input_file_id": file_id,
        "created_at": now, "expires_at": now + 3600,
        "taskgate": {"owner": None, "class": "background", "window_s": 3600, "output": "file-aa", "errors": "file-bb"},
    }  # fmt: skip
    try:
        job = await paused.create(record, path)
        [claim] = await paused.take(job, 5)
        assert claim.token == 1
        assert await paused.take(job, 5) == []  # nobody else gets it while it is held
        assert await other.reclaim(job, 5) == []  # the lease holds
        await asyncio.sleep(0.7)  # the holder stops renewing (paused, cut off) past its lease
        [taken] = await other.reclaim(job, 5)
        assert (taken.entry, taken.token) == (claim.entry, 2)  # the same item, a new fencing token
        assert [c.entry for c in await paused.renew(job.id, [claim])] == [claim.entry]  # the holder learns it lost it
        answer = ItemResult(200, {"choices": []}, "req")
        kind, first_line = result_line(claim.item, answer)
        assert not await paused.commit(claim, kind, first_line)  # the paused replica writes nothing
        kind, second_line = result_line(taken.item, answer)
        assert await other.commit(taken, kind, second_line)
        assert await other.commit(taken, kind, second_line)  # asked again (its answer lost): written already, once
        assert not await other.commit(taken, *result_line(taken.item, answer))  # another line for it: refused
        fresh = await other.get(job.id)
        assert fresh is not None
        assert (fresh.totals.completed, fresh.queued, fresh.running) == (1, 0, 0)
        ended = await other.finish(fresh, "completed")
        assert ended is not None
        assert ended.status == "completed"
        written = [json.loads(raw) for raw in files.content("file-aa").read_text().splitlines()]
        assert [entry["id"] for entry in written] == [second_line["id"]]
    finally:
        await paused.close([])
        await other.close([])
