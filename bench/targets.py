"""What the benchmark measures: the upstream directly, taskgate, and peer routers as processes."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LITELLM_KEY = "sk-bench-local"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, seconds: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"exited with status {proc.returncode} before {url} was ready")
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} not ready after {seconds:.0f}s")


@dataclass
class Target:
    """One thing to send requests to; `start` returns its base URL."""

    name: str
    launch: Callable[[str, int, Path], tuple[list[str], dict[str, str], str]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    ready_s: float = 30.0
    proc: subprocess.Popen[bytes] | None = None

    def start(self, upstream: str, logs: Path) -> str:
        if self.launch is None:
            return upstream
        port = free_port()
        argv, env, ready_path = self.launch(upstream, port, logs)
        log = (logs / f"{self.name.split()[0]}.log").open("ab")
        self.proc = subprocess.Popen(argv, env={**os.environ, **env}, stdout=log, stderr=log)
        wait_ready(f"http://127.0.0.1:{port}{ready_path}", self.ready_s, self.proc)
        return f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


def _taskgate(evidence: bool) -> Callable[[str, int, Path], tuple[list[str], dict[str, str], str]]:
    def launch(upstream: str, port: int, logs: Path) -> tuple[list[str], dict[str, str], str]:
        config = logs / f"taskgate-{'evidence' if evidence else 'quiet'}.yaml"
        level = "info" if evidence else "warning"
        config.write_text(
            f"server: {{port: {port}}}\nlogging: {{level: {level}, evidence: {str(evidence).lower()}}}\n"
            "routing:\n  pools:\n    - name: bench\n"
            f"      endpoints: [{{name: up, url: '{upstream}'}}]\n      models: [{{name: sim-model}}]\n"
        )
        return [sys.executable, "-m", "taskgate", "serve", "-c", str(config)], {}, "/readyz"

    return launch


def _passthrough(upstream: str, port: int, logs: Path) -> tuple[list[str], dict[str, str], str]:
    return [sys.executable, str(HERE / "passthrough.py"), str(port), upstream], {}, "/readyz"


def _sglang(upstream: str, port: int, logs: Path) -> tuple[list[str], dict[str, str], str]:
    argv = [sys.executable, "-m", "sglang_router.launch_router", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--worker-urls", upstream, "--policy", "round_robin", "--log-level", "warn"]
    argv += ["--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port())]
    return argv, {"HF_ENDPOINT": "http://127.0.0.1:9"}, "/readiness"  # keep its tokenizer lookup on loopback


def _vllm(upstream: str, port: int, logs: Path) -> tuple[list[str], dict[str, str], str]:
    argv = [_bin("vllm-router"), "--host", "127.0.0.1", "--port", str(port), "--worker-urls", upstream]
    argv += ["--policy", "round_robin", "--log-level", "warning", "--worker-startup-check-interval", "1"]
    argv += ["--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port())]
    return argv, {}, "/readiness"


def _litellm(upstream: str, port: int, logs: Path) -> tuple[list[str], dict[str, str], str]:
    config = logs / "litellm.yaml"
    config.write_text(
        "model_list:\n  - model_name: sim-model\n    litellm_params:\n"
        f"      model: openai/sim-model\n      api_base: {upstream}/v1\n      api_key: sk-dummy\n"
        "litellm_settings: {drop_params: true, turn_off_message_logging: true, num_retries: 0}\n"
        f"general_settings: {{master_key: {LITELLM_KEY}, disable_spend_logs: true, disable_error_logs: true,"
        " background_health_checks: false}\n"
    )
    argv = [_bin("litellm"), "--config", str(config), "--host", "127.0.0.1", "--port", str(port), "--num_workers", "1"]
    env = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY_DISABLED": "true", "LITELLM_LOG": "ERROR"}
    return argv, env, "/health/readiness"


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def targets(include_peers: bool) -> tuple[list[Target], list[str]]:
    """The targets to run, and a note for each peer that is not installed."""
    chosen = [
        Target("direct"),
        Target("aiohttp pass-through", _passthrough),
        Target("taskgate", _taskgate(evidence=True)),
        Target("taskgate (no evidence log)", _taskgate(evidence=False)),
    ]
    missing: list[str] = []
    if not include_peers:
        return chosen, missing
    peers = [
        ("sglang-router", _sglang, {}, _has_module("sglang_router"), 30.0),
        ("vllm-router", _vllm, {}, shutil.which(_bin("vllm-router")) is not None, 30.0),
        (
            "litellm",
            _litellm,
            {"Authorization": f"Bearer {LITELLM_KEY}"},
            shutil.which(_bin("litellm")) is not None,
            120.0,
        ),
    ]
    for name, launch, headers, installed, ready in peers:
        if installed:
            chosen.append(Target(name, launch, headers, ready))
        else:
            missing.append(f"{name}: not installed (pip install -e '.[bench]')")
    return chosen, missing


def start_upstream(logs: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = (logs / "upstream.log").open("ab")
    proc = subprocess.Popen([sys.executable, str(HERE / "upstream.py"), str(port)], stdout=log, stderr=log)
    wait_ready(f"http://127.0.0.1:{port}/health", 15, proc)
    return proc, f"http://127.0.0.1:{port}"
