"""The Batch API driven with the official openai SDK: files, jobs, cancellation, expiry, refusals, ownership."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.authz.conftest import Keys
from tests.authz.policy import authz_config
from tests.authz.test_limits import limited
from tests.guards.conftest import PII_BLOCKING

from ..conftest import CARD, ProxyFactory
from .conftest import engine, jsonl, line, lines_of, records, until, until_ended


def sdk(client: Any, token: str = "x") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=str(client.make_url("/v1")), api_key=token, max_retries=0, timeout=30)


def plain_config(url: str, tmp_path: Path, **batch: Any) -> dict[str, Any]:
    pool = {"name": "p", "endpoints": [{"name": "sim", "url": url}], "models": [{"name": "m"}]}
    return {
        "routing": {"pools": [pool], "state": {"scrape_interval_s": 0.1}},
        "batch": {"directory": str(tmp_path / "batches"), **batch},
        "logging": {"evidence": False},
    }


async def test_a_batch_runs_every_line_and_its_output_file_answers_each(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server)
    client = await proxy(plain_config(sim.url, tmp_path))
    async with sdk(client) as api:
        uploaded = await api.files.create(
            file=("in.jsonl", jsonl(*(line(f"q{i}", f"question {i}") for i in range(6)))), purpose="batch"
        )
        assert uploaded.purpose == "batch"
        assert uploaded.bytes > 0
        assert (await api.files.retrieve(uploaded.id)).id == uploaded.id
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h",
            metadata={"job": "nightly"},
        )  # fmt: skip
        assert batch.status in ("validating", "in_progress")
        assert batch.request_counts is not None
        done = await until_ended(api, batch.id)
        assert done.status == "completed"
        assert done.request_counts is not None
        assert done.request_counts.completed == 6
        assert done.request_counts.failed == 0
        assert done.error_file_id is None
        assert done.metadata == {"job": "nightly"}
        assert done.usage is not None
        assert done.usage.input_tokens > 0
        assert done.usage.output_tokens > 0
        output = await lines_of(api, done.output_file_id)
        listed = [b.id async for b in api.batches.list()]
    assert sorted(o["custom_id"] for o in output) == [f"q{i}" for i in range(6)]
    for entry in output:
        assert entry["response"]["status_code"] == 200
        assert entry["response"]["body"]["object"] == "chat.completion"
        assert entry["taskgate"]["pool"] == "p"
    assert listed == [batch.id]
    assert len(sim.bodies_with("question")) == 6  # each item ran once
    kept = records(client)
    items = [r for r in kept if r.get("batch", {}).get("batch_id") == batch.id and r["surface"] == "chat"]
    assert sorted(r["batch"]["custom_id"] for r in items) == [f"q{i}" for i in range(6)]
    assert all(r["decisions"]["placement"]["class"] == "background" for r in items)
    job = [r for r in kept if r["surface"] == "batches" and r.get("batch", {}).get("status") == "completed"]
    assert job
    assert job[0]["batch"]["counts"]["completed"] == 6
    kept_files = [p for p in (tmp_path / "batches").rglob("*") if p.is_file()]
    assert len(kept_files) >= 5  # the input, output and job, with their objects
    assert {oct(p.stat().st_mode & 0o777) for p in kept_files} == {"0o600"}  # prompts and callers: the owner's only


async def test_embeddings_and_completions_items_run_through_their_own_surfaces(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server)
    client = await proxy(plain_config(sim.url, tmp_path))
    async with sdk(client) as api:
        cases: list[tuple[Any, dict[str, Any], str]] = [
            ("/v1/embeddings", {"input": "one"}, "list"),
            ("/v1/completions", {"prompt": "say hi"}, "text_completion"),
        ]
        for url, fields, kind in cases:
            items = [
                json.dumps({"custom_id": c, "method": "POST", "url": url, "body": {"model": "m", **fields}})
                for c in "ab"
            ]
            uploaded = await api.files.create(file=("in.jsonl", jsonl(*items)), purpose="batch")
            batch = await api.batches.create(input_file_id=uploaded.id, endpoint=url, completion_window="24h")
            done = await until_ended(api, batch.id)
            output = await lines_of(api, done.output_file_id)
            assert done.status == "completed", done
            assert {o["response"]["body"]["object"] for o in output} == {kind}


@pytest.mark.parametrize(
    ("lines", "line_number", "says"),
    [
        ([line("a", "x"), line("b", "y"), '{"custom_id": "c", '], 3, "not valid JSON"),
        ([line("a", "x"), line("a", "y")], 2, "appears on an earlier line"),
        ([line("a", "x"), line("b", "y", "/v1/embeddings")], 2, "targets one url"),
        ([line("a", "x", stream=True)], 1, "answered whole"),
        ([line("a", "x"), line("b", "y", max_tokens="many")], 2, "max_tokens"),
        ([json.dumps({"custom_id": "a", "method": "GET", "url": "/v1/chat/completions", "body": {}})], 1, "POST"),
        ([json.dumps({"custom_id": "a", "method": "POST", "url": "/v1/images", "body": {"model": "m"}})], 1, "url"),
    ],
)
async def test_a_malformed_line_is_refused_with_its_line_number(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path, lines: list[str], line_number: int, says: str
) -> None:
    sim = await engine(aiohttp_server)
    client = await proxy(plain_config(sim.url, tmp_path))
    async with sdk(client) as api:
        with pytest.raises(openai.BadRequestError) as refused:
            await api.files.create(file=("in.jsonl", jsonl(*lines)), purpose="batch")
        listed = [f async for f in api.files.list()]
    error = refused.value.body
    assert isinstance(error, dict)
    assert error["code"] == "invalid_batch_line"
    assert error["message"].startswith(f"line {line_number}: ")
    assert says in error["message"]
    assert listed == []  # nothing of a refused file is kept
    assert not list((tmp_path / "batches" / "files").glob("*.jsonl"))


async def test_bad_requests_get_openai_errors_not_5xx(aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path) -> None:
    sim = await engine(aiohttp_server)
    client = await proxy(plain_config(sim.url, tmp_path, max_file_bytes=2000))
    async with sdk(client) as api:
        with pytest.raises(openai.BadRequestError, match="purpose"):
            await api.files.create(file=("in.jsonl", jsonl(line("a", "x"))), purpose="fine-tune")
        with pytest.raises(openai.APIStatusError) as big:
            await api.files.create(
                file=("in.jsonl", jsonl(*(line(f"i{n}", "x" * 100) for n in range(20)))), purpose="batch"
            )
        assert big.value.status_code == 413
        uploaded = await api.files.create(file=("in.jsonl", jsonl(line("a", "x"))), purpose="batch")
        with pytest.raises(openai.BadRequestError, match="completion_window"):
            await api.batches.create(input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="1h")  # type: ignore[arg-type]
        with pytest.raises(openai.BadRequestError, match="not /v1/embeddings"):
            await api.batches.create(input_file_id=uploaded.id, endpoint="/v1/embeddings", completion_window="24h")
        with pytest.raises(openai.NotFoundError):
            await api.batches.create(input_file_id="file-00", endpoint="/v1/chat/completions", completion_window="24h")
        with pytest.raises(openai.NotFoundError):
            await api.batches.retrieve("batch_0123")
        with pytest.raises(openai.NotFoundError):
            await api.files.content("../../etc/passwd")
    broken = [
        ("/v1/batches", b"[1]", "application/json"),
        ("/v1/batches", b"{", "application/json"),
        ("/v1/files", b"x", "application/json"),
        ("/v1/files", b"garbage", "multipart/form-data; boundary=xyz"),
        ("/v1/files", b"--x\r\n", "multipart/form-data"),
        (
            "/v1/files",
            b'--xyz\r\nContent-Disposition: form-data; name="file"\r\n\r\ncut short',
            "multipart/form-data; boundary=xyz",
        ),
    ]
    for path, body, kind in broken:
        response = await client.post(path, data=body, headers={"Content-Type": kind})
        assert 400 <= response.status < 500, await response.text()
        assert "error" in await response.json()
    assert not list((tmp_path / "batches" / "files").glob("*.jsonl"))[1:]  # only the good upload above is kept


async def test_a_cancelled_batch_starts_no_more_items(aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.02, default_max_tokens=8)
    client = await proxy(plain_config(sim.url, tmp_path, concurrency=1, per_job=1))
    async with sdk(client) as api:
        uploaded = await api.files.create(
            file=("in.jsonl", jsonl(*(line(f"c{i}", f"n{i}") for i in range(20)))), purpose="batch"
        )
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        await until(lambda: bool(sim.seen))
        cancelling = await api.batches.cancel(batch.id)
        assert cancelling.status == "cancelling"
        done = await until_ended(api, batch.id)
        with pytest.raises(openai.ConflictError):
            await api.batches.cancel(batch.id)
        output = await lines_of(api, done.output_file_id)
    assert done.status == "cancelled"
    assert done.cancelled_at is not None
    assert done.request_counts is not None
    assert done.request_counts.total == 20
    assert 1 <= done.request_counts.completed < 20
    assert len(output) == done.request_counts.completed  # what ran before the cancel is kept
    await asyncio.sleep(0.3)
    assert len(sim.seen) == len(output)  # and nothing started after it


async def test_items_past_the_window_are_written_as_expired(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.05, default_max_tokens=8)
    client = await proxy(plain_config(sim.url, tmp_path, concurrency=1, per_job=1, windows=["24h", "2s"]))
    async with sdk(client) as api:
        uploaded = await api.files.create(
            file=("in.jsonl", jsonl(*(line(f"e{i}", f"n{i}") for i in range(12)))), purpose="batch"
        )
        batch = await api.batches.create(
            input_file_id=uploaded.id,
            endpoint="/v1/chat/completions",
            completion_window="2s",  # type: ignore[arg-type]
        )
        done = await until_ended(api, batch.id, seconds=10)
        output, errors = await lines_of(api, done.output_file_id), await lines_of(api, done.error_file_id)
    assert done.status == "expired"
    assert done.expired_at is not None
    assert output
    assert errors
    assert {e["error"]["code"] for e in errors} == {"batch_expired"}
    assert sorted(o["custom_id"] for o in output + errors) == sorted(f"e{i}" for i in range(12))  # nothing lost
    kept = records(client)
    due = [r["batch"]["due"] for r in kept if r.get("batch", {}).get("batch_id") == batch.id and "due" in r["batch"]]
    assert due[0] is False
    assert due[-1] is True


@pytest.fixture
def guarded(keys: Keys, tmp_path: Path) -> Any:
    def make(url: str) -> dict[str, Any]:
        config = authz_config(keys, tmp_path, url)
        config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns", **PII_BLOCKING}})
        config["pipelines"]["chat"] = ["authn", "classify", "authorize", "pii", "state", "route"]
        config["batch"] = {"directory": str(tmp_path / "batches")}
        return config

    return make


async def test_items_run_as_the_caller_and_a_refused_one_lands_in_the_error_file(
    aiohttp_server: Any, proxy: ProxyFactory, keys: Keys, guarded: Any
) -> None:
    sim = await engine(aiohttp_server)
    client = await proxy(guarded(sim.url))
    lines = [line("ok-1", "summarise my week"), line("card", f"charge my card {CARD}"), line("ok-2", "thanks")]
    async with sdk(client, keys.token()) as alice, sdk(client, keys.token(sub="bob", tenant="other")) as bob:
        uploaded = await alice.files.create(file=("in.jsonl", jsonl(*lines)), purpose="batch")
        batch = await alice.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        with pytest.raises(openai.NotFoundError):
            await bob.batches.retrieve(batch.id)
        with pytest.raises(openai.NotFoundError):
            await bob.files.content(uploaded.id)
        with pytest.raises(openai.NotFoundError):
            await bob.batches.create(
                input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
            )
        assert [b.id async for b in bob.batches.list()] == []
        done = await until_ended(alice, batch.id)
        output, errors = await lines_of(alice, done.output_file_id), await lines_of(alice, done.error_file_id)
        with pytest.raises(openai.NotFoundError):
            await bob.files.content(done.output_file_id or "")
    async with sdk(client, "not-a-token") as nobody:
        with pytest.raises(openai.AuthenticationError):
            await nobody.batches.list()
    assert done.status == "completed"
    assert sorted(o["custom_id"] for o in output) == ["ok-1", "ok-2"]
    assert [e["custom_id"] for e in errors] == ["card"]
    assert errors[0]["response"]["status_code"] == 400
    assert errors[0]["error"]["code"] == errors[0]["response"]["body"]["error"]["code"] == "pii_blocked"
    assert not sim.bodies_with(CARD[:4])  # the refused item never reached the engine
    kept = records(client)
    items = [r for r in kept if r.get("batch", {}).get("batch_id") == batch.id and r["surface"] == "chat"]
    assert {r["decisions"]["identity"]["subject"] for r in items} == {"alice"}
    tasks = [r["decisions"]["grant"]["task"] for r in items if "grant" in r["decisions"]]
    assert len(tasks) == len(set(tasks)) == 3
    assert all(t.startswith(f"{batch.id}-") for t in tasks)


async def test_interactive_requests_go_first_and_batch_items_start_once_the_pool_is_idle(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.03, default_max_tokens=10, max_num_seqs=1)
    config = plain_config(sim.url, tmp_path)
    config["routing"]["pools"][0]["max_inflight"] = 2  # the engine's one slot, and one queued
    config["routing"]["admission"] = {"idle_low": 0.5, "idle_high": 0.5}  # idle: nothing in flight
    client = await proxy(config)
    async with sdk(client) as api:
        chats = [
            asyncio.create_task(
                api.chat.completions.create(model="m", messages=[{"role": "user", "content": f"live {i}"}])
            )
            for i in range(6)
        ]
        await until(lambda: bool(sim.seen))
        uploaded = await api.files.create(
            file=("in.jsonl", jsonl(*(line(f"b{i}", f"offline {i}") for i in range(4)))), purpose="batch"
        )
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        await asyncio.gather(*chats)
        done = await until_ended(api, batch.id)
    live, offline = sim.bodies_with("live"), sim.bodies_with("offline")
    assert done.status == "completed"
    assert len(offline) == 4
    last_live = max(s.went or 0.0 for s in live)
    assert min(s.came for s in offline) >= last_live  # no item took a slot while interactive work was waiting
    assert min(s.came for s in offline) - last_live < 2.0  # and they started once the pool was idle


async def test_a_tenant_s_batch_work_counts_against_its_budget_and_past_it_items_are_refused(
    aiohttp_server: Any, proxy: ProxyFactory, keys: Keys, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server)
    config = limited(keys, sim.url, {"tenants": {"*": {"tokens": 60, "window_s": 3600}}})
    config["batch"] = {"directory": str(tmp_path / "batches"), "concurrency": 1, "per_job": 1}
    client = await proxy(config)
    async with sdk(client, keys.token()) as api:
        data = jsonl(*(line(f"t{i}", f"item {i}", max_tokens=10) for i in range(10)))
        uploaded = await api.files.create(file=("in.jsonl", data), purpose="batch")
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        done = await until_ended(api, batch.id)
        output, errors = await lines_of(api, done.output_file_id), await lines_of(api, done.error_file_id)
        with pytest.raises(openai.RateLimitError, match="budget"):  # the tenant's interactive work shares it
            await api.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert output
    assert errors
    assert len(output) + len(errors) == 10
    assert {e["error"]["code"] for e in errors} == {"budget_exceeded"}
    spent = sum(o["response"]["body"]["usage"]["total_tokens"] for o in output)
    assert done.usage is not None
    assert done.usage.total_tokens == spent
    assert (
        spent - output[-1]["response"]["body"]["usage"]["total_tokens"] < 60
    )  # every item but the last began within it


async def test_ended_jobs_and_their_files_are_removed_once_kept_long_enough(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server)
    first = await proxy(plain_config(sim.url, tmp_path))
    async with sdk(first) as api:
        uploaded = await api.files.create(file=("in.jsonl", jsonl(line("a", "x"))), purpose="batch")
        old = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        recent = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        old, recent = await until_ended(api, old.id), await until_ended(api, recent.id)
    record_path = tmp_path / "batches" / "batches" / f"{old.id}.json"
    record = json.loads(record_path.read_text())
    record["completed_at"] -= 8 * 24 * 3600  # a week and a day ago: past batch.keep_s
    record_path.write_text(json.dumps(record))
    second = await proxy(plain_config(sim.url, tmp_path))  # the sweep runs at start-up
    async with sdk(second) as api:
        with pytest.raises(openai.NotFoundError):
            await api.batches.retrieve(old.id)
        with pytest.raises(openai.NotFoundError):
            await api.files.content(old.output_file_id or "")
        assert (await api.batches.retrieve(recent.id)).status == "completed"
        assert (await lines_of(api, recent.output_file_id))[0]["custom_id"] == "a"


async def test_a_batch_item_goes_only_where_an_engine_has_room_not_merely_its_pool(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    busy = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.03, default_max_tokens=30)
    spare = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.01, default_max_tokens=4)
    endpoints = [{"name": "busy", "url": busy.url}, {"name": "spare", "url": spare.url}]
    config = plain_config(busy.url, tmp_path)
    config["routing"]["pools"] = [{"name": "p", "endpoints": endpoints, "models": [{"name": "m"}], "max_inflight": 4}]
    config["routing"]["admission"] = {"idle_low": 0.5, "idle_high": 0.8}  # room: a load under 1 per engine
    client = await proxy(config)
    async with sdk(client) as api:
        live = asyncio.create_task(
            api.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "live"}], extra_headers={"x-session-id": "s"}
            )
        )
        await until(lambda: bool(busy.seen) or bool(spare.seen))
        holder = busy if busy.seen else spare
        other = spare if holder is busy else busy
        data = jsonl(*(line(f"b{i}", f"offline {i}") for i in range(4)))
        uploaded = await api.files.create(file=("in.jsonl", data), purpose="batch")
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        await live
        done = await until_ended(api, batch.id)
    assert done.status == "completed"
    live_request = holder.bodies_with("live")[0]
    during = [s for s in holder.bodies_with("offline") if s.came < (live_request.went or 0.0)]
    assert not during  # while the live request held that engine, no batch item joined it
    assert other.bodies_with("offline")  # the engine with room took them
    kept = [r for r in records(client) if r.get("batch", {}).get("batch_id") == batch.id and r["surface"] == "chat"]
    assert sorted(r["batch"]["custom_id"] for r in kept) == [f"b{i}" for i in range(4)]  # waiting left no record


async def test_an_item_with_a_long_prefill_waits_for_an_engine_live_work_has_left_quiet(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server, time_scale=1.0, tpot_s=0.02, default_max_tokens=10)
    config = plain_config(sim.url, tmp_path)
    config["routing"]["pools"][0]["prefill_tokens_per_s"] = 10_000  # a 1,000-word document: ~130 ms of prefill
    config["routing"]["admission"] = {"idle_prefill_ms": 20, "idle_quiet_s": 1.0}
    client = await proxy(config)
    document = " ".join(f"word{i}" for i in range(1000))
    async with sdk(client) as api:
        await api.chat.completions.create(model="m", messages=[{"role": "user", "content": "live"}])
        data = jsonl(line("short", "offline hi"), line("long", f"offline summarise: {document}"))
        uploaded = await api.files.create(file=("in.jsonl", data), purpose="batch")
        batch = await api.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        done = await until_ended(api, batch.id)
    assert done.status == "completed"
    live_left = sim.bodies_with("live")[0].went or 0.0
    short, long = sim.bodies_with("offline hi")[0], sim.bodies_with("summarise")[0]
    assert short.came - live_left < 1.0  # a short prefill may start beside live work at once
    assert long.came - live_left >= 1.0  # a long one waits until the engine has been quiet for idle_quiet_s


async def test_responses_items_are_translated_onto_the_chat_plan_and_answered_as_responses(
    aiohttp_server: Any, proxy: ProxyFactory, tmp_path: Path
) -> None:
    sim = await engine(aiohttp_server)
    client = await proxy(plain_config(sim.url, tmp_path))
    items = [
        json.dumps(
            {
                "custom_id": f"r{i}",
                "method": "POST",
                "url": "/v1/responses",
                "body": {"model": "m", "input": f"respond {i}", "instructions": "Be brief.", "metadata": {"n": str(i)}},
            }
        )
        for i in range(3)
    ]
    async with sdk(client) as api:
        uploaded = await api.files.create(file=("in.jsonl", jsonl(*items)), purpose="batch")
        batch = await api.batches.create(input_file_id=uploaded.id, endpoint="/v1/responses", completion_window="24h")
        done = await until_ended(api, batch.id)
        output = await lines_of(api, done.output_file_id)
    assert done.status == "completed"
    assert sorted(o["custom_id"] for o in output) == ["r0", "r1", "r2"]
    for entry in output:
        body = entry["response"]["body"]
        assert body["object"] == "response"
        assert body["status"] == "incomplete"  # the engine stopped at its token limit, as a Response says so
        assert body["instructions"] == "Be brief."  # the fields a Response echoes, as /v1/responses gives them
        assert body["metadata"] == {"n": entry["custom_id"][1:]}
        assert body["output"][0]["content"][0]["text"]
        assert body["usage"]["input_tokens"] > 0
    sent = [s.body for s in sim.bodies_with("respond")]
    assert len(sent) == 3
    assert all(b["messages"][0] == {"role": "system", "content": "Be brief."} for b in sent)  # translated to chat
    assert done.usage is not None
    assert done.usage.input_tokens > 0  # the job sums a Responses answer's input and output tokens
