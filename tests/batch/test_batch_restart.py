"""A real `taskgate serve` killed in the middle of a job, then started again on the same directory."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import openai
import yaml

from ..conftest import closed_port
from .conftest import engine, jsonl, line, lines_of, until, until_ended

ITEMS = 24


async def ready(url: str, proc: subprocess.Popen[str], seconds: float = 30.0) -> None:
    """Polled without blocking the loop: the engine these processes call runs on it."""
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            assert proc.poll() is None, "taskgate exited early"
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"{url} never became ready")


async def settled(count: Any, quiet_s: float = 0.5, seconds: float = 10.0) -> None:
    """Until `count()` has not changed for `quiet_s`."""
    deadline = time.monotonic() + seconds
    last, since = count(), time.monotonic()
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        if (now := count()) != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return
    raise AssertionError("the engine kept answering")


def serve(config: Path, port: int, log: Path) -> subprocess.Popen[str]:
    """`taskgate serve`, its log lines to a file (a pipe nobody reads could fill and stall it)."""
    argv = [sys.executable, "-m", "taskgate", "serve", "-c", str(config), "--port", str(port)]
    with log.open("a") as stderr:
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr, text=True)


def written(directory: Path, batch_id: str) -> list[dict[str, Any]]:
    """The output lines the job has written so far (its record names its output file)."""
    record = json.loads((directory / "batches" / f"{batch_id}.json").read_text())
    path = directory / "files" / f"{record['taskgate']['output']}.jsonl"
    raw = path.read_bytes() if path.exists() else b""
    return [json.loads(x) for x in raw.splitlines() if x.endswith(b"}")]


async def test_a_job_survives_a_killed_process_with_no_item_lost_and_none_run_twice(
    aiohttp_server: Any, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.02, default_max_tokens=6)
    directory = tmp_path / "batches"
    pool = {"name": "p", "endpoints": [{"name": "sim", "url": sim.url}], "models": [{"name": "m"}]}
    config = tmp_path / "taskgate.yaml"
    settings = {
        "routing": {"pools": [pool], "state": {"scrape_interval_s": 0.1}},
        "batch": {"directory": str(directory), "concurrency": 2, "per_job": 2},
        "logging": {"evidence": False},
    }
    config.write_text(yaml.safe_dump(settings))
    port = closed_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "taskgate.log"
    first = serve(config, port, log)
    try:
        await ready(f"{base}/readyz", first)
        async with openai.AsyncOpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0) as api:
            data = jsonl(*(line(f"item-{i}", f"item-{i} text") for i in range(ITEMS)))
            uploaded = await api.files.create(file=("in.jsonl", data), purpose="batch")
            batch = await api.batches.create(
                input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
            )
            await until(lambda: len(written(directory, batch.id)) >= ITEMS // 3)
    finally:
        first.send_signal(signal.SIGKILL)  # no shutdown: what was in flight is simply cut off
        first.wait(10)
    before = {entry["custom_id"] for entry in written(directory, batch.id)}
    # what the killed process sent just before it died is read by the engine (on this loop, blocked in wait()
    # above) only once the loop runs again: it belongs before the restart, not after
    await settled(lambda: len(sim.seen))
    seen_before = len(sim.seen)
    assert ITEMS // 3 <= len(before) < ITEMS

    second = serve(config, port, log)
    try:
        await ready(f"{base}/readyz", second)
        async with openai.AsyncOpenAI(base_url=f"{base}/v1", api_key="x", max_retries=0) as api:
            done = await until_ended(api, batch.id, seconds=60)
            output = await lines_of(api, done.output_file_id)
    finally:
        second.terminate()
        second.wait(15)
    assert "Traceback" not in log.read_text()
    assert done.status == "completed"
    assert done.request_counts is not None
    assert done.request_counts.completed == ITEMS
    assert sorted(entry["custom_id"] for entry in output) == sorted(f"item-{i}" for i in range(ITEMS))  # once each
    after = sim.seen[seen_before:]
    rerun = {s.body["messages"][0]["content"].split()[0] for s in after}
    assert not rerun & before  # a finished item never ran again
    assert len(after) == ITEMS - len(before)  # the rest ran once each after the restart (those cut off again)
    cut_off = seen_before - len(before)
    assert 0 <= cut_off <= 2  # at most `concurrency` were in flight when the process died
