"""The routers compared: taskgate with each picker, sglang-router and vllm-router, as processes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from cluster import CACHED_INPUT_PRICE, CLASS_TTFT_MS, Engine, Pool, env_offline, stop_process
from targets import free_port, wait_ready

Router = Literal["taskgate", "sglang", "vllm"]


@dataclass(frozen=True)
class Policy:
    name: str
    router: Router
    option: str  # taskgate: the routing.route picker; the peers: their --policy
    only: tuple[str, ...] = ()  # taskgate: the pools its config names (none: all); the peers get every engine
    classes: dict[str, float] | None = None  # taskgate: TTFT targets by class (engine ms) instead of the benchmark's

    def missing(self) -> str | None:
        """Why this policy cannot run here, or None."""
        if self.router == "sglang" and importlib.util.find_spec("sglang_router") is None:
            return "sglang-router is not installed (pip install -e '.[bench]')"
        if self.router == "vllm" and not _bin("vllm-router").exists():
            return "vllm-router is not installed (pip install -e '.[bench]')"
        return None


POLICIES = (
    Policy("random", "taskgate", "random"),
    Policy("round robin", "taskgate", "round_robin"),
    Policy("least loaded", "taskgate", "least_loaded"),
    Policy("taskgate", "taskgate", "scored"),
    Policy("sglang cache_aware", "sglang", "cache_aware"),
    Policy("vllm cache_aware", "vllm", "cache_aware"),
    Policy("vllm consistent_hash", "vllm", "consistent_hash"),
)


def _bin(name: str) -> Path:
    return Path(sys.executable).parent / name


# The sim's tokenizer averages 4.59 characters per token on this workload's text (measured with
# taskgate.sim.tokens.tokenize); an operator sets this per model, so the benchmark does too.
CHARS_PER_TOKEN = 4.6


def taskgate_config(
    engines: list[Engine],
    pools: tuple[Pool, ...],
    model: str,
    picker: str,
    scale: float,
    port: int,
    classes: dict[str, float] = CLASS_TTFT_MS,
) -> dict[str, Any]:
    """A taskgate config for `engines`; latency targets and speeds are converted to wall time by `scale`.

    Prices are the benchmark's: cached prompt tokens at CACHED_INPUT_PRICE of the input price.
    """
    wall = scale if scale > 0 else 1.0
    entries = []
    for pool in pools:
        members = [e for e in engines if e.pool is pool]
        entries.append(
            {
                "name": pool.name,
                "hardware": pool.profile,
                "region": "eu-west",
                "price": {
                    "input_per_mtok": pool.input_per_mtok,
                    "output_per_mtok": pool.output_per_mtok,
                    "cached_input_per_mtok": round(pool.input_per_mtok * CACHED_INPUT_PRICE, 6),
                },
                "targets": {"ttft_ms": pool.ttft_ms * wall, "tpot_ms": pool.tpot_ms * wall},
                "max_context": pool.max_context,
                "kv_capacity_tokens": pool.kv_blocks * pool.block_size,
                "prefill_tokens_per_s": pool.prefill_tokens_per_s / wall,
                "models": [{"name": model}],
                "endpoints": [{"name": e.name, "url": e.url} for e in members],
            }
        )
    targets = {f"{name}_ttft_ms": ms * wall for name, ms in classes.items()}
    params: dict[str, Any] = {"picker": picker, "seed": 7} if picker == "random" else {"picker": picker}
    return {
        "server": {"host": "127.0.0.1", "port": port},
        "logging": {"level": "warning", "evidence": False},
        "routing": {
            "state": {"store": "memory", "scrape_interval_s": 0.5},
            "pools": entries,
            "classes": targets,
            "prefix": {"chars_per_token": CHARS_PER_TOKEN},
        },
        "steps": [{"name": "route", "type": "routing.route", "params": params}],
    }


@dataclass
class RouterProcess:
    """One router in front of the engines; `start` returns its base URL."""

    policy: Policy
    logs: Path
    proc: subprocess.Popen[bytes] | None = None
    label: str = "routing"  # the benchmark's name, in its log and config file names
    classes: dict[str, float] = field(default_factory=lambda: dict(CLASS_TTFT_MS))  # the benchmark's targets

    def start(self, engines: list[Engine], pools: tuple[Pool, ...], model: str, scale: float) -> str:
        port = free_port()
        argv, ready = self._argv(engines, pools, model, scale, port)
        slug = self.policy.name.replace(" ", "-")
        log = (self.logs / f"{self.label}-{slug}.log").open("ab")
        self.proc = subprocess.Popen(
            argv, env=env_offline(), stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
        )
        wait_ready(f"http://127.0.0.1:{port}{ready}", 60.0, self.proc)
        return f"http://127.0.0.1:{port}"

    def _argv(
        self, engines: list[Engine], pools: tuple[Pool, ...], model: str, scale: float, port: int
    ) -> tuple[list[str], str]:
        urls = [e.url for e in engines]
        policy = self.policy
        if policy.router == "taskgate":
            path = self.logs / f"{self.label}-{policy.name.replace(' ', '-')}.yaml"
            given = tuple(p for p in pools if not policy.only or p.name in policy.only)
            given_engines = [e for e in engines if e.pool in given]
            classes = policy.classes or self.classes
            config = taskgate_config(given_engines, given, model, policy.option, scale, port, classes)
            path.write_text(yaml.safe_dump(config, sort_keys=False))
            return [sys.executable, "-m", "taskgate", "serve", "-c", str(path)], "/readyz"
        common = ["--host", "127.0.0.1", "--port", str(port), "--worker-urls", *urls, "--policy", policy.option]
        common += ["--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port())]
        if policy.router == "sglang":
            return [sys.executable, "-m", "sglang_router.launch_router", *common, "--log-level", "warn"], "/readiness"
        extra = ["--log-level", "warning", "--worker-startup-check-interval", "1"]
        return [str(_bin("vllm-router")), *common, *extra], "/readiness"

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None
