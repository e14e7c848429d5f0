"""The dashboard in a real headless Chromium: it loads cleanly, shows a request just made, and its parallel steps."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page, async_playwright

from taskgate.proxy.state import GATEWAY
from tests.authz.conftest import Keys

from ..conftest import ProxyFactory, StartEngines
from .dashboard import chat, dashboard_config, overlapping


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

    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    await page.goto(str(client.make_url("/ui")))
    await page.wait_for_selector("#signin:not([hidden])")
    await page.fill("#token", keys.token(roles=["admin"]))
    await page.click("#signin button[type=submit]")
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
