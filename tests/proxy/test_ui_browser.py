"""The dashboard in a real headless Chromium: it loads cleanly, shows a request just made, and its parallel steps;
with replicas sharing a fleet stream, one replica's page shows the requests every replica served, each named."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, async_playwright

from taskgate.gateway.gateway import GATEWAY
from tests.authz.conftest import Keys

from ..conftest import ProxyFactory, RedisServer, StartEngines
from .dashboard import batch_config, chat, dashboard_config, overlapping, submit


@pytest.fixture
async def page() -> AsyncIterator[Page]:
    """A page of the system's Chromium (Debian's `chromium`; Playwright downloads no browser of its own)."""
    binary = shutil.which("chromium")
    if binary is None:
        pytest.fail("chromium is not installed; `make test` installs it with apt-get")
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=binary, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield await browser.new_page(viewport={"width": 1400, "height": 1000})
        finally:
            await browser.close()


def box(rect: dict[str, float]) -> tuple[float, float]:
    return rect["x"], rect["x"] + rect["width"]


async def signed_in(page: Page, url: str, token: str) -> list[str]:
    """The page at `url`, signed in with `token`; the console errors and page errors it will have had."""
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    await page.goto(url)
    await page.wait_for_selector("#signin:not([hidden])")
    await page.fill("#token", token)
    await page.click("#signin button[type=submit]")
    return problems


async def test_the_dashboard_shows_a_request_made_a_moment_ago_with_its_parallel_steps_overlapping(
    page: Page, proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url, poll_interval_s=0.5))
    sent = await client.post("/v1/chat/completions", json=chat(), headers={"Authorization": f"Bearer {keys.token()}"})
    assert sent.status == 200
    rid = sent.headers["x-taskgate-request-id"]
    record = client.app[GATEWAY].evidence.find(rid)
    assert record is not None
    first, second = overlapping(record["steps"])  # what the evidence says ran at once
    steps = {s["step"]: s for s in record["steps"]}
    assert steps["route"]["start_ms"] >= steps["pii"]["start_ms"] + steps["pii"]["duration_ms"]  # and one after

    problems = await signed_in(page, str(client.make_url("/ui")), keys.token(roles=["admin"]))
    row = page.locator(f"#records li[data-id='{rid}']")
    await row.wait_for()
    assert "/v1/chat/completions" in await row.inner_text()
    await row.click()

    bars: dict[str, Any] = {}
    for name in steps:
        bar = page.locator(f"#detail .bar[data-kind='step'][data-name='{name}']")
        bars[name] = await bar.evaluate("node => node.getBoundingClientRect().toJSON()")
    (a0, a1), (b0, b1) = box(bars[first]), box(bars[second])
    assert max(a0, b0) < min(a1, b1), f"{first} {bars[first]} and {second} {bars[second]} do not overlap on the page"
    assert box(bars["route"])[0] >= box(bars["pii"])[1] - 1, "route ran after pii: its bar starts where pii's ends"
    assert await page.locator("#endpoints [data-endpoint='up']").is_visible()
    assert await page.locator("#live.on").count() == 1
    assert problems == []


async def test_the_dashboard_shows_a_batch_job_with_its_progress_class_pools_and_cost(
    page: Page, proxy: ProxyFactory, engines: StartEngines, keys: Keys, tmp_path: Path
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(batch_config(keys, url, tmp_path))
    done = await submit(client, keys.token(), 3)
    assert done.status == "completed"
    cost = (done.model_extra or {})["taskgate"]["cost"]

    problems = await signed_in(page, str(client.make_url("/ui")), keys.token(roles=["admin"]))
    row = page.locator(f"#batches tr[data-id='{done.id}']")
    await row.wait_for()
    cells = await row.locator("td").all_inner_texts()
    head = await page.locator("#batches th").all_inner_texts()
    shown = dict(zip(head, cells, strict=True))
    assert shown["job"].startswith(done.id.removeprefix("batch_")[:8])
    assert shown["status"] == "completed"
    assert shown["progress"] == "3 of 3"
    assert shown["queued · running"] == "0 · 0"
    assert shown["class"] == "background"
    assert shown["pools"] == "default 3"
    assert float(shown["cost"]) == pytest.approx(cost, rel=1e-2)  # three significant digits
    bar = row.locator("progress")
    assert (await bar.get_attribute("value"), await bar.get_attribute("max")) == ("3", "3")
    assert await page.locator("#held").inner_text() == "1"
    assert await page.locator("#nojobs").is_hidden()
    assert problems == []


async def test_the_batch_section_is_absent_when_the_gateway_runs_no_batch_room(
    page: Page, proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url, poll_interval_s=0.5) | {"batch": {"enabled": False}})
    problems = await signed_in(page, str(client.make_url("/ui")), keys.token(roles=["admin"]))
    await page.wait_for_selector("#live.on")
    assert await page.locator("#jobs").is_hidden()
    assert problems == []


async def test_the_dashboard_shows_requests_served_by_two_replicas_each_named(
    redis_server: RedisServer, page: Page, proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    fleet = {"store": "redis", "redis_url": redis_server.url}
    replicas = [await proxy(dashboard_config(keys, url, poll_interval_s=0.5, fleet=fleet | {"replica": name}))
                for name in ("r0", "r1")]  # fmt: skip
    served: dict[str, str] = {}
    for name, client in zip(("r0", "r1"), replicas, strict=True):
        sent = await client.post(
            "/v1/chat/completions", json=chat(), headers={"Authorization": f"Bearer {keys.token()}"}
        )
        assert sent.status == 200
        served[sent.headers["x-taskgate-request-id"]] = name

    problems = await signed_in(page, str(replicas[0].make_url("/ui")), keys.token(roles=["admin"]))
    for rid, name in served.items():  # the page of one replica shows the other's request too, and who served each
        row = page.locator(f"#records li[data-id='{rid}']")
        await row.wait_for()
        assert await row.locator(".tag.replica").inner_text() == f"@ {name}"
    other = next(rid for rid, name in served.items() if name == "r1")
    await page.locator(f"#records li[data-id='{other}']").click()
    facts = dict(
        zip(await page.locator("#detail dl.facts dt").all_inner_texts(),
            await page.locator("#detail dl.facts dd").all_inner_texts(), strict=False)
    )  # fmt: skip
    assert facts["Served by"] == "r1"
    await page.fill("#filter", "r1")
    assert await page.locator("#records li").count() == 1
    assert problems == []
