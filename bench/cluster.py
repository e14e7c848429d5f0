"""Simulated engines in two pools, each engine its own `taskgate sim` process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from targets import free_port, wait_ready

from taskgate.sim import PROFILES


@dataclass(frozen=True)
class Pool:
    """A group of identical engines with one price and one latency target (engine time)."""

    name: str
    profile: str  # a taskgate.sim profile: its prefill speed and per-token time
    engines: int
    kv_blocks: int
    max_num_seqs: int
    input_per_mtok: float
    output_per_mtok: float
    ttft_ms: float
    tpot_ms: float
    max_context: int

    @property
    def prefill_tokens_per_s(self) -> float:
        return PROFILES[self.profile].prefill_tokens_per_s

    @property
    def block_size(self) -> int:
        return PROFILES[self.profile].block_size


# KV caches small enough that no engine holds every live conversation (see bench/README.md).
POOLS = (
    Pool("fast", "h100", 2, 1_536, 32, 3.0, 9.0, 800.0, 30.0, 32_768),
    Pool("cheap", "l4", 2, 1_024, 16, 0.8, 2.4, 3_000.0, 80.0, 16_384),
)
# Engine-time TTFT targets per request class; interactive ones count as "within target" at or under theirs.
CLASS_TTFT_MS = {"interactive": 800.0, "batch": 30_000.0}
CACHED_INPUT_PRICE = 0.1  # cached prompt tokens cost this fraction of the input price


@dataclass
class Engine:
    name: str
    pool: Pool
    port: int
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Counters:
    """An engine's own totals from /metrics."""

    requests: float = 0.0
    prompt_tokens: float = 0.0
    cached_tokens: float = 0.0
    generation_tokens: float = 0.0

    def cost(self, pool: Pool) -> float:
        """Dollars: uncached input at the input price, cached input at a tenth of it, output at the output price."""
        uncached = self.prompt_tokens - self.cached_tokens
        inputs = (uncached + CACHED_INPUT_PRICE * self.cached_tokens) * pool.input_per_mtok
        return (inputs + self.generation_tokens * pool.output_per_mtok) / 1e6


_METRICS = {
    "vllm:request_success_total": "requests",
    "vllm:prompt_tokens_total": "prompt_tokens",
    "vllm:prefix_cache_hits_total": "cached_tokens",
    "vllm:generation_tokens_total": "generation_tokens",
}
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)")


def parse_counters(text: str) -> Counters:
    counters = Counters()
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match and match.group(1) in _METRICS:
            attr = _METRICS[match.group(1)]
            setattr(counters, attr, getattr(counters, attr) + float(match.group(3)))
    return counters


@dataclass
class Cluster:
    """Starts every engine fresh (cold caches) and stops them all."""

    pools: tuple[Pool, ...]
    model: str
    scale: float
    logs: Path
    engines: list[Engine] = field(default_factory=list)
    label: str = "routing"  # the benchmark's name: its engines log to logs/<label>-<engine>.log
    extra: tuple[str, ...] = ()  # more `taskgate sim` flags for every engine (bench/batch.py: chunked prefill)

    def start(self, ready_s: float = 60.0) -> list[Engine]:
        self.engines = [
            Engine(f"{pool.name}-{i}", pool, free_port()) for pool in self.pools for i in range(pool.engines)
        ]
        try:
            for engine in self.engines:
                engine.proc = self._spawn(engine)
            for engine in self.engines:
                wait_ready(engine.url + "/health", ready_s, engine.proc)
        except BaseException:
            self.stop()
            raise
        return self.engines

    def _spawn(self, engine: Engine) -> subprocess.Popen[bytes]:
        pool = engine.pool
        argv = [sys.executable, "-m", "taskgate", "sim", pool.profile, "--port", str(engine.port)]
        argv += ["--name", engine.name, "--model", self.model, "--time-scale", str(self.scale)]
        argv += ["--kv-blocks", str(pool.kv_blocks), "--max-num-seqs", str(pool.max_num_seqs), *self.extra]
        log = (self.logs / f"{self.label}-{engine.name}.log").open("ab")
        return subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)

    def scrape(self) -> dict[str, Counters]:
        out = {}
        for engine in self.engines:
            with urllib.request.urlopen(engine.url + "/metrics", timeout=10) as resp:
                out[engine.name] = parse_counters(resp.read().decode())
        return out

    def stop(self) -> None:
        for engine in self.engines:
            stop_process(engine.proc)
            engine.proc = None


def stop_process(proc: subprocess.Popen[bytes] | None, grace_s: float = 10.0) -> None:
    """Terminate one child we started, then kill it if it does not exit in time."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    deadline = time.monotonic() + grace_s
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=5)


def env_offline() -> dict[str, str]:
    """The environment for child processes: this one, with tokenizer lookups kept on loopback."""
    return {**os.environ, "HF_ENDPOINT": "http://127.0.0.1:9"}


def stop_on_signals() -> None:
    """SIGTERM and SIGINT unwind through every `finally`, which stops the children a benchmark started (SIGINT
    also when the benchmark was started with it ignored, as a background job is)."""
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
