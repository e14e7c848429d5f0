"""Read an engine's load from its Prometheus endpoint: vLLM, llama.cpp and the sim's names."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from taskgate.plugins import Endpoint

WAITING = ("vllm:num_requests_waiting", "llamacpp:requests_deferred")
RUNNING = ("vllm:num_requests_running", "llamacpp:requests_processing")
KV_USAGE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "llamacpp:kv_cache_usage_ratio")
# prompt tokens the engine's prefix cache served, and those it looked up: counters since the engine started
PREFIX_HITS = ("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total")
PREFIX_QUERIES = ("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total")
READ = frozenset((*WAITING, *RUNNING, *KV_USAGE, *PREFIX_HITS, *PREFIX_QUERIES))


@dataclass(frozen=True, slots=True)
class Load:
    """One endpoint's last scrape: `at` is time.monotonic() of the scrape, `error` why it failed."""

    healthy: bool
    at: float
    waiting: float = 0.0
    running: float = 0.0
    kv_usage: float = 0.0
    error: str | None = None
    prefix_hits: float | None = None  # the engine's counters, None where it keeps none
    prefix_queries: float | None = None

    def age(self, now: float) -> float:
        return now - self.at


def parse(text: str) -> tuple[float, float, float]:
    """(waiting, running, kv_usage) from exposition text; each summed over its label sets."""
    return _load(_read(text))


def _read(text: str) -> dict[str, float]:
    """The samples taskgate reads, each summed over its label sets."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in READ:
                found[sample.name] = found.get(sample.name, 0.0) + float(sample.value)
    return found


def _load(found: dict[str, float]) -> tuple[float, float, float]:
    return _sane(_first(found, WAITING)), _sane(_first(found, RUNNING)), min(1.0, _sane(_first(found, KV_USAGE)))


def _counter(found: dict[str, float], names: tuple[str, ...]) -> float | None:
    value = next((found[n] for n in names if n in found), None)
    return None if value is None else _sane(value)


def _sane(value: float) -> float:
    """Finite and not negative: an engine's odd number must not break every placement."""
    return value if math.isfinite(value) and value > 0 else 0.0


def _first(found: dict[str, float], names: tuple[str, ...]) -> float:
    return next((found[n] for n in names if n in found), 0.0)


async def scrape(session: aiohttp.ClientSession, endpoint: Endpoint, path: str, limit_s: float) -> Load:
    """Scrape one endpoint; any failure is an unhealthy Load that says why."""
    try:
        limit = aiohttp.ClientTimeout(total=limit_s)
        async with session.get(endpoint.url + path, headers=endpoint.headers, timeout=limit) as resp:
            if resp.status == 404:  # an engine without metrics is not a dead engine
                return Load(True, time.monotonic(), error="no metrics at this path")
            if resp.status != 200:
                return Load(False, time.monotonic(), error=f"metrics answered {resp.status}")
            text = await resp.text()
    except (aiohttp.ClientError, TimeoutError) as exc:
        return Load(False, time.monotonic(), error=type(exc).__name__)
    try:
        found = _read(text)
    except ValueError as exc:
        return Load(True, time.monotonic(), error=f"unreadable metrics: {exc}")
    hits, queries = _counter(found, PREFIX_HITS), _counter(found, PREFIX_QUERIES)
    return Load(True, time.monotonic(), *_load(found), prefix_hits=hits, prefix_queries=queries)


async def served_models(session: aiohttp.ClientSession, endpoint: Endpoint, limit_s: float) -> frozenset[str] | None:
    """The model ids an endpoint's `/v1/models` lists; None when it cannot say (no such route, an error, an
    answer that is not a model list): an endpoint that cannot say is not filtered out for it."""
    try:
        limit = aiohttp.ClientTimeout(total=limit_s)
        async with session.get(endpoint.url + "/v1/models", headers=endpoint.headers, timeout=limit) as resp:
            if resp.status != 200:
                return None
            payload = await resp.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None
    entries = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        return None
    return frozenset(e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str))
