"""The sim's prefill and decode roles, speaking vLLM's kv_transfer_params exchange."""

from dataclasses import replace
from typing import Any

import pytest

from taskgate.errors import TaskgateError
from taskgate.sim.cli import build_profile
from tests.sim.conftest import MakeClient
from tests.sim.helpers import INSTANT, long_text, metric

ASK = {
    "do_remote_decode": True, "do_remote_prefill": False, "remote_engine_id": None,
    "remote_block_ids": None, "remote_host": None, "remote_port": None,
}  # fmt: skip
PROMPT = long_text(200)


def body(**extra: Any) -> dict[str, Any]:
    return {"model": "sim-a", "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 4, **extra}


async def test_a_prefill_engine_hands_its_blocks_over_and_a_decode_engine_holds_them_after(
    sim_client: MakeClient,
) -> None:
    prefill = await sim_client(replace(INSTANT, role="prefill"), "p0")
    decode = await sim_client(replace(INSTANT, role="decode"), "d0")
    first = await prefill.post("/v1/chat/completions", json=body(max_tokens=1, kv_transfer_params=ASK))
    handed = (await first.json())["kv_transfer_params"]
    assert handed["do_remote_prefill"] is True
    assert handed["remote_engine_id"].startswith("p0-")
    assert len(handed["remote_block_ids"]) == 203 // 16  # the prompt's full blocks
    assert (handed["remote_host"], handed["remote_port"]) == ("127.0.0.1", prefill.server.port)

    pulled = await decode.post("/v1/chat/completions", json=body(kv_transfer_params=handed))
    assert (await pulled.json())["usage"]["completion_tokens"] == 4
    again = await decode.post("/v1/chat/completions", json=body())
    assert (await again.json())["usage"]["prompt_tokens_details"]["cached_tokens"] == 12 * 16
    text = await (await decode.get("/metrics")).text()
    assert metric(text, "vllm:kv_transfer_tokens_total") == 12 * 16
    assert metric(await (await prefill.get("/metrics")).text(), "vllm:kv_transfer_handoffs_total") == 1


async def test_each_role_refuses_the_other_half_with_a_400(sim_client: MakeClient) -> None:
    prefill = await sim_client(replace(INSTANT, role="prefill"), "p0")
    decode = await sim_client(replace(INSTANT, role="decode"), "d0")
    refused = await decode.post("/v1/chat/completions", json=body(kv_transfer_params=ASK))
    assert refused.status == 400
    assert "decodes only" in (await refused.json())["error"]["message"]
    handed = {"do_remote_prefill": True, "remote_engine_id": "p0-x", "remote_block_ids": [1, 2]}
    refused = await prefill.post("/v1/chat/completions", json=body(kv_transfer_params=handed))
    assert refused.status == 400
    bad = await decode.post("/v1/completions", json={"model": "sim-a", "prompt": "hi", "kv_transfer_params": 3})
    assert (await bad.json())["error"]["param"] == "kv_transfer_params"


async def test_an_engine_of_role_both_ignores_transfer_parameters(sim_client: MakeClient) -> None:
    both = await sim_client(INSTANT)
    answer = await both.post("/v1/chat/completions", json=body(kv_transfer_params=ASK))
    assert answer.status == 200
    assert "kv_transfer_params" not in await answer.json()


def test_the_cli_takes_a_role_and_refuses_an_unknown_one() -> None:
    built = build_profile("h100", None, {"role": "decode", "kv_transfer_gb_per_s": 25.0, "prefill_stalls_decode": True})
    assert (built.role, built.kv_transfer_gb_per_s, built.prefill_stalls_decode) == ("decode", 25.0, True)
    assert built.transfer_s(1000) == pytest.approx(1000 * 131_072 / 25e9)
    with pytest.raises(TaskgateError, match="role must be one of prefill, decode, both"):
        build_profile("h100", None, {"role": "router"})
