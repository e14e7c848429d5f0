"""The dashboard's API: only for the admin role, failing closed, quiet about itself; its page served to anyone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from taskgate.dashboard.history import FIELDS, History
from taskgate.dashboard.view import view
from taskgate.gateway.gateway import GATEWAY
from tests.authz.conftest import Keys

from ..conftest import ProxyFactory, RedisServer, StartEngines, closed_port
from .dashboard import PROMPT, batch_config, chat, dashboard_config, submit
from .test_errors import openai_error


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_the_api_asks_for_a_token_and_the_admin_role(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url))
    alice = keys.token()
    sent = await client.post("/v1/chat/completions", json=chat(), headers=bearer(alice))
    assert sent.status == 200
    for path in ("/ui/api/requests", "/ui/api/endpoints", "/ui/api/batches"):
        anonymous = await client.get(path)
        await openai_error(anonymous, 401, "token_missing")
        assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")
        refused = await openai_error(await client.get(path, headers=bearer(alice)), 403, "ui_role_required")
        assert "'admin'" in refused["message"]
        forged = keys.token(alg="HS256", kid="hs-1", key="a-secret-nobody-configured-0123456789", roles=["admin"])
        await openai_error(await client.get(path, headers=bearer(forged)), 401, "token_bad_signature")
    admitted = await client.get("/ui/api/requests", headers=bearer(keys.token(roles=["admin"])))
    assert admitted.status == 200
    records = (await admitted.json())["records"]
    assert [r["id"] for r in records if r["path"] == "/v1/chat/completions"] == [sent.headers["x-taskgate-request-id"]]
    assert PROMPT[:20] not in await admitted.text()  # records never held the prompt, and the view adds nothing


async def test_the_dashboards_refusals_are_kept_as_evidence_and_its_own_polls_are_not(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url))
    admin = bearer(keys.token(roles=["admin"]))
    for _ in range(3):
        assert (await client.get("/ui/api/requests", headers=admin)).status == 200
        assert (await client.get("/ui/api/endpoints", headers=admin)).status == 200
        assert (await client.get("/ui/api/batches", headers=admin)).status == 200
        assert (await client.get("/ui")).status == 200
    refused = [await client.get(p, headers=bearer(keys.token())) for p in ("/ui/api/requests", "/ui/api/batches")]
    log = client.app[GATEWAY].evidence
    assert [r["request_id"] for r in log.records()] == [r.headers["x-taskgate-request-id"] for r in refused]
    assert {r["error"]["code"] for r in log.records()} == {"ui_role_required"}
    assert {r["surface"] for r in log.records()} == {"ui"}


async def test_a_gateway_that_authenticates_nobody_shows_nobody_its_data_unless_the_operator_says_so(
    proxy: ProxyFactory, engines: StartEngines
) -> None:
    [(_, url, _)] = await engines("up")
    closed = await proxy(dashboard_config(None, url))
    error = await openai_error(await closed.get("/ui/api/requests"), 403, "ui_unauthenticated")
    assert "ui.allow_anonymous" in error["message"]
    assert await (await closed.get("/ui/api/access")).json() == {"token": "required"}
    opened = await proxy(dashboard_config(None, url, allow_anonymous=True))
    assert await (await opened.get("/ui/api/access")).json() == {"token": "none"}  # the page asks for no token
    sent = await opened.post("/v1/chat/completions", json=chat())
    listed = await (await opened.get("/ui/api/requests")).json()
    assert sent.headers["x-taskgate-request-id"] in [r["id"] for r in listed["records"]]


async def test_each_poll_sends_only_what_is_new_since_its_cursor(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url, records=2))
    admin, alice = bearer(keys.token(roles=["admin"])), bearer(keys.token())
    ids = []
    for n in range(3):
        resp = await client.post("/v1/chat/completions", json=chat(f"request {n}"), headers=alice)
        ids.append(resp.headers["x-taskgate-request-id"])
    first = await (await client.get("/ui/api/requests", headers=admin)).json()
    assert [r["id"] for r in first["records"]] == ids[1:]  # the newest `ui.records`, oldest first
    assert (await (await client.get(f"/ui/api/requests?after={first['cursor']}", headers=admin)).json())[
        "records"
    ] == []
    later = await client.post("/v1/chat/completions", json=chat("one more"), headers=alice)
    new = await (await client.get(f"/ui/api/requests?after={first['cursor']}", headers=admin)).json()
    assert [r["id"] for r in new["records"]] == [later.headers["x-taskgate-request-id"]]
    for odd in ("-1", "²", "1e3", "9" * 19):
        bad = await client.get("/ui/api/requests", params={"after": odd}, headers=admin)
        assert (await openai_error(bad, 400, "invalid_cursor"))["param"] == "after"


async def test_replicas_sharing_a_fleet_stream_each_show_every_replicas_records_once_named(
    redis_server: RedisServer, proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    fleet = {"store": "redis", "redis_url": redis_server.url, "max_records": 100}
    first, second = [await proxy(dashboard_config(keys, url, fleet=fleet | {"replica": name})) for name in ("a", "b")]
    admin, alice = bearer(keys.token(roles=["admin"])), bearer(keys.token())

    async def shown(client: Any, after: str = "0") -> dict[str, Any]:
        answer: dict[str, Any] = await (await client.get(f"/ui/api/requests?after={after}", headers=admin)).json()
        return answer

    async def sent(client: Any, text: str) -> str:
        resp = await client.post("/v1/chat/completions", json=chat(text), headers=alice)
        assert resp.status == 200
        return str(resp.headers["x-taskgate-request-id"])

    made = [await sent(first, "one"), await sent(second, "two"), await sent(first, "three")]
    for _ in range(500):  # published right after each answer, by a writer of its own
        seen = await shown(second)
        if len(seen["records"]) == 3:
            break
        await asyncio.sleep(0.02)
    # in the order they were published: each replica's writer flushes on its own, so only the set is fixed
    assert sorted((r["id"], r["replica"]) for r in seen["records"]) == sorted(zip(made, "aba", strict=True))
    assert (await shown(first))["records"] == seen["records"]  # the same page from either replica
    assert (await shown(first, seen["cursor"]))["records"] == []  # the dashboard's own polls are not published
    later = await sent(second, "four")
    for _ in range(500):
        new = await shown(first, seen["cursor"])
        if new["records"]:
            break
        await asyncio.sleep(0.02)
    assert [(r["id"], r["replica"]) for r in new["records"]] == [(later, "b")]
    assert first.app[GATEWAY].evidence.find(made[0]) is not None  # each replica still keeps its own
    assert second.app[GATEWAY].evidence.find(made[0]) is None


async def test_with_the_fleet_stream_away_requests_are_answered_and_the_page_is_told_it_is_away(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    away = {"store": "redis", "redis_url": f"redis://127.0.0.1:{closed_port()}/0"}
    client = await proxy(dashboard_config(keys, url, fleet=away))
    sent = await client.post("/v1/chat/completions", json=chat(), headers=bearer(keys.token()))
    assert sent.status == 200  # publishing is off the answer's path
    assert client.app[GATEWAY].evidence.find(sent.headers["x-taskgate-request-id"]) is not None
    answer = await client.get("/ui/api/requests", headers=bearer(keys.token(roles=["admin"])))
    await openai_error(answer, 503, "fleet_unavailable")


async def test_the_endpoints_last_minutes_hold_load_breaker_and_the_engines_cache_hit_rate(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url, poll_interval_s=0.5))
    admin, alice = bearer(keys.token(roles=["admin"])), bearer(keys.token())

    async def sampled(field: str) -> tuple[dict[str, Any], list[Any]]:
        for _ in range(50):
            series = await (await client.get("/ui/api/endpoints", headers=admin)).json()
            values = [v["up"][FIELDS.index(field)] for _, v in series["samples"] if "up" in v]
            if any(values):
                return series, values
            await asyncio.sleep(0.1)
        return series, values

    await sampled("healthy")  # a sample of the scraped engine: the counters to compare with
    for _ in range(2):  # the same prompt twice: the engine serves the second from its prefix cache
        assert (await client.post("/v1/chat/completions", json=chat(), headers=alice)).status == 200
    series, rates = await sampled("cache_hit_rate")
    assert series["pools"] == {"up": "default"}
    assert series["fields"] == list(FIELDS)
    assert any(rate and 0 < rate <= 1 for rate in rates), rates
    last = dict(zip(FIELDS, series["samples"][-1][1]["up"], strict=True))
    assert last["breaker"] == "closed"
    assert last["healthy"] is True
    assert last["inflight"] == 0
    again = await (await client.get(f"/ui/api/endpoints?after={series['cursor']}", headers=admin)).json()
    assert len(again["samples"]) <= 1  # at most the one taken since


async def test_the_page_is_the_same_static_shell_for_everyone_under_a_strict_policy(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(dashboard_config(keys, url))
    page = await client.get("/ui")
    assert page.status == 200
    assert page.content_type == "text/html"
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    again = await client.get("/ui", headers={"If-None-Match": page.headers["ETag"]})
    assert again.status == 304
    for asset, kind in (
        ("/ui/ui.js", "text/javascript"),
        ("/ui/ui.css", "text/css"),
        ("/ui/icon.svg", "image/svg+xml"),
    ):
        assert (await client.get(asset)).content_type == kind
    home = await client.get("/", allow_redirects=False)
    assert home.status == 302
    assert home.headers["Location"] == "/ui"
    off = await proxy(dashboard_config(keys, url, enabled=False))
    await openai_error(await off.get("/ui"), 404, "unknown_route")
    await openai_error(await off.get("/ui/api/requests"), 404, "unknown_route")


async def test_the_batch_jobs_show_a_job_made_with_the_sdk_as_it_runs_and_when_it_ended(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, tmp_path: Path
) -> None:
    [(_, url, _)] = await engines("up", time_scale=1.0, tpot_s=0.05)  # an item takes about 0.8 s: seen running
    client = await proxy(batch_config(keys, url, tmp_path, per_job=2))
    admin = bearer(keys.token(roles=["admin"]))
    before = await client.get("/ui/api/batches", headers=admin)
    assert before.headers["Cache-Control"] == "no-store"
    assert await before.json() == {"enabled": True, "held": 0, "batches": []}  # the room is on, no job yet

    async def shown() -> list[dict[str, Any]]:
        jobs: list[dict[str, Any]] = (await (await client.get("/ui/api/batches", headers=admin)).json())["batches"]
        return jobs

    running: list[dict[str, Any]] = []

    async def watch() -> None:  # what the page would see while the job runs
        while not running:
            running.extend(job for job in await shown() if job["running"] == 2)
            await asyncio.sleep(0.02)

    watching = asyncio.create_task(watch())
    done = await submit(client, keys.token(), 6, metadata={"note": "not-for-the-dashboard"})
    await asyncio.wait_for(watching, 1)
    [during] = running[:1]
    assert during["status"] == "in_progress"
    counts = during["request_counts"]
    assert counts["total"] == 6
    assert during["queued"] + during["running"] + counts["completed"] + counts["failed"] == 6  # per_job 2 at once

    answer = await client.get("/ui/api/batches", headers=admin)
    text = await answer.text()
    assert "not-for-the-dashboard" not in text  # no metadata, no files, not the caller the job keeps
    assert "caller" not in text
    [job] = (await answer.json())["batches"]
    assert done.status == "completed"
    assert done.usage is not None
    usage = done.usage
    ours = (done.model_extra or {})["taskgate"]
    assert ours["cost"] > 0
    assert job == {
        "id": done.id, "status": "completed", "endpoint": "/v1/chat/completions", "class": "background",
        "who": "alice@acme", "created_at": done.created_at, "expires_at": done.expires_at,
        "request_counts": {"total": 6, "completed": 6, "failed": 0}, "queued": 0, "running": 0,
        "pools": {"default": 6},
        "usage": {"input_tokens": usage.input_tokens, "cached_tokens": usage.input_tokens_details.cached_tokens,
                  "output_tokens": usage.output_tokens},
        "cost": ours["cost"],
    }  # fmt: skip
    assert usage.input_tokens > 0


async def test_the_batch_jobs_are_the_newest_ui_batches_and_none_without_the_batch_room(
    proxy: ProxyFactory, engines: StartEngines, keys: Keys, tmp_path: Path
) -> None:
    [(_, url, _)] = await engines("up")
    client = await proxy(batch_config(keys, url, tmp_path, batches=2))
    admin = bearer(keys.token(roles=["admin"]))
    made = [(await submit(client, keys.token(sub=f"user-{n}"), 1)).id for n in range(3)]
    answer = await (await client.get("/ui/api/batches", headers=admin)).json()
    assert answer["held"] == 3
    assert [job["id"] for job in answer["batches"]] == made[:0:-1]  # the newest two, newest first
    assert [job["who"] for job in answer["batches"]] == ["user-2@acme", "user-1@acme"]
    off = await proxy(dashboard_config(keys, url) | {"batch": {"enabled": False}})
    assert await (await off.get("/ui/api/batches", headers=admin)).json() == {
        "enabled": False, "held": 0, "batches": []
    }  # fmt: skip
    await openai_error(await off.get("/ui/api/batches"), 401, "token_missing")  # and still only for the role


def test_the_view_of_a_task_keeps_its_trace_on_the_tasks_axis_and_each_calls_decisions() -> None:
    denied = {"tool": "mail__delete", "outcome": "deny", "reason": "not needed", "sources": {"role": "r-ops"}}
    record = {
        "request_id": "t",
        "started_at": 1.5,
        "path": "/v1/chat/completions",
        "status": 200,
        "duration_ms": 90.0,
        "steps": [{"step": "authn", "outcome": "ok", "start_ms": 0.1, "duration_ms": 0.2}],
        "decisions": {"identity": {"subject": "alice", "tenant": "acme"}, "cluster": {"engines": {"up": {}}}},
        "task": {
            "task": "k",
            "turns": 1,
            "trace": [
                {"kind": "model_turn", "turn": 1, "started_ms": 1.0, "request_id": "t.t1", "duration_ms": 40.0,
                 "decisions": {"placement": {"pool": "p", "endpoint": "up", "candidates": {"up": {"total": 1.0}}}},
                 "dispatch": {"started_ms": 2.0, "attempts": [{"endpoint": "up", "ms": 3.0, "status": 200}],
                              "engine_cached_tokens": 64}},
                {"kind": "tool_call", "tool": "mail__delete", "allowed": False, "started_ms": 41.0, "status": 403,
                 "duration_ms": 1.0, "error": {"code": "tool_denied", "message": "denied", "decision": denied}},
            ],
        },
    }  # fmt: skip
    shown = view(record)
    assert shown["who"] == "alice@acme"
    assert "cluster" not in str(shown)
    turn, call = shown["task"]["trace"]
    assert (turn["start"], turn["ms"], call["start"]) == (1.0, 40.0, 41.0)
    assert turn["placement"]["engine_cached_tokens"] == 64
    assert turn["placement"]["candidates"] == {"up": {"total": 1.0}}
    assert turn["upstream"]["attempts"] == [["up", 3.0, 200]]
    assert call["error"]["decision"] == {"name": "mail__delete", "outcome": "deny", "reason": "not needed",
                                         "sources": {"role": "r-ops"}}  # fmt: skip


def test_the_view_counts_personal_data_by_type_in_the_request_and_in_the_answer() -> None:
    pii = {
        "counts": {"EMAIL_ADDRESS": 7},
        "actions": {"EMAIL_ADDRESS": "redact"},
        "findings": [{"entity": "EMAIL_ADDRESS", "action": "redact"}],  # the record's list may be cut short
        "output": {"counts": {"PHONE_NUMBER": 1}, "findings": [{"entity": "PHONE_NUMBER", "action": "redact"}]},
    }
    assert view({"decisions": {"pii": pii}})["pii"] == [
        {"type": "EMAIL_ADDRESS", "action": "redact", "where": "request", "count": 7},
        {"type": "PHONE_NUMBER", "action": "redact", "where": "answer", "count": 1},
    ]
    blocked = {
        "code": "pii_blocked",
        "step": "pii",
        "pii": {"counts": {"CREDIT_CARD": 1}, "actions": {"CREDIT_CARD": "block"}},
    }
    shown = view({"status": 400, "error": blocked})
    assert shown["pii"] == [{"type": "CREDIT_CARD", "action": "block", "where": "request", "count": 1}]
    assert shown["error"] == {"code": "pii_blocked", "step": "pii"}


def test_the_cache_hit_rate_is_hits_over_lookups_between_two_samples_and_a_reset_is_no_rate() -> None:
    counters = iter([(0, 0), (30, 100), (30, 100), (5, 10), (15, 30)])
    endpoint: dict[str, Any] = {"pool": "p", "breaker": "closed"}

    def readings() -> dict[str, dict[str, Any]]:
        hits, queries = next(counters)
        return {"e": {**endpoint, "prefix_hits": hits, "prefix_queries": queries}}

    history = History([readings], interval_s=1.0, minutes=0.05)  # three samples kept
    for _ in range(5):
        history.sample()
    rates = [values["e"][FIELDS.index("cache_hit_rate")] for _, values in history.since(0)["samples"]]
    assert rates == [None, None, 0.5]  # no lookups between two; the engine restarted; 10 of 20 since
    assert history.since(history.taken)["samples"] == []
    assert len(history.since(10**6)["samples"]) == 3  # a cursor this history never gave: everything kept
