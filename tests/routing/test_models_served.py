"""Endpoints get only the models they serve: their own /v1/models, a 404 before the first byte, and /readyz."""

from __future__ import annotations

import asyncio
import json
import sys
from asyncio.subprocess import PIPE
from typing import Any

from aiohttp import web

from taskgate.routing.cluster import ClusterState
from taskgate.routing.config import RoutingConfig

from ..conftest import ProxyFactory
from .conftest import StartEngines, chat, cluster_of, pool, record_of, routing, until

CALLS = web.AppKey("calls", list)


def unloaded_engine() -> web.Application:
    """An engine whose listing still names model m but that answers 404 model_not_found for it (just unloaded)."""
    app = web.Application()
    calls: list[str] = []
    app[CALLS] = calls

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "m", "object": "model"}]})

    async def completions(request: web.Request) -> web.Response:
        calls.append("chat")
        error = {"message": "The model `m` does not exist.", "type": "NotFoundError", "code": "model_not_found"}
        return web.json_response({"error": error}, status=404)

    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", completions)
    return app


async def test_an_endpoint_whose_models_list_lacks_the_model_gets_none_of_its_requests(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    wrong = await engines("e0", models=("other",))
    right = await engines("e1", "e2")
    client = await proxy(routing(pool("p", [*wrong, *right]), state={"scrape_interval_s": 0.05}))
    cluster = cluster_of(client)
    await until(lambda: len(cluster.served) == 3)
    placed = []
    for i in range(6):
        resp = await client.post("/v1/chat/completions", json=chat(f"conversation {i} " * 40))
        assert resp.status == 200
        placed.append(resp.headers["x-taskgate-endpoint"])
        assert resp.headers["x-taskgate-fallbacks"] == "0"
    assert "e0" not in placed
    assert set(placed) == {"e1", "e2"}
    record = record_of(client, resp)
    excluded = record["decisions"]["placement"]["refused_endpoints"]
    assert excluded["e0"] == "it does not serve the model (its /v1/models, or a 404)"


async def test_a_404_before_the_first_byte_falls_back_and_takes_the_endpoint_off_the_model(
    proxy: ProxyFactory, engines: StartEngines, aiohttp_server: Any
) -> None:
    unloaded = await aiohttp_server(unloaded_engine())
    good = await engines("e1")
    endpoints = [("e0", str(unloaded.make_url("")).rstrip("/"), unloaded), *good]
    client = await proxy(routing(pool("p", endpoints), state={"scrape_interval_s": 0.05, "models_interval_s": 3600}))
    cluster = cluster_of(client)
    await until(lambda: len(cluster.served) == 2)  # both list m: nothing filtered yet
    answers = []
    for name in ("A", "B", "C", "D"):
        resp = await client.post("/v1/chat/completions", json=chat(f"conversation {name} " * 40))
        answers.append(resp)
        assert resp.status == 200, await resp.text()
        assert resp.headers["x-taskgate-endpoint"] == "e1"
    tried = [[a["endpoint"] for a in record_of(client, r)["dispatch"]["attempts"]] for r in answers]
    assert tried[0] == ["e0", "e1"] or tried[1] == ["e0", "e1"], tried  # one new conversation went there first
    first = next(r for r, t in zip(answers, tried, strict=True) if t[0] == "e0")
    assert first.headers["x-taskgate-fallbacks"] == "1"
    assert record_of(client, first)["dispatch"]["attempts"][0]["status"] == 404
    assert unloaded.app[CALLS] == ["chat"], "after its 404 it gets no more requests for m"
    assert all(t == ["e1"] for t in tried[2:])


async def test_readyz_fails_while_a_configured_model_has_no_endpoint_that_serves_it(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    wrong = await engines("e0", "e1", models=("other",))
    client = await proxy(routing(pool("p", wrong), state={"scrape_interval_s": 0.05}))
    cluster = cluster_of(client)
    await until(lambda: len(cluster.served) == 2)
    resp = await client.get("/readyz")
    body = await resp.json()
    assert resp.status == 503
    assert body["status"] == "not_ready"
    assert "pool(s) p" in body["problems"]["model m"]
    cluster.served = {}  # the engines could no longer say: given the benefit of the doubt again
    resp = await client.get("/readyz")
    assert resp.status == 200


async def test_check_probe_names_an_endpoint_that_does_not_serve_its_model(
    engines: StartEngines, tmp_path: Any
) -> None:
    wrong = await engines("e0", models=("other",))
    right = await engines("e1")
    endpoints = [{"name": n, "url": url} for n, url, _ in [*wrong, *right]]
    config = tmp_path / "taskgate.yaml"
    config.write_text(
        json.dumps({"routing": {"pools": [{"name": "p", "endpoints": endpoints, "models": [{"name": "m"}]}]}})
    )
    command = [sys.executable, "-m", "taskgate", "check", "--probe", str(config)]
    run = await asyncio.create_subprocess_exec(*command, stdout=PIPE, stderr=PIPE)  # the engines serve meanwhile
    out, err = await run.communicate()
    assert run.returncode == 1, err.decode()
    report = out.decode()
    assert f"p/e0 {wrong[0][1]}: does not serve m (it lists: other)" in report
    assert f"p/e1 {right[0][1]}: ok" in report


async def test_an_endpoint_the_last_scrape_could_not_reach_is_no_fallback(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    near = await engines("e0", "e1")
    far = await engines("e2")
    raw = routing(pool("p", near), pool("q", far), state={"scrape_interval_s": 0.05})
    client = await proxy(raw)
    cluster = cluster_of(client)
    await far[0][2].close()  # e2 goes away
    await until(lambda: "e2" in cluster.loads and not cluster.loads["e2"].healthy)
    resp = await client.post("/v1/chat/completions", json=chat("a question " * 30))
    assert resp.status == 200
    placement = record_of(client, resp)["decisions"]["placement"]
    assert "e2" not in placement["fallbacks"]
    assert placement["predicted_ttft_ms"]["q"] is None  # a pool with nothing reachable: no number, not 1e12


def test_a_404_for_one_model_keeps_the_endpoint_for_the_others() -> None:
    endpoint = {"name": "e", "url": "http://127.0.0.1:9"}
    pool = {"name": "p", "endpoints": [endpoint], "models": [{"name": "m"}, {"name": "n"}]}
    cluster = ClusterState(RoutingConfig.model_validate({"pools": [pool]}))
    cluster.not_serving("e", "m")  # it has not listed its models yet
    assert not cluster.serves("e", "m")
    assert cluster.serves("e", "n")
