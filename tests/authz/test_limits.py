"""Rate limits and budgets per tenant and per task (authz.limits): shared by replicas through a real Redis,
refused with 429 and Retry-After, and closed when the store cannot answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from taskgate.gateway.errors import ConfigError
from taskgate.gateway.gateway import GATEWAY

from ..conftest import ProxyFactory, RedisServer, StartEngines
from .conftest import Keys, jwt_section
from .policy import authz_config
from .test_tasks import ask

ASK = {"model": "m", "messages": [{"role": "user", "content": "Name a prime."}], "max_tokens": 40}


def limited(keys: Keys, engine: str, limits: dict[str, Any]) -> dict[str, Any]:
    pool = {"name": "gpu", "endpoints": [{"name": "e1", "url": engine}], "models": [{"name": "m"}]}
    return {
        "routing": {"pools": [pool]},
        "authz": {"jwt": jwt_section(keys)},
        "steps": [{"name": "authn", "type": "authz.authenticate"}, {"name": "limits", "type": "authz.limits",
                                                                    "params": limits}],
        "pipelines": {"chat": ["authn", "limits", "state", "route"]},
        "logging": {"evidence": False},
    }  # fmt: skip


def caller(keys: Keys, tenant: str = "acme") -> dict[str, str]:
    return {"Authorization": f"Bearer {keys.token(tenant=tenant)}"}


async def engine_url(engines: StartEngines) -> str:
    (_, url, _), *_ = await engines("e1")
    return url


def last(client: TestClient[Any, Any]) -> dict[str, Any]:
    record: dict[str, Any] = client.app[GATEWAY].evidence.records()[-1]
    return record


async def drained(*clients: TestClient[Any, Any]) -> None:
    """Charges are written beside the answer: wait for them, as the next request of a real client would not."""
    for client in clients:
        await client.app[GATEWAY].drain()


async def settled(client: TestClient[Any, Any], count: int) -> dict[str, Any]:
    """The last record once `count` are kept: a stream's record is written just after its last byte went out."""
    for _ in range(100):
        if len(client.app[GATEWAY].evidence.records()) >= count:
            break
        await asyncio.sleep(0.01)
    return last(client)


async def test_a_tenant_budget_spent_across_two_replicas_is_refused_with_429_on_either(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, redis_server: RedisServer
) -> None:
    url = await engine_url(engines)
    limits = {"store": "redis", "redis_url": redis_server.url, "tenants": {"*": {"tokens": 80, "window_s": 3600}}}
    a, b = await proxy(limited(keys, url, limits)), await proxy(limited(keys, url, limits))
    first = await a.post("/v1/chat/completions", json=ASK, headers=caller(keys))
    assert first.status == 200
    await drained(a)
    spent = last(a)["usage"]["prompt_tokens"] + 40
    assert last(a)["decisions"]["limits"]["charged"]["tokens"] == spent
    streamed = await b.post("/v1/chat/completions", json=ASK | {"stream": True}, headers=caller(keys))
    assert streamed.status == 200
    assert b"usage" not in await streamed.read()
    assert (await settled(b, 1))["decisions"]["limits"]["spent"] == [{"tokens": spent, "cost": 0.0}]
    await drained(b)
    for replica in (a, b):
        refused = await replica.post("/v1/chat/completions", json=ASK, headers=caller(keys))
        assert refused.status == 429
        error = (await refused.json())["error"]
        assert error["code"] == "budget_exceeded"
        assert "tenant 'acme'" in error["message"]
        assert "80 tokens per 3600 s" in error["message"]
        assert 1 <= int(refused.headers["Retry-After"]) <= 3600
        assert last(replica)["error"]["limits"] == {
            "scope": "tenant", "owner": "acme", "limit": "tokens", "retry_s": int(refused.headers["Retry-After"])
        }  # fmt: skip
    other = await b.post("/v1/chat/completions", json=ASK, headers=caller(keys, tenant="globex"))
    assert other.status == 200  # a budget is the tenant's own
    metrics = (await (await a.get("/metrics")).read()).decode()
    assert 'taskgate_limit_refusals_total{limit="tokens",scope="tenant"} 1.0' in metrics
    assert 'taskgate_tokens_total{kind="completion",model="m",pool="gpu",tenant="acme"} 40.0' in metrics


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_a_rate_limit_refuses_past_its_burst_and_admits_again_once_the_rate_allows(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, redis_server: RedisServer, store: str
) -> None:
    limits = {"store": store, "redis_url": redis_server.url, "tenants": {"acme": {"requests_per_s": 4, "burst": 2}}}
    client = await proxy(limited(keys, await engine_url(engines), limits))
    statuses = [(await client.post("/v1/chat/completions", json=ASK, headers=caller(keys))).status for _ in range(2)]
    refused = await client.post("/v1/chat/completions", json=ASK, headers=caller(keys))
    assert statuses == [200, 200]
    assert refused.status == 429
    assert (await refused.json())["error"]["code"] == "rate_limit_exceeded"
    assert refused.headers["Retry-After"] == "1"
    unlimited = await client.post("/v1/chat/completions", json=ASK, headers=caller(keys, tenant="globex"))
    assert unlimited.status == 200  # no limit names globex and there is no "*"
    await asyncio.sleep(0.3)  # one request's worth at 4 per second
    assert (await client.post("/v1/chat/completions", json=ASK, headers=caller(keys))).status == 200


def tasked(keys: Keys, tmp_path: Path, engine: str, limits: dict[str, Any]) -> dict[str, Any]:
    config = authz_config(keys, tmp_path, engine)
    config["steps"].append({"name": "limits", "type": "authz.limits", "params": limits})
    config["pipelines"]["chat"] = ["authn", "classify", "authorize", "limits", "state", "route"]
    return config


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_a_request_refused_by_one_limit_uses_up_no_other(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, tmp_path: Path, redis_server: RedisServer, store: str
) -> None:
    # the tenant's rate is checked first and admits; the task's spent budget then refuses: the rate stays unused
    limits = {"store": store, "redis_url": redis_server.url, "tenants": {"*": {"requests_per_s": 1, "burst": 1}},
              "tasks": {"tokens": 30}}  # fmt: skip
    client = await proxy(tasked(keys, tmp_path, await engine_url(engines), limits))
    opened = await client.post(
        "/v1/chat/completions", json=ask("summarise my email", max_tokens=30), headers=caller(keys)
    )
    assert opened.status == 200
    await drained(client)
    await asyncio.sleep(1.05)  # the rate admits one again
    task = {"x-taskgate-task-token": opened.headers["x-taskgate-task-token"]}
    for _ in range(3):
        spent = await client.post("/v1/chat/completions", json=ask("more"), headers=caller(keys) | task)
        assert (await spent.json())["error"]["code"] == "budget_exceeded"
    fresh = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=caller(keys))
    assert fresh.status == 200  # the refusals took nothing of the tenant's rate


async def test_with_the_store_away_limits_fail_closed_unless_the_operator_allows(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, redis_server: RedisServer
) -> None:
    url = await engine_url(engines)
    limits = {"store": "redis", "redis_url": redis_server.url, "tenants": {"*": {"tokens": 1000}}}
    closed = await proxy(limited(keys, url, limits))
    opened = await proxy(limited(keys, url, limits | {"on_store_error": "allow"}))
    redis_server.stop()
    refused = await closed.post("/v1/chat/completions", json=ASK, headers=caller(keys))
    assert refused.status == 503
    assert (await refused.json())["error"]["code"] == "limits_unavailable"
    assert refused.headers["Retry-After"] == "1"
    assert "redis" in last(closed)["error"]["limits"]["store"]
    allowed = await opened.post("/v1/chat/completions", json=ASK, headers=caller(keys))
    assert allowed.status == 200
    await drained(opened)
    decided = last(opened)["decisions"]["limits"]
    assert "redis" in decided["unchecked"]
    assert decided["charged"]["tokens"] > 0
    metrics = (await (await opened.get("/metrics")).read()).decode()
    assert "taskgate_limit_charge_failures_total 1.0" in metrics  # the charge that could not land is counted


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_a_task_budget_stops_that_task_and_no_other(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, tmp_path: Path, redis_server: RedisServer, store: str
) -> None:
    limits = {"store": store, "redis_url": redis_server.url, "tasks": {"tokens": 30}}
    client = await proxy(tasked(keys, tmp_path, await engine_url(engines), limits))
    headers = caller(keys)
    opened = await client.post("/v1/chat/completions", json=ask("summarise my email", max_tokens=30), headers=headers)
    assert opened.status == 200
    await drained(client)
    task = {"x-taskgate-task-token": opened.headers["x-taskgate-task-token"]}
    again = await client.post("/v1/chat/completions", json=ask("and the next"), headers=headers | task)
    assert again.status == 429
    error = (await again.json())["error"]
    assert error["code"] == "budget_exceeded"
    assert error["message"].startswith("task '")
    fresh = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=headers)
    assert fresh.status == 200


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_a_cost_budget_counts_the_pools_price(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, redis_server: RedisServer, store: str
) -> None:
    config = limited(keys, await engine_url(engines), {"store": store, "redis_url": redis_server.url,
                                                      "tenants": {"*": {"cost": 0.001}}})  # fmt: skip
    config["routing"]["pools"][0]["price"] = {"input_per_mtok": 10.0, "output_per_mtok": 20.0}  # 40 tokens: 0.0008
    client = await proxy(config)
    statuses = []
    for _ in range(3):
        statuses.append((await client.post("/v1/chat/completions", json=ASK, headers=caller(keys))).status)
        await drained(client)
    assert statuses == [200, 200, 429]  # 0.0008 and more spent, then 0.0016 > 0.001
    assert last(client)["error"]["limits"]["limit"] == "cost"


def test_a_limit_that_limits_nothing_is_a_config_error_naming_its_key(registry: Any) -> None:
    from taskgate.gateway.config import parse_config
    from taskgate.proxy.app import create_app

    raw = {
        "steps": [{"name": "limits", "type": "authz.limits", "params": {"tenants": {"acme": {"window_s": 60}}}}],
        "pipelines": {"chat": ["limits", "state", "route"]},
    }
    with pytest.raises(ConfigError) as raised:
        create_app(parse_config(raw, "gate.yaml", registry), registry)
    assert "gate.yaml" in str(raised.value)
    assert "steps[0].params.tenants.acme" in str(raised.value)
    assert "requests_per_s, tokens or cost" in str(raised.value)
