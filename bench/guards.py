"""What the guards cost: the classifier, PII scanning per conversation turn, the output guard on TTFT.

    python bench/guards.py            # about a minute here
    python bench/guards.py --quick    # fewer repetitions

1. Classifier: the local model per call (held-out texts), and the classify step
   in model mode against a simulated engine answering at once.
2. PII per turn over a 20-turn conversation (about 150 new words a turn): the
   pii step with its content-hash cache (each turn scans only its new text)
   against the same step with no cache (every turn rescans the whole
   conversation), NER and pattern backends; p50 and p99 over every turn.
3. Output guard: time to the first visible token and to the end of a streamed
   answer through taskgate, with the output guard on and off, against a
   simulated engine emitting 4-character pieces every 20 ms.
4. Per conversation turn, through taskgate as its own process: the example
   config's full plan (classify, pii with NER and the output guard, state,
   route) against the routing-only plan (state, route), side by side on the
   same conversations. Each turn resends the conversation with the answer as
   the client received it and about 150 new words (a 60-word message and the
   last 80-word answer); the client waits `--think-ms` between an answer and
   its next turn (an agent's tool call).

Everything runs in this process on loopback (servers included), so absolute
numbers include that contention; the comparisons in each table share it.
Prints tables and saves bench/results/guards.png and guards.json. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import needs
import yaml
from aiohttp import web
from report import OURS, THEIRS, Bars, minus, save

from taskgate.dag import Inputs
from taskgate.gateway.config import parse_config
from taskgate.guards.classifier import HELD_OUT, bundled
from taskgate.guards.classify import ClassifyStep, trained_model
from taskgate.guards.pii import PiiStep
from taskgate.plugins import REQUEST, RequestContext, Services, StepOptions
from taskgate.proxy.app import create_app, default_registry
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script

RESULTS = Path(__file__).resolve().parent / "results"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "taskgate.yaml"
REGISTRY = default_registry()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}"


# 1. the classifier


async def classifier(repeat: int) -> dict[str, Any]:
    model = trained_model(())
    texts = [e.text for e in bundled(HELD_OUT)]
    samples = []
    for _ in range(repeat):
        for text in texts:
            started = time.perf_counter()
            model.predict(text)
            samples.append((time.perf_counter() - started) * 1e6)
    local = {"p50_us": pct(samples, 0.5), "p99_us": pct(samples, 0.99), "calls": len(samples)}

    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    runner, url = await serve(create_sim(profile, "classifier", Script([Rule(".", "summarise")])))
    services = Services()
    params = {"mode": "model", "model": {"urls": [url], "model": "m", "timeout_s": 1.0}}
    step = REGISTRY.build("classify", ClassifyStep.type, params, services, StepOptions())
    remote: list[float] = []
    fallbacks = 0
    async with aiohttp.ClientSession() as session:
        services.attach_http(session)
        for i, text in enumerate(texts * max(1, repeat // 5)):
            body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode()
            context = RequestContext(str(i), "chat", "/v1/chat/completions", {}, body)
            started = time.perf_counter()
            intent = await step.run(Inputs({REQUEST: context}))
            remote.append((time.perf_counter() - started) * 1e3)
            fallbacks += intent.fallback is not None
    await runner.cleanup()
    return {
        "local": local,
        "model": {
            "p50_ms": pct(remote, 0.5),
            "p99_ms": pct(remote, 0.99),
            "calls": len(remote),
            "fallbacks": fallbacks,
        },
    }


# 2. PII per turn

_TEXT = (
    "the report shows that revenue grew while costs stayed flat and the team plans to expand into "
    "two new regions next quarter so hiring will start soon with a focus on support and sales"
)
_WORDS = _TEXT.split()
# personal data no one publishes for testing (published test values are no one's: guards/testvalues.py)
_PII = [
    "My colleague Priya Raman (priya.raman@fastmail.com) will join the call.",
    "You can reach me on 415-484-7316 after six.",
    "Bill the card 5412 8273 6401 7399, not the old one.",
    "Send the contract to legal@contoso-law.com and copy Tom Becker.",
]


def prose(rng: random.Random, words: int) -> str:
    """`words` words as sentences of 8-14, each capitalised and ended: text as people write it."""
    sentences, left = [], words
    while left > 0:
        n = min(left, rng.randint(8, 14))
        sentences.append(" ".join(rng.choice(_WORDS) for _ in range(n)).capitalize() + ".")
        left -= n
    return " ".join(sentences)


def conversation(turns: int, seed: int = 7) -> list[list[dict[str, str]]]:
    """The message list a client sends at each turn: it grows by a user turn and an answer."""
    rng = random.Random(seed)
    messages = [{"role": "system", "content": "You are a helpful assistant for the finance team."}]
    out = []
    for turn in range(turns):
        words = prose(rng, 60)
        user = f"{words} {_PII[turn % len(_PII)]}" if turn % 2 == 0 else words
        messages = [*messages, {"role": "user", "content": user}]
        out.append(list(messages))
        messages = [*messages, {"role": "assistant", "content": prose(rng, 80)}]
    return out


async def pii_turns(turns: int, repeat: int) -> list[dict[str, Any]]:
    convo = conversation(turns)
    rows = []
    for backend in ("ner", "patterns"):
        for cached in (True, False):
            per_turn: list[list[float]] = [[] for _ in convo]
            for _ in range(repeat):
                params = {"backend": backend, "cache_entries": 10_000 if cached else 0, "timeout_s": 30}
                step = REGISTRY.build("pii", "guards.pii", params, Services(), StepOptions())
                assert isinstance(step, PiiStep)
                for index, messages in enumerate(convo):
                    body = json.dumps({"model": "m", "messages": messages}).encode()
                    context = RequestContext(str(index), "chat", "/v1/chat/completions", {}, body)
                    started = time.perf_counter()
                    await step.run(Inputs({REQUEST: context}))
                    per_turn[index].append((time.perf_counter() - started) * 1e3)
                step.pool.shutdown(wait=True)
            ms = [statistics.median(v) for v in per_turn]
            every = [x for v in per_turn for x in v]
            rows.append({"backend": backend, "incremental": cached, "ms_per_turn": ms, "total_ms": sum(ms),
                         "p50_ms": statistics.median(every), "p99_ms": pct(every, 0.99)})  # fmt: skip
    return rows


# 3. the output guard on a streamed answer

REPLY = (
    "Here is the summary you asked for. The vendor confirmed the delivery window for next week, "
    "and the open questions go to their account manager at dana.whitfield@mailbox.org, who "
    "answers within a day. The invoice total matches the purchase order, so no change is needed."
)


async def streaming(requests: int) -> list[dict[str, Any]]:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",), time_scale=1.0, tpot_s=0.02)
    sim_runner, sim_url = await serve(create_sim(profile, "engine", Script([Rule(".", REPLY)])))
    pool = {"name": "p", "endpoints": [{"name": "e", "url": sim_url}], "models": [{"name": "m"}]}
    variants: dict[str, bool | None] = {
        "no pii step": None,
        "pii, output guard off": False,
        "pii, output guard on": True,
    }
    rows = []
    async with aiohttp.ClientSession() as session:
        for name, output in variants.items():
            raw: dict[str, Any] = {"routing": {"pools": [pool]}, "logging": {"evidence": False}}
            if output is not None:
                params = {"backend": "patterns", "output": {"enabled": output}}
                raw["steps"] = [{"name": "pii", "type": "guards.pii", "params": params}]
                raw["pipelines"] = {"chat": ["pii", "state", "route"]}
            runner, url = await serve(create_app(parse_config(raw, "<bench>", REGISTRY), REGISTRY))
            first, total, texts = [], [], set()
            for i in range(requests):
                body = {
                    "model": "m", "stream": True, "max_tokens": 400,
                    "messages": [{"role": "user", "content": f"Summarise the vendor thread, please ({i})."}],
                }  # fmt: skip
                started = time.perf_counter()
                seen_first = None
                text = ""
                async with session.post(f"{url}/v1/chat/completions", json=body) as resp:
                    async for line in resp.content:
                        if not line.startswith(b"data: {"):
                            continue
                        delta = json.loads(line[6:])["choices"]
                        piece = delta[0]["delta"].get("content") if delta else None
                        if piece and seen_first is None:
                            seen_first = time.perf_counter() - started
                        text += piece or ""
                first.append((seen_first or 0.0) * 1e3)
                total.append((time.perf_counter() - started) * 1e3)
                texts.add(text)
            await runner.cleanup()
            rows.append(
                {
                    "variant": name,
                    "ttft_p50_ms": pct(first, 0.5),
                    "ttft_p99_ms": pct(first, 0.99),
                    "total_p50_ms": pct(total, 0.5),
                    "redacted": all("<EMAIL_ADDRESS>" in t and "@" not in t for t in texts),
                }
            )
    await sim_runner.cleanup()
    return rows


# 4. per turn through the proxy: the full plan against routing only


_FORWARDED = [p for p in _PII if "card" not in p]  # the example config blocks cards: these are redacted and sent


def answers_app() -> web.Application:
    """An instant engine whose answer (80 words) depends on the conversation and its turn, never on the plan."""

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        first = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        seed = f"{first}:{len(body['messages'])}"  # its own answer per conversation and turn (headers are not relayed)
        text = prose(random.Random(seed), 80)
        message = {"role": "assistant", "content": text}
        usage = {"prompt_tokens": 1, "completion_tokens": 80, "total_tokens": 81}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return web.json_response({"id": "a", "object": "chat.completion", "created": 1, "model": body["model"],
                                  "choices": [choice], "usage": usage})  # fmt: skip

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


def plan_config(upstream: str, port: int, full: bool) -> dict[str, Any]:
    """The example config's steps and plan (full) or its routing steps alone, in front of `upstream`."""
    example = yaml.safe_load(EXAMPLE.read_text())
    pool = {"name": "p", "region": "eu-west", "endpoints": [{"name": "e", "url": upstream}], "models": [{"name": "m"}]}
    steps = example["steps"] if full else [s for s in example["steps"] if s["name"] in ("state", "route")]
    chat = example["pipelines"]["chat"] if full else ["state", "route"]
    return {
        "server": {"host": "127.0.0.1", "port": port},
        "logging": {"level": "warning", "evidence": True},
        "routing": {"pools": [pool], "state": {"store": "memory"}},
        "steps": steps,
        "pipelines": {"chat": chat},
    }


def start_taskgate(config: dict[str, Any], port: int, logs: Path) -> subprocess.Popen[bytes]:
    path = logs / f"guards-turns-{port}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    log = (logs / "guards-turns.log").open("ab")
    proc = subprocess.Popen([sys.executable, "-m", "taskgate", "serve", "-c", str(path)], stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as resp:
                if resp.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"taskgate did not get ready; see {logs / 'guards-turns.log'}")


async def play(url: str, conversations: int, turns: int, think_s: float) -> tuple[list[list[float]], int]:
    """Every conversation's turns, interleaved (c0t0, c1t0, ..., c0t1, ...): ms per turn index, and errors."""
    rng = random.Random(11)
    system = {"role": "system", "content": "You are a helpful assistant for the finance team."}
    history: list[list[dict[str, str]]] = [[system] for _ in range(conversations)]
    per_turn: list[list[float]] = [[] for _ in range(turns)]
    errors = 0
    async with aiohttp.ClientSession() as session:
        for turn in range(turns):
            for c in range(conversations):
                words = prose(rng, 60)
                user = f"{words} {_FORWARDED[(turn + c) % len(_FORWARDED)]}" if turn % 2 == 0 else words
                history[c].append({"role": "user", "content": user})
                body = {"model": "m", "messages": history[c]}
                started = time.perf_counter()
                async with session.post(url, json=body, headers={"x-session-id": f"c{c}"}) as resp:
                    answer = await resp.json()
                elapsed = (time.perf_counter() - started) * 1e3
                if resp.status != 200:
                    errors += 1
                    history[c].append({"role": "assistant", "content": "(no answer)"})
                    continue
                per_turn[turn].append(elapsed)
                history[c].append({"role": "assistant", "content": answer["choices"][0]["message"]["content"]})
                await asyncio.sleep(think_s)
    return per_turn, errors


async def turns_through_proxy(conversations: int, turns: int, think_ms: float) -> dict[str, Any]:
    up_runner, upstream = await serve(answers_app())
    logs = Path(tempfile.mkdtemp(prefix="taskgate-guards-"))
    out: dict[str, Any] = {"conversations": conversations, "turns": turns, "think_ms": think_ms, "plans": {}}
    try:
        for name, full in (("routing only", False), ("full plan", True)):
            port = free_port()
            proc = start_taskgate(plan_config(upstream, port, full), port, logs)
            try:
                await play(f"http://127.0.0.1:{port}/v1/chat/completions", 1, 2, 0.0)  # warm the connection pools
                per_turn, errors = await play(
                    f"http://127.0.0.1:{port}/v1/chat/completions", conversations, turns, think_ms / 1000
                )
            finally:
                proc.terminate()
                proc.wait(timeout=15)
            every = [ms for row in per_turn for ms in row]
            out["plans"][name] = {
                "p50_ms": statistics.median(every),
                "p99_ms": pct(every, 0.99),
                "per_turn_p50_ms": [statistics.median(row) if row else None for row in per_turn],
                "errors": errors,
            }
    finally:
        await up_runner.cleanup()
    plans = out["plans"]
    out["added_p50_ms"] = plans["full plan"]["p50_ms"] - plans["routing only"]["p50_ms"]
    out["logs"] = str(logs)
    return out


def tables(result: dict[str, Any]) -> str:
    c = result["classifier"]
    lines = [
        "classifier                      p50        p99      calls",
        f"local model                {c['local']['p50_us']:8.1f} us {c['local']['p99_us']:7.1f} us "
        f"{c['local']['calls']:8d}",
        f"model mode (sim, at once)  {c['model']['p50_ms']:8.2f} ms {c['model']['p99_ms']:7.2f} ms "
        f"{c['model']['calls']:8d}  fallbacks {c['model']['fallbacks']}",
        "",
        "pii step per turn (ms)   backend    cache     turn 1  turn 10  turn 20    all 20 turns   p50 turn  p99 turn",
    ]
    for row in result["pii"]:
        ms = row["ms_per_turn"]
        mode = "on " if row["incremental"] else "off"
        lines.append(
            f"{'':25}{row['backend']:10} {mode:8}{ms[0]:8.1f} {ms[min(9, len(ms) - 1)]:8.1f} {ms[-1]:8.1f} "
            f"{row['total_ms']:14.1f} {row['p50_ms']:10.2f} {row['p99_ms']:9.2f}"
        )
    lines += ["", "streamed answer (ms)         TTFT p50  TTFT p99  total p50  redacted"]
    for row in result["streaming"]:
        lines.append(
            f"{row['variant']:28}{row['ttft_p50_ms']:9.1f} {row['ttft_p99_ms']:9.1f} {row['total_p50_ms']:10.1f}  "
            f"{'yes' if row['redacted'] else 'no'}"
        )
    return "\n".join([*lines, "", *turns_table(result["turns"])])


def turns_table(t: dict[str, Any]) -> list[str]:
    lines = [
        f"per turn through taskgate ({t['conversations']} conversations x {t['turns']} turns, ~150 new words a turn, "
        f"{t['think_ms']:g} ms between an answer and the next turn)",
        "plan              p50 ms    p99 ms   turn 1   turn 10  last turn  errors",
    ]
    for name, row in t["plans"].items():
        turn = row["per_turn_p50_ms"]
        lines.append(
            f"{name:16}{row['p50_ms']:8.2f} {row['p99_ms']:9.2f} {turn[0]:8.2f} {turn[min(9, len(turn) - 1)]:9.2f} "
            f"{turn[-1]:10.2f} {row['errors']:7d}"
        )
    lines.append(f"full plan adds {t['added_p50_ms']:.2f} ms p50 per turn over routing only")
    return lines


def turns_panels(t: dict[str, Any]) -> list[Bars]:
    """What the full plan adds per turn over routing only (overall, then turn by turn), then both plans' times."""
    routing, full = t["plans"]["routing only"], t["plans"]["full plan"]
    turns = len(full["per_turn_p50_ms"])
    groups = ["p50, all turns", "p99, all turns", *(f"turn {n}" for n in range(1, turns + 1))]

    def times(row: dict[str, Any]) -> list[float | None]:
        return [row["p50_ms"], row["p99_ms"], *row["per_turn_p50_ms"]]

    added = [None if f is None or r is None else f - r for f, r in zip(times(full), times(routing), strict=True)]
    picked = sorted({0, 1, 2, 2 + min(9, turns - 1), 1 + turns})  # both overall, turns 1, 10 and the last
    return [
        Bars(
            f"What the full plan adds per turn over routing only ({t['conversations']} conversations)",
            "ms per request, full plan − routing only (per turn: p50 over conversations)",
            groups,
            {"added": added},
            "{:+.2f}",
            colours=[OURS] * 2 + [THEIRS] * turns,
        ),
        Bars(
            "Per turn through taskgate",
            "ms per request",
            [groups[i] for i in picked],
            {name: [times(row)[i] for i in picked] for name, row in t["plans"].items()},
        ),
    ]


def plot_turns(t: dict[str, Any], path: Path) -> None:
    title = f"taskgate's full plan per conversation turn ({platform.processor() or platform.machine()})"
    save(path, title, turns_panels(t))


def plot(result: dict[str, Any], path: Path) -> None:
    """What each guard adds to a request, labelled: the classifier, PII per turn, the output guard, the plan."""
    c = result["classifier"]
    classifier = {
        "p50": [c["local"]["p50_us"] / 1000, c["model"]["p50_ms"]],
        "p99": [c["local"]["p99_us"] / 1000, c["model"]["p99_ms"]],
    }
    pii = result["pii"]
    at = sorted({0, min(9, len(pii[0]["ms_per_turn"]) - 1), len(pii[0]["ms_per_turn"]) - 1})
    per_turn = {f"turn {i + 1}": [row["ms_per_turn"][i] for row in pii] for i in at}
    modes = [f"{row['backend']}, {'content-hash cache' if row['incremental'] else 'rescan everything'}" for row in pii]
    bare, guarded = result["streaming"][0], result["streaming"][1:]
    streamed = {
        label: minus([row[key] for row in guarded], bare[key])
        for label, key in (("first token p50", "ttft_p50_ms"), ("first token p99", "ttft_p99_ms"),
                           ("whole answer p50", "total_p50_ms"))
    }  # fmt: skip
    panels = [
        Bars("What the classify step takes per request", "ms per request", ["local model", "model mode (sim, at once)"],
             classifier),
        Bars(f"What the pii step takes per turn, {len(pii[0]['ms_per_turn'])}-turn conversation", "ms per turn", modes,
             per_turn, "{:.1f}"),
        Bars(f"What PII and the output guard add to a streamed answer (over {bare['variant']})",
             f"ms, the variant's − {bare['variant']}'s", [row["variant"] for row in guarded], streamed, "{:+.1f}"),
        *turns_panels(result["turns"]),
    ]  # fmt: skip
    title = f"taskgate guards ({platform.processor() or platform.machine()}, 2 cores, servers in-process)"
    save(path, title, panels, columns=2)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.only == "turns":
        return {"turns": await turns_through_proxy(3 if args.quick else 6, 10 if args.quick else 20, args.think_ms)}
    return {
        "classifier": await classifier(2 if args.quick else 10),
        "pii": await pii_turns(20, 1 if args.quick else 3),
        "streaming": await streaming(5 if args.quick else 30),
        "turns": await turns_through_proxy(3 if args.quick else 6, 10 if args.quick else 20, args.think_ms),
    }


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--think-ms", type=float, default=50.0, help="pause between an answer and the next turn")
    parser.add_argument("--only", choices=["turns"], help="run one part only")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    result = asyncio.run(run(args))
    name = "guards-turns" if args.only == "turns" else "guards"
    if args.only == "turns":
        print("\n".join(turns_table(result["turns"])))
        plot_turns(result["turns"], RESULTS / f"{name}.png")
    else:
        print(tables(result))
        plot(result, RESULTS / f"{name}.png")
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2))
    print(f"\nsaved {RESULTS / name}.png and {name}.json; taskgate's logs: {result['turns']['logs']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
