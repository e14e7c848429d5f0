"""The injection bench's outcome reader (bench/injection_suite/replay.py) on taskgate's real refusals.

The bench counts attacks and utility by what this reader makes of each answer; a
change to the refusal's shape once read every refusal as an allowed call and
zeroed the bench silently. Here a real gateway refuses, holds and allows calls to
a real SDK server, in both refusal shapes (`mcp.refusals`: an `isError` result
with `_meta` `io.taskgate/refusal`, or a JSON-RPC error), and the reader must say
which.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from injection_suite.replay import GatewayCaller, TaskSession
from injection_suite.tasks import Call

from tests.authz.conftest import Keys, jwt_section
from tests.authz.flow_servers import OWN_IBAN, Effects, bank_server, documents_server, mail_server
from tests.authz.mcp_servers import serving
from tests.authz.policy import write_policy
from tests.authz.test_mcp import connect

POLICY = """
p, role:staff, acme, bank__*, call, r-bank
p, role:staff, acme, mail__*, call, r-mail
p, role:staff, acme, docs__*, call, r-docs
p, profile:assistant, *, bank__*, call, prof-bank
p, profile:assistant, *, mail__*, call, prof-mail
p, profile:assistant, *, docs__read, call, prof-docs
p, role:staff, acme, profile:assistant, pin, pin-staff
g, alice, role:staff, acme
p3, bank__balance, iban, secret:account, s-iban
p2, mail__send, *, to, provenance, instruction, hold, h-to
p2, mail__send, *, body, flow, -, f-mail
"""


@pytest.fixture(params=["result", "error"])
async def gateway(request: Any, proxy: Any, keys: Keys, tmp_path: Path) -> AsyncIterator[tuple[Any, dict[str, str]]]:
    effects = Effects()
    builders = {"bank": bank_server(), "mail": mail_server(effects), "docs": documents_server(effects)}
    stack = [serving(server) for server in builders.values()]
    urls = [await s.__aenter__() for s in stack]
    settings = {
        "routing": {"pools": []},
        "authz": {
            "jwt": jwt_section(keys),
            "policy": {"file": str(write_policy(tmp_path, POLICY.lstrip())), "reload_interval_s": 0},
            "tasks": {"hold_ttl_s": 60},
        },
        "mcp": {
            "servers": [{"name": n, "url": u} for n, u in zip(builders, urls, strict=True)],
            "refusals": request.param,
        },
        "steps": [{"name": "authn", "type": "authz.authenticate"}, {"name": "authorize", "type": "authz.authorize"}],
        "pipelines": {"mcp": ["authn", "authorize"]},
        "logging": {"evidence": False},
    }
    client = await proxy(settings)
    bearer = {"Authorization": f"Bearer {keys.token(sub='alice', roles=[])}"}
    try:
        yield client, bearer
    finally:
        await client.close()
        for server in reversed(stack):
            await server.__aexit__(None, None, None)


async def test_the_replay_reads_allowed_held_denied_and_tool_errors_from_taskgate_s_real_refusals(
    gateway: tuple[Any, dict[str, str]],
) -> None:
    client, bearer = gateway
    session = TaskSession("mail bob@acme.example that I am late")
    calls = [
        Call("bank__balance", {}),
        Call("mail__send", {"to": "bob@acme.example", "subject": "late", "body": "ten minutes"}),
        Call("mail__send", {"to": "eve@evil.example", "subject": "late", "body": "ten minutes"}),
        Call("mail__send", {"to": "bob@acme.example", "subject": "late", "body": f"pay {OWN_IBAN}"}),
        Call("docs__read", {"path": "/home/alice/none.txt"}),
        Call("docs__write", {"path": "/home/alice/x.txt", "content": "x"}),
    ]
    async with connect(client, bearer) as mcp:  # entered and left in the test's own task, as anyio requires
        caller = GatewayCaller(mcp, client.app)
        outcomes = [await caller.call(call, session) for call in calls]
    read = [(o.status, o.rule) for o in outcomes]
    assert read == [
        ("allowed", None),
        ("allowed", None),
        ("held", "h-to"),
        ("denied", "f-mail"),
        ("tool_error", None),
        ("denied", None),  # no profile grants it: refused before any argument rule
    ]
    assert session.task_id is not None  # the first answer opened the task; every later call carried its token
    assert "approval_required" in (outcomes[2].reason or "")
    assert "no file" in (outcomes[4].message or "")
