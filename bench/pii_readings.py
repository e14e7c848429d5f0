"""What reading past spelling costs the PII step, and how fast it recovers after the analyzer stalls.

    python bench/pii_readings.py             # about a minute here
    python bench/pii_readings.py --quick     # fewer repetitions
    PYTHONPATH=../older python bench/pii_readings.py --turns-only   # section 1 against an older checkout

1. Per turn: the pii step over bench/guards.py's 20-turn conversation (cached,
   as a chat client resends earlier turns), NER and pattern backends. CPU time
   of the process (worker threads included) and wall time, the minimum over
   repetitions: other work on the machine inflates medians, not minima.
   `--turns-only` imports nothing newer than the step, so with an older
   checkout first on PYTHONPATH it gives the before column.
2. Per text: normalisation and the further readings (separators, decoding)
   for ASCII, accented and other-script prose, and for a text with zero-width
   characters (the only kind that pays for an offset map).
3. Stall: the analyzer stalls for 3 s under steady traffic (calls starting in
   the window sleep 12 s in their worker thread); how long after the stall
   ends a request succeeds again.

Prints tables. Not a test: the numbers belong to the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp.test_utils import TestClient, TestServer
from presidio_analyzer import RecognizerResult

from guards import conversation  # bench/guards.py: the 20-turn conversation
from taskgate.dag import Inputs
from taskgate.gateway.config import parse_config
from taskgate.gateway.gateway import GATEWAY
from taskgate.guards.pii import PiiStep
from taskgate.plugins import REQUEST, RequestContext, Services, StepOptions
from taskgate.proxy.app import create_app, default_registry
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim

if TYPE_CHECKING:
    from taskgate.guards.scan import Analyzer

REGISTRY = default_registry()


# 1. per turn


async def turns_once(backend: str, bodies: list[bytes]) -> tuple[float, float]:
    step = REGISTRY.build("pii", "guards.pii", {"backend": backend, "timeout_s": 30}, Services(), StepOptions())
    assert isinstance(step, PiiStep)
    cpu, wall = time.process_time(), time.perf_counter()
    for i, body in enumerate(bodies):
        await step.run(Inputs({REQUEST: RequestContext(str(i), "chat", "/v1/chat/completions", {}, body)}))
    spent = (time.process_time() - cpu) * 1e3, (time.perf_counter() - wall) * 1e3
    for lane in (step.pool, getattr(step, "small_pool", None)):
        if lane is not None:
            lane.shutdown(wait=True)
    return spent


async def per_turn(repeat: int) -> None:
    bodies = [json.dumps({"model": "m", "messages": m}).encode() for m in conversation(20)]
    print("\n1. the pii step over a 20-turn conversation (min of", repeat, "runs)")
    print(f"{'backend':10s} {'cpu ms':>9s} {'wall ms':>9s} {'cpu ms/turn':>12s}")
    for backend in ("ner", "patterns"):
        runs = [await turns_once(backend, bodies) for _ in range(repeat)]
        cpu, wall = min(r[0] for r in runs), min(r[1] for r in runs)
        print(f"{backend:10s} {cpu:9.1f} {wall:9.1f} {cpu / len(bodies):12.2f}")


# 2. per text

TEXTS = {
    "english (ascii)": "The committee reviewed the proposal from the regional office and asked for a revised budget. ",
    "french (accents)": "Le comité a examiné la proposition du bureau régional et a demandé un budget révisé. ",
    "hindi": "समिति ने क्षेत्रीय कार्यालय के प्रस्ताव की समीक्षा की और संशोधित बजट मांगा। ",
    "zero-width chars": "card 4111\u200b1111\u200b1111\u200b1111 and more words around it. ",
}


def best_us(call: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best * 1e6


def per_text(repeat: int) -> None:
    from taskgate.guards.normalize import normalize
    from taskgate.guards.views import Decoding, decoded, joined

    limits = Decoding(("US_SSN",), 32, 65_536)
    print("\n2. the readings of one ~400-character text (best of", repeat, "), microseconds")
    print(f"{'text':18s} {'normalize':>10s} {'separators':>11s} {'decoded':>8s}")
    for name, sentence in TEXTS.items():
        text = sentence * max(1, 400 // len(sentence))
        plain = normalize(text)
        calls: list[Callable[[], Any]] = [functools.partial(normalize, text), functools.partial(joined, plain)]
        calls.append(functools.partial(decoded, plain, limits))
        row = [best_us(call, repeat) for call in calls]
        print(f"{name:18s} {row[0]:10.1f} {row[1]:11.1f} {row[2]:8.1f}")


# 3. recovery after a stall


class Stall:
    """The analyzer, except that a call starting before `until` sleeps `hold_s` in its thread."""

    def __init__(self, engine: Analyzer, hold_s: float):
        self.engine, self.hold_s, self.until, self.release = engine, hold_s, 0.0, threading.Event()

    def analyze(
        self, text: str, language: str, *, entities: list[str] | None = None, score_threshold: float | None = None
    ) -> list[RecognizerResult]:
        if time.monotonic() < self.until:
            self.release.wait(self.hold_s)
        return self.engine.analyze(text, language, entities=entities, score_threshold=score_threshold)


async def recovery() -> float:
    upstream = TestServer(create_sim(dataclasses.replace(PROFILES["instant"], models=("m",)), "engine"))
    await upstream.start_server()
    url = str(upstream.make_url("")).rstrip("/")
    raw = {
        "routing": {"pools": [{"name": "p", "endpoints": [{"name": "e", "url": url}], "models": [{"name": "m"}]}]},
        "steps": [{"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}}],
        "pipelines": {"chat": ["pii", "state", "route"]},
        "logging": {"evidence": False},
    }  # fmt: skip
    client = TestClient(TestServer(create_app(parse_config(raw, "<bench>", REGISTRY), REGISTRY)))
    await client.start_server()
    step = client.app[GATEWAY].plans["chat"].steps["pii"]
    assert isinstance(step, PiiStep)
    stall = Stall(step.scanner.engine, 12.0)
    step.scanner.engine = stall
    numbers = itertools.count()

    async def ask() -> int:
        body = {"model": "m", "messages": [{"role": "user", "content": f"note {next(numbers)}"}], "max_tokens": 1}
        resp = await client.post("/v1/chat/completions", json=body)
        await resp.read()
        return resp.status

    end = time.monotonic() + 3.0
    stall.until = end

    async def load() -> None:
        while time.monotonic() < end:
            await ask()

    loaders = [asyncio.create_task(load()) for _ in range(3)]
    await asyncio.sleep(end - time.monotonic())
    first: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    async def probe() -> None:
        if await ask() == 200 and not first.done():
            first.set_result(time.monotonic() - end)

    probes = []
    while not first.done() and time.monotonic() < end + 20:
        probes.append(asyncio.create_task(probe()))
        await asyncio.wait([first], timeout=0.05)
    stall.release.set()
    await asyncio.gather(*loaders, *probes)
    await client.close()
    await upstream.close()
    return first.result() if first.done() else float("inf")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--turns-only", action="store_true", help="section 1 only (runs on older checkouts)")
    args = parser.parse_args()
    await per_turn(3 if args.quick else 9)
    if args.turns_only:
        return
    per_text(50 if args.quick else 300)
    print("\n3. after a 3 s stall (calls stuck 12 s), a request succeeds again after")
    print(f"   {await recovery():.2f} s")


if __name__ == "__main__":
    asyncio.run(main())
