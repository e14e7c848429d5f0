"""The gateway the dashboard tests look at: real JWTs, the PII and classify guards beside each other, a sim engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai

from tests.authz.conftest import Keys, jwt_section
from tests.batch.conftest import jsonl, line, until_ended

from ..conftest import EMAIL, PHONE, upstreams

PROMPT = (
    f"Write to {EMAIL} and +1 {PHONE} about the delayed refund; "
    + "the customer waited since Friday and asks what happened to the order. " * 8
)


def dashboard_config(keys: Keys | None, engine_url: str, **ui: Any) -> dict[str, Any]:
    """authn (when `keys`), pii and classify (no input of one another: they run in parallel), state, route."""
    guards: list[dict[str, Any]] = [
        {"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}},
        {"name": "classify", "type": "guards.classify"},
    ]
    authn: list[dict[str, Any]] = [{"name": "authn", "type": "authz.authenticate"}] if keys else []
    config: dict[str, Any] = upstreams(engine_url, "m") | {
        "steps": [*authn, *guards],
        "pipelines": {"chat": [*(s["name"] for s in (*authn, *guards)), "state", "route"]},
        "logging": {"evidence": False},
        "ui": ui,
    }
    config["routing"]["state"] = {"scrape_interval_s": 0.05}
    if keys:
        config["authz"] = {"jwt": jwt_section(keys)}
    return config


def chat(text: str = PROMPT) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], "max_tokens": 8}


def overlapping(steps: list[dict[str, Any]]) -> tuple[str, str]:
    """Two steps of an evidence record that ran at the same time."""
    spans = [(s["step"], s["start_ms"], s["start_ms"] + s["duration_ms"]) for s in steps]
    pair = next(((a, b) for a, s, e in spans for b, s2, e2 in spans if a < b and s < e2 and s2 < e), None)
    assert pair is not None, f"no two steps overlap in {spans}"
    return pair


def batch_config(keys: Keys, engine_url: str, tmp_path: Path, batches: int = 50, **batch: Any) -> dict[str, Any]:
    """The dashboard's gateway with its pool priced and the batch room keeping its jobs in `tmp_path`."""
    config = dashboard_config(keys, engine_url, poll_interval_s=0.5, batches=batches)
    config["routing"]["pools"][0]["price"] = {"input_per_mtok": 3.0, "output_per_mtok": 15.0}
    config["batch"] = {"directory": str(tmp_path / "batches"), **batch}
    return config


async def submit(client: Any, token: str, items: int, **create: Any) -> Any:
    """A chat batch of `items` lines, made and waited for with the official SDK: the ended batch."""
    api = openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key=token, max_retries=0, timeout=30)
    async with api:
        lines = jsonl(*(line(f"q{i}", f"summarise item {i} of the nightly run") for i in range(items)))
        uploaded = await api.files.create(file=("in.jsonl", lines), purpose="batch")
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h", **create
        )
        return await until_ended(api, batch.id)
