"""The HTTP surface: OpenAI shapes, streaming, errors, models, metrics."""

from dataclasses import replace

from taskgate.sim import ENGINE_HEADER
from tests.sim.conftest import MakeClient
from tests.sim.helpers import INSTANT, chunks, metric, scrape, sse_events

CHAT = {"model": "sim-a", "messages": [{"role": "user", "content": "Tell me about caches."}]}


async def test_chat_completion_has_openai_shape_and_usage(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    response = await client.post("/v1/chat/completions", json=CHAT | {"max_tokens": 5})
    body = await response.json()
    assert response.status == 200
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    choice = body["choices"][0]
    assert choice["message"]["role"] == "assistant"
    assert choice["finish_reason"] == "length"
    usage = body["usage"]
    assert usage["completion_tokens"] == 5
    assert usage["prompt_tokens"] == 7
    assert usage["total_tokens"] == 12
    assert usage["prompt_tokens_details"] == {"cached_tokens": 0}


async def test_max_tokens_defaults_to_sixteen_and_max_completion_tokens_is_honoured(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    default = await (await client.post("/v1/chat/completions", json=CHAT)).json()
    explicit = await (await client.post("/v1/chat/completions", json=CHAT | {"max_completion_tokens": 3})).json()
    assert default["usage"]["completion_tokens"] == 16
    assert explicit["usage"]["completion_tokens"] == 3


async def test_same_body_gives_same_text_and_another_prompt_differs(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    other = {"model": "sim-a", "messages": [{"role": "user", "content": "Something else."}]}
    texts = []
    for body in (CHAT, CHAT, other):
        reply = await (await client.post("/v1/chat/completions", json=body)).json()
        texts.append(reply["choices"][0]["message"]["content"])
    assert texts[0] == texts[1] != texts[2]


async def test_stream_sends_one_chunk_per_token_then_done(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    plain = await (await client.post("/v1/chat/completions", json=CHAT | {"max_tokens": 7})).json()
    response = await client.post("/v1/chat/completions", json=CHAT | {"max_tokens": 7, "stream": True})
    assert response.headers["Content-Type"].startswith("text/event-stream")
    parts = chunks(await sse_events(response))
    deltas = [part["choices"][0]["delta"] for part in parts]
    assert len(parts) == 7
    assert deltas[0]["role"] == "assistant"
    assert "".join(delta["content"] for delta in deltas) == plain["choices"][0]["message"]["content"]
    reasons = [part["choices"][0]["finish_reason"] for part in parts]
    assert reasons == [None] * 6 + ["length"]
    assert all("usage" not in part for part in parts)


async def test_include_usage_adds_a_final_usage_chunk(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    body = CHAT | {"max_tokens": 4, "stream": True, "stream_options": {"include_usage": True}}
    parts = chunks(await sse_events(await client.post("/v1/chat/completions", json=body)))
    assert len(parts) == 5
    assert all(part["usage"] is None for part in parts[:-1])
    assert parts[-1]["choices"] == []
    assert parts[-1]["usage"]["completion_tokens"] == 4


async def test_text_completion_streams_text_chunks(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    body = {"model": "sim-b", "prompt": "Once upon a time", "max_tokens": 6}
    plain = await (await client.post("/v1/completions", json=body)).json()
    parts = chunks(await sse_events(await client.post("/v1/completions", json=body | {"stream": True})))
    assert plain["object"] == "text_completion"
    assert plain["usage"]["prompt_tokens"] == 4
    assert "".join(part["choices"][0]["text"] for part in parts) == plain["choices"][0]["text"]


async def test_completion_accepts_token_ids(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    body = {"model": "sim-a", "prompt": [101, 102, 103], "max_tokens": 2}
    reply = await (await client.post("/v1/completions", json=body)).json()
    assert reply["usage"]["prompt_tokens"] == 3


async def test_unknown_model_is_an_openai_style_404(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    response = await client.post("/v1/chat/completions", json=CHAT | {"model": "gpt-nope"})
    assert response.status == 404
    error = (await response.json())["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == "model_not_found"
    assert "gpt-nope" in error["message"]


async def test_malformed_json_is_an_openai_style_400(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    response = await client.post("/v1/completions", data=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["type"] == "invalid_request_error"
    assert "Malformed JSON" in error["message"]


async def test_invalid_fields_are_rejected_with_the_param_named(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    cases = {
        "max_tokens": CHAT | {"max_tokens": "many"},
        "messages": {"model": "sim-a", "messages": []},
        "stream_options": CHAT | {"stream_options": {"include_usage": True}},
        "n": CHAT | {"n": 2},
    }
    for param, body in cases.items():
        response = await client.post("/v1/chat/completions", json=body)
        assert response.status == 400
        assert (await response.json())["error"]["param"] == param


async def test_request_longer_than_the_context_is_rejected(sim_client: MakeClient) -> None:
    client = await sim_client(replace(INSTANT, max_model_len=64))
    response = await client.post("/v1/completions", json={"model": "sim-a", "prompt": "a " * 60, "max_tokens": 8})
    assert response.status == 400
    assert "maximum context length is 64" in (await response.json())["error"]["message"]


async def test_request_bigger_than_the_kv_cache_is_rejected_not_queued(sim_client: MakeClient) -> None:
    client = await sim_client(replace(INSTANT, kv_capacity_blocks=2, block_size=4))
    response = await client.post("/v1/completions", json={"model": "sim-a", "prompt": "a b c d e", "max_tokens": 4})
    assert response.status == 400


async def test_models_lists_the_configured_names(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    body = await (await client.get("/v1/models")).json()
    assert [model["id"] for model in body["data"]] == ["sim-a", "sim-b"]
    assert body["object"] == "list"
    assert body["data"][0]["object"] == "model"


async def test_every_response_names_the_engine(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT, name="pool-7")
    responses = [
        await client.get("/health"),
        await client.post("/v1/chat/completions", json=CHAT | {"model": "missing"}),
        await client.post("/v1/chat/completions", json=CHAT | {"stream": True}),
    ]
    assert [response.headers[ENGINE_HEADER] for response in responses] == ["pool-7"] * 3
    assert responses[0].status == 200


async def test_embeddings_are_deterministic_unit_vectors(sim_client: MakeClient) -> None:
    client = await sim_client(replace(INSTANT, embedding_dim=32))
    body = {"model": "sim-a", "input": ["alpha beta", "gamma", "alpha beta"]}
    reply = await (await client.post("/v1/embeddings", json=body)).json()
    vectors = [item["embedding"] for item in reply["data"]]
    assert [len(vector) for vector in vectors] == [32, 32, 32]
    assert vectors[0] == vectors[2] != vectors[1]
    assert abs(sum(value * value for value in vectors[0]) - 1.0) < 1e-9
    assert reply["usage"] == {"prompt_tokens": 5, "total_tokens": 5}


async def test_metrics_use_vllm_names_and_count_tokens(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    await client.post("/v1/chat/completions", json=CHAT | {"max_tokens": 3})
    text = await scrape(client)
    assert 'vllm:num_requests_running{model_name="sim-a"} 0.0' in text
    assert metric(text, "vllm:prompt_tokens_total") == 7
    assert metric(text, "vllm:generation_tokens_total") == 3
    assert metric(text, "vllm:request_success_total") == 1
    assert metric(text, "vllm:time_to_first_token_seconds_count") == 1
    assert metric(text, "vllm:prefix_cache_queries_total") == 7
    for gauge in ("vllm:num_requests_waiting", "vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"):
        assert gauge in text


async def test_two_sims_in_one_process_keep_separate_metrics(sim_client: MakeClient) -> None:
    busy, idle = await sim_client(INSTANT, "busy"), await sim_client(INSTANT, "idle")
    await busy.post("/v1/chat/completions", json=CHAT)
    assert metric(await scrape(busy), "vllm:request_success_total") == 1
    assert metric(await scrape(idle), "vllm:request_success_total") == 0


async def test_health_is_an_empty_200(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    response = await client.get("/health")
    assert response.status == 200
    assert await response.read() == b""


async def test_chat_template_counts_tools_in_the_prompt(sim_client: MakeClient) -> None:
    client = await sim_client(INSTANT)
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    plain = await (await client.post("/v1/chat/completions", json=CHAT)).json()
    with_tools = await (await client.post("/v1/chat/completions", json=CHAT | {"tools": tools})).json()
    assert with_tools["usage"]["prompt_tokens"] > plain["usage"]["prompt_tokens"]
