"""A batch's items that share a long prefix: the first runs alone, so the engine computes the prefix once."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import openai

from tests.conftest import ProxyFactory, StartEngines

DOCUMENT = " ".join(f"word{i % 97}" for i in range(1_500))  # far longer than one prefix block


def item(custom_id: str, question: str) -> str:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Answer from the report."},
            {"role": "user", "content": DOCUMENT},
            {"role": "user", "content": question},
        ],
        "max_tokens": 4,
    }
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body})


async def test_a_group_waits_for_its_first_item_so_the_shared_prefix_is_computed_once(
    engines: StartEngines, proxy: ProxyFactory, tmp_path: Path
) -> None:
    # real timing (h100 at a fifth of its speed): items released together would all prefill the document
    [(name, url, _)] = await engines("sim", profile="h100", time_scale=0.2)
    pool = {"name": "p", "endpoints": [{"name": name, "url": url}], "models": [{"name": "m"}]}
    client = await proxy(
        {
            "routing": {"pools": [pool], "state": {"scrape_interval_s": 0.1}},
            "batch": {"directory": str(tmp_path / "batches"), "concurrency": 4, "per_job": 4},
            "logging": {"evidence": False},
        }
    )
    lines = "".join(item(f"q{i}", f"question {i} ?") + "\n" for i in range(8)).encode()
    async with openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key="x", max_retries=0) as api:
        uploaded = await api.files.create(file=("in.jsonl", lines), purpose="batch")
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        deadline = time.monotonic() + 30
        while batch.status not in ("completed", "failed", "expired", "cancelled") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            batch = await api.batches.retrieve(batch.id)
        assert batch.status == "completed"
        assert batch.output_file_id is not None
        output = (await api.files.content(batch.output_file_id)).text
    usages: list[dict[str, Any]] = [json.loads(raw)["response"]["body"]["usage"] for raw in output.splitlines()]
    assert len(usages) == 8
    cached = sorted(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
    prompt = usages[0]["prompt_tokens"]
    # exactly one item computed the document; the seven after it found it cached
    assert cached[0] < prompt / 2
    assert all(c > prompt * 0.9 for c in cached[1:]), cached
