"""A bounded property-based run over every surface: whatever a client sends, no 5xx, no hang, no traceback.

The long run, 10,000 requests and more per surface against a real `taskgate
serve`, is bench/fuzz.py; this one sends a few hundred per surface in CI, the
same ones every run.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from tests.authz.conftest import Keys
from tests.authz.mcp_servers import files_server, mail_server, serving
from tests.authz.policy import authz_config
from tests.authz.upstream import ToolCaller
from tests.fuzzing import SURFACES, examples, judge, requests, send

from .test_bad_input_mcp import initialized

EXAMPLES = 250


@pytest.fixture
async def gateway(proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[tuple[Any, Keys]]:
    """Every surface behind authentication, the classifier, authorization and the PII guard; short body timeout."""
    model = await aiohttp_server(ToolCaller().app())
    async with serving(mail_server()) as mail, serving(files_server()) as files:
        config = authz_config(keys, tmp_path, str(model.make_url("")).rstrip("/"))
        config["mcp"] = {"servers": [{"name": "mail", "url": mail}, {"name": "files", "url": files}]}
        config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}})
        config["pipelines"] = {"chat": ["authn", "classify", "authorize", "pii", "state", "route"],
                               "mcp": ["authn", "authorize", "pii"]}  # fmt: skip
        config["server"] = {"body_timeout_s": 0.5, "max_body_bytes": 1 << 20}
        client = await proxy(config)
        yield client, keys
        await client.close()


@pytest.mark.timeout(240)
@pytest.mark.parametrize("surface", list(SURFACES))
async def test_no_request_gets_a_5xx_a_hang_or_a_traceback(
    gateway: tuple[Any, Keys], surface: str, caplog: pytest.LogCaptureFixture
) -> None:
    client, keys = gateway
    session = (await initialized(client, keys))["Mcp-Session-Id"] if surface == "mcp" else None
    drawn = examples(requests(surface, keys.token(roles=[]), session), EXAMPLES)
    problems = []
    with capture_logs() as events, caplog.at_level(logging.ERROR):
        for request in drawn:
            status, body, seconds = await send(client.server.host, client.server.port, request)
            verdict = judge(request, status, body, seconds)
            if verdict.problems:
                problems.append((verdict.problems, status, body[:200], request))
    assert len(drawn) >= EXAMPLES * 0.9
    assert problems == [], problems[:3]
    crashes = [e for e in events if e.get("log_level") in ("error", "critical") or "exc_info" in e]
    assert crashes == [], crashes[:3]
    assert [r.getMessage() for r in caplog.records] == []
    assert (await client.get("/healthz")).status == 200
