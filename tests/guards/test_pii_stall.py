"""The analyzer stalls, then recovers: service must come back within 2 s of it, not when the stuck calls end.

The stall is real: the step's analyzer is wrapped so that a call starting
inside the stall window sleeps in its worker thread, far past the request's
budget, as a call stuck in the analyzer would. Calls starting after the window
are fast again: that moment is the analyzer's own recovery.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from typing import Any

from presidio_analyzer import RecognizerResult

from taskgate.gateway.gateway import GATEWAY
from taskgate.guards.lanes import Lane, Ticket
from taskgate.guards.scan import Analyzer

from .conftest import Scripted, pii_config


class Stall:
    """The analyzer, except that a call starting before `until` sleeps `hold_s` in its thread (or until released)."""

    def __init__(self, engine: Analyzer, hold_s: float):
        self.engine, self.hold_s = engine, hold_s
        self.until = 0.0
        self.release = threading.Event()
        self.texts: list[str] = []

    def analyze(
        self, text: str, language: str, *, entities: list[str] | None = None, score_threshold: float | None = None
    ) -> list[RecognizerResult]:
        self.texts.append(text)
        if time.monotonic() < self.until:
            self.release.wait(self.hold_s)
        return self.engine.analyze(text, language, entities=entities, score_threshold=score_threshold)


def stalled_step(client: Any, hold_s: float) -> tuple[Any, Stall]:
    step = client.app[GATEWAY].plans["chat"].steps["pii"]
    stall = Stall(step.scanner.engine, hold_s)
    step.scanner.engine = stall
    return step, stall


class Traffic:
    """Small requests, each with new text (nothing is answered from the cache)."""

    def __init__(self, client: Any):
        self.client, self.numbers = client, itertools.count()

    async def ask(self) -> tuple[int, str]:
        body = {"model": "m", "messages": [{"role": "user", "content": f"note {next(self.numbers)}"}]}
        resp = await self.client.post("/v1/chat/completions", json=body)
        return resp.status, await resp.text()

    async def until(self, end: float) -> None:
        while time.monotonic() < end:
            await self.ask()


async def recovery_after(traffic: Traffic, stall: Stall, window_s: float, give_up_s: float) -> float:
    """Stall for `window_s` under steady traffic; then the seconds until a request sent afterwards succeeds."""
    end = time.monotonic() + window_s
    stall.until = end
    load = [asyncio.create_task(traffic.until(end)) for _ in range(3)]
    await asyncio.sleep(end - time.monotonic())
    first: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    async def probe() -> None:
        status, _ = await traffic.ask()
        if status == 200 and not first.done():
            first.set_result(time.monotonic() - end)

    probes = []
    while not first.done() and time.monotonic() < end + give_up_s:
        probes.append(asyncio.create_task(probe()))
        await asyncio.wait([first], timeout=0.05)
    stall.release.set()  # let the stuck calls go, so the test leaves no thread behind
    await asyncio.gather(*load, *probes)
    return first.result() if first.done() else float("inf")


async def test_service_is_back_within_2_s_of_the_analyzer_after_it_stalls(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    _upstream, url = scripted
    client = await proxy(pii_config(url, {"backend": "patterns"}))  # timeout_s 2, stall_s 1: the defaults
    step, stall = stalled_step(client, hold_s=12.0)
    recovery = await recovery_after(Traffic(client), stall, window_s=3.0, give_up_s=15.0)
    assert recovery < 2.0, f"service came back {recovery:.2f} s after the analyzer"
    metrics = (await (await client.get("/metrics")).read()).decode()
    assert 'taskgate_pii_threads_set_aside_total{lane="small"}' in metrics
    assert step.small_pool.set_aside <= step.params.max_stalled_threads


async def test_a_stall_beyond_the_bound_is_refused_at_once_and_holds_no_more_threads(
    proxy: Any, scripted: tuple[Scripted, str]
) -> None:
    upstream, url = scripted
    client = await proxy(pii_config(url, {"backend": "patterns", "max_stalled_threads": 1}))
    _step, stall = stalled_step(client, hold_s=30.0)
    stall.until = time.monotonic() + 30.0
    traffic = Traffic(client)
    try:
        first = [asyncio.create_task(traffic.ask()) for _ in range(2)]  # both stall: one is set aside
        await asyncio.sleep(3.0)  # the second has been stuck for about 2 s: past stall_s, with room for a late timer
        started = time.monotonic()
        status, text = await traffic.ask()
        took = time.monotonic() - started
        threads = [t for t in threading.enumerate() if t.name.startswith("taskgate-pii-pii-small")]
    finally:
        stall.release.set()
    await asyncio.gather(*first)
    assert status == 503
    assert "pii_unavailable" in text
    assert took < 0.5, f"the refusal took {took:.2f} s: it waited for a thread that could not come"
    assert len(threads) <= 2  # the lane's one worker and the one set aside
    record = client.app[GATEWAY].evidence.records()[-1]
    assert "the analyzer is stalled" in record["error"]["reason"]
    assert upstream.bodies == []


async def test_work_queued_for_a_request_that_gave_up_never_runs() -> None:
    lane = Lane("test-lane", threads=1, stall_s=60.0, max_stalled=0)
    gate = threading.Event()
    ran: list[str] = []

    def job(name: str, wait: bool) -> Any:
        def run(ticket: Ticket) -> None:
            ran.append(name)
            if wait:
                gate.wait(5)

        return run

    busy = lane.submit(job("busy", True), time.monotonic() + 5)
    late = lane.submit(job("late", False), time.monotonic() + 0.1)  # its budget ends while it waits
    gone = lane.submit(job("gone", False), time.monotonic() + 5)
    gone.cancel()  # its request gave up
    await asyncio.sleep(0.2)
    gate.set()
    await busy
    after = lane.submit(job("after", False), time.monotonic() + 5)
    await after
    lane.shutdown(wait=True)
    assert ran == ["busy", "after"]
    assert late.done()
    assert isinstance(late.exception(), TimeoutError)
