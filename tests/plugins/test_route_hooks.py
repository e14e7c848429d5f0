"""Rooms serve their own routes and take over requests through the registry; removing a plugin removes them."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import web

from taskgate import agent, authz, guards, routing
from taskgate.errors import ConfigError
from taskgate.gateway.config import parse_config
from taskgate.gateway.gateway import GATEWAY
from taskgate.plugins import EVIDENCE, FAILURES, FRONT, Evidence, Problem, Registry, RequestContext
from tests.authz.conftest import Keys, key_pairs, keys
from tests.authz.policy import authz_config
from tests.conftest import ProxyFactory, upstreams

__all__ = ["key_pairs", "keys"]


class QuotaSpent(Exception):
    """A plugin's own refusal."""


class MonthlyQuotaSpent(QuotaSpent):
    """Explained by its parent's entry."""


@FAILURES.explains(QuotaSpent)
def _quota(exc: QuotaSpent, evidence: Evidence) -> Problem:
    return Problem(429, "quota_spent", str(exc), "rate_limit_error", headers={"Retry-After": "60"})


async def hello(request: web.Request) -> web.Response:
    """Who calls, as the plans' authenticate step says; a spent quota through the failure table."""
    request[EVIDENCE].surface = "hello"
    caller = await request.app[FRONT].authenticate(request, request[EVIDENCE])
    if request.query.get("spent"):
        raise MonthlyQuotaSpent("this month's quota is spent")
    return web.json_response({"subject": caller.subject if caller else None})


async def shout(request: web.Request, context: RequestContext) -> web.Response:
    return web.json_response({"shouted": str(context.json()["shout"]).upper()})


def routes(app: web.Application) -> None:
    app.router.add_get("/v1/hello", hello)


def vendor(registry: Registry) -> None:
    registry.add_routes(routes)
    registry.add_takeover("chat", "shout", shout)


def plugins(*registers: Any) -> Registry:
    registry = Registry()
    for name, register in registers:
        with registry.loading(name):
            register(registry)
    return registry


def bearer(keys: Keys) -> dict[str, str]:
    return {"Authorization": f"Bearer {keys.token(roles=[])}"}


BUILT_INS = (("routing", routing.register), ("guards", guards.register), ("authz", authz.register))


async def test_a_plugin_route_sees_the_front_and_its_failures_render_from_the_table(
    proxy: ProxyFactory, keys: Keys, tmp_path: Any
) -> None:
    registry = plugins(*BUILT_INS, ("agent", agent.register), ("vendor", vendor))
    client = await proxy(authz_config(keys, tmp_path, "http://127.0.0.1:9"), registry)
    ok = await client.get("/v1/hello", headers=bearer(keys))
    assert ok.status == 200
    assert (await ok.json()) == {"subject": "alice"}
    record = client.app[GATEWAY].evidence.find(ok.headers["x-taskgate-request-id"])
    assert record is not None
    assert record["surface"] == "hello"
    assert [s["step"] for s in record["steps"]] == ["authn"]  # identified by the plans' authenticate step
    spent = await client.get("/v1/hello?spent=1", headers=bearer(keys))
    assert spent.status == 429
    assert spent.headers["Retry-After"] == "60"
    assert (await spent.json())["error"] == {
        "message": "this month's quota is spent", "type": "rate_limit_error", "param": None, "code": "quota_spent",
    }  # fmt: skip
    refused = await client.get("/v1/hello")  # no token: the authenticate step refuses, the table renders it
    assert refused.status == 401
    taken = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "x"}], "shout": "hi"}
    )
    assert (await taken.json()) == {"shouted": "HI"}


async def test_without_the_agent_plugin_its_routes_and_takeover_are_gone(proxy: ProxyFactory, engines: Any) -> None:
    [(_, url, _)] = await engines("e1")
    client = await proxy(upstreams(url, "m"), plugins(*BUILT_INS))
    assert (await client.post("/v1/tasks", json={"purpose": "p", "steps": []})).status == 404
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tool_loop": {"servers": ["mail"]}}
    answer = await client.post("/v1/chat/completions", json=body)  # no takeover: an ordinary chat request
    assert answer.status == 200
    with_agent = await proxy(upstreams(url, "m"), plugins(*BUILT_INS, ("agent", agent.register)))
    assert (await with_agent.post("/v1/chat/completions", json=body)).status == 400  # the loop needs MCP servers


def test_a_section_of_a_plugin_that_is_not_installed_is_named_in_the_error() -> None:
    with pytest.raises(ConfigError, match=r"workflows: unknown section \(known sections: .*routing"):
        parse_config({"workflows": {"max_steps": 4}}, "<test>", plugins(*BUILT_INS))


async def test_the_task_token_routes_are_the_authz_plugins(proxy: ProxyFactory, keys: Keys, tmp_path: Any) -> None:
    config = authz_config(keys, tmp_path, "http://127.0.0.1:9")
    served = await proxy(config, plugins(*BUILT_INS))
    exchange = await served.post(
        "/v1/tasks/token", json={"subject_token": "x", "tools": ["a__b"]}, headers=bearer(keys)
    )
    assert exchange.status == 401  # served (authz's own check of the token), not 404
    bare = {k: v for k, v in config.items() if k != "authz"} | {"steps": [], "pipelines": {}}
    without = await proxy(bare, plugins(("routing", routing.register)))
    assert (await without.post("/v1/tasks/token", json={})).status == 404
